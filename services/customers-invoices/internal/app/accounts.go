package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// AccountStore is the projection of the businesses' charts of accounts
// (acct.accounts.v1), which the ledger will post the documents' entries
// on.
type AccountStore interface {
	// CheckAccounts makes sure every account of fields is a live account
	// of the business's chart, so that the ledger will accept the
	// document's posting: an unknown or archived one is a 400
	// UnknownAccount naming its field. While the business's chart has not
	// reached this service yet, naming an account is a 503 Unavailable
	// (Retry-After: 1). The callers leave out the defaults (SALES,
	// BAD_DEBT, tax names), which are the default chart's and always
	// there.
	CheckAccounts(ctx context.Context, businessID uuid.UUID, fields []invoice.AccountField) error
}
