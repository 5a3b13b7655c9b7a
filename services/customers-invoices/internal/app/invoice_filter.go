package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// InvoiceFilter is GET /invoices's filters, checked by the HTTP layer.
// Every set filter must match (statuses: any of them).
type InvoiceFilter struct {
	Statuses           []invoice.Status
	DueAtStart         *time.Time // due on or after (invoices without a due date excluded)
	DueAtEnd           *time.Time // due on or before
	SentAtStart        *time.Time
	SentAtEnd          *time.Time
	CustomerID         *uuid.UUID
	CustomerExternalID *string // resolved to CustomerID by Invoices
	ReferenceNumber    *string
	ReferenceNumbers   []string // any of them
	MinTotal           *money.Cents
	MaxTotal           *money.Cents
	Memo               *string // exact
	MemoContains       *string // case-insensitive substring
	Q                  *string // case-insensitive substring of invoice number, external id, reference number or memo
}

// Invoices is GET /invoices: one page. A customer_external_id is resolved
// to its customer (an unknown one matches nothing); given with
// customer_id, both must name the same customer (400 otherwise).
func (a *Invoicing) Invoices(ctx context.Context, businessID uuid.UUID, f InvoiceFilter, p page.Params) ([]Invoice, page.Meta, error) {
	if f.CustomerExternalID != nil {
		c, ok, err := a.customers.FindCustomerByExternalID(ctx, a.db, businessID, *f.CustomerExternalID)
		if err != nil {
			return nil, page.Meta{}, fmt.Errorf("find customer %q: %w", *f.CustomerExternalID, err)
		}
		switch {
		case ok && f.CustomerID != nil && *f.CustomerID != c.ID, !ok && f.CustomerID != nil:
			return nil, page.Meta{}, apperr.Field("customer_external_id", "names another customer than customer_id").
				WithEnum(EnumCustomerMismatch)
		case !ok:
			return emptyPage(p)
		}
		f.CustomerID = &c.ID
	}
	out, meta, err := a.store.FindInvoices(ctx, a.db, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list invoices of %s: %w", businessID, err)
	}
	if err := a.withCustomers(ctx, a.db, businessID, out); err != nil {
		return nil, page.Meta{}, err
	}
	return out, meta, nil
}

// emptyPage is the page of a filter that matches nothing: no invoice and
// the meta of p (its sort, no cursor, a total of 0 when asked).
func emptyPage(p page.Params) ([]Invoice, page.Meta, error) {
	out, meta, err := page.Finish([]Invoice{}, p, func(Invoice) (any, uuid.UUID) { return nil, uuid.Nil })
	if err != nil {
		return nil, page.Meta{}, err
	}
	if p.ShowTotalCount {
		meta = meta.WithTotal(0)
	}
	return out, meta, nil
}

// withCustomers loads the customers of invs in one query.
func (a *Invoicing) withCustomers(ctx context.Context, db bun.IDB, businessID uuid.UUID, invs []Invoice) error {
	var ids []uuid.UUID
	for _, inv := range invs {
		if inv.CustomerID != nil {
			ids = append(ids, *inv.CustomerID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	cs, err := a.customers.FindCustomersByIDs(ctx, db, businessID, ids)
	if err != nil {
		return fmt.Errorf("find the invoices' customers: %w", err)
	}
	for i := range invs {
		if id := invs[i].CustomerID; id != nil {
			if c, ok := cs[*id]; ok {
				invs[i].Customer = &c
			}
		}
	}
	return nil
}
