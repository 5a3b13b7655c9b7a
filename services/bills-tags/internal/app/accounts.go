package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/receipt"
)

// EnumUnknownAccount is the 400 of an account the business's chart does
// not have (or has archived) — customers-invoices' enum for its lines.
const EnumUnknownAccount = "UnknownAccount"

// AccountStore is the projection of the businesses' charts of accounts
// (acct.accounts.v1), as customers-invoices keeps it for its invoices.
type AccountStore interface {
	UpsertLedgerAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, accounts []events.LedgerAccountSnapshot) error
	// LiveAccounts reports which of refs (by accountKey) name a live
	// account of the business, and whether the business's chart has
	// arrived at all.
	LiveAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, refs []bill.AccountRef) (map[string]bool, bool, error)
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

// AccountKey identifies a reference (an id or a stable name) as a map key.
func AccountKey(r bill.AccountRef) string {
	if r.ID != nil {
		return "id:" + r.ID.String()
	}
	return "stable:" + r.StableName
}

func accountName(r bill.AccountRef) string {
	if r.ID != nil {
		return r.ID.String()
	}
	return r.StableName
}

// accountField is an account reference a document names, with the
// request field it came from.
type accountField struct {
	field string
	ref   bill.AccountRef
}

// defaultAccounts are the accounts the postings use when the request
// names none: the default chart's, always there.
var defaultAccounts = map[string]bool{bill.AccountsPayable: true, bill.DefaultExpenseAccount: true, bill.DefaultClearingAccount: true}

// accountChecker makes sure every account a bill, payment or vendor credit
// names is a live account of the business's chart before it is stored and
// its posting published, so that the ledger (the transactions consumer)
// can post it: an unknown or archived one is a 400 UnknownAccount naming
// the field, never a posting the ledger dead-letters. While the
// business's chart has not reached this service yet, naming an account is
// a 503 Unavailable (the client retries), unless every account named is a
// default-chart expense account named by stable name. The defaults are not
// looked up.
type accountChecker struct{ store AccountStore }

func (c accountChecker) check(ctx context.Context, db bun.IDB, businessID uuid.UUID, fields []accountField) error {
	var named []accountField
	for _, f := range fields {
		if !f.ref.IsZero() && (f.ref.ID != nil || !defaultAccounts[f.ref.StableName]) {
			named = append(named, f)
		}
	}
	if len(named) == 0 {
		return nil
	}
	if c.store == nil {
		return fmt.Errorf("no chart of accounts projection to check %d accounts", len(named))
	}
	refs := make([]bill.AccountRef, len(named))
	for i, f := range named {
		refs[i] = f.ref
	}
	live, chart, err := c.store.LiveAccounts(ctx, db, businessID, refs)
	if err != nil {
		return err
	}
	if !chart {
		// The default chart's expense accounts exist from the business's
		// creation on: naming one by stable name needs no wait.
		for _, f := range named {
			if _, known := receipt.ChartAccountOf(businessID, f.ref); !known || f.ref.ID != nil {
				return apperr.New(apperr.Unavailable, "the business's chart of accounts has not reached this service yet; retry shortly")
			}
		}
		return nil
	}
	bad := map[string]string{}
	for _, f := range named {
		if !live[AccountKey(f.ref)] {
			bad[f.field] = "the business has no live ledger account " + accountName(f.ref)
		}
	}
	if len(bad) > 0 {
		return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumUnknownAccount)
	}
	return nil
}

// billAccounts are the accounts a bill names (line, prepayment and tax
// accounts), with their request fields.
func billAccounts(b bill.Bill) []accountField {
	var out []accountField
	for i, l := range b.Lines {
		f := fmt.Sprintf("line_items[%d]", i)
		out = append(out, accountField{f + ".account_identifier", l.Account})
		if l.PrepaymentAccount != nil {
			out = append(out, accountField{f + ".prepayment_account_identifier", *l.PrepaymentAccount})
		}
		for k, t := range l.SalesTaxes {
			if t.Account != nil {
				out = append(out, accountField{fmt.Sprintf("%s.sales_taxes[%d].tax_account", f, k), *t.Account})
			}
		}
	}
	for k, t := range b.AdditionalSalesTaxes {
		if t.Account != nil {
			out = append(out, accountField{fmt.Sprintf("additional_sales_taxes[%d].tax_account", k), *t.Account})
		}
	}
	return out
}

// creditAccounts are the expense accounts a vendor credit's lines name.
func creditAccounts(c bill.Credit) []accountField {
	out := make([]accountField, len(c.Lines))
	for i, l := range c.Lines {
		out[i] = accountField{fmt.Sprintf("line_items[%d].expense_account_identifier", i), l.Account}
	}
	return out
}

// paymentAccounts is the clearing account a bill payment names.
func paymentAccounts(p bill.Payment) []accountField {
	return []accountField{{"payment_clearing_account_identifier", p.ClearingAccount}}
}
