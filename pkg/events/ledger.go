package events

import (
	"encoding/json"
	"time"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/google/uuid"
)

// Event types published on TopicLedger by the transactions service.
const (
	// TypeLedgerEntryPosted: a journal entry was posted. Reversals are
	// posted entries too (ReversalOfID set); the entry they reverse is not
	// published again, so a consumer that sums every posted entry's lines
	// always has the ledger's balances.
	TypeLedgerEntryPosted = "ledger.entry.posted"
)

// LedgerEntryPosted is the payload of ledger.entry.posted: the entry with
// everything a report needs, so that consumers never read the ledger's
// tables. Entries are immutable: an entry id is published once (a
// redelivery carries the same payload).
type LedgerEntryPosted struct {
	EntryID     uuid.UUID `json:"entry_id"`
	BusinessID  uuid.UUID `json:"business_id"`
	LedgerID    uuid.UUID `json:"ledger_id"`
	EntryNumber int64     `json:"entry_number"`
	// EntryType is the real product's entry type (BANK, MANUAL, INVOICE...);
	// a reversal has the type of the entry it reverses.
	EntryType string `json:"entry_type"`
	// Agent is who caused the entry (API, SERVICE_AUTO, SERVICE_MANUAL...).
	Agent string `json:"agent"`
	// Date is the calendar date the entry counts on (YYYY-MM-DD, UTC), the
	// date reports group by; EntryAt is the full timestamp.
	Date    string    `json:"date"`
	EntryAt time.Time `json:"entry_at"`
	// SourceType and SourceID name what the entry records (a bank
	// transaction, an invoice, a manual journal entry...); SourceVersion
	// tells successive postings of one source apart.
	SourceType    string     `json:"source_type"`
	SourceID      string     `json:"source_id"`
	SourceVersion string     `json:"source_version"`
	ReversalOfID  *uuid.UUID `json:"reversal_of_id"`
	Memo          *string    `json:"memo"`
	// Tags are the entry's own tags; each line's Tags already include them.
	Tags      []LedgerTag     `json:"tags"`
	Lines     []LedgerLine    `json:"lines"`
	CreatedAt time.Time       `json:"created_at"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}

// LedgerLine is one line of a posted entry. Amount is positive cents and
// Direction its side; SignedAmount is the same amount signed for summing:
// positive for a debit, negative for a credit (so the lines of an entry
// always sum to zero).
type LedgerLine struct {
	LineID         uuid.UUID `json:"line_id"`
	AccountID      uuid.UUID `json:"account_id"`
	AccountName    string    `json:"account_name"`
	StableName     *string   `json:"stable_name"`
	AccountType    string    `json:"account_type"`    // ASSET, LIABILITY, EQUITY, REVENUE, EXPENSE
	AccountSubtype string    `json:"account_subtype"` // e.g. OPERATING_EXPENSES
	Normality      string    `json:"normality"`       // DEBIT or CREDIT
	// Ancestors are the accounts above this one, root first (for grouping
	// custom accounts under the default chart's sections).
	Ancestors    []LedgerAccountRef `json:"ancestors"`
	Direction    string             `json:"direction"` // DEBIT or CREDIT
	Amount       int64              `json:"amount"`
	SignedAmount int64              `json:"signed_amount"`
	Memo         *string            `json:"memo"`
	// Tags are the line's tags merged with the entry's (the tags that
	// apply to this amount).
	Tags []LedgerTag `json:"tags"`
}

// LedgerAccountRef names an account in a line's ancestry.
type LedgerAccountRef struct {
	AccountID  uuid.UUID `json:"account_id"`
	StableName *string   `json:"stable_name"`
	Name       string    `json:"name"`
}

// LedgerTag is a tag on an entry or a line, with the deterministic ids of
// pkg/tags (dimension and value definition) so consumers can join it to the
// tag registry.
type LedgerTag struct {
	ID                   uuid.UUID `json:"id"`
	Key                  string    `json:"key"`
	Value                string    `json:"value"`
	DimensionID          uuid.UUID `json:"dimension_id"`
	DefinitionID         uuid.UUID `json:"definition_id"`
	DimensionDisplayName *string   `json:"dimension_display_name"`
	ValueDisplayName     *string   `json:"value_display_name"`
}

// chartNamespace makes the ids of the default chart's accounts: UUIDv5
// over the business id and the stable name.
var chartNamespace = uuid.MustParse("0b0d6c1e-3f5a-4f3e-9a53-6f1c7d4e2a10")

// DefaultAccountID is the id the ledger gives the default chart's account
// stableName of a business (seeded from business.created). Other services
// use it to name a default account by id without asking the ledger.
func DefaultAccountID(businessID uuid.UUID, stableName string) uuid.UUID {
	return uuid.NewSHA1(chartNamespace, []byte(businessID.String()+":"+stableName))
}

// LedgerID is the id of a business's general ledger (one per business,
// derived from its id).
func LedgerID(businessID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(chartNamespace, []byte("ledger:"+businessID.String()))
}

// LedgerTagsOf is ts in the events' tag shape (never nil).
func LedgerTagsOf(ts []tags.Tag) []LedgerTag {
	out := make([]LedgerTag, len(ts))
	for i, t := range ts {
		out[i] = LedgerTag{
			ID: t.ID, Key: t.Key, Value: t.Value, DimensionID: t.DimensionID, DefinitionID: t.DefinitionID,
			DimensionDisplayName: t.DimensionDisplayName, ValueDisplayName: t.ValueDisplayName,
		}
	}
	return out
}
