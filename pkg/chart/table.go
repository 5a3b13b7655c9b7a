package chart

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/events"
)

// Table is the Store on the ledger_accounts table of the connection's
// schema (each service creates it by its own migration: business_id, id
// (the primary key together), stable_name, name, account_type, archived,
// updated_at). It holds no connection: every method runs on the bun.IDB it
// is given.
type Table struct{}

var _ Store = Table{}

// ledgerAccountRow is a row of ledger_accounts.
type ledgerAccountRow struct {
	bun.BaseModel `bun:"table:ledger_accounts,alias:la"`

	BusinessID  uuid.UUID `bun:"business_id,pk,type:uuid"`
	ID          uuid.UUID `bun:"id,pk,type:uuid"`
	StableName  *string   `bun:"stable_name"`
	Name        string    `bun:"name"`
	AccountType string    `bun:"account_type"`
	Archived    bool      `bun:"archived"`
	UpdatedAt   time.Time `bun:"updated_at"`
}

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// UpsertLedgerAccounts implements Store: each account's newest state wins
// (an older snapshot redelivered changes nothing).
func (Table) UpsertLedgerAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, accounts []events.LedgerAccountSnapshot) error {
	if len(accounts) == 0 {
		return nil
	}
	rows := make([]ledgerAccountRow, len(accounts))
	for i, a := range accounts {
		rows[i] = ledgerAccountRow{BusinessID: businessID, ID: a.ID, StableName: a.StableName, Name: a.Name,
			AccountType: a.AccountType, Archived: a.Archived, UpdatedAt: a.UpdatedAt}
	}
	_, err := db.NewInsert().Model(&rows).
		On("CONFLICT (business_id, id) DO UPDATE").
		Set("stable_name = EXCLUDED.stable_name, name = EXCLUDED.name, account_type = EXCLUDED.account_type").
		Set("archived = EXCLUDED.archived, updated_at = EXCLUDED.updated_at").
		Where("la.updated_at <= EXCLUDED.updated_at").
		Exec(ctx)
	return wrap("upsert ledger accounts", err)
}

// LiveAccounts implements Store: of refs, the ones naming a live account
// of the business, and whether the business has any account here at all
// (its chart has arrived).
func (Table) LiveAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, refs []Ref) (map[string]bool, bool, error) {
	var ids, names []string
	for _, r := range refs {
		if r.ID != nil {
			ids = append(ids, r.ID.String())
		} else {
			names = append(names, r.StableName)
		}
	}
	var rows []ledgerAccountRow
	if err := db.NewSelect().Model(&rows).
		Where("la.business_id = ? AND NOT la.archived", businessID).
		Where("(la.id = ANY(?::uuid[]) OR la.stable_name = ANY(?::text[]))", pgdialect.Array(ids), pgdialect.Array(names)).
		Scan(ctx); err != nil {
		return nil, false, wrap("find ledger accounts", err)
	}
	out := map[string]bool{}
	for _, r := range refs {
		for _, row := range rows {
			if r.ID != nil && *r.ID == row.ID || r.ID == nil && row.StableName != nil && *row.StableName == r.StableName {
				out[r.Key()] = true
			}
		}
	}
	var any bool
	if err := db.NewRaw("SELECT EXISTS (SELECT 1 FROM ledger_accounts WHERE business_id = ?)", businessID).Scan(ctx, &any); err != nil {
		return nil, false, wrap("find the chart", err)
	}
	return out, any, nil
}

// AccountIDs are the ids of the business's accounts named by names (stable
// names), for the names the projection holds; a name held more than once
// is the live account's, else the most recently updated one's.
func (Table) AccountIDs(ctx context.Context, db bun.IDB, businessID uuid.UUID, names []string) (map[string]uuid.UUID, error) {
	out := make(map[string]uuid.UUID, len(names))
	if len(names) == 0 {
		return out, nil
	}
	var rows []ledgerAccountRow
	if err := db.NewSelect().Model(&rows).
		DistinctOn("la.stable_name").
		Column("la.stable_name", "la.id").
		Where("la.business_id = ? AND la.stable_name = ANY(?::text[])", businessID, pgdialect.Array(names)).
		OrderExpr("la.stable_name, la.archived, la.updated_at DESC, la.id").
		Scan(ctx); err != nil {
		return nil, wrap("find ledger account ids", err)
	}
	for _, r := range rows {
		if r.StableName != nil {
			out[*r.StableName] = r.ID
		}
	}
	return out, nil
}
