package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// EnumUnknownAccount is the 400 of an account the business's chart does
// not have (or has archived).
const EnumUnknownAccount = "UnknownAccount"

// AccountStore is the projection of the businesses' charts of accounts
// (acct.accounts.v1).
type AccountStore interface {
	UpsertLedgerAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, accounts []events.LedgerAccountSnapshot) error
	// LiveAccounts reports which of refs (by AccountRef.Key) name a live
	// account of the business, and whether the business's chart has
	// arrived at all.
	LiveAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, refs []invoice.AccountRef) (map[string]bool, bool, error)
}

// ApplyAccounts keeps the projection from a ledger_accounts.upserted
// event, in the consumer's transaction.
func ApplyAccounts(ctx context.Context, tx bun.IDB, store AccountStore, e events.Event) error {
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

// accountField is an account reference a request names, with its field.
type accountField struct {
	field string
	ref   invoice.AccountRef
}

// checkAccounts makes sure every account a request names explicitly is a
// live account of the business's chart, so that the ledger will accept
// the document's posting: an unknown or archived one is a 400
// UnknownAccount naming the field. (The defaults, SALES, BAD_DEBT, tax
// names, are the default chart's and always there.) While the business's
// chart has not reached this service yet, naming an account is a 503
// Unavailable (Retry-After: 1).
func (a *Invoicing) checkAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, fields []accountField) error {
	if len(fields) == 0 {
		return nil
	}
	refs := make([]invoice.AccountRef, len(fields))
	for i, f := range fields {
		refs[i] = f.ref
	}
	live, chart, err := a.accounts.LiveAccounts(ctx, db, businessID, refs)
	if err != nil {
		return err
	}
	if !chart {
		return apperr.New(apperr.Unavailable, "the business's chart of accounts has not reached this service yet; retry shortly")
	}
	bad := map[string]string{}
	for _, f := range fields {
		if !live[f.ref.Key()] {
			bad[f.field] = "the business has no live ledger account " + f.ref.String()[len("account "):]
		}
	}
	if len(bad) > 0 {
		return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumUnknownAccount)
	}
	return nil
}

// draftAccounts are the accounts a draft names explicitly (line accounts,
// tax accounts).
func draftAccounts(d invoice.Draft) []accountField {
	var out []accountField
	for i, l := range d.Lines {
		if !l.Account.IsZero() {
			out = append(out, accountField{fmt.Sprintf("line_items[%d].account_identifier", i), l.Account})
		}
		for k, t := range l.SalesTaxes {
			if t.Account != nil {
				out = append(out, accountField{fmt.Sprintf("line_items[%d].sales_taxes[%d].tax_account", i, k), *t.Account})
			}
		}
	}
	for k, t := range d.AdditionalSalesTaxes {
		if t.Account != nil {
			out = append(out, accountField{fmt.Sprintf("additional_sales_taxes[%d].tax_account", k), *t.Account})
		}
	}
	return out
}
