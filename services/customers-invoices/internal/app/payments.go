package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// ErrPaymentNotFound is the 404 of a payment id the business does not
// have.
func ErrPaymentNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "payment not found").WithEnum(EnumPaymentNotFound)
}

// PaymentStore is the payments' persistence. Every method runs in the
// unit of work its context carries (else on its own) and filters by
// business.
type PaymentStore interface {
	// InsertPayment inserts p and its allocations unless the business has
	// a payment with its external id (inserted false).
	InsertPayment(ctx context.Context, p invoice.Payment) (inserted bool, err error)
	// FindPayments reads the business's payments ids that exist (with
	// their allocations), locked when forUpdate.
	FindPayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, forUpdate bool) ([]invoice.Payment, error)
	FindPaymentByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (invoice.Payment, bool, error)
	// UpdatePayment writes p's tags, version and updated_at (its amounts
	// and allocations unchanged).
	UpdatePayment(ctx context.Context, p invoice.Payment) error
	// UpdatePaymentTerms writes every property of p (a PUT) and the
	// amount of its allocation(s).
	UpdatePaymentTerms(ctx context.Context, p invoice.Payment) error
	// DeletePayments deletes the payments and their allocations.
	DeletePayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) error
	// InvoiceIDsByExternalID maps the business's invoices' external ids
	// among externalIDs to their ids.
	InvoiceIDsByExternalID(ctx context.Context, businessID uuid.UUID, externalIDs []string) (map[string]uuid.UUID, error)
}

// lockInvoices locks the business's invoices ids in id order (so that
// concurrent payments of the same invoices never deadlock) and returns
// them by id; an unknown id is a 400 naming field(i).
func (a *Invoicing) lockInvoices(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, field func(uuid.UUID) string) (map[uuid.UUID]*invoice.Invoice, error) {
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	sorted = slices.Compact(sorted)
	out := make(map[uuid.UUID]*invoice.Invoice, len(sorted))
	for _, id := range sorted {
		inv, ok, err := a.store.FindInvoice(ctx, businessID, id, true)
		if err != nil {
			return nil, fmt.Errorf("lock invoice %s: %w", id, err)
		}
		if !ok {
			return nil, apperr.PayloadField(field(id), "the business has no such invoice").WithEnum(EnumInvoiceNotFound)
		}
		out[id] = &inv
	}
	return out, nil
}

// CreatePayment is POST /invoices/payments: a payment allocated to one or
// more invoices (invoice.CheckPayment's rules: allocations sum to the
// amount, no invoice overpaid or voided), the invoices' balances and
// statuses updated, and the events: each invoice's snapshot and the
// payment with its entry. An external_id the business already has
// answers the stored payment with created false.
func (a *Invoicing) CreatePayment(ctx context.Context, businessID uuid.UUID, in invoice.PaymentInput) (invoice.Payment, bool, error) {
	if err := in.Check(); err != nil {
		return invoice.Payment{}, false, err
	}
	var out invoice.Payment
	var created bool
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		if in.ExternalID != nil {
			existing, ok, err := a.store.FindPaymentByExternalID(ctx, businessID, *in.ExternalID)
			if err != nil {
				return fmt.Errorf("find payment %q: %w", *in.ExternalID, err)
			}
			if ok {
				if err := existing.CheckRetry(in.Allocations); err != nil {
					return err
				}
				out = existing
				return nil
			}
		}
		ids, err := a.allocationInvoices(ctx, businessID, in.Allocations)
		if err != nil {
			return err
		}
		index := map[uuid.UUID]int{}
		for i, id := range ids {
			if _, dup := index[id]; !dup {
				index[id] = i
			}
		}
		invs, err := a.lockInvoices(ctx, businessID, ids, func(id uuid.UUID) string {
			return fmt.Sprintf("invoice_payments[%d]", index[id])
		})
		if err != nil {
			if in.PathInvoice != nil && apperr.Is(err, apperr.InvalidPayload) {
				return ErrInvoiceNotFound()
			}
			return err
		}
		paid := make([]*invoice.Invoice, len(ids))
		for i, id := range ids {
			paid[i] = invs[id]
		}
		now := a.clock()
		p, err := invoice.NewPayment(businessID, newID(), in, paid, now)
		if err != nil {
			return err
		}
		inserted, err := a.store.InsertPayment(ctx, p)
		if err != nil {
			return err
		}
		if !inserted { // the same external id created concurrently
			existing, ok, err := a.store.FindPaymentByExternalID(ctx, businessID, *in.ExternalID)
			if err != nil || !ok {
				return fmt.Errorf("find payment %q created concurrently: %v", *in.ExternalID, err)
			}
			out = existing
			return nil
		}
		var evs []event
		for _, al := range p.Allocations {
			inv := invs[al.InvoiceID]
			inv.AddPayment(p, al.Amount)
			ev, err := a.saveBalance(ctx, inv, now)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		out, created = p, true
		return a.publish(ctx, append(evs, paymentUpserted(p))...)
	})
	if err != nil {
		return invoice.Payment{}, false, err
	}
	return out, created, nil
}

// allocationInvoices resolves each allocation's invoice to its id (by id,
// or by external id: 400 naming the item when unknown, or when both are
// given and disagree).
func (a *Invoicing) allocationInvoices(ctx context.Context, businessID uuid.UUID, als []invoice.AllocationInput) ([]uuid.UUID, error) {
	var exts []string
	for _, al := range als {
		if al.InvoiceExternalID != nil {
			exts = append(exts, *al.InvoiceExternalID)
		}
	}
	byExt := map[string]uuid.UUID{}
	if len(exts) > 0 {
		var err error
		if byExt, err = a.store.InvoiceIDsByExternalID(ctx, businessID, exts); err != nil {
			return nil, fmt.Errorf("find invoices by external id: %w", err)
		}
	}
	ids := make([]uuid.UUID, len(als))
	bad := map[string]string{}
	for i, al := range als {
		f := fmt.Sprintf("invoice_payments[%d]", i)
		switch {
		case al.InvoiceID == nil && al.InvoiceExternalID == nil:
			bad[f+".invoice_id"] = "invoice_id or invoice_external_id is required"
		case al.InvoiceExternalID != nil:
			id, ok := byExt[*al.InvoiceExternalID]
			if !ok {
				bad[f+".invoice_external_id"] = "the business has no invoice with this external id"
				continue
			}
			if al.InvoiceID != nil && *al.InvoiceID != id {
				bad[f+".invoice_external_id"] = "names another invoice than invoice_id"
				continue
			}
			ids[i] = id
		default:
			ids[i] = *al.InvoiceID
		}
	}
	if len(bad) > 0 {
		return nil, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvoiceNotFound)
	}
	if len(als) == 0 {
		return nil, apperr.PayloadField("invoice_payments", "at least one invoice is required").WithEnum(invoice.EnumInvalidAmount)
	}
	return ids, nil
}

// PaymentByID is GET /invoices/payments/{id}.
func (a *Invoicing) PaymentByID(ctx context.Context, businessID, id uuid.UUID) (invoice.Payment, error) {
	ps, err := a.store.FindPayments(ctx, businessID, []uuid.UUID{id}, false)
	if err != nil {
		return invoice.Payment{}, fmt.Errorf("find payment %s: %w", id, err)
	}
	if len(ps) == 0 {
		return invoice.Payment{}, ErrPaymentNotFound()
	}
	return ps[0], nil
}

// BulkDeletePayments is POST /invoices/payments/bulk-delete: 1 to 100
// distinct ids (400 otherwise), every one a payment of the business (404
// naming the unknown ones otherwise, and nothing is deleted); in one
// transaction the payments go, their invoices' balances and statuses are
// restored and their entries reversed. It returns how many were deleted.
func (a *Invoicing) BulkDeletePayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (int, error) {
	if err := invoice.CheckBulkDelete(ids); err != nil {
		return 0, err
	}
	var n int
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		ps, err := a.store.FindPayments(ctx, businessID, ids, true)
		if err != nil {
			return fmt.Errorf("lock payments: %w", err)
		}
		if len(ps) != len(ids) {
			found := map[uuid.UUID]bool{}
			for _, p := range ps {
				found[p.ID] = true
			}
			var unknown []string
			for _, id := range ids {
				if !found[id] {
					unknown = append(unknown, id.String())
				}
			}
			return apperr.Newf(apperr.NotFound, "%d of the ids are not payments of the business; nothing was deleted", len(unknown)).
				WithEnum(EnumPaymentNotFound).WithMeta("unknown_ids", unknown)
		}
		var invIDs []uuid.UUID
		for _, p := range ps {
			for _, al := range p.Allocations {
				invIDs = append(invIDs, al.InvoiceID)
			}
		}
		invs, err := a.lockInvoices(ctx, businessID, invIDs, func(uuid.UUID) string { return "ids" })
		if err != nil {
			return err
		}
		if err := a.store.DeletePayments(ctx, businessID, ids); err != nil {
			return err
		}
		now := a.clock()
		// The invoices in the order their payments name them (their
		// events' order is then the same on every run).
		var changed []uuid.UUID
		var evs []event
		for _, p := range ps {
			for _, al := range p.Allocations {
				inv := invs[al.InvoiceID]
				inv.RemovePayment(p.ID, al.Amount)
				if !slices.Contains(changed, inv.ID) {
					changed = append(changed, inv.ID)
				}
			}
			p.Version++
			evs = append(evs, paymentDeleted(p))
		}
		for _, id := range changed {
			if inv := invs[id]; inv.Paid < inv.Refunded {
				return inv.CanRemovePayment(0)
			}
			ev, err := a.saveBalance(ctx, invs[id], now)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		n = len(ps)
		return a.publish(ctx, evs...)
	})
	return n, err
}
