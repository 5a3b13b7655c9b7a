package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/receipt"
)

// Source is the CloudEvents source of the service's events.
const Source = "acct/bills-tags"

// event is one acct.bills.v1 event to build: its type, business and
// payload, or why it cannot be built (a posting that fails its check).
type event struct {
	typ        string
	businessID uuid.UUID
	payload    any
	err        error
}

// publish builds evs and publishes them with pub in the unit of work of
// ctx; nothing is published when one of them cannot be built.
func publish(ctx context.Context, pub Publisher, evs ...event) error {
	out := make([]events.Event, len(evs))
	for i, e := range evs {
		if e.err != nil {
			return e.err
		}
		evt, err := events.New(events.TopicBills, e.typ, Source, e.businessID, e.payload)
		if err != nil {
			return fmt.Errorf("%s event: %w", e.typ, err)
		}
		out[i] = evt
	}
	return pub.Publish(ctx, out...)
}

// vendorEvent is the vendor.upserted snapshot of v.
func vendorEvent(v domain.Vendor) event {
	return event{typ: events.TypeVendorUpserted, businessID: v.BusinessID, payload: VendorPayload(v)}
}

// VendorPayload is the snapshot of v.
func VendorPayload(v domain.Vendor) events.VendorUpserted {
	return events.VendorUpserted{
		VendorID: v.ID, BusinessID: v.BusinessID, Version: v.Version, ExternalID: v.ExternalID,
		DisplayName: v.DisplayName(), IndividualName: v.IndividualName, CompanyName: v.CompanyName, Email: v.Email,
		Status: string(v.Status), MergedIntoID: v.MergedIntoID, Tags: events.LedgerTagsOf(v.Tags), UpdatedAt: v.UpdatedAt,
	}
}

// billEvent is one bill.upserted with b's snapshot and posting (nil when
// the entry does not change).
func billEvent(b bill.Bill, posting *events.LedgerPosting) event {
	e := event{typ: events.TypeBillUpserted, businessID: b.BusinessID,
		payload: events.BillUpserted{BusinessID: b.BusinessID, Bill: b.Snapshot(), Posting: posting}}
	if posting != nil {
		if err := posting.Check(); err != nil {
			e.err = fmt.Errorf("bill %s: %w", b.ID, err)
		}
	}
	return e
}

// paymentEvent is the bill_payment.upserted of p: its snapshot and its
// posting (version p.Version).
func paymentEvent(p bill.Payment) event {
	posting := p.Posting()
	e := event{typ: events.TypeBillPaymentUpserted, businessID: p.BusinessID,
		payload: events.BillPaymentUpserted{BusinessID: p.BusinessID, Payment: p.Snapshot(), Posting: posting}}
	if err := posting.Check(); err != nil {
		e.err = fmt.Errorf("bill payment %s: %w", p.ID, err)
	}
	return e
}

// paymentDeletedEvent is the bill_payment.deleted of p: the deletion's
// posting, without lines, at the version after p's.
func paymentDeletedEvent(p bill.Payment) event {
	posting := p.DeletionPosting()
	e := event{typ: events.TypeBillPaymentDeleted, businessID: p.BusinessID,
		payload: events.BillPaymentDeleted{BusinessID: p.BusinessID, PaymentID: p.ID, Posting: posting}}
	if err := posting.Check(); err != nil {
		e.err = fmt.Errorf("bill payment %s: %w", p.ID, err)
	}
	return e
}

// creditEvent is the vendor_credit.upserted of c: its snapshot
// (allocations included) and its posting (version c.Version, never
// without lines).
func creditEvent(c bill.Credit) event {
	posting := c.Posting()
	e := event{typ: events.TypeVendorCreditUpserted, businessID: c.BusinessID,
		payload: events.VendorCreditUpserted{BusinessID: c.BusinessID, VendorCredit: c.Snapshot(), Posting: posting}}
	if err := posting.Check(); err != nil {
		e.err = fmt.Errorf("vendor credit %s: %w", c.ID, err)
	}
	return e
}

// receiptParsedEvent is the receipt.parsed of r, as its import inserts it.
func receiptParsedEvent(r receipt.Receipt) event {
	p := events.ReceiptParsed{
		ReceiptID: r.ID, BusinessID: r.BusinessID, Status: string(r.Status), FailureReason: r.FailureReason,
		FileType: r.FileType, ProposedAmountCents: r.AmountCents, ProposedVendorDisplay: r.VendorDisplay,
		MatchedVendorID: r.MatchedVendorID, CreatedAt: r.CreatedAt,
	}
	if r.FileName != "" {
		name := r.FileName
		p.FileName = &name
	}
	return event{typ: events.TypeReceiptParsed, businessID: r.BusinessID, payload: p}
}
