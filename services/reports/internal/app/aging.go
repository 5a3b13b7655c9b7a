package app

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// AgingStore is the aging's part of the read model (postgres.Store); every
// method runs in the transaction ctx carries, else on its own.
type AgingStore interface {
	AgingWriteOffs(ctx context.Context, bid uuid.UUID, ids []string) (map[string]string, error)
	AddAgingMoves(ctx context.Context, bid uuid.UUID, moves []domain.AgingMove) error
	ReplaceAgingOrigin(ctx context.Context, bid uuid.UUID, origin domain.AgingOrigin, moves []domain.AgingMove) ([]domain.AgingHolder, error)
	MoveAgingOrigin(ctx context.Context, bid uuid.UUID, origin domain.AgingOrigin, to domain.AgingHolder) ([]domain.AgingHolder, error)
	UpsertAgingWriteOff(ctx context.Context, bid uuid.UUID, id, invoice string, version int64) (bool, error)
	UpsertAgingDocument(ctx context.Context, bid uuid.UUID, d AgingDocumentSnapshot) error
	UpsertAgingParty(ctx context.Context, bid uuid.UUID, partyType string, id uuid.UUID, name string, version int64) error
	// RefreshAgingHolders recomputes holders hs from their moves.
	RefreshAgingHolders(ctx context.Context, bid uuid.UUID, hs []domain.AgingHolder) error
	PaymentAllocations(ctx context.Context, bid uuid.UUID, kind string, id uuid.UUID) ([]domain.Allocation, error)
	AllPaymentAllocations(ctx context.Context, bid uuid.UUID) ([]PaymentAllocations, error)
	AgingLines(ctx context.Context, bid uuid.UUID, side domain.AgingSide, on time.Time) ([]domain.AgingLine, error)
	AgingDocuments(ctx context.Context, bid uuid.UUID, side domain.AgingSide, on time.Time) ([]domain.AgingDocument, error)
}

// PaymentAllocations are what one payment (its kind and id) paid.
type PaymentAllocations struct {
	Kind   string
	ID     uuid.UUID
	Allocs []domain.Allocation
}

// AgingDocumentSnapshot is what the aging keeps of an invoice or a bill
// snapshot: its party, its date (the UTC day it was sent or received) and
// due date (nil: due on its date).
type AgingDocumentSnapshot struct {
	Side    domain.AgingSide
	ID      string
	Party   *uuid.UUID
	Day     time.Time
	Due     *time.Time
	Version int64
}

// agingMoves are the moves of the control lines of entries es (each of
// business bid) on every side: per entry's source, on its day.
func (r *Reports) agingMoves(ctx context.Context, bid uuid.UUID, es []JournalEntry) ([]domain.AgingMove, error) {
	var writeOffs []string
	for _, e := range es {
		if e.Entry.SourceType == domain.SourceInvoiceWriteOff {
			writeOffs = append(writeOffs, e.Entry.SourceID)
		}
	}
	known, err := r.store.AgingWriteOffs(ctx, bid, writeOffs)
	if err != nil {
		return nil, err
	}
	var out []domain.AgingMove
	for _, e := range es {
		p := e.Entry
		for _, s := range domain.AgingSides {
			var sum int64
			for _, l := range p.Lines {
				if isControl(l, s.Control) {
					sum += l.SignedAmount
				}
			}
			if sum == 0 {
				continue
			}
			out = append(out, domain.AgingMove{
				Origin: domain.AgingOrigin{Kind: domain.OriginLedger, Type: p.SourceType, ID: p.SourceID},
				Holder: domain.LedgerHolder(s, p.SourceType, p.SourceID, known),
				Day:    e.Day, Amount: s.Sign * sum,
			})
		}
	}
	return out, nil
}

// applyAging adds the control lines of freshly recorded entries es to the
// aging and recomputes the holders they moved (a consumer's batch, a
// rebuild's page).
func (r *Reports) applyAging(ctx context.Context, es []JournalEntry) error {
	byBusiness := map[uuid.UUID][]JournalEntry{}
	var order []uuid.UUID
	for _, e := range es {
		bid := e.Entry.BusinessID
		if _, ok := byBusiness[bid]; !ok {
			order = append(order, bid)
		}
		byBusiness[bid] = append(byBusiness[bid], e)
	}
	for _, bid := range order {
		moves, err := r.agingMoves(ctx, bid, byBusiness[bid])
		if err != nil {
			return err
		}
		if err := r.addAgingMoves(ctx, bid, moves); err != nil {
			return err
		}
	}
	return nil
}

// addAgingMoves adds moves and recomputes their holders.
func (r *Reports) addAgingMoves(ctx context.Context, bid uuid.UUID, moves []domain.AgingMove) error {
	if len(moves) == 0 {
		return nil
	}
	if err := r.store.AddAgingMoves(ctx, bid, moves); err != nil {
		return err
	}
	hs := make([]domain.AgingHolder, len(moves))
	for i, m := range moves {
		hs[i] = m.Holder
	}
	return r.store.RefreshAgingHolders(ctx, bid, hs)
}

// rebuildAging finishes a rebuild's aging (its ledger moves are in, from
// applyAging): the moves of every payment's allocations, a page of
// payments at a time.
func (r *Reports) rebuildAging(ctx context.Context, bid uuid.UUID) error {
	pays, err := r.store.AllPaymentAllocations(ctx, bid)
	if err != nil {
		return err
	}
	var moves []domain.AgingMove
	for i, p := range pays {
		moves = append(moves, domain.AllocationMoves(p.Kind, p.ID, p.Allocs)...)
		if len(moves) >= rebuildPage || i == len(pays)-1 {
			if err := r.addAgingMoves(ctx, bid, moves); err != nil {
				return err
			}
			moves = moves[:0]
		}
	}
	return nil
}

// ApplyPaymentAndAging is ApplyPayment, then the aging of the documents
// the payment applies to: its allocations' moves are replaced by those of
// its newest snapshot (as the cash basis keeps it), in the transaction ctx
// carries (the consumer's).
func (r *Reports) ApplyPaymentAndAging(ctx context.Context, p Payment, eventTime time.Time) error {
	if err := r.ApplyPayment(ctx, p, eventTime); err != nil {
		return err
	}
	if _, _, ok := domain.AgingPayerType(p.Type); !ok {
		return nil
	}
	allocs, err := r.store.PaymentAllocations(ctx, p.BusinessID, p.Type, p.ID)
	if err != nil {
		return err
	}
	moves := domain.AllocationMoves(p.Type, p.ID, allocs)
	old, err := r.store.ReplaceAgingOrigin(ctx, p.BusinessID, domain.AgingOrigin{Kind: domain.OriginAllocation, Type: p.Type, ID: p.ID.String()}, moves)
	if err != nil {
		return err
	}
	for _, m := range moves {
		old = append(old, m.Holder)
	}
	return r.store.RefreshAgingHolders(ctx, p.BusinessID, old)
}

// ApplyWriteOff keeps the invoice of write-off id (the newest version
// wins) and, when it is new or another, puts the write-off's control
// lines on that invoice, in the transaction ctx carries (the consumer's).
func (r *Reports) ApplyWriteOff(ctx context.Context, bid, id, invoice uuid.UUID, version int64, eventTime time.Time) error {
	if err := r.store.LockBusiness(ctx, bid); err != nil {
		return err
	}
	changed, err := r.store.UpsertAgingWriteOff(ctx, bid, id.String(), invoice.String(), version)
	if err != nil || !changed {
		return err
	}
	to := domain.AgingHolder{Side: domain.AgingAR.Side, Type: domain.AgingAR.DocType, ID: invoice.String()}
	old, err := r.store.MoveAgingOrigin(ctx, bid, domain.AgingOrigin{Kind: domain.OriginLedger, Type: domain.SourceInvoiceWriteOff, ID: id.String()}, to)
	if err != nil {
		return err
	}
	if err := r.store.RefreshAgingHolders(ctx, bid, append(old, to)); err != nil {
		return err
	}
	if err := r.cash.TouchFreshness(ctx, bid, eventTime); err != nil {
		return err
	}
	return r.markChanged(ctx, bid)
}

// ApplyAgingDocument keeps snapshot d of an invoice or a bill (the newest
// version wins), in the transaction ctx carries (the consumer's).
func (r *Reports) ApplyAgingDocument(ctx context.Context, bid uuid.UUID, d AgingDocumentSnapshot, eventTime time.Time) error {
	if err := r.store.LockBusiness(ctx, bid); err != nil {
		return err
	}
	if err := r.store.UpsertAgingDocument(ctx, bid, d); err != nil {
		return err
	}
	if err := r.cash.TouchFreshness(ctx, bid, eventTime); err != nil {
		return err
	}
	return r.markChanged(ctx, bid)
}

// ApplyAgingParty keeps the display name of a customer or a vendor (the
// newest version wins), in the transaction ctx carries (the consumer's),
// under the business's lock like every writer of its read model.
func (r *Reports) ApplyAgingParty(ctx context.Context, bid uuid.UUID, side domain.AgingSide, id uuid.UUID, name string, version int64) error {
	if err := r.store.LockBusiness(ctx, bid); err != nil {
		return err
	}
	if err := r.store.UpsertAgingParty(ctx, bid, side.PartyType, id, name, version); err != nil {
		return err
	}
	return r.markChanged(ctx, bid)
}

// Aging is the aging report of side s of business bid on the effective
// date of q (default today, UTC), from one snapshot.
func (r *Reports) Aging(ctx context.Context, bid uuid.UUID, s domain.AgingSide, q url.Values) (UnifiedResult, error) {
	p, err := r.planAging(bid, s, q)
	if err != nil {
		return UnifiedResult{}, err
	}
	return p.Result(ctx)
}

// planAging is the plan of Aging (its 400s).
func (r *Reports) planAging(bid uuid.UUID, s domain.AgingSide, q url.Values) (UnifiedPlan, error) {
	on, err := domain.ParseEffectiveDate(q, time.Now())
	if err != nil {
		return UnifiedPlan{}, err
	}
	label := on.Format(domain.DateLayout)
	return UnifiedPlan{Config: domain.AgingConfig(s), Label: label, Query: map[string]string{"effective_date": label},
		build: func(ctx context.Context) (domain.UnifiedReport, error) {
			var out domain.UnifiedReport
			err := r.snapshot.Do(ctx, func(ctx context.Context) error {
				lines, err := r.store.AgingLines(ctx, bid, s, on)
				if err != nil {
					return fmt.Errorf("aging %s: %w", s.Key, err)
				}
				out = domain.BuildAging(s, bid, lines)
				return nil
			})
			return out, err
		}}, nil
}

// AgingDocuments are the documents of side s of business bid open on day
// on, with their open amounts (what the report's party rows sum).
func (r *Reports) AgingDocuments(ctx context.Context, bid uuid.UUID, s domain.AgingSide, on time.Time) ([]domain.AgingDocument, error) {
	var out []domain.AgingDocument
	err := r.snapshot.Do(ctx, func(ctx context.Context) error {
		var err error
		out, err = r.store.AgingDocuments(ctx, bid, s, on)
		return err
	})
	return out, err
}

// NewAgingDocument is the aging's snapshot of document id of side s (its
// version), dated at (its UTC day) and due at due (its UTC day; nil: due
// on its date), of party (nil: none).
func NewAgingDocument(s domain.AgingSide, id uuid.UUID, party *uuid.UUID, at time.Time, due *time.Time, version int64) AgingDocumentSnapshot {
	d := AgingDocumentSnapshot{Side: s, ID: id.String(), Party: party, Day: UTCDay(at), Version: version}
	if due != nil && !due.IsZero() {
		day := UTCDay(*due)
		d.Due = &day
	}
	return d
}
