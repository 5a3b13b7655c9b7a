package http

import (
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// accountIDJSON is {type: "AccountId", id}.
type accountIDJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// stableNameJSON is {type: "StableName", stable_name}.
type stableNameJSON struct {
	Type       string `json:"type"`
	StableName string `json:"stable_name"`
}

// ledgerAccountJSON is what this service knows of a line's ledger account:
// its id and, for the default chart's accounts, its stable name.
type ledgerAccountJSON struct {
	ID         accountIDJSON   `json:"id"`
	StableName *stableNameJSON `json:"stable_name"`
}

// accountOf renders ref as the spec's {type: "AccountId", id}: a stable
// name of the default chart by the id the ledger gives it
// (events.DefaultAccountID).
func accountOf(businessID uuid.UUID, ref invoice.AccountRef) (accountIDJSON, ledgerAccountJSON) {
	id := ""
	var sn *stableNameJSON
	switch {
	case ref.ID != nil:
		id = ref.ID.String()
	default:
		id = events.DefaultAccountID(businessID, ref.StableName).String()
		sn = &stableNameJSON{Type: "StableName", StableName: ref.StableName}
	}
	a := accountIDJSON{Type: "AccountId", ID: id}
	return a, ledgerAccountJSON{ID: a, StableName: sn}
}
