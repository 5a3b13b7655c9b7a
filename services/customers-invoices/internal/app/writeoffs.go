package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// WriteOff is a write-off of part of an invoice, as stored. VoidedAt is
// set when its invoice was voided or deleted (its entry reversed).
type WriteOff struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	InvoiceID       uuid.UUID
	ExternalID      *string
	Amount          money.Cents
	Mode            invoice.WriteOffMode
	Destination     invoice.AccountRef // EXPENSE mode: zero means BAD_DEBT
	WriteOffAt      time.Time
	Memo            *string
	ReferenceNumber *string
	Tags            []tags.Tag
	VoidedAt        *time.Time
	Version         int
	CreatedAt       time.Time
}

// WriteOffInput is POST /invoices/{id}/write-off, read by the HTTP layer.
type WriteOffInput struct {
	ExternalID      *string
	Amount          money.Cents
	Mode            invoice.WriteOffMode
	Destination     invoice.AccountRef
	WriteOffAt      *time.Time
	Memo            *string
	ReferenceNumber *string
	Tags            []tags.KeyValue
}

// WriteOffStore is the write-offs' persistence.
type WriteOffStore interface {
	// InsertWriteOff inserts w unless the business has a write-off with
	// its external id (inserted false).
	InsertWriteOff(ctx context.Context, db bun.IDB, w WriteOff) (inserted bool, err error)
	FindWriteOff(ctx context.Context, db bun.IDB, businessID, invoiceID, id uuid.UUID) (WriteOff, bool, error)
	FindWriteOffByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (WriteOff, bool, error)
	// UpdateWriteOff writes w's voided_at and version.
	UpdateWriteOff(ctx context.Context, db bun.IDB, w WriteOff) error
}

// CreateWriteOff is POST /invoices/{id}/write-off: invoice.CheckWriteOff's
// rules (0 < amount ≤ outstanding, not voided, a destination account only
// in EXPENSE mode), the invoice's balance and status updated, and the
// events (the invoice's snapshot, the write-off with its entry). An
// external_id the business already has answers the stored write-off with
// created false.
func (a *Invoicing) CreateWriteOff(ctx context.Context, businessID, invoiceID uuid.UUID, in WriteOffInput) (WriteOff, bool, error) {
	var out WriteOff
	var created bool
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		if in.ExternalID != nil {
			existing, ok, err := a.store.FindWriteOffByExternalID(ctx, tx, businessID, *in.ExternalID)
			if err != nil {
				return fmt.Errorf("find write-off %q: %w", *in.ExternalID, err)
			}
			if ok {
				if existing.InvoiceID != invoiceID {
					return apperr.PayloadField("external_id", "a write-off of another invoice has this external_id").
						WithEnum(EnumDuplicateInvoice)
				}
				out = existing
				return nil
			}
		}
		inv, err := a.lockInvoice(ctx, tx, businessID, invoiceID)
		if err != nil {
			return err
		}
		if err := invoice.CheckWriteOff(in.Amount, in.Mode, in.Destination, inv.Balance()); err != nil {
			return err
		}
		if !in.Destination.IsZero() {
			if err := a.checkAccounts(ctx, tx, businessID, []accountField{{"destination_ledger_account", in.Destination}}); err != nil {
				return err
			}
		}
		// A revenue reversal needs revenue to reverse: checked here, before
		// anything is written.
		if _, err := invoice.WriteOffPosting(in.Amount, in.Mode, in.Destination, inv.DomainLines(), nil); err != nil {
			return err
		}
		now := a.clock()
		w := WriteOff{
			ID: newID(), BusinessID: businessID, InvoiceID: invoiceID, ExternalID: in.ExternalID, Amount: in.Amount,
			Mode: in.Mode, Destination: in.Destination, WriteOffAt: now, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber,
			Version: 1, CreatedAt: now,
		}
		if in.WriteOffAt != nil {
			w.WriteOffAt = micro(*in.WriteOffAt)
		}
		w.Tags = entityTags(businessID, w.ID, in.Tags, now)
		inserted, err := a.store.InsertWriteOff(ctx, tx, w)
		if err != nil {
			return err
		}
		if !inserted {
			existing, ok, err := a.store.FindWriteOffByExternalID(ctx, tx, businessID, *in.ExternalID)
			if err != nil || !ok {
				return fmt.Errorf("find write-off %q created concurrently: %v", *in.ExternalID, err)
			}
			out = existing
			return nil
		}
		inv.WrittenOff += w.Amount
		inv.WriteOffs = append(inv.WriteOffs, w)
		if err := a.saveBalance(ctx, tx, &inv, now); err != nil {
			return err
		}
		out, created = w, true
		return a.pub.WriteOffUpserted(ctx, tx, w, inv)
	})
	if err != nil {
		return WriteOff{}, false, err
	}
	return out, created, nil
}

// WriteOffByID is GET /invoices/{invoiceId}/write-offs/{writeOffId}.
func (a *Invoicing) WriteOffByID(ctx context.Context, businessID, invoiceID, id uuid.UUID) (WriteOff, error) {
	w, ok, err := a.store.FindWriteOff(ctx, a.db, businessID, invoiceID, id)
	if err != nil {
		return WriteOff{}, fmt.Errorf("find write-off %s: %w", id, err)
	}
	if !ok {
		return WriteOff{}, apperr.New(apperr.NotFound, "write-off not found").WithEnum(EnumWriteOffNotFound)
	}
	return w, nil
}

// voidWriteOffs marks the live write-offs of inv (locked) voided and
// publishes each without lines (its entry is reversed); inv owes nothing
// written off any more.
func (a *Invoicing) voidWriteOffs(ctx context.Context, tx bun.IDB, inv *Invoice, now time.Time) error {
	for i := range inv.WriteOffs {
		w := &inv.WriteOffs[i]
		if w.VoidedAt != nil {
			continue
		}
		w.VoidedAt, w.Version = &now, w.Version+1
		if err := a.store.UpdateWriteOff(ctx, tx, *w); err != nil {
			return err
		}
		if err := a.pub.WriteOffUpserted(ctx, tx, *w, *inv); err != nil {
			return err
		}
	}
	inv.WrittenOff = 0
	return nil
}
