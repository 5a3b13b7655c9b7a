package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// Source is the CloudEvents source of the service's events.
const Source = "acct/customers-invoices"

// Ledger source types of the service's documents.
const (
	SourceInvoice  = "INVOICE"
	SourcePayment  = "INVOICE_PAYMENT"
	SourceWriteOff = "INVOICE_WRITE_OFF"
)

// event is one acct.invoicing.v1 event to build: its type, business and
// payload.
type event struct {
	typ        string
	businessID uuid.UUID
	payload    any
}

// publish builds evs and publishes them, in their order, with one
// Publish in the unit of work of ctx.
func publish(ctx context.Context, pub Publisher, evs ...event) error {
	if len(evs) == 0 {
		return nil
	}
	out := make([]events.Event, len(evs))
	for i, e := range evs {
		evt, err := events.New(events.TopicInvoicing, e.typ, Source, e.businessID, e.payload)
		if err != nil {
			return fmt.Errorf("%s event: %w", e.typ, err)
		}
		out[i] = evt
	}
	return pub.Publish(ctx, out...)
}

// publish builds evs and publishes them in the unit of work of ctx.
func (a *Invoicing) publish(ctx context.Context, evs ...event) error {
	return publish(ctx, a.pub, evs...)
}

// customerEvent is the customer.upserted snapshot of c.
func customerEvent(c domain.Customer) event {
	return event{typ: events.TypeCustomerUpserted, businessID: c.BusinessID, payload: CustomerPayload(c)}
}

// CustomerPayload is the snapshot of c.
func CustomerPayload(c domain.Customer) events.CustomerUpserted {
	return events.CustomerUpserted{
		CustomerID: c.ID, BusinessID: c.BusinessID, Version: c.Version, ExternalID: c.ExternalID,
		DisplayName: c.DisplayName(), IndividualName: c.IndividualName, CompanyName: c.CompanyName, Email: c.Email,
		MobilePhone: c.MobilePhone, OfficePhone: c.OfficePhone, AddressString: c.AddressString, Memo: c.Memo,
		Status: string(c.Status), Tags: events.LedgerTagsOf(c.Tags), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		ArchivedAt: c.ArchivedAt,
	}
}

// keyValues are the tag inputs of ts.
func keyValues(ts []tags.Tag) []tags.KeyValue {
	out := make([]tags.KeyValue, len(ts))
	for i, t := range ts {
		out[i] = tags.KeyValue{Key: t.Key, Value: t.Value, DimensionDisplayName: t.DimensionDisplayName, ValueDisplayName: t.ValueDisplayName}
	}
	return out
}

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
// (nothing once voided, nor while it is a draft).
func InvoicePosting(inv invoice.Invoice) *events.LedgerPosting {
	p := &events.LedgerPosting{SourceType: SourceInvoice, SourceID: inv.ID.String(), Version: int64(inv.Version),
		EntryType: "INVOICE", EntryAt: inv.SentAt, Memo: inv.Memo}
	if inv.VoidedAt == nil && !inv.IsDraft {
		p.Lines = postingLines(invoice.InvoicePosting(inv.ComputedLines(), inv.AdditionalSalesTaxes, inv.Totals, keyValues(inv.Tags)))
	}
	return p
}

// InvoiceSnapshot is inv as other services see it.
func InvoiceSnapshot(inv invoice.Invoice) events.InvoiceSnapshot {
	return events.InvoiceSnapshot{
		ID: inv.ID, BusinessID: inv.BusinessID, ExternalID: inv.ExternalID, InvoiceNumber: inv.InvoiceNumber,
		CustomerID: inv.CustomerID, Status: string(inv.Status), SentAt: inv.SentAt, DueAt: inv.DueAt,
		TotalAmount: int64(inv.Totals.Total), OutstandingBalance: int64(inv.Outstanding()), Tags: keyValues(inv.Tags),
		Version: int64(inv.Version), UpdatedAt: inv.UpdatedAt,
	}
}

// invoiceUpserted is inv's invoice.upserted snapshot; withPosting adds the
// posting of its current version (its entry changed).
func invoiceUpserted(inv invoice.Invoice, withPosting bool) event {
	ev := events.InvoiceUpserted{BusinessID: inv.BusinessID, Invoice: InvoiceSnapshot(inv)}
	if withPosting {
		ev.Posting = InvoicePosting(inv)
	}
	return event{typ: events.TypeInvoiceUpserted, businessID: inv.BusinessID, payload: ev}
}

// invoiceDeleted is inv's invoice.deleted: its entry is reversed
// (inv.Version is the deletion's).
func invoiceDeleted(inv invoice.Invoice) event {
	return event{typ: events.TypeInvoiceDeleted, businessID: inv.BusinessID, payload: events.InvoiceDeleted{
		BusinessID: inv.BusinessID, InvoiceID: inv.ID,
		Posting: &events.LedgerPosting{SourceType: SourceInvoice, SourceID: inv.ID.String(), Version: int64(inv.Version),
			EntryType: "INVOICE", EntryAt: inv.SentAt},
	}}
}

// PaymentSnapshot is p as other services see it (matching uses the
// deposit and where it is).
func PaymentSnapshot(p invoice.Payment) events.InvoicePaymentSnapshot {
	processor := ""
	if p.Processor != nil {
		processor = *p.Processor
	}
	s := events.InvoicePaymentSnapshot{
		ID: p.ID, BusinessID: p.BusinessID, ExternalID: p.ExternalID, PaidAt: p.PaidAt, Method: string(p.Method),
		Amount: int64(p.Amount), Fee: int64(p.Fee), Processor: p.Processor, Deposit: int64(p.Amount - p.Fee),
		DepositAccount: invoice.DepositAccount(p.Method, processor), Memo: p.Memo, ReferenceNumber: p.ReferenceNumber,
		Tags: keyValues(p.Tags), Version: int64(p.Version), Allocations: []events.PaymentAllocation{},
	}
	for _, a := range p.Allocations {
		s.Allocations = append(s.Allocations, events.PaymentAllocation{InvoiceID: a.InvoiceID, InvoiceExternalID: a.InvoiceExternalID,
			InvoiceNumber: a.InvoiceNumber, InvoiceReferenceNumber: a.InvoiceReferenceNumber, Amount: int64(a.Amount)})
	}
	return s
}

// paymentUpserted is the payment's invoice_payment.upserted with its
// entry (cash side net of the fee, the fee, A/R per invoice).
func paymentUpserted(pay invoice.Payment) event {
	processor := ""
	if pay.Processor != nil {
		processor = *pay.Processor
	}
	lines := invoice.PaymentPosting(pay.Method, processor, pay.Amounts(), keyValues(pay.Tags))
	return event{typ: events.TypeInvoicePaymentUpserted, businessID: pay.BusinessID, payload: events.InvoicePaymentUpserted{
		BusinessID: pay.BusinessID, Payment: PaymentSnapshot(pay),
		Posting: &events.LedgerPosting{SourceType: SourcePayment, SourceID: pay.ID.String(), Version: int64(pay.Version),
			EntryType: "INVOICE_PAYMENT", EntryAt: pay.PaidAt, Memo: pay.Memo, Lines: postingLines(lines)},
	}}
}

// paymentDeleted is the payment's invoice_payment.deleted: its entry is
// reversed (pay.Version is the deletion's).
func paymentDeleted(pay invoice.Payment) event {
	return event{typ: events.TypeInvoicePaymentDeleted, businessID: pay.BusinessID, payload: events.InvoicePaymentDeleted{
		BusinessID: pay.BusinessID, PaymentID: pay.ID,
		Posting: &events.LedgerPosting{SourceType: SourcePayment, SourceID: pay.ID.String(), Version: int64(pay.Version),
			EntryType: "INVOICE_PAYMENT", EntryAt: pay.PaidAt},
	}}
}

// writeOffUpserted is the write-off's invoice_write_off.upserted with its
// entry on inv's revenue (none once voided).
func writeOffUpserted(w invoice.WriteOff, inv invoice.Invoice) (event, error) {
	posting := &events.LedgerPosting{SourceType: SourceWriteOff, SourceID: w.ID.String(), Version: int64(w.Version),
		EntryType: "WRITE_OFF", EntryAt: w.WriteOffAt, Memo: w.Memo}
	if w.VoidedAt == nil {
		pl, err := invoice.WriteOffPosting(w.Amount, w.Mode, w.Destination, inv.ComputedLines(), keyValues(w.Tags))
		if err != nil {
			return event{}, err
		}
		posting.Lines = postingLines(pl)
	}
	return event{typ: events.TypeInvoiceWriteOffUpserted, businessID: w.BusinessID, payload: events.InvoiceWriteOffUpserted{
		BusinessID: w.BusinessID,
		WriteOff: events.InvoiceWriteOffSnapshot{ID: w.ID, BusinessID: w.BusinessID, InvoiceID: w.InvoiceID, ExternalID: w.ExternalID,
			Amount: int64(w.Amount), Mode: string(w.Mode), WriteOffAt: w.WriteOffAt, Voided: w.VoidedAt != nil,
			Tags: keyValues(w.Tags), Version: int64(w.Version)},
		Posting: posting,
	}}, nil
}

// refundUpserted is the refund's invoice_refund.upserted with its two
// entries on inv (none once voided): the allocation (the sale given back)
// and the payment (the money paid out), both at the refund's date.
func refundUpserted(r invoice.Refund, inv invoice.Invoice) (event, error) {
	kv := keyValues(inv.Tags)
	alloc := events.LedgerPosting{SourceType: events.SourceRefundAllocation, SourceID: r.ID.String(), Version: int64(r.Version),
		EntryType: "REFUND_ALLOCATION", EntryAt: r.CompletedAt, Memo: r.Memo}
	pay := events.LedgerPosting{SourceType: events.SourceRefundPayment, SourceID: r.ID.String(), Version: int64(r.Version),
		EntryType: "REFUND_PAYMENT", EntryAt: r.CompletedAt, Memo: r.Memo}
	if r.VoidedAt == nil {
		lines, err := invoice.RefundAllocationPosting(r.Amount, inv.ComputedLines(), inv.AdditionalSalesTaxes, inv.Totals, kv)
		if err != nil {
			return event{}, err
		}
		alloc.Lines = postingLines(lines)
		pay.Lines = postingLines(invoice.RefundPaymentPosting(r.Payouts, kv))
	}
	return event{typ: events.TypeInvoiceRefundUpserted, businessID: r.BusinessID, payload: events.InvoiceRefundUpserted{
		BusinessID: r.BusinessID,
		Refund: events.InvoiceRefundSnapshot{ID: r.ID, BusinessID: r.BusinessID, InvoiceID: r.InvoiceID, ExternalID: r.ExternalID,
			Amount: int64(r.Amount), Method: string(r.Method), CompletedAt: r.CompletedAt, ReferenceNumber: r.ReferenceNumber,
			Memo: r.Memo, Voided: r.VoidedAt != nil, Version: int64(r.Version)},
		Postings: []events.LedgerPosting{alloc, pay},
	}}, nil
}
