// Package kafka is the bills-tags service's event adapter: the
// acct.bills.v1 payloads it publishes (pkg/events/bills.go), enqueued
// through the outbox in the caller's transaction. (The business projection it consumes is the
// kit's: Definition.Businesses.)
package kafka

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// Source is the CloudEvents source of the service's events.
const Source = "acct/bills-tags"

// Publisher enqueues acct.bills.v1 events in the caller's transaction.
type Publisher struct{}

var _ app.VendorPublisher = Publisher{}

// VendorUpserted implements app.VendorPublisher: one vendor.upserted
// snapshot of c.
func (Publisher) VendorUpserted(ctx context.Context, db bun.IDB, c domain.Vendor) error {
	evt, err := events.New(events.TopicBills, events.TypeVendorUpserted, Source, c.BusinessID, VendorPayload(c))
	if err != nil {
		return fmt.Errorf("vendor event: %w", err)
	}
	return outbox.Enqueue(ctx, db, evt)
}

// VendorPayload is the snapshot of v.
func VendorPayload(v domain.Vendor) events.VendorUpserted {
	return events.VendorUpserted{
		VendorID: v.ID, BusinessID: v.BusinessID, Version: v.Version, ExternalID: v.ExternalID,
		DisplayName: v.DisplayName(), IndividualName: v.IndividualName, CompanyName: v.CompanyName, Email: v.Email,
		Status: string(v.Status), MergedIntoID: v.MergedIntoID, Tags: events.LedgerTagsOf(v.Tags), UpdatedAt: v.UpdatedAt,
	}
}

var _ app.BillPublisher = Publisher{}

// BillUpserted implements app.BillPublisher: one bill.upserted with b's
// snapshot and posting (nil when the entry does not change).
func (Publisher) BillUpserted(ctx context.Context, db bun.IDB, b bill.Bill, posting *events.LedgerPosting) error {
	if posting != nil {
		if err := posting.Check(); err != nil {
			return fmt.Errorf("bill %s: %w", b.ID, err)
		}
	}
	evt, err := events.New(events.TopicBills, events.TypeBillUpserted, Source, b.BusinessID,
		events.BillUpserted{BusinessID: b.BusinessID, Bill: b.Snapshot(), Posting: posting})
	if err != nil {
		return fmt.Errorf("bill event: %w", err)
	}
	return outbox.Enqueue(ctx, db, evt)
}

var _ app.PaymentPublisher = Publisher{}

// BillPaymentUpserted implements app.PaymentPublisher: the payment's
// snapshot and its posting (version p.Version).
func (Publisher) BillPaymentUpserted(ctx context.Context, db bun.IDB, p bill.Payment) error {
	posting := p.Posting()
	if err := posting.Check(); err != nil {
		return fmt.Errorf("bill payment %s: %w", p.ID, err)
	}
	evt, err := events.New(events.TopicBills, events.TypeBillPaymentUpserted, Source, p.BusinessID,
		events.BillPaymentUpserted{BusinessID: p.BusinessID, Payment: p.Snapshot(), Posting: posting})
	if err != nil {
		return fmt.Errorf("bill payment event: %w", err)
	}
	return outbox.Enqueue(ctx, db, evt)
}

// BillPaymentDeleted implements app.PaymentPublisher: the deletion's
// posting, without lines, at the version after p's.
func (Publisher) BillPaymentDeleted(ctx context.Context, db bun.IDB, p bill.Payment) error {
	posting := p.DeletionPosting()
	if err := posting.Check(); err != nil {
		return fmt.Errorf("bill payment %s: %w", p.ID, err)
	}
	evt, err := events.New(events.TopicBills, events.TypeBillPaymentDeleted, Source, p.BusinessID,
		events.BillPaymentDeleted{BusinessID: p.BusinessID, PaymentID: p.ID, Posting: posting})
	if err != nil {
		return fmt.Errorf("bill payment event: %w", err)
	}
	return outbox.Enqueue(ctx, db, evt)
}
