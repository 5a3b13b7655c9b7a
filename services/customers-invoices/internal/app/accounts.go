package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// EnumUnknownAccount is the 400 of an account the business's chart does
// not have (or has archived).
const EnumUnknownAccount = chart.EnumUnknownAccount

// AccountStore is the projection of the businesses' charts of accounts
// (acct.accounts.v1): chart.Table in the service's schema.
type AccountStore = chart.Store

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
// Unavailable (Retry-After: 1). See chart.Check.
func (a *Invoicing) checkAccounts(ctx context.Context, db bun.IDB, businessID uuid.UUID, fields []accountField) error {
	named := make([]chart.Field, len(fields))
	for i, f := range fields {
		named[i] = chart.Field{Name: f.field, Ref: chart.Ref(f.ref)}
	}
	return chart.Check(ctx, db, a.accounts, businessID, named, nil)
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
