package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// RefundStore is the refunds' persistence (in the unit of work ctx
// carries, scoped by business).
type RefundStore interface {
	// InsertRefund inserts r unless the business has a refund with its
	// external id (inserted false).
	InsertRefund(ctx context.Context, r invoice.Refund) (inserted bool, err error)
	FindRefundByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (invoice.Refund, bool, error)
	// UpdateRefund writes r's voided_at and version.
	UpdateRefund(ctx context.Context, r invoice.Refund) error
}

// SummaryStats are the figures of the invoices overview (GET
// /invoices/summary-stats, the client's InvoiceSummaryStats), in cents:
//
//   - Overdue: the invoices sent in the last 12 months with something
//     outstanding and a due date before today (UTC), and their outstanding
//     balances;
//   - Upcoming ("sent"): the other invoices sent in the last 12 months with
//     something outstanding (due today or later, or without a due date);
//   - PaidLast30Days: the payments received in the last 30 days.
//
// Drafts, voided, paid, written-off and refunded invoices owe nothing, so
// they count nowhere; the client adds Overdue and Upcoming as "owed to
// you" (the two never overlap).
type SummaryStats struct {
	OverdueCount, UpcomingCount int64
	OverdueTotal, UpcomingTotal money.Cents
	PaidLast30Days              money.Cents
}

// SummaryWindow is the period the summary's figures cover, as of now.
type SummaryWindow struct {
	SentSince  time.Time // invoices sent on or after (12 months ago)
	DueBefore  time.Time // overdue: due before (today's start, UTC)
	PaidSince  time.Time // payments on or after (30 days ago)
	PaidBefore time.Time // and not after now
}

// SummaryWindowAt is the window as of now.
func SummaryWindowAt(now time.Time) SummaryWindow {
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return SummaryWindow{SentSince: now.AddDate(-1, 0, 0), DueBefore: today, PaidSince: now.AddDate(0, 0, -30), PaidBefore: now}
}

// SummaryStore computes the summary in the database.
type SummaryStore interface {
	InvoiceSummary(ctx context.Context, businessID uuid.UUID, w SummaryWindow) (SummaryStats, error)
}

// Summary is GET /invoices/summary-stats.
func (a *Invoicing) Summary(ctx context.Context, businessID uuid.UUID) (SummaryStats, error) {
	s, err := a.store.InvoiceSummary(ctx, businessID, SummaryWindowAt(a.clock()))
	if err != nil {
		return SummaryStats{}, fmt.Errorf("invoice summary of %s: %w", businessID, err)
	}
	return s, nil
}

// FinalizeInvoice is PUT /invoices/{id}/finalize-invoice: a draft is sent
// (its entry posted, as a create of a sent invoice posts it); the payment
// methods and instructions given are recorded (on a sent invoice too). A
// voided invoice is 409; a call that changes nothing writes nothing.
func (a *Invoicing) FinalizeInvoice(ctx context.Context, businessID, id uuid.UUID, in invoice.FinalizeInput) (InvoiceView, error) {
	var out InvoiceView
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		inv, err := a.lockInvoice(ctx, businessID, id)
		if err != nil {
			return err
		}
		posted, changed, err := inv.Finalize(in, a.clock())
		if err != nil {
			return err
		}
		out = InvoiceView{Invoice: inv}
		if !changed {
			return nil
		}
		if err := a.store.UpdateInvoice(ctx, inv, false); err != nil {
			return err
		}
		return a.publish(ctx, invoiceUpserted(inv, posted))
	})
	if err != nil {
		return InvoiceView{}, err
	}
	return out, a.withCustomer(ctx, &out)
}

// ResetInvoice is POST /invoices/{id}/reset: the invoice as it was
// created (invoice.Invoice.Reset): its payments deleted (each pays this
// invoice alone, else 409 naming the one that does not) with their
// entries reversed, its write-offs and refunds voided (entries reversed),
// a voided invoice sent again (its entry posted again). A draft or an
// invoice with nothing to undo is answered unchanged.
//
// The payments are locked before the invoice, as a bulk delete locks
// them, so the two never deadlock; the invoice's payments are read first
// and read again once it is locked (a payment made in between is retried).
func (a *Invoicing) ResetInvoice(ctx context.Context, businessID, id uuid.UUID) (InvoiceView, error) {
	var out InvoiceView
	const attempts = 3
	for try := 1; ; try++ {
		retry := false
		err := a.uow.Do(ctx, func(ctx context.Context) error {
			peek, ok, err := a.store.FindInvoice(ctx, businessID, id, false)
			if err != nil {
				return fmt.Errorf("find invoice %s: %w", id, err)
			}
			if !ok {
				return ErrInvoiceNotFound()
			}
			ids := allocationPayments(peek)
			var pays []invoice.Payment
			if len(ids) > 0 {
				if pays, err = a.store.FindPayments(ctx, businessID, ids, true); err != nil {
					return fmt.Errorf("lock payments: %w", err)
				}
			}
			inv, err := a.lockInvoice(ctx, businessID, id)
			if err != nil {
				return err
			}
			if !slices.Equal(allocationPayments(inv), ids) {
				retry = true
				return errRetry
			}
			spans := map[uuid.UUID]int{}
			for _, p := range pays {
				spans[p.ID] = len(p.Allocations)
			}
			now := a.clock()
			res, changed, err := inv.Reset(now, spans)
			if err != nil || !changed {
				out = InvoiceView{Invoice: inv}
				return err
			}
			var evs []event
			if len(res.Payments) > 0 {
				if err := a.store.DeletePayments(ctx, businessID, res.Payments); err != nil {
					return err
				}
				for _, p := range pays {
					p.Version++
					evs = append(evs, paymentDeleted(p))
				}
			}
			wevs, err := a.saveVoidedWriteOffs(ctx, res.WriteOffs, inv)
			if err != nil {
				return err
			}
			evs = append(evs, wevs...)
			for _, r := range res.Refunds {
				if err := a.store.UpdateRefund(ctx, r); err != nil {
					return err
				}
				ev, err := refundUpserted(r, inv)
				if err != nil {
					return err
				}
				evs = append(evs, ev)
			}
			if err := a.store.UpdateInvoice(ctx, inv, false); err != nil {
				return err
			}
			out = InvoiceView{Invoice: inv}
			return a.publish(ctx, append(evs, invoiceUpserted(inv, res.Unvoided))...)
		})
		if retry && try < attempts {
			continue
		}
		if retry {
			return InvoiceView{}, apperr.New(apperr.Conflict, "the invoice's payments changed while it was reset: try again")
		}
		if err != nil {
			return InvoiceView{}, err
		}
		return out, a.withCustomer(ctx, &out)
	}
}

// errRetry rolls a unit of work back to try it again.
var errRetry = errors.New("retry")

// allocationPayments are the ids of the payments allocated to inv, sorted.
func allocationPayments(inv invoice.Invoice) []uuid.UUID {
	ids := make([]uuid.UUID, 0, len(inv.Allocations))
	for _, al := range inv.Allocations {
		ids = append(ids, al.PaymentID)
	}
	slices.SortFunc(ids, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	return slices.Compact(ids)
}

// UpdatePayment is PUT /invoices/{id}/payment/{paymentId}: the payment of
// that invoice (404 PaymentNotFound otherwise) with the body's terms
// (invoice.Payment.Revise: the create's rules, a payment of this invoice
// alone), the invoice's balance and status updated, and its entry posted
// again (the new version replaces the old one in the ledger). The payment
// is locked before the invoice, as a bulk delete does.
func (a *Invoicing) UpdatePayment(ctx context.Context, businessID, invoiceID, paymentID uuid.UUID, in invoice.PaymentInput) (invoice.Payment, error) {
	var out invoice.Payment
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		ps, err := a.store.FindPayments(ctx, businessID, []uuid.UUID{paymentID}, true)
		if err != nil {
			return fmt.Errorf("lock payment %s: %w", paymentID, err)
		}
		if len(ps) == 0 || !slices.ContainsFunc(ps[0].Allocations, func(al invoice.PaymentAllocation) bool { return al.InvoiceID == invoiceID }) {
			if _, err := a.lockInvoice(ctx, businessID, invoiceID); err != nil {
				return err
			}
			return ErrPaymentNotFound()
		}
		p := ps[0]
		if in.ExternalID != nil && (p.ExternalID == nil || *p.ExternalID != *in.ExternalID) {
			if _, taken, err := a.store.FindPaymentByExternalID(ctx, businessID, *in.ExternalID); err != nil {
				return fmt.Errorf("find payment %q: %w", *in.ExternalID, err)
			} else if taken {
				return apperr.New(apperr.Conflict, "another payment has this external_id").WithEnum(invoice.EnumDuplicateExternalID)
			}
		}
		inv, err := a.lockInvoice(ctx, businessID, invoiceID)
		if err != nil {
			return err
		}
		now := a.clock()
		next, err := p.Revise(in, &inv, now)
		if err != nil {
			return err
		}
		if err := a.store.UpdatePaymentTerms(ctx, next); err != nil {
			return err
		}
		ev, err := a.saveBalance(ctx, &inv, now)
		if err != nil {
			return err
		}
		out = next
		return a.publish(ctx, ev, paymentUpserted(next))
	})
	return out, err
}

// RefundInvoice is POST /invoices/{id}/refund: money paid on the invoice
// given back to the customer (invoice.Invoice.NewRefund: all that is
// refundable unless refunded_amount says less), its two entries posted
// (invoice.RefundAllocationPosting, invoice.RefundPaymentPosting), the
// invoice REFUNDED once everything paid went back. An external_id the
// business already has answers that refund (created false), or 400 when
// it is another invoice's.
func (a *Invoicing) RefundInvoice(ctx context.Context, businessID, invoiceID uuid.UUID, in invoice.RefundInput) (invoice.Refund, bool, error) {
	var out invoice.Refund
	var created bool
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		existing, repeat, err := repeatOf(ctx, businessID, invoiceID, in.ExternalID, "refund", a.store.FindRefundByExternalID,
			func(d invoice.Refund) uuid.UUID { return d.InvoiceID })
		if err != nil || repeat {
			out = existing
			return err
		}
		inv, err := a.lockInvoice(ctx, businessID, invoiceID)
		if err != nil {
			return err
		}
		now := a.clock()
		r, err := inv.NewRefund(newID(), in, now)
		if err != nil {
			return err
		}
		rev, err := refundUpserted(r, inv)
		if err != nil {
			return err
		}
		inserted, err := a.store.InsertRefund(ctx, r)
		if err != nil {
			return err
		}
		if !inserted {
			out, err = createdConcurrently(ctx, businessID, *in.ExternalID, "refund", a.store.FindRefundByExternalID)
			return err
		}
		inv.AddRefund(r)
		balance, err := a.saveBalance(ctx, &inv, now)
		if err != nil {
			return err
		}
		out, created = r, true
		return a.publish(ctx, balance, rev)
	})
	if err != nil {
		return invoice.Refund{}, false, err
	}
	return out, created, nil
}
