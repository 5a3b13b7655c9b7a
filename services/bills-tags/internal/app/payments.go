package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// PaymentStore is the bill payments' persistence (scoped by business, in
// the unit of work ctx carries, else on the pool).
type PaymentStore interface {
	// InsertPayment inserts p and its allocations unless the business has
	// a payment with its external id (inserted false).
	InsertPayment(ctx context.Context, p bill.Payment) (inserted bool, err error)
	UpdatePayment(ctx context.Context, p bill.Payment) error
	FindPayment(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (bill.Payment, bool, error)
	FindPaymentByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (bill.Payment, bool, error)
	// LockPayments reads the business's payments among ids, locked, in id
	// order.
	LockPayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) ([]bill.Payment, error)
	DeletePayment(ctx context.Context, businessID, id uuid.UUID) error
	BillIDsByExternalID(ctx context.Context, businessID uuid.UUID, externalIDs []string) (map[string]uuid.UUID, error)
	PaymentIDsWithTags(ctx context.Context, businessID uuid.UUID, tagIDs []uuid.UUID) ([]uuid.UUID, error)
}

// Payments holds the bill payment use cases.
type Payments struct {
	uow   UnitOfWork
	bills BillStore
	store PaymentStore
	pub   Publisher
	log   *slog.Logger
	clk   clock.Clock
	chart accountChecker
}

// NewPayments assembles the bill payment use cases.
func NewPayments(uow UnitOfWork, bills BillStore, store PaymentStore, pub Publisher, logger *slog.Logger) *Payments {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Payments{uow: uow, bills: bills, store: store, pub: pub, log: logger, clk: clock.System}
}

// ErrPaymentNotFound is the 404 of a bill payment the business does not
// have.
func ErrPaymentNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "bill payment not found").WithEnum(bill.EnumPaymentNotFound)
}

// MaxTagPayments bounds the payments one tag request changes.
const MaxTagPayments = 500

// sortedIDs is ids sorted without duplicates.
func sortedIDs(ids []uuid.UUID) []uuid.UUID {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return slices.Compact(out)
}

// lockBills locks the business's bills ids in id order (concurrent
// payments of the same bills never deadlock) and returns them by id; an
// unknown id is a 400 naming field(id).
func lockBills(ctx context.Context, store BillStore, businessID uuid.UUID, ids []uuid.UUID, field func(uuid.UUID) string, enum string) (map[uuid.UUID]*bill.Bill, error) {
	out := map[uuid.UUID]*bill.Bill{}
	for _, id := range sortedIDs(ids) {
		b, ok, err := store.FindBill(ctx, businessID, id, true)
		if err != nil {
			return nil, fmt.Errorf("lock bill %s: %w", id, err)
		}
		if !ok {
			return nil, apperr.PayloadField(field(id), "the business has no such bill").WithEnum(enum)
		}
		out[id] = &b
	}
	return out, nil
}

// settleBills applies delta[id] to each bill (in id order) at at: balance,
// status and paid_at follow, the version grows, and bill.upserted goes out
// without a posting (the bill's entry does not change).
func settleBills(ctx context.Context, store BillStore, pub Publisher, bills map[uuid.UUID]*bill.Bill, delta map[uuid.UUID]money.Cents, at, now time.Time) error {
	ids := make([]uuid.UUID, 0, len(delta))
	for id, d := range delta {
		if d != 0 {
			ids = append(ids, id)
		}
	}
	for _, id := range sortedIDs(ids) {
		b := bills[id].Settle(delta[id], at)
		if b.Settled < 0 || b.Settled > b.Totals.Total {
			return fmt.Errorf("bill %s: settled %d out of 0..%d", id, b.Settled, b.Totals.Total)
		}
		b.Version, b.UpdatedAt = b.Version+1, now
		if err := store.UpdateBill(ctx, b); err != nil {
			return err
		}
		if err := publish(ctx, pub, billEvent(b, nil)); err != nil {
			return err
		}
		*bills[id] = b
	}
	return nil
}

// resolveAllocations names each allocation's bill by id (by id, or by
// external id: a 400 naming the item when unknown or when both are given
// and disagree).
func (a *Payments) resolveAllocations(ctx context.Context, businessID uuid.UUID, als []bill.AllocationInput) ([]uuid.UUID, error) {
	var exts []string
	for _, al := range als {
		if al.BillExternalID != nil {
			exts = append(exts, *al.BillExternalID)
		}
	}
	byExt := map[string]uuid.UUID{}
	if len(exts) > 0 {
		var err error
		if byExt, err = a.store.BillIDsByExternalID(ctx, businessID, exts); err != nil {
			return nil, err
		}
	}
	ids := make([]uuid.UUID, len(als))
	bad := map[string]string{}
	for i, al := range als {
		f := fmt.Sprintf("bill_payment_allocations[%d]", i)
		switch {
		case al.BillExternalID != nil:
			id, ok := byExt[*al.BillExternalID]
			if !ok {
				bad[f+".bill_external_id"] = "the business has no bill with this external id"
				continue
			}
			if al.BillID != nil && *al.BillID != id {
				bad[f+".bill_external_id"] = "names another bill than bill_id"
				continue
			}
			ids[i] = id
		case al.BillID != nil:
			ids[i] = *al.BillID
		default:
			bad[f+".bill_id"] = "bill_id or bill_external_id is required"
		}
	}
	if len(bad) > 0 {
		return nil, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(bill.EnumInvalidPayment)
	}
	return ids, nil
}

// allocate builds p's allocations from the request (bills by id in ids),
// keeping the id and tags of an allocation to the same bill in prev, and
// checks them against the bills' balances (with prev's amounts taken
// back), locking every bill of prev and of the request.
func (a *Payments) allocate(ctx context.Context, p *bill.Payment, prev []bill.PaymentAllocation, als []bill.AllocationInput, ids []uuid.UUID, now time.Time) (map[uuid.UUID]*bill.Bill, map[uuid.UUID]money.Cents, error) {
	field := map[uuid.UUID]string{}
	for i, id := range ids {
		if _, dup := field[id]; !dup {
			field[id] = fmt.Sprintf("bill_payment_allocations[%d].bill_id", i)
		}
	}
	all := slices.Clone(ids)
	delta := map[uuid.UUID]money.Cents{}
	for _, al := range prev {
		all = append(all, al.BillID)
		delta[al.BillID] -= al.Amount
	}
	bills, err := lockBills(ctx, a.bills, p.BusinessID, all, func(id uuid.UUID) string { return field[id] }, bill.EnumInvalidPayment)
	if err != nil {
		return nil, nil, err
	}
	p.Allocations = make([]bill.PaymentAllocation, len(als))
	applied := make([]bill.Applied, len(als))
	balances := map[uuid.UUID]bill.Balance{}
	for i, in := range als {
		b := bills[ids[i]]
		al := bill.PaymentAllocation{ID: newID(), BillID: b.ID, BillExternalID: b.ExternalID, Amount: in.Amount,
			Memo: in.Memo, ReferenceNumber: in.ReferenceNumber, Metadata: in.Metadata}
		var existing []tags.Tag
		if j := slices.IndexFunc(prev, func(x bill.PaymentAllocation) bool { return x.BillID == b.ID }); j >= 0 {
			al.ID, existing = prev[j].ID, prev[j].Tags
		}
		al.Tags = bill.TagSet(p.BusinessID, al.ID, existing, in.Tags, now)
		p.Allocations[i] = al
		applied[i] = bill.Applied{Field: fmt.Sprintf("bill_payment_allocations[%d]", i), BillID: b.ID, Amount: in.Amount}
		balances[b.ID] = bill.Balance{Outstanding: b.Outstanding - delta[b.ID], Voided: b.Status == bill.Voided}
		delta[b.ID] += in.Amount
	}
	if err := bill.CheckAllocations(p.Amount, true, "bill_payment_allocations", applied, balances, bill.EnumInvalidPayment); err != nil {
		return nil, nil, err
	}
	return bills, delta, nil
}

// CreatePayment is POST /bills/bill-payments: a payment allocated to one
// or more bills (allocations sum to the amount, no bill overpaid or
// voided), the bills' balances and statuses updated, and the events: each
// bill's snapshot (no posting) and the payment with its entry. An
// external_id the business already has answers the stored payment with
// created false, nothing written.
func (a *Payments) CreatePayment(ctx context.Context, businessID uuid.UUID, in bill.PaymentInput) (bill.Payment, bool, error) {
	var (
		out     bill.Payment
		created bool
	)
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		if in.ExternalID != nil {
			existing, ok, err := a.store.FindPaymentByExternalID(ctx, businessID, *in.ExternalID)
			if err != nil || ok {
				out = existing
				return err
			}
		}
		ids, err := a.resolveAllocations(ctx, businessID, in.Allocations)
		if err != nil {
			return err
		}
		now := a.clk.Now()
		p := bill.Payment{
			ID: newID(), BusinessID: businessID, ExternalID: in.ExternalID, PaidAt: in.PaidAt, Method: in.Method, Amount: in.Amount,
			Processor: in.Processor, ClearingAccount: in.Clearing, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber,
			Metadata: in.Metadata, Version: 1, ImportedAt: now, UpdatedAt: now,
		}
		p.ClearingAccount = p.Clearing()
		p.Tags = bill.TagSet(businessID, p.ID, nil, in.Tags, now)
		bills, delta, err := a.allocate(ctx, &p, nil, in.Allocations, ids, now)
		if err != nil {
			return err
		}
		if err := a.chart.check(ctx, businessID, paymentAccounts(p)); err != nil {
			return err
		}
		inserted, err := a.store.InsertPayment(ctx, p)
		if err != nil {
			return err
		}
		if !inserted { // the same external id, concurrently: answer that payment
			existing, _, err := a.store.FindPaymentByExternalID(ctx, businessID, *in.ExternalID)
			out = existing
			return err
		}
		if err := settleBills(ctx, a.bills, a.pub, bills, delta, p.PaidAt, now); err != nil {
			return err
		}
		out, created = p, true
		return publish(ctx, a.pub, paymentEvent(p))
	})
	return out, created, err
}

// Payment is GET /bills/bill-payments/{id}.
func (a *Payments) Payment(ctx context.Context, businessID, id uuid.UUID) (bill.Payment, error) {
	p, ok, err := a.store.FindPayment(ctx, businessID, id, false)
	if err != nil {
		return bill.Payment{}, err
	}
	if !ok {
		return bill.Payment{}, ErrPaymentNotFound()
	}
	return p, nil
}

// UpdatePayment is POST /bills/bill-payments/{id}/update: the present
// properties change and the whole payment is checked again (allocations
// sum to the amount, no bill overpaid with this payment's previous
// allocations taken back, none voided); the bills whose share changed
// are settled again and republished, the payment's version grows and its
// entry is replaced.
func (a *Payments) UpdatePayment(ctx context.Context, businessID, id uuid.UUID, patch bill.PaymentPatch) (bill.Payment, error) {
	var out bill.Payment
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		p, ok, err := a.store.FindPayment(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return ErrPaymentNotFound()
		}
		now := a.clk.Now()
		next := p
		if patch.PaidAt.Set {
			next.PaidAt = patch.PaidAt.Value
		}
		if patch.Method.Set {
			next.Method = patch.Method.Value
		}
		if patch.Amount.Set {
			next.Amount = patch.Amount.Value
		}
		if patch.Processor.Set {
			next.Processor = patch.Processor.Value
		}
		if patch.Clearing.Set {
			next.ClearingAccount = patch.Clearing.Value
			next.ClearingAccount = next.Clearing()
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
			next.Tags = bill.TagSet(businessID, p.ID, p.Tags, patch.Tags.Value, now)
		}
		als := make([]bill.AllocationInput, len(p.Allocations))
		for i, al := range p.Allocations {
			bid := al.BillID
			als[i] = bill.AllocationInput{BillID: &bid, Amount: al.Amount, Memo: al.Memo, ReferenceNumber: al.ReferenceNumber,
				Metadata: al.Metadata, Tags: bill.KeyValues(al.Tags)}
		}
		if patch.Allocations.Set {
			als = patch.Allocations.Value
		}
		ids, err := a.resolveAllocations(ctx, businessID, als)
		if err != nil {
			return err
		}
		bills, delta, err := a.allocate(ctx, &next, p.Allocations, als, ids, now)
		if err != nil {
			return err
		}
		if err := a.chart.check(ctx, businessID, paymentAccounts(next)); err != nil {
			return err
		}
		next.Version, next.UpdatedAt = p.Version+1, now
		if err := a.store.UpdatePayment(ctx, next); err != nil {
			return err
		}
		if err := settleBills(ctx, a.bills, a.pub, bills, delta, next.PaidAt, now); err != nil {
			return err
		}
		out = next
		return publish(ctx, a.pub, paymentEvent(next))
	})
	return out, err
}

// DeletePayment is DELETE /bills/bill-payments/{id}: the payment goes,
// its bills' balances and statuses are restored (and republished), and
// bill_payment.deleted carries the deletion's posting (no lines, the
// next version) so the ledger reverses the entry.
func (a *Payments) DeletePayment(ctx context.Context, businessID, id uuid.UUID) error {
	return a.uow.Do(ctx, func(ctx context.Context) error {
		p, ok, err := a.store.FindPayment(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return ErrPaymentNotFound()
		}
		ids := make([]uuid.UUID, len(p.Allocations))
		delta := map[uuid.UUID]money.Cents{}
		for i, al := range p.Allocations {
			ids[i] = al.BillID
			delta[al.BillID] -= al.Amount
		}
		bills, err := lockBills(ctx, a.bills, businessID, ids, func(uuid.UUID) string { return "id" }, bill.EnumInvalidPayment)
		if err != nil {
			return err
		}
		if err := a.store.DeletePayment(ctx, businessID, id); err != nil {
			return err
		}
		now := a.clk.Now()
		if err := settleBills(ctx, a.bills, a.pub, bills, delta, p.PaidAt, now); err != nil {
			return err
		}
		return publish(ctx, a.pub, paymentDeletedEvent(p))
	})
}

// TagPayments is POST /bills/bill-payments/tags: every tag of kvs on every
// payment of ids (a payment that has one already keeps it). An id the
// business does not have is 404 and nothing changes. It returns the tags
// added; each changed payment is republished with its new version.
func (a *Payments) TagPayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, kvs []tags.KeyValue) ([]tags.Tag, error) {
	if len(ids) == 0 || len(ids) > MaxTagPayments {
		return nil, apperr.PayloadField("transaction_ids", fmt.Sprintf("must hold 1 to %d ids", MaxTagPayments)).WithEnum(bill.EnumInvalidPayment)
	}
	kvs, err := tags.NormalizeList("key_values", kvs)
	if err != nil {
		return nil, err
	}
	if len(kvs) == 0 {
		return nil, apperr.PayloadField("key_values", "must hold at least one tag").WithEnum(tags.EnumInvalidTags)
	}
	ids = sortedIDs(ids)
	out := []tags.Tag{}
	err = a.uow.Do(ctx, func(ctx context.Context) error {
		ps, err := a.store.LockPayments(ctx, businessID, ids)
		if err != nil {
			return err
		}
		if len(ps) != len(ids) {
			return ErrPaymentNotFound().WithMeta("field", "transaction_ids")
		}
		now := a.clk.Now()
		for _, p := range ps {
			var added []tags.Tag
			for _, kv := range kvs {
				tg := tags.NewTag(businessID, p.ID, kv, now)
				if !slices.ContainsFunc(p.Tags, func(x tags.Tag) bool { return x.ID == tg.ID }) {
					added = append(added, tg)
				}
			}
			if len(added) == 0 {
				continue
			}
			out = append(out, added...)
			p.Tags = bill.TagSet(businessID, p.ID, p.Tags, append(bill.KeyValues(p.Tags), bill.KeyValues(added)...), now)
			p.Version, p.UpdatedAt = p.Version+1, now
			if err := a.store.UpdatePayment(ctx, p); err != nil {
				return err
			}
			if err := publish(ctx, a.pub, paymentEvent(p)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UntagPayments is DELETE /bills/bill-payments/tags: the business's
// payment tags with these ids are removed (ids it does not have are
// ignored, so a repeated call succeeds). It returns the removed tags;
// each changed payment is republished with its new version.
func (a *Payments) UntagPayments(ctx context.Context, businessID uuid.UUID, tagIDs []uuid.UUID) ([]tags.Tag, error) {
	if len(tagIDs) == 0 || len(tagIDs) > MaxTagPayments {
		return nil, apperr.PayloadField("tag_ids", fmt.Sprintf("must hold 1 to %d ids", MaxTagPayments)).WithEnum(bill.EnumInvalidPayment)
	}
	out := []tags.Tag{}
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		ids, err := a.store.PaymentIDsWithTags(ctx, businessID, tagIDs)
		if err != nil || len(ids) == 0 {
			return err
		}
		ps, err := a.store.LockPayments(ctx, businessID, ids)
		if err != nil {
			return err
		}
		now := a.clk.Now()
		for _, p := range ps {
			kept := p.Tags[:0:0]
			for _, t := range p.Tags {
				if slices.Contains(tagIDs, t.ID) {
					out = append(out, t)
				} else {
					kept = append(kept, t)
				}
			}
			p.Tags = kept
			p.Version, p.UpdatedAt = p.Version+1, now
			if err := a.store.UpdatePayment(ctx, p); err != nil {
				return err
			}
			if err := publish(ctx, a.pub, paymentEvent(p)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UseAccounts sets the chart-of-accounts projection that the clearing
// account a bill payment names is checked against (see accountChecker).
func (a *Payments) UseAccounts(store AccountStore) { a.chart = accountChecker{store} }
