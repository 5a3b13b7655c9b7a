// Package chart is a service's local copy of the businesses' charts of
// accounts, as the ledger (the transactions service) publishes them on
// acct.accounts.v1, and the check that the accounts a document names are
// live accounts of its business's chart before the document is stored and
// its posting published (so that the ledger never dead-letters the
// posting). customers-invoices and bills-tags use it; each keeps the
// ledger_accounts table in its own schema, created by its own migration,
// and decides which accounts a document names.
package chart

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
)

// EnumUnknownAccount is the enum of the 400 of an account the business's
// chart does not have (or has archived).
const EnumUnknownAccount = "UnknownAccount"

// Ref is a reference to a ledger account: by id, or by the stable name of
// a default-chart account.
type Ref struct {
	ID         *uuid.UUID `json:"id,omitempty"`
	StableName string     `json:"stable_name,omitempty"`
}

// IsZero reports an absent reference.
func (r Ref) IsZero() bool { return r.ID == nil && r.StableName == "" }

// Key identifies the reference (an id or a stable name) as a map key.
func (r Ref) Key() string {
	if r.ID != nil {
		return "id:" + r.ID.String()
	}
	return "stable:" + r.StableName
}

// Name is the id or the stable name the reference names.
func (r Ref) Name() string {
	if r.ID != nil {
		return r.ID.String()
	}
	return r.StableName
}

// Store is the projection of the businesses' charts (Table implements it
// on PostgreSQL).
type Store interface {
	UpsertLedgerAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, accounts []events.LedgerAccountSnapshot) error
	// LiveAccounts reports which of refs (by Ref.Key) name a live account
	// of the business, and whether the business's chart has arrived at
	// all.
	LiveAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, refs []Ref) (map[string]bool, bool, error)
}

// Apply keeps the projection from a ledger_accounts.upserted event, in the
// consumer's transaction; other event types are ignored. A malformed event
// (or one without a business id) is an error: it goes to the DLQ.
func Apply(ctx context.Context, tx bun.IDB, store Store, e events.Event) error {
	if e.Type != events.TypeLedgerAccountsUpserted {
		return nil
	}
	var p events.LedgerAccountsUpserted
	if err := e.Decode(&p); err != nil {
		return err
	}
	if p.BusinessID == uuid.Nil {
		return fmt.Errorf("accounts event %s: no business_id", e.ID)
	}
	return store.UpsertLedgerAccounts(ctx, tx, p.BusinessID, p.Accounts)
}

// Handler is the acct.accounts.v1 consumer that keeps store (Apply).
func Handler(store Store) consumer.Handler {
	return func(ctx context.Context, tx bun.Tx, e events.Event) error {
		return Apply(ctx, tx, store, e)
	}
}

// Field is an account reference a request names, with the request field
// it came from.
type Field struct {
	Name string
	Ref  Ref
}

// Check makes sure every one of fields is a live account of the business's
// chart: an unknown or archived one is a 400 InvalidPayload with the enum
// UnknownAccount, naming each such field. While the business's chart has
// not reached this service yet it is a 503 Unavailable (the client
// retries), unless every field is one that existsBeforeChart (may be nil)
// knows to exist from the business's creation on. The caller leaves out
// the fields it need not check (absent references, the defaults).
func Check(ctx context.Context, db bun.IDB, store Store, businessID uuid.UUID, fields []Field, existsBeforeChart func(Ref) bool) error {
	if len(fields) == 0 {
		return nil
	}
	if store == nil {
		return fmt.Errorf("no chart of accounts projection to check %d accounts", len(fields))
	}
	refs := make([]Ref, len(fields))
	for i, f := range fields {
		refs[i] = f.Ref
	}
	live, arrived, err := store.LiveAccounts(ctx, db, businessID, refs)
	if err != nil {
		return err
	}
	if !arrived {
		for _, f := range fields {
			if existsBeforeChart == nil || !existsBeforeChart(f.Ref) {
				return apperr.New(apperr.Unavailable, "the business's chart of accounts has not reached this service yet; retry shortly")
			}
		}
		return nil
	}
	bad := map[string]string{}
	for _, f := range fields {
		if !live[f.Ref.Key()] {
			bad[f.Name] = "the business has no live ledger account " + f.Ref.Name()
		}
	}
	if len(bad) > 0 {
		return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumUnknownAccount)
	}
	return nil
}
