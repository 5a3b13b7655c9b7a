package app

import (
	"context"
	"log/slog"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// BillPageSpec is the pagination of GET /bills: sort_by received_at (the
// default), due_at (a bill without one is due on receipt) or total_amount, each
// backed by a (business_id, key, id) index; limit default 100, at most 500.
var BillPageSpec = page.Spec{
	Keys: map[string]page.Key{
		"received_at":  {Column: "b.received_at", Kind: page.KindTime},
		"due_at":       {Column: "b.due_sort", Kind: page.KindTime},
		"total_amount": {Column: "b.total_amount", Kind: page.KindInt},
	},
	Default:      "received_at",
	DefaultLimit: 100,
	MaxLimit:     500,
}

// BillStore is the bills' persistence (scoped by business, in the unit of
// work ctx carries, else on the pool).
type BillStore interface {
	InsertBill(ctx context.Context, b bill.Bill) (bool, error)
	FindBill(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (bill.Bill, bool, error)
	FindBillByExternalID(ctx context.Context, businessID uuid.UUID, externalID string, forUpdate bool) (bill.Bill, bool, error)
	UpdateBill(ctx context.Context, b bill.Bill) error
	LockVendorBills(ctx context.Context, businessID, vendorID uuid.UUID) ([]bill.Bill, error)
	FindBills(ctx context.Context, businessID uuid.UUID, f bill.Filter, p page.Params) ([]bill.Bill, page.Meta, error)
}

// BillView is a bill with what its answer shows: its vendor and the ids
// of the accounts its lines name by stable name.
type BillView struct {
	Bill   bill.Bill
	Vendor domain.Vendor
	// AccountIDs are the ids of the accounts the lines name by stable name
	// (the default expense account for a line naming none, and prepayment
	// accounts), by stable name (accountChecker.accountIDs).
	AccountIDs map[string]uuid.UUID
}

// AccountID is the id of the account r names: its id, else the id of the
// account of its stable name (nil when the view does not hold it).
func (v BillView) AccountID(r bill.AccountRef) *uuid.UUID {
	if r.ID != nil {
		return r.ID
	}
	if id, ok := v.AccountIDs[r.StableName]; ok {
		return &id
	}
	return nil
}

// view is b's answer with vendor v and its lines' account ids, read in
// the unit of work ctx carries (else on the pool).
func (a *Bills) view(ctx context.Context, b bill.Bill, v domain.Vendor) (BillView, error) {
	ids, err := a.chart.accountIDs(ctx, b.BusinessID, b)
	if err != nil {
		return BillView{}, err
	}
	return BillView{Bill: b, Vendor: v, AccountIDs: ids}, nil
}

// Bills holds the bill use cases.
type Bills struct {
	uow     UnitOfWork
	store   BillStore
	vendors vendorResolver
	pub     Publisher
	log     *slog.Logger
	clk     clock.Clock
	chart   accountChecker
}

// UseAccounts sets the chart-of-accounts projection that the accounts a
// bill names are checked against (see accountChecker).
func (a *Bills) UseAccounts(store AccountStore) { a.chart = accountChecker{store} }

// NewBills assembles the bill use cases.
func NewBills(uow UnitOfWork, store BillStore, vendors VendorStore, pub Publisher, logger *slog.Logger) *Bills {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Bills{uow: uow, store: store, vendors: vendorResolver{store: vendors, pub: pub, clk: clock.System}, pub: pub,
		log: logger, clk: clock.System}
}

// ErrBillNotFound is the 404 of a bill the business does not have.
func ErrBillNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "bill not found").WithEnum(bill.EnumBillNotFound)
}

// create writes one new bill (or finds the one with its external id), in
// the unit of work of ctx. Its vendor is resolved as a vendor credit's
// (vendorResolver.resolve).
func (a *Bills) create(ctx context.Context, businessID uuid.UUID, in bill.Input) (BillView, bool, error) {
	if in.ExternalID != nil {
		existing, ok, err := a.store.FindBillByExternalID(ctx, businessID, *in.ExternalID, false)
		if err != nil {
			return BillView{}, false, err
		}
		if ok {
			bv, err := a.stored(ctx, existing)
			return bv, false, err
		}
	}
	c, err := bill.Compute(in.Lines, in.Additional, newID)
	if err != nil {
		return BillView{}, false, err
	}
	v, err := a.vendors.resolve(ctx, businessID, in.VendorID, in.VendorExternalID, bill.EnumInvalidBill)
	if err != nil {
		return BillView{}, false, err
	}
	now := a.clk.Now()
	id := newID()
	b := bill.Bill{
		ID: id, BusinessID: businessID, ExternalID: in.ExternalID, BillNumber: in.BillNumber, VendorID: &v.ID,
		ReceivedAt: in.ReceivedAt, DueAt: in.DueAt, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber, Metadata: in.Metadata,
		Tags: bill.TagSet(businessID, id, nil, in.Tags, now), Lines: c.Lines, AdditionalSalesTaxes: c.AdditionalSalesTaxes,
		Totals: c.Totals, Version: 1, ImportedAt: now, UpdatedAt: now,
	}
	b = b.Settle(0, now)
	if err := a.chart.check(ctx, businessID, billAccounts(b)); err != nil {
		return BillView{}, false, err
	}
	inserted, err := a.store.InsertBill(ctx, b)
	if err != nil {
		return BillView{}, false, err
	}
	if !inserted { // the same external id, concurrently: answer that bill
		existing, _, err := a.store.FindBillByExternalID(ctx, businessID, *in.ExternalID, false)
		if err != nil {
			return BillView{}, false, err
		}
		bv, err := a.stored(ctx, existing)
		return bv, false, err
	}
	bv, err := a.view(ctx, b, v)
	if err != nil {
		return BillView{}, false, err
	}
	return bv, true, publish(ctx, a.pub, billEvent(b, b.Posting()))
}

// stored is the answer of a stored bill: its vendor read, its lines'
// account ids.
func (a *Bills) stored(ctx context.Context, b bill.Bill) (BillView, error) {
	v, err := a.vendorOf(ctx, b)
	if err != nil {
		return BillView{}, err
	}
	return a.view(ctx, b, v)
}

func (a *Bills) vendorOf(ctx context.Context, b bill.Bill) (domain.Vendor, error) {
	return a.vendors.of(ctx, b.BusinessID, *b.VendorID, "bill "+b.ID.String())
}

// Create is POST /bills: a new RECEIVED bill and its bill.upserted with
// its posting (created true); a bill whose external_id the business used
// before is answered unchanged (created false), nothing written.
func (a *Bills) Create(ctx context.Context, businessID uuid.UUID, in bill.Input) (BillView, bool, error) {
	var (
		out     BillView
		created bool
	)
	err := a.uow.Do(ctx, func(ctx context.Context) (err error) {
		out, created, err = a.create(ctx, businessID, in)
		return err
	})
	return out, created, err
}

// CreateBulk is POST /bills/bulk: every bill or none, in one transaction,
// each idempotent on its external_id as Create is.
func (a *Bills) CreateBulk(ctx context.Context, businessID uuid.UUID, ins []bill.Input) ([]BillView, error) {
	out := make([]BillView, len(ins))
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		for i, in := range ins {
			v, _, err := a.create(ctx, businessID, in)
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
	b, ok, err := a.store.FindBill(ctx, businessID, id, false)
	if err != nil {
		return BillView{}, err
	}
	if !ok {
		return BillView{}, ErrBillNotFound()
	}
	return a.stored(ctx, b)
}

// Bills is GET /bills: one page, with the vendors and the account ids
// (one query each for the whole page).
func (a *Bills) Bills(ctx context.Context, businessID uuid.UUID, f bill.Filter, p page.Params) ([]BillView, page.Meta, error) {
	list, meta, err := a.store.FindBills(ctx, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, err
	}
	ids := make([]uuid.UUID, 0, len(list))
	for _, b := range list {
		ids = append(ids, *b.VendorID)
	}
	vs, err := a.vendors.store.FindVendorsByIDs(ctx, businessID, ids)
	if err != nil {
		return nil, page.Meta{}, err
	}
	accountIDs, err := a.chart.accountIDs(ctx, businessID, list...)
	if err != nil {
		return nil, page.Meta{}, err
	}
	out := make([]BillView, len(list))
	for i, b := range list {
		out[i] = BillView{Bill: b, Vendor: vs[*b.VendorID], AccountIDs: accountIDs}
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
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		b, ok, err := a.store.FindBill(ctx, businessID, id, true)
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
		now := a.clk.Now()
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
		vendor, err := a.vendorOf(ctx, b)
		if err != nil {
			return err
		}
		if p.VendorID.Set || p.VendorExternalID.Set {
			if vendor, err = a.vendors.resolve(ctx, businessID, p.VendorID.Value, p.VendorExternalID.Value, bill.EnumInvalidBill); err != nil {
				return err
			}
			next.VendorID = &vendor.ID
		}
		next = next.Settle(0, now)
		next.Version, next.UpdatedAt = b.Version+1, now
		if err := a.chart.check(ctx, businessID, billAccounts(next)); err != nil {
			return err
		}
		if err := a.store.UpdateBill(ctx, next); err != nil {
			return err
		}
		if out, err = a.view(ctx, next, vendor); err != nil {
			return err
		}
		return publish(ctx, a.pub, billEvent(next, next.Posting()))
	})
	return out, err
}

// Void is POST /bills/{id}/void: VOIDED, nothing owed, its entry reversed
// (a posting without lines). A bill with payments or credits applied is
// 409 BillHasPayments; voiding a voided bill changes nothing.
func (a *Bills) Void(ctx context.Context, businessID, id uuid.UUID) (BillView, error) {
	var out BillView
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		b, ok, err := a.store.FindBill(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return ErrBillNotFound()
		}
		vendor, err := a.vendorOf(ctx, b)
		if err != nil {
			return err
		}
		if out, err = a.view(ctx, b, vendor); err != nil {
			return err
		}
		if b.Status == bill.Voided {
			return nil
		}
		if b.Settled > 0 {
			return apperr.New(apperr.Conflict, "the bill has payments or credits applied: delete them before voiding it").
				WithEnum(bill.EnumHasPayments)
		}
		now := a.clk.Now()
		next := b
		next.VoidedAt = &now
		next = next.Settle(0, now)
		next.Outstanding = 0
		next.Version, next.UpdatedAt = b.Version+1, now
		if err := a.store.UpdateBill(ctx, next); err != nil {
			return err
		}
		out.Bill = next
		return publish(ctx, a.pub, billEvent(next, next.Posting()))
	})
	return out, err
}

// MoveVendorDocuments implements VendorMover: the bills of vendor from
// move to vendor to (their snapshots republished without a posting: the
// entry does not change).
func (a *Bills) MoveVendorDocuments(ctx context.Context, businessID, from, to uuid.UUID) error {
	list, err := a.store.LockVendorBills(ctx, businessID, from)
	if err != nil {
		return err
	}
	now := a.clk.Now()
	for _, b := range list {
		b.VendorID = &to
		b.Version, b.UpdatedAt = b.Version+1, now
		if err := a.store.UpdateBill(ctx, b); err != nil {
			return err
		}
		if err := publish(ctx, a.pub, billEvent(b, nil)); err != nil {
			return err
		}
	}
	return nil
}
