package kafka

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

var _ app.InvoicePublisher = Publisher{}

// Ledger source types of the service's documents.
const (
	SourceInvoice  = "INVOICE"
	SourcePayment  = "INVOICE_PAYMENT"
	SourceWriteOff = "INVOICE_WRITE_OFF"
)

// postingLines are the domain's lines in the event's shape.
func postingLines(ls []invoice.PostingLine) []events.PostingLine {
	if len(ls) == 0 {
		return nil
	}
	out := make([]events.PostingLine, len(ls))
	for i, l := range ls {
		a := events.PostingAccount{}
		switch {
		case l.Account.TaxName != "":
			a.Type, a.Name = events.PostingTaxName, l.Account.TaxName
		case l.Account.Ref.ID != nil:
			a.Type, a.ID = events.PostingAccountID, l.Account.Ref.ID
		default:
			a.Type, a.StableName = events.PostingStableName, l.Account.Ref.StableName
		}
		out[i] = events.PostingLine{Account: a, Direction: string(l.Direction), Amount: int64(l.Amount), Tags: nonNilKV(l.Tags)}
	}
	return out
}

func nonNilKV(kvs []tags.KeyValue) []tags.KeyValue {
	if kvs == nil {
		return []tags.KeyValue{}
	}
	return kvs
}

// InvoicePosting is the posting of inv's current version: its entry
// (nothing once voided).
func InvoicePosting(inv app.Invoice) *events.LedgerPosting {
	p := &events.LedgerPosting{SourceType: SourceInvoice, SourceID: inv.ID.String(), Version: int64(inv.Version),
		EntryType: "INVOICE", EntryAt: inv.SentAt, Memo: inv.Memo}
	if inv.VoidedAt == nil {
		p.Lines = postingLines(invoice.InvoicePosting(inv.DomainLines(), inv.AdditionalSalesTaxes, inv.Totals, app.KeyValues(inv.Tags)))
	}
	return p
}

// InvoiceSnapshot is inv as other services see it.
func InvoiceSnapshot(inv app.Invoice) events.InvoiceSnapshot {
	return events.InvoiceSnapshot{
		ID: inv.ID, BusinessID: inv.BusinessID, ExternalID: inv.ExternalID, InvoiceNumber: inv.InvoiceNumber,
		CustomerID: inv.CustomerID, Status: string(inv.Status), SentAt: inv.SentAt, DueAt: inv.DueAt,
		TotalAmount: int64(inv.Totals.Total), OutstandingBalance: int64(inv.Outstanding()), Tags: app.KeyValues(inv.Tags),
		Version: int64(inv.Version), UpdatedAt: inv.UpdatedAt,
	}
}

func (Publisher) enqueue(ctx context.Context, db bun.IDB, typ string, businessID uuid.UUID, payload any) error {
	evt, err := events.New(events.TopicInvoicing, typ, Source, businessID, payload)
	if err != nil {
		return fmt.Errorf("%s event: %w", typ, err)
	}
	return outbox.Enqueue(ctx, db, evt)
}

// InvoiceUpserted implements app.InvoicePublisher.
func (p Publisher) InvoiceUpserted(ctx context.Context, db bun.IDB, inv app.Invoice, withPosting bool) error {
	ev := events.InvoiceUpserted{BusinessID: inv.BusinessID, Invoice: InvoiceSnapshot(inv)}
	if withPosting {
		ev.Posting = InvoicePosting(inv)
	}
	return p.enqueue(ctx, db, events.TypeInvoiceUpserted, inv.BusinessID, ev)
}

// InvoiceDeleted implements app.InvoicePublisher: the invoice's entry is
// reversed.
func (p Publisher) InvoiceDeleted(ctx context.Context, db bun.IDB, inv app.Invoice) error {
	return p.enqueue(ctx, db, events.TypeInvoiceDeleted, inv.BusinessID, events.InvoiceDeleted{
		BusinessID: inv.BusinessID, InvoiceID: inv.ID,
		Posting: &events.LedgerPosting{SourceType: SourceInvoice, SourceID: inv.ID.String(), Version: int64(inv.Version),
			EntryType: "INVOICE", EntryAt: inv.SentAt},
	})
}

// PaymentSnapshot is p as other services see it (matching uses the
// deposit and where it is).
func PaymentSnapshot(p app.Payment) events.InvoicePaymentSnapshot {
	processor := ""
	if p.Processor != nil {
		processor = *p.Processor
	}
	s := events.InvoicePaymentSnapshot{
		ID: p.ID, BusinessID: p.BusinessID, ExternalID: p.ExternalID, PaidAt: p.PaidAt, Method: string(p.Method),
		Amount: int64(p.Amount), Fee: int64(p.Fee), Processor: p.Processor, Deposit: int64(p.Amount - p.Fee),
		DepositAccount: invoice.DepositAccount(p.Method, processor), Memo: p.Memo, ReferenceNumber: p.ReferenceNumber,
		Tags: app.KeyValues(p.Tags), Version: int64(p.Version), Allocations: []events.PaymentAllocation{},
	}
	for _, a := range p.Allocations {
		s.Allocations = append(s.Allocations, events.PaymentAllocation{InvoiceID: a.InvoiceID, InvoiceExternalID: a.InvoiceExternalID,
			InvoiceNumber: a.InvoiceNumber, InvoiceReferenceNumber: a.InvoiceReferenceNumber, Amount: int64(a.Amount)})
	}
	return s
}

// PaymentUpserted implements app.InvoicePublisher: the payment and its
// entry (cash side net of the fee, the fee, A/R per invoice).
func (p Publisher) PaymentUpserted(ctx context.Context, db bun.IDB, pay app.Payment) error {
	processor := ""
	if pay.Processor != nil {
		processor = *pay.Processor
	}
	lines := invoice.PaymentPosting(pay.Method, processor, pay.Input(), app.KeyValues(pay.Tags))
	return p.enqueue(ctx, db, events.TypeInvoicePaymentUpserted, pay.BusinessID, events.InvoicePaymentUpserted{
		BusinessID: pay.BusinessID, Payment: PaymentSnapshot(pay),
		Posting: &events.LedgerPosting{SourceType: SourcePayment, SourceID: pay.ID.String(), Version: int64(pay.Version),
			EntryType: "INVOICE_PAYMENT", EntryAt: pay.PaidAt, Memo: pay.Memo, Lines: postingLines(lines)},
	})
}

// PaymentDeleted implements app.InvoicePublisher: the payment's entry is
// reversed (pay.Version is the deletion's).
func (p Publisher) PaymentDeleted(ctx context.Context, db bun.IDB, pay app.Payment) error {
	return p.enqueue(ctx, db, events.TypeInvoicePaymentDeleted, pay.BusinessID, events.InvoicePaymentDeleted{
		BusinessID: pay.BusinessID, PaymentID: pay.ID,
		Posting: &events.LedgerPosting{SourceType: SourcePayment, SourceID: pay.ID.String(), Version: int64(pay.Version),
			EntryType: "INVOICE_PAYMENT", EntryAt: pay.PaidAt},
	})
}

// WriteOffUpserted implements app.InvoicePublisher: the write-off and its
// entry (none once voided).
func (p Publisher) WriteOffUpserted(ctx context.Context, db bun.IDB, w app.WriteOff, inv app.Invoice) error {
	posting := &events.LedgerPosting{SourceType: SourceWriteOff, SourceID: w.ID.String(), Version: int64(w.Version),
		EntryType: "WRITE_OFF", EntryAt: w.WriteOffAt, Memo: w.Memo}
	if w.VoidedAt == nil {
		pl, err := invoice.WriteOffPosting(w.Amount, w.Mode, w.Destination, inv.DomainLines(), app.KeyValues(w.Tags))
		if err != nil {
			return err
		}
		posting.Lines = postingLines(pl)
	}
	return p.enqueue(ctx, db, events.TypeInvoiceWriteOffUpserted, w.BusinessID, events.InvoiceWriteOffUpserted{
		BusinessID: w.BusinessID,
		WriteOff: events.InvoiceWriteOffSnapshot{ID: w.ID, BusinessID: w.BusinessID, InvoiceID: w.InvoiceID, ExternalID: w.ExternalID,
			Amount: int64(w.Amount), Mode: string(w.Mode), WriteOffAt: w.WriteOffAt, Voided: w.VoidedAt != nil,
			Tags: app.KeyValues(w.Tags), Version: int64(w.Version)},
		Posting: posting,
	})
}
