package events

import (
	"time"

	"github.com/google/uuid"
)

// TypeLedgerAccountsUpserted is published on TopicAccounts by the
// transactions service whenever accounts of a business's chart are
// created, renamed or archived (a seeded chart: all of it in one event).
const TypeLedgerAccountsUpserted = "ledger_accounts.upserted"

// LedgerAccountsUpserted is the payload of ledger_accounts.upserted: the
// current state of the accounts named (a consumer keeps the newest
// UpdatedAt of each).
type LedgerAccountsUpserted struct {
	BusinessID uuid.UUID               `json:"business_id"`
	Accounts   []LedgerAccountSnapshot `json:"accounts"`
}

// LedgerAccountSnapshot is one account of a chart.
type LedgerAccountSnapshot struct {
	ID          uuid.UUID  `json:"id"`
	StableName  *string    `json:"stable_name"`
	Name        string     `json:"name"`
	AccountType string     `json:"account_type"` // ASSET, LIABILITY, EQUITY, REVENUE, EXPENSE
	ParentID    *uuid.UUID `json:"parent_id"`
	Archived    bool       `json:"archived"`
	UpdatedAt   time.Time  `json:"updated_at"`
}
