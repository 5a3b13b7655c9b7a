package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// PaymentAllocation is the part of a payment on one invoice, with the
// invoice's identifiers (events and answers show them).
type PaymentAllocation struct {
	InvoiceID              uuid.UUID
	InvoiceExternalID      *string
	InvoiceNumber          *string
	InvoiceReferenceNumber *string
	Amount                 money.Cents
}

// Payment is a customer payment as stored.
type Payment struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	ExternalID      *string
	PaidAt          time.Time
	Method          invoice.Method
	Amount          money.Cents
	Fee             money.Cents
	Processor       *string
	Memo            *string
	ReferenceNumber *string
	Tags            []tags.Tag
	Allocations     []PaymentAllocation
	Version         int
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Input is the payment's amounts for the domain's rules.
func (p Payment) Input() invoice.PaymentInput {
	in := invoice.PaymentInput{Amount: p.Amount, Fee: p.Fee}
	for _, a := range p.Allocations {
		in.Allocations = append(in.Allocations, invoice.Allocation{InvoiceID: a.InvoiceID, Amount: a.Amount})
	}
	return in
}

// AllocationInput is an invoice_payments item: an invoice by id or
// external id, and the amount paid on it.
type AllocationInput struct {
	InvoiceID         *uuid.UUID
	InvoiceExternalID *string
	Amount            money.Cents
}

// PaymentInput is POST /invoices/payments (and the single-invoice
// shortcut), read by the HTTP layer.
type PaymentInput struct {
	ExternalID      *string
	PaidAt          *time.Time
	Method          invoice.Method
	Amount          money.Cents
	Fee             money.Cents
	Processor       *string
	Memo            *string
	ReferenceNumber *string
	Tags            []tags.KeyValue
	Allocations     []AllocationInput
	// PathInvoice is the invoice of POST /invoices/{id}/payment (the
	// whole amount goes to it): unknown, it is a 404, not a 400.
	PathInvoice *uuid.UUID
}

// PaymentStore is the payments' persistence.
type PaymentStore interface {
	// InsertPayment inserts p and its allocations unless the business has
	// a payment with its external id (inserted false).
	InsertPayment(ctx context.Context, db bun.IDB, p Payment) (inserted bool, err error)
	// FindPayments reads the business's payments ids that exist (with
	// their allocations), locked when forUpdate.
	FindPayments(ctx context.Context, db bun.IDB, businessID uuid.UUID, ids []uuid.UUID, forUpdate bool) ([]Payment, error)
	FindPaymentByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (Payment, bool, error)
	// UpdatePayment writes p's tags, version and updated_at (its amounts
	// and allocations never change).
	UpdatePayment(ctx context.Context, db bun.IDB, p Payment) error
	// DeletePayments deletes the payments and their allocations.
	DeletePayments(ctx context.Context, db bun.IDB, businessID uuid.UUID, ids []uuid.UUID) error
	// InvoiceIDsByExternalID maps the business's invoices' external ids
	// among externalIDs to their ids.
	InvoiceIDsByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalIDs []string) (map[string]uuid.UUID, error)
}

// MaxBulkDelete bounds POST /invoices/payments/bulk-delete (the spec's 1
// to 100 ids).
const MaxBulkDelete = 100

// lockInvoices locks the business's invoices ids in id order (so that
// concurrent payments of the same invoices never deadlock) and returns
// them by id; an unknown id is a 400 naming field(i).
func (a *Invoicing) lockInvoices(ctx context.Context, tx bun.IDB, businessID uuid.UUID, ids []uuid.UUID, field func(uuid.UUID) string) (map[uuid.UUID]*Invoice, error) {
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	sorted = slices.Compact(sorted)
	out := make(map[uuid.UUID]*Invoice, len(sorted))
	for _, id := range sorted {
		inv, ok, err := a.store.FindInvoice(ctx, tx, businessID, id, true)
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
func (a *Invoicing) CreatePayment(ctx context.Context, businessID uuid.UUID, in PaymentInput) (Payment, bool, error) {
	if in.PaidAt == nil {
		return Payment{}, false, apperr.PayloadField("paid_at", "is required").WithEnum(EnumInvalidInvoice)
	}
	var out Payment
	var created bool
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		if in.ExternalID != nil {
			existing, ok, err := a.store.FindPaymentByExternalID(ctx, tx, businessID, *in.ExternalID)
			if err != nil {
				return fmt.Errorf("find payment %q: %w", *in.ExternalID, err)
			}
			if ok {
				if err := sameInvoices(existing, in.Allocations); err != nil {
					return err
				}
				out = existing
				return nil
			}
		}
		ids, err := a.allocationInvoices(ctx, tx, businessID, in.Allocations)
		if err != nil {
			return err
		}
		index := map[uuid.UUID]int{}
		for i, id := range ids {
			if _, dup := index[id]; !dup {
				index[id] = i
			}
		}
		invs, err := a.lockInvoices(ctx, tx, businessID, ids, func(id uuid.UUID) string {
			return fmt.Sprintf("invoice_payments[%d]", index[id])
		})
		if err != nil {
			if in.PathInvoice != nil && apperr.Is(err, apperr.InvalidPayload) {
				return ErrInvoiceNotFound()
			}
			return err
		}
		now := a.clock()
		p := Payment{
			ID: newID(), BusinessID: businessID, ExternalID: in.ExternalID, PaidAt: micro(*in.PaidAt), Method: in.Method,
			Amount: in.Amount, Fee: in.Fee, Processor: in.Processor, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber,
			Version: 1, CreatedAt: now, UpdatedAt: now,
		}
		p.Tags = entityTags(businessID, p.ID, in.Tags, now)
		balances := map[uuid.UUID]invoice.Balance{}
		for i, al := range in.Allocations {
			inv := invs[ids[i]]
			p.Allocations = append(p.Allocations, PaymentAllocation{InvoiceID: inv.ID, InvoiceExternalID: inv.ExternalID,
				InvoiceNumber: inv.InvoiceNumber, InvoiceReferenceNumber: inv.ReferenceNumber, Amount: al.Amount})
			balances[inv.ID] = inv.Balance()
		}
		if err := invoice.CheckPayment(p.Input(), balances); err != nil {
			return err
		}
		// In invoice id order, the order the store reads them back in.
		slices.SortFunc(p.Allocations, func(x, y PaymentAllocation) int { return slices.Compare(x.InvoiceID[:], y.InvoiceID[:]) })
		inserted, err := a.store.InsertPayment(ctx, tx, p)
		if err != nil {
			return err
		}
		if !inserted { // the same external id created concurrently
			existing, ok, err := a.store.FindPaymentByExternalID(ctx, tx, businessID, *in.ExternalID)
			if err != nil || !ok {
				return fmt.Errorf("find payment %q created concurrently: %v", *in.ExternalID, err)
			}
			out = existing
			return nil
		}
		for _, al := range p.Allocations {
			inv := invs[al.InvoiceID]
			inv.Paid += al.Amount
			inv.Allocations = append(inv.Allocations, Allocation{PaymentID: p.ID, InvoiceID: inv.ID, Amount: al.Amount, PaidAt: p.PaidAt, Method: p.Method})
			if err := a.saveBalance(ctx, tx, inv, now); err != nil {
				return err
			}
		}
		out, created = p, true
		return a.pub.PaymentUpserted(ctx, tx, p)
	})
	if err != nil {
		return Payment{}, false, err
	}
	return out, created, nil
}

// saveBalance stores inv after its paid or written-off amount changed:
// status and paid_at settled, version bumped, snapshot published (its
// entry is unchanged).
func (a *Invoicing) saveBalance(ctx context.Context, tx bun.IDB, inv *Invoice, now time.Time) error {
	settle(inv)
	inv.Version, inv.UpdatedAt = inv.Version+1, now
	if err := a.store.UpdateInvoice(ctx, tx, *inv, false); err != nil {
		return err
	}
	return a.pub.InvoiceUpserted(ctx, tx, *inv, false)
}

// allocationInvoices resolves each allocation's invoice to its id (by id,
// or by external id: 400 naming the item when unknown, or when both are
// given and disagree).
func (a *Invoicing) allocationInvoices(ctx context.Context, tx bun.IDB, businessID uuid.UUID, als []AllocationInput) ([]uuid.UUID, error) {
	var exts []string
	for _, al := range als {
		if al.InvoiceExternalID != nil {
			exts = append(exts, *al.InvoiceExternalID)
		}
	}
	byExt := map[string]uuid.UUID{}
	if len(exts) > 0 {
		var err error
		if byExt, err = a.store.InvoiceIDsByExternalID(ctx, tx, businessID, exts); err != nil {
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
func (a *Invoicing) PaymentByID(ctx context.Context, businessID, id uuid.UUID) (Payment, error) {
	ps, err := a.store.FindPayments(ctx, a.db, businessID, []uuid.UUID{id}, false)
	if err != nil {
		return Payment{}, fmt.Errorf("find payment %s: %w", id, err)
	}
	if len(ps) == 0 {
		return Payment{}, ErrPaymentNotFound()
	}
	return ps[0], nil
}

// BulkDeletePayments is POST /invoices/payments/bulk-delete: 1 to 100
// distinct ids (400 otherwise), every one a payment of the business (404
// naming the unknown ones otherwise, and nothing is deleted); in one
// transaction the payments go, their invoices' balances and statuses are
// restored and their entries reversed. It returns how many were deleted.
func (a *Invoicing) BulkDeletePayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (int, error) {
	if len(ids) == 0 || len(ids) > MaxBulkDelete {
		return 0, apperr.Newf(apperr.InvalidPayload, "ids must hold 1 to %d payment ids, got %d", MaxBulkDelete, len(ids)).
			WithEnum(EnumInvalidBulkDelete).WithMeta("fields", map[string]string{"ids": fmt.Sprintf("1 to %d items", MaxBulkDelete)})
	}
	seen := map[uuid.UUID]bool{}
	for _, id := range ids {
		if seen[id] {
			return 0, apperr.Newf(apperr.InvalidPayload, "payment %s is listed twice", id).
				WithEnum(EnumInvalidBulkDelete).WithMeta("fields", map[string]string{"ids": "duplicate id " + id.String()})
		}
		seen[id] = true
	}
	var n int
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		ps, err := a.store.FindPayments(ctx, tx, businessID, ids, true)
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
		invs, err := a.lockInvoices(ctx, tx, businessID, invIDs, func(uuid.UUID) string { return "ids" })
		if err != nil {
			return err
		}
		if err := a.store.DeletePayments(ctx, tx, businessID, ids); err != nil {
			return err
		}
		now := a.clock()
		// The invoices in the order their payments name them (their
		// events' order is then the same on every run).
		var changed []uuid.UUID
		for _, p := range ps {
			for _, al := range p.Allocations {
				inv := invs[al.InvoiceID]
				inv.Paid -= al.Amount
				inv.Allocations = slices.DeleteFunc(inv.Allocations, func(x Allocation) bool { return x.PaymentID == p.ID })
				if !slices.Contains(changed, inv.ID) {
					changed = append(changed, inv.ID)
				}
			}
			p.Version++
			if err := a.pub.PaymentDeleted(ctx, tx, p); err != nil {
				return err
			}
		}
		for _, id := range changed {
			if err := a.saveBalance(ctx, tx, invs[id], now); err != nil {
				return err
			}
		}
		n = len(ps)
		return nil
	})
	return n, err
}

// sameInvoices refuses a retried payment (a known external_id) that names
// an invoice the stored payment does not pay: that external_id belongs
// to another payment (400 DuplicateExternalId), not to this request.
func sameInvoices(existing Payment, als []AllocationInput) error {
	for i, al := range als {
		if !slices.ContainsFunc(existing.Allocations, func(a PaymentAllocation) bool {
			return al.InvoiceID != nil && a.InvoiceID == *al.InvoiceID ||
				al.InvoiceExternalID != nil && a.InvoiceExternalID != nil && *a.InvoiceExternalID == *al.InvoiceExternalID
		}) {
			return apperr.PayloadField(fmt.Sprintf("invoice_payments[%d]", i),
				"a payment with this external_id exists and does not pay this invoice").WithEnum(EnumDuplicateInvoice)
		}
	}
	return nil
}
