package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// CreditPageSpec is the pagination of GET /bills/vendor-credits: sort_by
// received_at (the default) or total_amount; limit default 100, at most
// 500.
var CreditPageSpec = page.Spec{
	Keys: map[string]page.Key{
		"received_at":  {Column: "c.received_at", Kind: page.KindTime},
		"total_amount": {Column: "c.total_amount", Kind: page.KindInt},
	},
	Default:      "received_at",
	DefaultLimit: 100,
	MaxLimit:     500,
}

// CreditStore is the vendor credits' persistence (scoped by business, in
// the unit of work ctx carries, else on the pool).
type CreditStore interface {
	// InsertCredit inserts c and its allocations unless the business has
	// a credit with its external id (inserted false).
	InsertCredit(ctx context.Context, c bill.Credit) (inserted bool, err error)
	UpdateCredit(ctx context.Context, c bill.Credit) error
	FindCredit(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (bill.Credit, bool, error)
	FindCreditByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (bill.Credit, bool, error)
	FindCredits(ctx context.Context, businessID uuid.UUID, f bill.CreditFilter, p page.Params) ([]bill.Credit, page.Meta, error)
	LockVendorCredits(ctx context.Context, businessID, vendorID uuid.UUID) ([]bill.Credit, error)
}

// CreditView is a credit with what its answer shows: its vendor.
type CreditView struct {
	Credit bill.Credit
	Vendor domain.Vendor
}

// Credits holds the vendor credit use cases.
type Credits struct {
	uow     UnitOfWork
	bills   BillStore
	vendors vendorResolver
	store   CreditStore
	pub     Publisher
	log     *slog.Logger
	clk     clock.Clock
	chart   accountChecker
}

// NewCredits assembles the vendor credit use cases.
func NewCredits(uow UnitOfWork, bills BillStore, vendors VendorStore, store CreditStore, pub Publisher, logger *slog.Logger) *Credits {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Credits{uow: uow, bills: bills, vendors: vendorResolver{store: vendors, pub: pub, clk: clock.System}, store: store,
		pub: pub, log: logger, clk: clock.System}
}

// ErrCreditNotFound is the 404 of a vendor credit the business does not
// have.
func ErrCreditNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "vendor credit not found").WithEnum(bill.EnumCreditNotFound)
}

func (a *Credits) vendorOf(ctx context.Context, c bill.Credit) (domain.Vendor, error) {
	return a.vendors.of(ctx, c.BusinessID, c.VendorID, "vendor credit "+c.ID.String())
}

// allocate sets c's allocations from the request, keeping the id of an
// allocation to a bill c already had, and checks them against the bills'
// balances (with c's previous allocations prev taken back): each bill the
// business's and the credit's vendor's, none voided or credited beyond
// what it owes, Σ at most the credit's total. It locks every bill of prev
// and of the request (in id order) and returns them with each one's
// change of settled amount.
func (a *Credits) allocate(ctx context.Context, c *bill.Credit, prev []bill.CreditAllocation, als []bill.CreditAllocationInput) (map[uuid.UUID]*bill.Bill, map[uuid.UUID]money.Cents, error) {
	field := map[uuid.UUID]string{}
	all := make([]uuid.UUID, 0, len(als)+len(prev))
	for i, al := range als {
		if _, dup := field[al.BillID]; !dup {
			field[al.BillID] = fmt.Sprintf("allocations[%d].bill_id", i)
		}
		all = append(all, al.BillID)
	}
	delta := map[uuid.UUID]money.Cents{}
	for _, al := range prev {
		all = append(all, al.BillID)
		delta[al.BillID] -= al.Amount
	}
	bills, err := lockBills(ctx, a.bills, c.BusinessID, all, func(id uuid.UUID) string { return field[id] }, bill.EnumInvalidCredit)
	if err != nil {
		return nil, nil, err
	}
	c.Allocations = make([]bill.CreditAllocation, len(als))
	applied := make([]bill.Applied, len(als))
	balances := map[uuid.UUID]bill.Balance{}
	bad := map[string]string{}
	for i, in := range als {
		b := bills[in.BillID]
		f := fmt.Sprintf("allocations[%d]", i)
		if b.VendorID == nil || *b.VendorID != c.VendorID {
			bad[f+".bill_id"] = "the bill is another vendor's"
		}
		al := bill.CreditAllocation{ID: newID(), BillID: b.ID, BillExternalID: b.ExternalID, Amount: in.Amount}
		if j := slices.IndexFunc(prev, func(x bill.CreditAllocation) bool { return x.BillID == b.ID }); j >= 0 {
			al.ID = prev[j].ID
		}
		c.Allocations[i] = al
		applied[i] = bill.Applied{Field: f, BillID: b.ID, Amount: in.Amount}
		if _, seen := balances[b.ID]; !seen {
			balances[b.ID] = bill.Balance{Outstanding: b.Outstanding - delta[b.ID], Voided: b.Status == bill.Voided}
		}
		delta[b.ID] += in.Amount
	}
	if len(bad) > 0 {
		return nil, nil, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(bill.EnumInvalidCredit)
	}
	if err := bill.CheckAllocations(c.Total(), false, "allocations", applied, balances, bill.EnumInvalidCredit); err != nil {
		return nil, nil, err
	}
	return bills, delta, nil
}

// Create is POST /bills/vendor-credits: a credit of its lines' total from
// a vendor, applied to some of the vendor's bills (Σ allocations at most
// the total, no bill credited beyond its outstanding balance, none
// voided); the bills' balances and statuses follow, each bill gets a
// bill.upserted without posting and the credit its vendor_credit.upserted
// with its entry. An external_id the business already has answers the
// stored credit with created false, nothing written.
func (a *Credits) Create(ctx context.Context, businessID uuid.UUID, in bill.CreditInput) (CreditView, bool, error) {
	var (
		out     CreditView
		created bool
	)
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		existing := func() error {
			c, ok, err := a.store.FindCreditByExternalID(ctx, businessID, *in.ExternalID)
			if err != nil || !ok {
				return err
			}
			v, err := a.vendorOf(ctx, c)
			out = CreditView{Credit: c, Vendor: v}
			return err
		}
		if in.ExternalID != nil {
			if err := existing(); err != nil || out.Credit.ID != uuid.Nil {
				return err
			}
		}
		vendor, err := a.vendors.resolve(ctx, businessID, in.VendorID, in.VendorExternalID, bill.EnumInvalidCredit)
		if err != nil {
			return err
		}
		now := a.clk.Now()
		c := bill.Credit{ID: newID(), BusinessID: businessID, ExternalID: in.ExternalID, VendorID: vendor.ID, ReceivedAt: in.ReceivedAt,
			Memo: in.Memo, ReferenceNumber: in.ReferenceNumber, Metadata: in.Metadata, Version: 1, CreatedAt: now, UpdatedAt: now}
		c.Lines = bill.NewCreditLines(businessID, in.Lines, newID, now)
		c.Tags = bill.TagSet(businessID, c.ID, nil, in.Tags, now)
		bills, delta, err := a.allocate(ctx, &c, nil, in.Allocations)
		if err != nil {
			return err
		}
		if err := a.chart.check(ctx, businessID, creditAccounts(c)); err != nil {
			return err
		}
		inserted, err := a.store.InsertCredit(ctx, c)
		if err != nil {
			return err
		}
		if !inserted { // the same external id, concurrently: answer that credit
			return existing()
		}
		if err := settleBills(ctx, a.bills, a.pub, bills, delta, c.ReceivedAt, now); err != nil {
			return err
		}
		out, created = CreditView{Credit: c, Vendor: vendor}, true
		return publish(ctx, a.pub, creditEvent(c))
	})
	return out, created, err
}

// Credit is GET /bills/vendor-credits/{id}.
func (a *Credits) Credit(ctx context.Context, businessID, id uuid.UUID) (CreditView, error) {
	c, ok, err := a.store.FindCredit(ctx, businessID, id, false)
	if err != nil {
		return CreditView{}, err
	}
	if !ok {
		return CreditView{}, ErrCreditNotFound()
	}
	v, err := a.vendorOf(ctx, c)
	return CreditView{Credit: c, Vendor: v}, err
}

// Credits is GET /bills/vendor-credits: one page, with the vendors.
func (a *Credits) Credits(ctx context.Context, businessID uuid.UUID, f bill.CreditFilter, p page.Params) ([]CreditView, page.Meta, error) {
	list, meta, err := a.store.FindCredits(ctx, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, err
	}
	ids := make([]uuid.UUID, 0, len(list))
	for _, c := range list {
		ids = append(ids, c.VendorID)
	}
	vs, err := a.vendors.store.FindVendorsByIDs(ctx, businessID, ids)
	if err != nil {
		return nil, page.Meta{}, err
	}
	out := make([]CreditView, len(list))
	for i, c := range list {
		out[i] = CreditView{Credit: c, Vendor: vs[c.VendorID]}
	}
	return out, meta, nil
}

// Update is PATCH /bills/vendor-credits/{id}: the present properties
// change and the whole credit is checked again (allocations against the
// bills with this credit's previous allocations taken back, Σ at most the
// possibly new total); the bills whose share changed are settled again
// and republished, the version grows and the entry is replaced.
func (a *Credits) Update(ctx context.Context, businessID, id uuid.UUID, patch bill.CreditPatch) (CreditView, error) {
	var out CreditView
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		c, ok, err := a.store.FindCredit(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return ErrCreditNotFound()
		}
		now := a.clk.Now()
		next := c
		if patch.ReceivedAt.Set {
			next.ReceivedAt = patch.ReceivedAt.Value
		}
		if patch.Lines.Set {
			next.Lines = bill.NewCreditLines(businessID, patch.Lines.Value, newID, now)
		}
		if patch.Memo.Set {
			next.Memo = patch.Memo.Value
		}
		if patch.ReferenceNumber.Set {
			next.ReferenceNumber = patch.ReferenceNumber.Value
		}
		if patch.Metadata.Set {
			next.Metadata = patch.Metadata.Value
		}
		if patch.Tags.Set {
			next.Tags = bill.TagSet(businessID, c.ID, c.Tags, patch.Tags.Value, now)
		}
		als := make([]bill.CreditAllocationInput, len(c.Allocations))
		for i, al := range c.Allocations {
			als[i] = bill.CreditAllocationInput{BillID: al.BillID, Amount: al.Amount}
		}
		if patch.Allocations.Set {
			als = patch.Allocations.Value
		}
		bills, delta, err := a.allocate(ctx, &next, c.Allocations, als)
		if err != nil {
			return err
		}
		if err := a.chart.check(ctx, businessID, creditAccounts(next)); err != nil {
			return err
		}
		next.Version, next.UpdatedAt = c.Version+1, now
		if err := a.store.UpdateCredit(ctx, next); err != nil {
			return err
		}
		if err := settleBills(ctx, a.bills, a.pub, bills, delta, next.ReceivedAt, now); err != nil {
			return err
		}
		v, err := a.vendorOf(ctx, next)
		if err != nil {
			return err
		}
		out = CreditView{Credit: next, Vendor: v}
		return publish(ctx, a.pub, creditEvent(next))
	})
	return out, err
}

// MoveVendorDocuments implements VendorMover: the credits of vendor from
// move to vendor to (each republished with its entry at the next
// version).
func (a *Credits) MoveVendorDocuments(ctx context.Context, businessID, from, to uuid.UUID) error {
	list, err := a.store.LockVendorCredits(ctx, businessID, from)
	if err != nil {
		return err
	}
	now := a.clk.Now()
	for _, c := range list {
		c.VendorID = to
		c.Version, c.UpdatedAt = c.Version+1, now
		if err := a.store.UpdateCredit(ctx, c); err != nil {
			return err
		}
		if err := publish(ctx, a.pub, creditEvent(c)); err != nil {
			return err
		}
	}
	return nil
}

// Movers is several VendorMovers run in order (the bills', then the
// credits').
type Movers []VendorMover

// MoveVendorDocuments implements VendorMover.
func (ms Movers) MoveVendorDocuments(ctx context.Context, businessID, from, to uuid.UUID) error {
	for _, m := range ms {
		if err := m.MoveVendorDocuments(ctx, businessID, from, to); err != nil {
			return err
		}
	}
	return nil
}

// UseAccounts sets the chart-of-accounts projection that the accounts a
// vendor credit names are checked against (see accountChecker).
func (a *Credits) UseAccounts(store AccountStore) { a.chart = accountChecker{store} }
