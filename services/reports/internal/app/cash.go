package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// CashStore is the cash basis's part of the read model (postgres.Store);
// every method runs in the transaction ctx carries, else on its own.
type CashStore interface {
	AddCashDays(ctx context.Context, bid uuid.UUID, amounts map[domain.DayKey]int64) error
	AddDocLines(ctx context.Context, bid uuid.UUID, doc domain.DocKey, lines []domain.DocLine, total int64) error
	CashDoc(ctx context.Context, bid uuid.UUID, doc domain.DocKey) ([]domain.DocLine, int64, []domain.Allocation, error)
	ReplaceRecognized(ctx context.Context, bid uuid.UUID, doc domain.DocKey, rows map[domain.DayKey]int64) (map[domain.DayKey]int64, error)
	UpsertPayment(ctx context.Context, bid uuid.UUID, paymentType string, id uuid.UUID, version int64, deleted bool, allocs []domain.Allocation) (bool, []domain.DocKey, error)
	CashDocs(ctx context.Context, bid uuid.UUID) ([]domain.DocKey, error)
	TouchFreshness(ctx context.Context, bid uuid.UUID, eventTime time.Time) error
}

// isControl reports whether line l is on the control account stable (or
// an account below it).
func isControl(l events.LedgerLine, stable string) bool {
	if l.StableName != nil && *l.StableName == stable {
		return true
	}
	for _, a := range l.Ancestors {
		if a.StableName != nil && *a.StableName == stable {
			return true
		}
	}
	return false
}

// applyCash is the cash basis's part of applying entry p (once per entry,
// after ApplyLines): an entry of a deferred source leaves the cash basis
// on its day, and its document's recognition is recomputed.
func (r *Reports) applyCash(ctx context.Context, p events.LedgerEntryPosted, day time.Time, recompute bool) (domain.DocKey, bool, error) {
	rule, ok := domain.CashRules[p.SourceType]
	if !ok || !rule.Deferred {
		return domain.DocKey{}, false, nil
	}
	doc := domain.DocKey{SourceType: p.SourceType, SourceID: p.SourceID}
	out := map[domain.DayKey]int64{}
	var lines []domain.DocLine
	var total int64
	for _, l := range p.Lines {
		ts := make([]domain.Tag, len(l.Tags))
		for i, t := range l.Tags {
			ts[i] = domain.Tag{Key: t.Key, Value: t.Value}
		}
		tid := domain.NewTagSet(ts).ID(p.BusinessID)
		// Every line leaves the cash basis on the entry's day (so the
		// document's receivable or payable and its taxes are left out
		// with its revenue or expenses, and the basis stays balanced).
		out[domain.DayKey{Day: day, Account: l.AccountID, TagSet: tid}] -= l.SignedAmount
		role := domain.RoleOther
		switch {
		case domain.IsPnLType(l.AccountType):
			role = domain.RolePnL
		case rule.Control != "" && isControl(l, rule.Control):
			role = domain.RoleControl
			total += rule.ControlSign * l.SignedAmount
		}
		lines = append(lines, domain.DocLine{Account: l.AccountID, TagSet: tid, Role: role, Amount: l.SignedAmount})
	}
	if err := r.cash.AddCashDays(ctx, p.BusinessID, out); err != nil {
		return doc, false, err
	}
	if rule.Control == "" { // never paid: nothing to recognize
		return doc, false, nil
	}
	if err := r.cash.AddDocLines(ctx, p.BusinessID, doc, lines, total); err != nil {
		return doc, false, err
	}
	if recompute {
		return doc, true, r.recognize(ctx, p.BusinessID, doc)
	}
	return doc, true, nil
}

// recognize recomputes what document doc's payments recognize on the
// cash basis and applies the difference to cash_days.
func (r *Reports) recognize(ctx context.Context, bid uuid.UUID, doc domain.DocKey) error {
	lines, total, allocs, err := r.cash.CashDoc(ctx, bid, doc)
	if err != nil {
		return err
	}
	rows, err := domain.RecognizeDoc(lines, total, allocs)
	if err != nil {
		return fmt.Errorf("document %s %s: %w", doc.SourceType, doc.SourceID, err)
	}
	old, err := r.cash.ReplaceRecognized(ctx, bid, doc, rows)
	if err != nil {
		return err
	}
	delta := make(map[domain.DayKey]int64, len(rows)+len(old))
	for k, v := range rows {
		delta[k] += v
	}
	for k, v := range old {
		delta[k] -= v
	}
	return r.cash.AddCashDays(ctx, bid, delta)
}

// Payment is a payment snapshot as the cash basis needs it: its kind
// (INVOICE_PAYMENT, BILL_PAYMENT), id, version, day and what it paid on
// which documents (none once deleted).
type Payment struct {
	BusinessID uuid.UUID
	Type       string
	ID         uuid.UUID
	Version    int64
	Deleted    bool
	Day        time.Time
	// Paid is the documents' ids (of the payment kind's source type,
	// domain.PaymentSource) and amounts, in the payment's order.
	Paid []PaidDoc
}

// PaidDoc is what a payment paid on one document.
type PaidDoc struct {
	DocID  string
	Amount int64
}

// ApplyPayment keeps payment p (the newest version wins, whatever the
// order and number of deliveries) and recomputes what the documents it
// pays, or paid before, recognize on the cash basis, in the transaction
// ctx carries (the consumer's).
func (r *Reports) ApplyPayment(ctx context.Context, p Payment, eventTime time.Time) error {
	source, ok := domain.PaymentSource[p.Type]
	if !ok {
		return fmt.Errorf("payment %s: unknown payment type %q", p.ID, p.Type)
	}
	if err := r.store.LockBusiness(ctx, p.BusinessID); err != nil {
		return err
	}
	var allocs []domain.Allocation
	if !p.Deleted {
		for _, d := range p.Paid {
			if d.Amount == 0 {
				continue
			}
			allocs = append(allocs, domain.Allocation{Doc: domain.DocKey{SourceType: source, SourceID: d.DocID},
				Payment: p.ID, Day: p.Day, Amount: d.Amount})
		}
	}
	changed, docs, err := r.cash.UpsertPayment(ctx, p.BusinessID, p.Type, p.ID, p.Version, p.Deleted, allocs)
	if err != nil {
		return err
	}
	if changed {
		for _, d := range docs {
			if err := r.recognize(ctx, p.BusinessID, d); err != nil {
				return err
			}
		}
	}
	if err := r.cash.TouchFreshness(ctx, p.BusinessID, eventTime); err != nil {
		return err
	}
	return r.markChanged(ctx, p.BusinessID)
}

// UTCDay is t's calendar day in UTC.
func UTCDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// applyCashEntries is applyCash for a batch of freshly recorded entries:
// each document the batch touched is recomputed once, at the end.
func (r *Reports) applyCashEntries(ctx context.Context, es []JournalEntry) error {
	type key struct {
		bid uuid.UUID
		doc domain.DocKey
	}
	var docs []key
	seen := map[key]bool{}
	for _, e := range es {
		doc, recompute, err := r.applyCash(ctx, e.Entry, e.Day, false)
		if err != nil {
			return err
		}
		if k := (key{e.Entry.BusinessID, doc}); recompute && !seen[k] {
			seen[k] = true
			docs = append(docs, k)
		}
	}
	for _, k := range docs {
		if err := r.recognize(ctx, k.bid, k.doc); err != nil {
			return err
		}
	}
	return nil
}
