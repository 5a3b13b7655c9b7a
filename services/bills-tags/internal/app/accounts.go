package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/receipt"
)

// EnumUnknownAccount is the 400 of an account the business's chart does
// not have (or has archived) — customers-invoices' enum for its lines.
const EnumUnknownAccount = chart.EnumUnknownAccount

// AccountStore checks account references against the projection of the
// businesses' charts of accounts (acct.accounts.v1), as customers-invoices
// keeps it for its invoices: chart.Table in the service's schema, read in
// the unit of work ctx carries. CheckAccounts answers as chart.Check.
// StableAccountIDs answers the ids of the accounts named by stable name
// that the projection holds (chart.Table's AccountIDs).
type AccountStore interface {
	CheckAccounts(ctx context.Context, businessID uuid.UUID, fields []chart.Field, existsBeforeChart func(chart.Ref) bool) error
	StableAccountIDs(ctx context.Context, businessID uuid.UUID, names []string) (map[string]uuid.UUID, error)
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
// looked up. See chart.Check.
type accountChecker struct{ store AccountStore }

func (c accountChecker) check(ctx context.Context, businessID uuid.UUID, fields []accountField) error {
	var named []chart.Field
	for _, f := range fields {
		if !f.ref.IsZero() && (f.ref.ID != nil || !defaultAccounts[f.ref.StableName]) {
			named = append(named, chart.Field{Name: f.field, Ref: chart.Ref(f.ref)})
		}
	}
	// The default chart's expense accounts exist from the business's
	// creation on: naming one by stable name needs no wait.
	existsBeforeChart := func(r chart.Ref) bool {
		_, known := receipt.ChartAccountOf(businessID, bill.AccountRef(r))
		return known && r.ID == nil
	}
	if len(named) == 0 {
		return nil
	}
	if c.store == nil {
		return fmt.Errorf("no chart of accounts projection to check %d accounts", len(named))
	}
	return c.store.CheckAccounts(ctx, businessID, named, existsBeforeChart)
}

// accountIDs are the ids of the accounts the bills' lines name by stable
// name (account, the default expense account when none, and prepayment
// account), by stable name, in one query: the business's account as the
// projection holds it, else, for a name it does not hold (yet), the
// default chart's deterministic id (events.DefaultAccountID).
func (c accountChecker) accountIDs(ctx context.Context, businessID uuid.UUID, bills ...bill.Bill) (map[string]uuid.UUID, error) {
	var names []string
	seen := map[string]bool{}
	add := func(r bill.AccountRef) {
		if r.ID == nil && r.StableName != "" && !seen[r.StableName] {
			seen[r.StableName] = true
			names = append(names, r.StableName)
		}
	}
	for _, b := range bills {
		for _, l := range b.Lines {
			add(l.AccountOrDefault())
			if l.PrepaymentAccount != nil {
				add(*l.PrepaymentAccount)
			}
		}
	}
	out := map[string]uuid.UUID{}
	if len(names) == 0 {
		return out, nil
	}
	if c.store != nil {
		found, err := c.store.StableAccountIDs(ctx, businessID, names)
		if err != nil {
			return nil, err
		}
		out = found
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			out[n] = events.DefaultAccountID(businessID, n)
		}
	}
	return out, nil
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
