package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// BillStore is the bills' persistence (scoped by business, on the db it
// is given).
type BillStore interface {
	InsertBill(ctx context.Context, db bun.IDB, b bill.Bill) (bool, error)
	FindBill(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (bill.Bill, bool, error)
	FindBillByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string, forUpdate bool) (bill.Bill, bool, error)
	UpdateBill(ctx context.Context, db bun.IDB, b bill.Bill) error
	LockVendorBills(ctx context.Context, db bun.IDB, businessID, vendorID uuid.UUID) ([]bill.Bill, error)
	FindBills(ctx context.Context, db bun.IDB, businessID uuid.UUID, f bill.Filter, p page.Params) ([]bill.Bill, page.Meta, error)
}

// BillPublisher enqueues bill events in the caller's transaction.
type BillPublisher interface {
	BillUpserted(ctx context.Context, db bun.IDB, b bill.Bill, posting *events.LedgerPosting) error
}

// BillView is a bill with what its answer shows: its vendor.
type BillView struct {
	Bill   bill.Bill
	Vendor domain.Vendor
}

// Bills holds the bill use cases.
type Bills struct {
	db      *bun.DB
	store   BillStore
	vendors VendorStore
	pub     BillPublisher
	vpub    VendorPublisher
	log     *slog.Logger
	now     func() time.Time
	chart   accountChecker
}

// UseAccounts sets the chart-of-accounts projection that the accounts a
// bill names are checked against (see accountChecker).
func (a *Bills) UseAccounts(store AccountStore) { a.chart = accountChecker{store} }

// NewBills assembles the bill use cases on db.
func NewBills(db *bun.DB, store BillStore, vendors VendorStore, pub BillPublisher, vpub VendorPublisher, logger *slog.Logger) *Bills {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Bills{db: db, store: store, vendors: vendors, pub: pub, vpub: vpub, log: logger, now: time.Now}
}

func (a *Bills) clock() time.Time { return a.now().UTC().Truncate(time.Microsecond) }

// ErrBillNotFound is the 404 of a bill the business does not have.
func ErrBillNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "bill not found").WithEnum(bill.EnumBillNotFound)
}

// resolveVendor is the vendor a bill names: vendor_id must be the
// business's (400 otherwise); an unknown vendor_external_id creates a
// vendor with that external id and no name (and its vendor.upserted).
func (a *Bills) resolveVendor(ctx context.Context, tx bun.Tx, businessID uuid.UUID, id *uuid.UUID, externalID *string) (domain.Vendor, error) {
	if id != nil {
		v, ok, err := a.vendors.FindVendor(ctx, tx, businessID, *id, false)
		if err != nil {
			return domain.Vendor{}, fmt.Errorf("find vendor: %w", err)
		}
		if !ok {
			return domain.Vendor{}, apperr.PayloadField("vendor_id", "no such vendor in the business").WithEnum(bill.EnumInvalidBill)
		}
		return v, nil
	}
	v, ok, err := a.vendors.FindVendorByExternalID(ctx, tx, businessID, *externalID)
	if err != nil || ok {
		return v, err
	}
	v = domain.NewVendor(businessID, newID(), domain.VendorInput{ExternalID: externalID}, a.clock())
	inserted, err := a.vendors.InsertVendor(ctx, tx, v)
	if err != nil {
		return domain.Vendor{}, fmt.Errorf("insert vendor: %w", err)
	}
	if !inserted { // created concurrently
		v, _, err = a.vendors.FindVendorByExternalID(ctx, tx, businessID, *externalID)
		return v, err
	}
	return v, a.vpub.VendorUpserted(ctx, tx, v)
}

// create writes one new bill (or finds the one with its external id).
func (a *Bills) create(ctx context.Context, tx bun.Tx, businessID uuid.UUID, in bill.Input) (BillView, bool, error) {
	if in.ExternalID != nil {
		existing, ok, err := a.store.FindBillByExternalID(ctx, tx, businessID, *in.ExternalID, false)
		if err != nil {
			return BillView{}, false, err
		}
		if ok {
			v, err := a.vendorOf(ctx, tx, existing)
			return BillView{Bill: existing, Vendor: v}, false, err
		}
	}
	c, err := bill.Compute(in.Lines, in.Additional, newID)
	if err != nil {
		return BillView{}, false, err
	}
	v, err := a.resolveVendor(ctx, tx, businessID, in.VendorID, in.VendorExternalID)
	if err != nil {
		return BillView{}, false, err
	}
	now := a.clock()
	id := newID()
	b := bill.Bill{
		ID: id, BusinessID: businessID, ExternalID: in.ExternalID, BillNumber: in.BillNumber, VendorID: &v.ID,
		ReceivedAt: in.ReceivedAt, DueAt: in.DueAt, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber, Metadata: in.Metadata,
		Tags: bill.TagSet(businessID, id, nil, in.Tags, now), Lines: c.Lines, AdditionalSalesTaxes: c.AdditionalSalesTaxes,
		Totals: c.Totals, Version: 1, ImportedAt: now, UpdatedAt: now,
	}
	b = b.Settle(0, now)
	if err := a.chart.check(ctx, tx, businessID, billAccounts(b)); err != nil {
		return BillView{}, false, err
	}
	inserted, err := a.store.InsertBill(ctx, tx, b)
	if err != nil {
		return BillView{}, false, err
	}
	if !inserted { // the same external id, concurrently: answer that bill
		existing, _, err := a.store.FindBillByExternalID(ctx, tx, businessID, *in.ExternalID, false)
		if err != nil {
			return BillView{}, false, err
		}
		v, err := a.vendorOf(ctx, tx, existing)
		return BillView{Bill: existing, Vendor: v}, false, err
	}
	return BillView{Bill: b, Vendor: v}, true, a.pub.BillUpserted(ctx, tx, b, b.Posting())
}

func (a *Bills) vendorOf(ctx context.Context, db bun.IDB, b bill.Bill) (domain.Vendor, error) {
	v, ok, err := a.vendors.FindVendor(ctx, db, b.BusinessID, *b.VendorID, false)
	if err != nil {
		return domain.Vendor{}, fmt.Errorf("find vendor of bill %s: %w", b.ID, err)
	}
	if !ok {
		return domain.Vendor{}, fmt.Errorf("bill %s: vendor %s missing", b.ID, *b.VendorID)
	}
	return v, nil
}

// Create is POST /bills: a new RECEIVED bill and its bill.upserted with
// its posting (created true); a bill whose external_id the business used
// before is answered unchanged (created false), nothing written.
func (a *Bills) Create(ctx context.Context, businessID uuid.UUID, in bill.Input) (BillView, bool, error) {
	var (
		out     BillView
		created bool
	)
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) (err error) {
		out, created, err = a.create(ctx, tx, businessID, in)
		return err
	})
	return out, created, err
}

// CreateBulk is POST /bills/bulk: every bill or none, in one transaction,
// each idempotent on its external_id as Create is.
func (a *Bills) CreateBulk(ctx context.Context, businessID uuid.UUID, ins []bill.Input) ([]BillView, error) {
	out := make([]BillView, len(ins))
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		for i, in := range ins {
			v, _, err := a.create(ctx, tx, businessID, in)
			if err != nil {
				if e, ok := err.(*apperr.Error); ok {
					return e.WithMeta("bill_index", i)
				}
				return err
			}
			out[i] = v
		}
		return nil
	})
	return out, err
}

// Bill is GET /bills/{id}.
func (a *Bills) Bill(ctx context.Context, businessID, id uuid.UUID) (BillView, error) {
	b, ok, err := a.store.FindBill(ctx, a.db, businessID, id, false)
	if err != nil {
		return BillView{}, err
	}
	if !ok {
		return BillView{}, ErrBillNotFound()
	}
	v, err := a.vendorOf(ctx, a.db, b)
	return BillView{Bill: b, Vendor: v}, err
}

// Bills is GET /bills: one page, with the vendors.
func (a *Bills) Bills(ctx context.Context, businessID uuid.UUID, f bill.Filter, p page.Params) ([]BillView, page.Meta, error) {
	list, meta, err := a.store.FindBills(ctx, a.db, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, err
	}
	ids := make([]uuid.UUID, 0, len(list))
	for _, b := range list {
		ids = append(ids, *b.VendorID)
	}
	vs, err := a.vendors.FindVendorsByIDs(ctx, a.db, businessID, ids)
	if err != nil {
		return nil, page.Meta{}, err
	}
	out := make([]BillView, len(list))
	for i, b := range list {
		out[i] = BillView{Bill: b, Vendor: vs[*b.VendorID]}
	}
	return out, meta, nil
}

// ErrNotEditable is the 409 of a change to a bill that was paid or
// credited.
func ErrNotEditable() *apperr.Error {
	return apperr.New(apperr.Conflict, "the bill has payments or credits applied: delete them before editing it").
		WithEnum(bill.EnumNotEditable)
}

// ErrVoided is the 409 of a change to a voided bill.
func ErrVoided() *apperr.Error {
	return apperr.New(apperr.Conflict, "the bill is voided").WithEnum(bill.EnumBillVoided)
}

// Update is PATCH /bills/{id} and POST /bills/{id}/update: only while
// the bill is unpaid (409 BillNotEditable once a payment or credit
// applies, 409 BillVoided once voided). The amounts are recomputed and a
// new posting version replaces the entry.
func (a *Bills) Update(ctx context.Context, businessID, id uuid.UUID, p bill.Patch) (BillView, error) {
	var out BillView
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		b, ok, err := a.store.FindBill(ctx, tx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return ErrBillNotFound()
		}
		if b.Status == bill.Voided {
			return ErrVoided()
		}
		if !b.Editable() {
			return ErrNotEditable()
		}
		now := a.clock()
		next := b
		if p.BillNumber.Set {
			next.BillNumber = p.BillNumber.Value
		}
		if p.Memo.Set {
			next.Memo = p.Memo.Value
		}
		if p.ReferenceNumber.Set {
			next.ReferenceNumber = p.ReferenceNumber.Value
		}
		if p.Metadata.Set {
			next.Metadata = p.Metadata.Value
		}
		if p.ReceivedAt.Set {
			next.ReceivedAt = p.ReceivedAt.Value
		}
		if p.DueAt.Set {
			next.DueAt = p.DueAt.Value
		}
		if p.Terms.Set {
			d := p.Terms.Value.DueAt(next.ReceivedAt)
			next.DueAt = &d
		}
		if next.DueAt != nil && next.DueAt.Before(next.ReceivedAt) {
			return apperr.PayloadField("due_at", "must not be before received_at").WithEnum(bill.EnumInvalidBill)
		}
		if p.Tags.Set {
			next.Tags = bill.TagSet(businessID, id, b.Tags, p.Tags.Value, now)
		}
		if p.Lines.Set || p.Additional.Set {
			lines := make([]bill.LineInput, len(b.Lines))
			for i, l := range b.Lines {
				lines[i] = l.LineInput
			}
			addl := b.AdditionalSalesTaxes
			if p.Lines.Set {
				lines = p.Lines.Value
			}
			if p.Additional.Set {
				addl = p.Additional.Value
			}
			c, err := bill.Compute(lines, addl, newID)
			if err != nil {
				return err
			}
			next.Lines, next.AdditionalSalesTaxes, next.Totals = c.Lines, c.AdditionalSalesTaxes, c.Totals
		}
		vendor, err := a.vendorOf(ctx, tx, b)
		if err != nil {
			return err
		}
		if p.VendorID.Set || p.VendorExternalID.Set {
			if vendor, err = a.resolveVendor(ctx, tx, businessID, p.VendorID.Value, p.VendorExternalID.Value); err != nil {
				return err
			}
			next.VendorID = &vendor.ID
		}
		next = next.Settle(0, now)
		next.Version, next.UpdatedAt = b.Version+1, now
		if err := a.chart.check(ctx, tx, businessID, billAccounts(next)); err != nil {
			return err
		}
		if err := a.store.UpdateBill(ctx, tx, next); err != nil {
			return err
		}
		out = BillView{Bill: next, Vendor: vendor}
		return a.pub.BillUpserted(ctx, tx, next, next.Posting())
	})
	return out, err
}

// Void is POST /bills/{id}/void: VOIDED, nothing owed, its entry reversed
// (a posting without lines). A bill with payments or credits applied is
// 409 BillHasPayments; voiding a voided bill changes nothing.
func (a *Bills) Void(ctx context.Context, businessID, id uuid.UUID) (BillView, error) {
	var out BillView
	err := outbox.RunInTx(ctx, a.db, func(ctx context.Context, tx bun.Tx) error {
		b, ok, err := a.store.FindBill(ctx, tx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return ErrBillNotFound()
		}
		vendor, err := a.vendorOf(ctx, tx, b)
		if err != nil {
			return err
		}
		out = BillView{Bill: b, Vendor: vendor}
		if b.Status == bill.Voided {
			return nil
		}
		if b.Settled > 0 {
			return apperr.New(apperr.Conflict, "the bill has payments or credits applied: delete them before voiding it").
				WithEnum(bill.EnumHasPayments)
		}
		now := a.clock()
		next := b
		next.VoidedAt = &now
		next = next.Settle(0, now)
		next.Outstanding = 0
		next.Version, next.UpdatedAt = b.Version+1, now
		if err := a.store.UpdateBill(ctx, tx, next); err != nil {
			return err
		}
		out.Bill = next
		return a.pub.BillUpserted(ctx, tx, next, next.Posting())
	})
	return out, err
}

// MoveVendorDocuments implements VendorMover: the bills of vendor from
// move to vendor to (their snapshots republished without a posting: the
// entry does not change).
func (a *Bills) MoveVendorDocuments(ctx context.Context, tx bun.Tx, businessID, from, to uuid.UUID) error {
	list, err := a.store.LockVendorBills(ctx, tx, businessID, from)
	if err != nil {
		return err
	}
	now := a.clock()
	for _, b := range list {
		b.VendorID = &to
		b.Version, b.UpdatedAt = b.Version+1, now
		if err := a.store.UpdateBill(ctx, tx, b); err != nil {
			return err
		}
		if err := a.pub.BillUpserted(ctx, tx, b, nil); err != nil {
			return err
		}
	}
	return nil
}
