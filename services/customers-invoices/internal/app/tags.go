package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// TagInvoices is POST /invoices/tags: every tag of kvs on every invoice of
// ids (an invoice keeps a tag it has), all or nothing: an id the business
// does not have (never had, or deleted) is 404 InvoiceNotFound naming
// invoice_ids, and nothing changes. Each changed invoice gets a new
// version and its invoice.upserted with the posting of that version, whose
// lines carry the new tags (the amounts are unchanged, so paid and
// written-off invoices may be tagged; a voided invoice is tagged too and
// its posting stays without lines: its entry remains reversed). It
// returns the tags added.
func (a *Invoicing) TagInvoices(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	ids, kvs, err := invoice.CheckTagRequest("invoice_ids", ids, kvs)
	if err != nil {
		return nil, err
	}
	out := []tags.Tag{}
	err = a.uow.Do(ctx, func(ctx context.Context) error {
		invs := make([]invoice.Invoice, 0, len(ids))
		for _, id := range ids {
			inv, ok, err := a.store.FindInvoice(ctx, businessID, id, true)
			if err != nil {
				return fmt.Errorf("lock invoice %s: %w", id, err)
			}
			if !ok {
				return ErrInvoiceNotFound().WithMeta("field", "invoice_ids").WithMeta("invoice_id", id.String())
			}
			invs = append(invs, inv)
		}
		now := a.clock()
		var evs []event
		for _, inv := range invs {
			next, added := inv.Tag(kvs, now)
			if len(added) == 0 {
				continue
			}
			if err := a.store.UpdateInvoice(ctx, next, false); err != nil {
				return fmt.Errorf("tag invoice %s: %w", inv.ID, err)
			}
			evs = append(evs, invoiceUpserted(next, true))
			out = append(out, added...)
		}
		return a.publish(ctx, evs...)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TagPayments is POST /invoices/payments/tags: TagInvoices for customer
// payments (404 PaymentNotFound naming payment_ids; a deleted payment is
// unknown). Each changed payment gets a new version and its
// invoice_payment.upserted with a posting whose lines carry the new tags.
func (a *Invoicing) TagPayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	ids, kvs, err := invoice.CheckTagRequest("payment_ids", ids, kvs)
	if err != nil {
		return nil, err
	}
	out := []tags.Tag{}
	err = a.uow.Do(ctx, func(ctx context.Context) error {
		ps, err := a.store.FindPayments(ctx, businessID, ids, true)
		if err != nil {
			return fmt.Errorf("lock payments: %w", err)
		}
		if len(ps) != len(ids) {
			e := ErrPaymentNotFound().WithMeta("field", "payment_ids")
			for _, id := range ids {
				if !slices.ContainsFunc(ps, func(p invoice.Payment) bool { return p.ID == id }) {
					e = e.WithMeta("payment_id", id.String())
					break
				}
			}
			return e
		}
		now := a.clock()
		var evs []event
		for _, p := range ps {
			next, added := p.Tag(kvs, now)
			if len(added) == 0 {
				continue
			}
			if err := a.store.UpdatePayment(ctx, next); err != nil {
				return fmt.Errorf("tag payment %s: %w", p.ID, err)
			}
			evs = append(evs, paymentUpserted(next))
			out = append(out, added...)
		}
		return a.publish(ctx, evs...)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
