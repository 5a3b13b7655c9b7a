package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// WriteOffStore is the write-offs' persistence. Every method runs in the
// unit of work its context carries (else on its own) and filters by
// business.
type WriteOffStore interface {
	// InsertWriteOff inserts w unless the business has a write-off with
	// its external id (inserted false).
	InsertWriteOff(ctx context.Context, w invoice.WriteOff) (inserted bool, err error)
	FindWriteOff(ctx context.Context, businessID, invoiceID, id uuid.UUID) (invoice.WriteOff, bool, error)
	FindWriteOffByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (invoice.WriteOff, bool, error)
	// UpdateWriteOff writes w's voided_at and version.
	UpdateWriteOff(ctx context.Context, w invoice.WriteOff) error
}

// CreateWriteOff is POST /invoices/{id}/write-off: invoice.CheckWriteOff's
// rules (0 < amount ≤ outstanding, not voided, a destination account only
// in EXPENSE mode; a revenue reversal needs revenue to reverse), the
// invoice's balance and status updated, and the events (the invoice's
// snapshot, the write-off with its entry). An external_id the business
// already has answers the stored write-off with created false.
func (a *Invoicing) CreateWriteOff(ctx context.Context, businessID, invoiceID uuid.UUID, in invoice.WriteOffInput) (invoice.WriteOff, bool, error) {
	var out invoice.WriteOff
	var created bool
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		existing, repeat, err := repeatOf(ctx, businessID, invoiceID, in.ExternalID, "write-off", a.store.FindWriteOffByExternalID,
			func(d invoice.WriteOff) uuid.UUID { return d.InvoiceID })
		if err != nil || repeat {
			out = existing
			return err
		}
		inv, err := a.lockInvoice(ctx, businessID, invoiceID)
		if err != nil {
			return err
		}
		if err := inv.CanWriteOff(in); err != nil {
			return err
		}
		if !in.Destination.IsZero() {
			if err := a.accounts.CheckAccounts(ctx, businessID, []invoice.AccountField{{Field: "destination_ledger_account", Ref: in.Destination}}); err != nil {
				return err
			}
		}
		now := a.clock()
		w := invoice.NewWriteOff(businessID, invoiceID, newID(), in, now)
		inserted, err := a.store.InsertWriteOff(ctx, w)
		if err != nil {
			return err
		}
		if !inserted {
			out, err = createdConcurrently(ctx, businessID, *in.ExternalID, "write-off", a.store.FindWriteOffByExternalID)
			return err
		}
		inv.AddWriteOff(w)
		balance, err := a.saveBalance(ctx, &inv, now)
		if err != nil {
			return err
		}
		wev, err := writeOffUpserted(w, inv)
		if err != nil {
			return err
		}
		out, created = w, true
		return a.publish(ctx, balance, wev)
	})
	if err != nil {
		return invoice.WriteOff{}, false, err
	}
	return out, created, nil
}

// WriteOffByID is GET /invoices/{invoiceId}/write-offs/{writeOffId}.
func (a *Invoicing) WriteOffByID(ctx context.Context, businessID, invoiceID, id uuid.UUID) (invoice.WriteOff, error) {
	w, ok, err := a.store.FindWriteOff(ctx, businessID, invoiceID, id)
	if err != nil {
		return invoice.WriteOff{}, fmt.Errorf("find write-off %s: %w", id, err)
	}
	if !ok {
		return invoice.WriteOff{}, apperr.New(apperr.NotFound, "write-off not found").WithEnum(EnumWriteOffNotFound)
	}
	return w, nil
}

// saveVoidedWriteOffs stores the write-offs that voiding or deleting inv
// voided and returns their events, in order (without lines: their
// entries are reversed).
func (a *Invoicing) saveVoidedWriteOffs(ctx context.Context, voided []invoice.WriteOff, inv invoice.Invoice) ([]event, error) {
	var evs []event
	for _, w := range voided {
		if err := a.store.UpdateWriteOff(ctx, w); err != nil {
			return nil, err
		}
		ev, err := writeOffUpserted(w, inv)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// createdConcurrently is the document another request stored with the
// same external_id between our look-up and our insert (which did nothing).
func createdConcurrently[T any](ctx context.Context, businessID uuid.UUID, externalID, what string,
	find func(context.Context, uuid.UUID, string) (T, bool, error)) (T, error) {
	existing, ok, err := find(ctx, businessID, externalID)
	if err != nil || !ok {
		return existing, fmt.Errorf("find %s %q created concurrently: %v", what, externalID, err)
	}
	return existing, nil
}

// repeatOf finds the document (write-off, refund) a create's external_id
// already names in the business: repeat with it, or the 400
// DuplicateExternalId when it belongs to another invoice; nothing without
// an external_id.
func repeatOf[T any](ctx context.Context, businessID, invoiceID uuid.UUID, externalID *string, what string,
	find func(context.Context, uuid.UUID, string) (T, bool, error), invoiceOf func(T) uuid.UUID) (T, bool, error) {
	var none T
	if externalID == nil {
		return none, false, nil
	}
	existing, ok, err := find(ctx, businessID, *externalID)
	if err != nil {
		return none, false, fmt.Errorf("find %s %q: %w", what, *externalID, err)
	}
	if !ok {
		return none, false, nil
	}
	if invoiceOf(existing) != invoiceID {
		return none, false, apperr.PayloadField("external_id", "a "+what+" of another invoice has this external_id").
			WithEnum(invoice.EnumDuplicateExternalID)
	}
	return existing, true, nil
}
