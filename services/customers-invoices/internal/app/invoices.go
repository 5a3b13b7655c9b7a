package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// Stable error_enum values of the invoicing use cases' 4xx errors (the
// requests' and the amounts' rules are invoice.Enum*).
const (
	EnumInvoiceNotFound  = "InvoiceNotFound"
	EnumUnknownCustomer  = "UnknownCustomer"
	EnumCustomerMismatch = "CustomerMismatch"
	EnumPaymentNotFound  = "PaymentNotFound"
	EnumWriteOffNotFound = "WriteOffNotFound"
)

// ErrInvoiceNotFound is the 404 of an invoice id the business does not have.
func ErrInvoiceNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "invoice not found").WithEnum(EnumInvoiceNotFound)
}

// InvoicePageSpec is the pagination of GET /invoices: sort_by sent_at (the
// default), due_at (invoices without a due date last), total_amount or
// updated_at, each backed by a (business_id, key, id) index; limit
// default 100, at most 500.
var InvoicePageSpec = page.Spec{
	Keys: map[string]page.Key{
		"sent_at":      {Column: "i.sent_at", Kind: page.KindTime},
		"due_at":       {Column: "i.due_sort", Kind: page.KindTime},
		"total_amount": {Column: "i.total_amount", Kind: page.KindInt},
		"updated_at":   {Column: "i.updated_at", Kind: page.KindTime},
	},
	Default:      "sent_at",
	DefaultLimit: 100,
	MaxLimit:     500,
}

// InvoiceView is an invoice with its customer (nil when it has none).
type InvoiceView struct {
	invoice.Invoice
	Customer *domain.Customer
}

// InvoiceStore is the invoices' persistence. Every method runs in the
// unit of work its context carries (else on its own) and filters by
// business.
type InvoiceStore interface {
	// InsertInvoice inserts inv and its lines unless the business has an
	// invoice with its external id (inserted false).
	InsertInvoice(ctx context.Context, inv invoice.Invoice) (inserted bool, err error)
	// FindInvoice reads an invoice with its lines, allocations and
	// write-offs; forUpdate locks its row.
	FindInvoice(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (invoice.Invoice, bool, error)
	FindInvoiceByExternalID(ctx context.Context, businessID uuid.UUID, externalID string, forUpdate bool) (invoice.Invoice, bool, error)
	// UpdateInvoice writes inv's row; with lines, its lines replace the
	// stored ones.
	UpdateInvoice(ctx context.Context, inv invoice.Invoice, lines bool) error
	// DeleteInvoice deletes the invoice, its lines and write-offs.
	DeleteInvoice(ctx context.Context, businessID, id uuid.UUID) error
	// FindInvoices is one keyset page of the business's invoices matching
	// f (with their lines, allocations and write-offs).
	FindInvoices(ctx context.Context, businessID uuid.UUID, f invoice.Filter, p page.Params) ([]invoice.Invoice, page.Meta, error)
	WriteOffStore
	PaymentStore
	RefundStore
	SummaryStore
}

// resolveCustomer finds the invoice's customer: by id (400 UnknownCustomer
// when the business has no such customer), by external id (an unknown one
// creates the customer, without a name, with its customer.upserted event,
// returned to publish), or both (they must name the same customer: 400
// CustomerMismatch).
func (a *Invoicing) resolveCustomer(ctx context.Context, businessID uuid.UUID, id *uuid.UUID, externalID *string) (*domain.Customer, []event, error) {
	var byID *domain.Customer
	if id != nil {
		c, ok, err := a.customers.FindCustomer(ctx, businessID, *id, false)
		if err != nil {
			return nil, nil, fmt.Errorf("find customer %s: %w", *id, err)
		}
		if !ok {
			return nil, nil, apperr.PayloadField("customer_id", "the business has no such customer").WithEnum(EnumUnknownCustomer)
		}
		byID = &c
	}
	if externalID == nil {
		return byID, nil, nil
	}
	c, ok, err := a.customers.FindCustomerByExternalID(ctx, businessID, *externalID)
	if err != nil {
		return nil, nil, fmt.Errorf("find customer %q: %w", *externalID, err)
	}
	if byID != nil {
		if !ok || c.ID != byID.ID {
			return nil, nil, apperr.PayloadField("customer_external_id", "names another customer than customer_id").WithEnum(EnumCustomerMismatch)
		}
		return byID, nil, nil
	}
	if ok {
		return &c, nil, nil
	}
	nc := domain.NewCustomer(businessID, newID(), domain.CustomerInput{ExternalID: externalID}, a.clock())
	inserted, err := a.customers.InsertCustomer(ctx, nc)
	if err != nil {
		return nil, nil, fmt.Errorf("create customer %q: %w", *externalID, err)
	}
	if !inserted { // created concurrently: use that one
		c, ok, err := a.customers.FindCustomerByExternalID(ctx, businessID, *externalID)
		if err != nil || !ok {
			return nil, nil, fmt.Errorf("find customer %q created concurrently: %v", *externalID, err)
		}
		return &c, nil, nil
	}
	return &nc, []event{customerEvent(nc)}, nil
}

// CreateInvoice is POST /invoices: the invoice (status SENT, or PAID for a
// zero total; a DRAFT, which posts nothing, when asked for) and its
// invoice.upserted event with the entry to post, with created true. An external_id the business already has answers the
// stored invoice unchanged with created false (a retried create).
func (a *Invoicing) CreateInvoice(ctx context.Context, businessID uuid.UUID, in invoice.Input) (InvoiceView, bool, error) {
	if err := in.Check(); err != nil {
		return InvoiceView{}, false, err
	}
	var out InvoiceView
	var created bool
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		if in.ExternalID != nil {
			existing, ok, err := a.store.FindInvoiceByExternalID(ctx, businessID, *in.ExternalID, false)
			if err != nil {
				return fmt.Errorf("find invoice %q: %w", *in.ExternalID, err)
			}
			if ok {
				out = InvoiceView{Invoice: existing}
				return a.withCustomer(ctx, &out)
			}
		}
		inv, err := invoice.New(businessID, newID(), in, a.clock(), newID)
		if err != nil {
			return err
		}
		if err := a.accounts.CheckAccounts(ctx, businessID, in.Draft.Accounts()); err != nil {
			return err
		}
		c, evs, err := a.resolveCustomer(ctx, businessID, in.CustomerID, in.CustomerExternalID)
		if err != nil {
			return err
		}
		if c != nil {
			inv.CustomerID = &c.ID
		}
		inserted, err := a.store.InsertInvoice(ctx, inv)
		if err != nil {
			return err
		}
		if !inserted { // the same external id created concurrently
			existing, ok, err := a.store.FindInvoiceByExternalID(ctx, businessID, *in.ExternalID, false)
			if err != nil || !ok {
				return fmt.Errorf("find invoice %q created concurrently: %v", *in.ExternalID, err)
			}
			out = InvoiceView{Invoice: existing}
			if err := a.withCustomer(ctx, &out); err != nil {
				return err
			}
			return a.publish(ctx, evs...)
		}
		out, created = InvoiceView{Invoice: inv, Customer: c}, true
		return a.publish(ctx, append(evs, invoiceUpserted(inv, true))...)
	})
	if err != nil {
		return InvoiceView{}, false, err
	}
	return out, created, nil
}

// withCustomer loads the customer of v.
func (a *Invoicing) withCustomer(ctx context.Context, v *InvoiceView) error {
	if v.CustomerID == nil {
		return nil
	}
	c, ok, err := a.customers.FindCustomer(ctx, v.BusinessID, *v.CustomerID, false)
	if err != nil {
		return fmt.Errorf("find customer %s: %w", *v.CustomerID, err)
	}
	if ok {
		v.Customer = &c
	}
	return nil
}

// withCustomers loads the customers of invs in one query.
func (a *Invoicing) withCustomers(ctx context.Context, businessID uuid.UUID, invs []invoice.Invoice) ([]InvoiceView, error) {
	out := make([]InvoiceView, len(invs))
	var ids []uuid.UUID
	for i, inv := range invs {
		out[i].Invoice = inv
		if inv.CustomerID != nil {
			ids = append(ids, *inv.CustomerID)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	cs, err := a.customers.FindCustomersByIDs(ctx, businessID, ids)
	if err != nil {
		return nil, fmt.Errorf("find the invoices' customers: %w", err)
	}
	for i := range out {
		if id := out[i].CustomerID; id != nil {
			if c, ok := cs[*id]; ok {
				out[i].Customer = &c
			}
		}
	}
	return out, nil
}

// lockInvoice reads and locks the business's invoice id, or its 404.
func (a *Invoicing) lockInvoice(ctx context.Context, businessID, id uuid.UUID) (invoice.Invoice, error) {
	inv, ok, err := a.store.FindInvoice(ctx, businessID, id, true)
	if err != nil {
		return invoice.Invoice{}, fmt.Errorf("lock invoice %s: %w", id, err)
	}
	if !ok {
		return invoice.Invoice{}, ErrInvoiceNotFound()
	}
	return inv, nil
}

// saveBalance stores inv after its paid or written-off amount changed at
// now (Revise: status and paid_at settled, next version) and returns its
// snapshot to publish (its entry is unchanged).
func (a *Invoicing) saveBalance(ctx context.Context, inv *invoice.Invoice, now time.Time) (event, error) {
	inv.Revise(now)
	if err := a.store.UpdateInvoice(ctx, *inv, false); err != nil {
		return event{}, err
	}
	return invoiceUpserted(*inv, false), nil
}

// Invoice is GET /invoices/{id}.
func (a *Invoicing) Invoice(ctx context.Context, businessID, id uuid.UUID) (InvoiceView, error) {
	inv, ok, err := a.store.FindInvoice(ctx, businessID, id, false)
	if err != nil {
		return InvoiceView{}, fmt.Errorf("find invoice %s: %w", id, err)
	}
	if !ok {
		return InvoiceView{}, ErrInvoiceNotFound()
	}
	v := InvoiceView{Invoice: inv}
	return v, a.withCustomer(ctx, &v)
}

// Invoices is GET /invoices: one page. A customer_external_id is resolved
// to its customer (an unknown one matches nothing); given with
// customer_id, both must name the same customer (400 otherwise).
func (a *Invoicing) Invoices(ctx context.Context, businessID uuid.UUID, f invoice.Filter, p page.Params) ([]InvoiceView, page.Meta, error) {
	if f.CustomerExternalID != nil {
		c, ok, err := a.customers.FindCustomerByExternalID(ctx, businessID, *f.CustomerExternalID)
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
	list, meta, err := a.store.FindInvoices(ctx, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list invoices of %s: %w", businessID, err)
	}
	out, err := a.withCustomers(ctx, businessID, list)
	if err != nil {
		return nil, page.Meta{}, err
	}
	return out, meta, nil
}

// emptyPage is the page of a filter that matches nothing: no invoice and
// the meta of p (its sort, no cursor, a total of 0 when asked).
func emptyPage(p page.Params) ([]InvoiceView, page.Meta, error) {
	out, meta, err := page.Finish([]InvoiceView{}, p, func(InvoiceView) (any, uuid.UUID) { return nil, uuid.Nil })
	if err != nil {
		return nil, page.Meta{}, err
	}
	if p.ShowTotalCount {
		meta = meta.WithTotal(0)
	}
	return out, meta, nil
}

// UpdateInvoice is PATCH /invoices/{id} while nothing is paid or written
// off (409 otherwise): the named fields change, the amounts are computed
// again, the version grows and the new entry replaces the old one. A patch
// naming no property ({}) writes nothing and answers the invoice as it is.
func (a *Invoicing) UpdateInvoice(ctx context.Context, businessID, id uuid.UUID, p invoice.Patch) (InvoiceView, error) {
	if err := p.Check(); err != nil {
		return InvoiceView{}, err
	}
	var out InvoiceView
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		inv, err := a.lockInvoice(ctx, businessID, id)
		if err != nil {
			return err
		}
		if err := inv.Balance().Editable(); err != nil {
			return err
		}
		if p.Empty() {
			out = InvoiceView{Invoice: inv}
			return nil
		}
		now := a.clock()
		next, err := inv.Apply(p, now, newID)
		if err != nil {
			return err
		}
		d, amounts := p.Amounts(inv.Draft())
		if amounts {
			if err := a.accounts.CheckAccounts(ctx, businessID, d.Accounts()); err != nil {
				return err
			}
		}
		var c *domain.Customer
		var evs []event
		if cid, cext, named := p.Customer(inv.CustomerID); named {
			if c, evs, err = a.resolveCustomer(ctx, businessID, cid, cext); err != nil {
				return err
			}
			if c == nil {
				return invoice.ErrCustomerRequired()
			}
			next.CustomerID = &c.ID
		}
		next.Revise(now)
		if err := a.store.UpdateInvoice(ctx, next, amounts); err != nil {
			return err
		}
		out = InvoiceView{Invoice: next, Customer: c}
		return a.publish(ctx, append(evs, invoiceUpserted(next, true))...)
	})
	if err != nil {
		return InvoiceView{}, err
	}
	return out, a.withCustomer(ctx, &out)
}

// VoidInvoice is POST /invoices/{id}/void: not while payments are
// allocated (409); the invoice becomes VOIDED with nothing outstanding,
// and its entry and its write-offs' entries are reversed. Voiding a voided
// invoice changes nothing.
func (a *Invoicing) VoidInvoice(ctx context.Context, businessID, id uuid.UUID) (InvoiceView, error) {
	var out InvoiceView
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		inv, err := a.lockInvoice(ctx, businessID, id)
		if err != nil {
			return err
		}
		voided, changed, err := inv.Void(a.clock())
		if err != nil || !changed {
			out = InvoiceView{Invoice: inv}
			return err
		}
		evs, err := a.saveVoidedWriteOffs(ctx, voided, inv)
		if err != nil {
			return err
		}
		if err := a.store.UpdateInvoice(ctx, inv, false); err != nil {
			return err
		}
		out = InvoiceView{Invoice: inv}
		return a.publish(ctx, append(evs, invoiceUpserted(inv, true))...)
	})
	if err != nil {
		return InvoiceView{}, err
	}
	return out, a.withCustomer(ctx, &out)
}

// DeleteInvoice is DELETE /invoices/{id}: only without payments (409
// otherwise); the invoice, its lines and write-offs are deleted and their
// entries reversed.
func (a *Invoicing) DeleteInvoice(ctx context.Context, businessID, id uuid.UUID) error {
	return a.uow.Do(ctx, func(ctx context.Context) error {
		inv, err := a.lockInvoice(ctx, businessID, id)
		if err != nil {
			return err
		}
		voided, err := inv.Remove(a.clock())
		if err != nil {
			return err
		}
		evs, err := a.saveVoidedWriteOffs(ctx, voided, inv)
		if err != nil {
			return err
		}
		if err := a.store.DeleteInvoice(ctx, businessID, id); err != nil {
			return err
		}
		return a.publish(ctx, append(evs, invoiceDeleted(inv))...)
	})
}
