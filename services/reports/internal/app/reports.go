// Package app holds the reports service's use cases: applying the ledger's
// posted entries to the read model, the profit-and-loss report and the
// rebuild from the service's journal copy. The stores find the database
// transaction in the context: a consumer's inbox transaction for what
// applies events, a unit of work (UnitOfWork) for a rebuild, a read-only
// snapshot (Snapshot) for a report.
package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// Store is the read model (postgres.Store); every method runs in the
// transaction ctx carries, else on its own.
type Store interface {
	CashStore
	AgingStore
	// LockBusiness serialises the writers of business bid's read model
	// (the consumers and a rebuild) until the transaction ends.
	LockBusiness(ctx context.Context, bid uuid.UUID) error
	// MarkChanged moves the export version (ExportVersion) of each of
	// businesses on, in the transaction ctx carries (the change's), with
	// one statement; the caller holds their locks.
	MarkChanged(ctx context.Context, businesses []uuid.UUID) error
	RecordEntries(ctx context.Context, es []JournalEntry) ([]JournalEntry, error)
	ApplyLines(ctx context.Context, es []JournalEntry) error
	ClearBusiness(ctx context.Context, bid uuid.UUID) error
	// PendingRebuilds are the businesses a migration queued for a
	// rebuild (ClearBusiness takes a business off the queue).
	PendingRebuilds(ctx context.Context) ([]uuid.UUID, error)
	JournalBusinesses(ctx context.Context) ([]uuid.UUID, error)
	JournalPage(ctx context.Context, bid, after uuid.UUID, limit int) ([]JournalEntry, error)
	Accounts(ctx context.Context, bid uuid.UUID) (map[uuid.UUID]domain.Account, error)
	Amounts(ctx context.Context, bid uuid.UUID, basis string, start, end time.Time, f domain.TagFilter) (map[uuid.UUID]int64, error)
	// FilteredPeriodAmounts is Amounts for every period starts[i]..ends[i].
	FilteredPeriodAmounts(ctx context.Context, bid uuid.UUID, basis string, starts, ends []time.Time, f domain.TagFilter) ([]map[uuid.UUID]int64, error)
	PeriodAmounts(ctx context.Context, bid uuid.UUID, basis string, starts, ends []time.Time, filters []domain.RequiredTags) ([][]map[uuid.UUID]int64, error)
	// Balances is, per range, the signed cents per account on basis (all
	// tag sets; accounts netting to zero left out).
	Balances(ctx context.Context, bid uuid.UUID, basis string, ranges []domain.DayRange) ([]map[uuid.UUID]int64, error)
	LastEventAt(ctx context.Context, bid uuid.UUID) (*time.Time, error)
	// EntryLines are the journal copy's lines on accounts dated
	// start..end (at most limit+1); RecognizedLines what payments
	// recognized on them on the cash basis.
	EntryLines(ctx context.Context, bid uuid.UUID, start, end time.Time, accounts map[uuid.UUID]bool, limit int) ([]domain.DetailLine, error)
	RecognizedLines(ctx context.Context, bid uuid.UUID, start, end time.Time, accounts map[uuid.UUID]bool, limit int) ([]domain.DetailLine, error)
	// UpsertBankTransactions keeps each row unless the read model has a
	// newer version of its transaction (one row per transaction), and
	// says which businesses had a row written.
	UpsertBankTransactions(ctx context.Context, rows []BankTransactionRow) (map[uuid.UUID]bool, error)
	Uncategorized(ctx context.Context, bid uuid.UUID, starts, ends []time.Time) ([]bool, error)
	// TransactionCounts are, per period, the business's bank transactions
	// dated in it that are uncategorized and categorized.
	TransactionCounts(ctx context.Context, bid uuid.UUID, starts, ends []time.Time) ([][2]int, error)
}

// UnitOfWork runs fn in one database transaction, carried by fn's
// context to the stores.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// Snapshot runs fn in one read-only transaction, carried by fn's context
// to the stores, in which every read sees the same snapshot of the
// database.
type Snapshot interface {
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// JournalEntry is one entry of the service's journal copy.
type JournalEntry struct {
	Entry     events.LedgerEntryPosted
	Day       time.Time
	EventTime time.Time
	// Payload, when set, is Entry as the event carried it (kept as the
	// journal copy without encoding it again).
	Payload json.RawMessage
}

// Reports are the use cases.
type Reports struct {
	uow        UnitOfWork
	snapshot   Snapshot
	store      Store
	cash       CashStore
	businesses BusinessFinder
	logger     *slog.Logger
}

// New makes the use cases: a rebuild runs in uow, a report in snapshot;
// businesses tells each business's default reporting basis.
func New(uow UnitOfWork, snapshot Snapshot, store Store, businesses BusinessFinder, logger *slog.Logger) *Reports {
	return &Reports{uow: uow, snapshot: snapshot, store: store, cash: store, businesses: businesses, logger: logger}
}

// basis is the reporting basis of a request for business bid: the one
// asked for, else the business's default_reporting_basis, else ACCRUAL.
func (r *Reports) basis(ctx context.Context, bid uuid.UUID, asked string) (string, error) {
	if asked != "" {
		return asked, nil
	}
	b, found, err := r.businesses.Find(ctx, bid)
	if err != nil {
		return "", fmt.Errorf("find business: %w", err)
	}
	return defaultBasis(b, found), nil
}

// defaultBasis is the reporting basis of business b (found: known) when
// a request names none: its default_reporting_basis, else ACCRUAL.
func defaultBasis(b events.Business, found bool) string {
	if found && b.DefaultReportingBasis == domain.BasisCash {
		return domain.BasisCash
	}
	return domain.BasisAccrual
}

// LockBusiness takes business bid's read-model lock in the transaction
// ctx carries (the one every writer of its read model takes first).
func (r *Reports) LockBusiness(ctx context.Context, bid uuid.UUID) error {
	return r.store.LockBusiness(ctx, bid)
}

// markChanged is Store.MarkChanged of businesses.
func (r *Reports) markChanged(ctx context.Context, businesses ...uuid.UUID) error {
	return r.store.MarkChanged(ctx, businesses)
}

// EntryDay is the calendar day p counts on: its date, else its timestamp's
// UTC day.
func EntryDay(p events.LedgerEntryPosted) (time.Time, error) {
	if p.Date != "" {
		d, err := time.Parse(domain.DateLayout, p.Date)
		if err != nil {
			return time.Time{}, fmt.Errorf("entry %s: bad date %q", p.EntryID, p.Date)
		}
		return d, nil
	}
	if p.EntryAt.IsZero() {
		return time.Time{}, fmt.Errorf("entry %s: no date", p.EntryID)
	}
	y, m, d := p.EntryAt.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
}

// ApplyEntry applies a posted entry in the transaction ctx carries (the
// consumer's): once per entry id, whatever the number of deliveries.
func (r *Reports) ApplyEntry(ctx context.Context, p events.LedgerEntryPosted, eventTime time.Time) error {
	return r.ApplyEntries(ctx, []PostedEntry{{Entry: p, EventTime: eventTime}})
}

// PostedEntry is a ledger.entry.posted payload with its event's time and,
// when known, its JSON as the event carried it.
type PostedEntry struct {
	Entry     events.LedgerEntryPosted
	EventTime time.Time
	Payload   json.RawMessage
}

// ApplyEntries applies posted entries in the transaction ctx carries (the
// consumer's), each once per entry id whatever the number of deliveries
// (in es or before), with a few statements for all of them: a consumer's
// batch.
func (r *Reports) ApplyEntries(ctx context.Context, es []PostedEntry) error {
	journal := make([]JournalEntry, len(es))
	var businesses []uuid.UUID
	for i, e := range es {
		day, err := EntryDay(e.Entry)
		if err != nil {
			return err
		}
		journal[i] = JournalEntry{Entry: e.Entry, Day: day, EventTime: e.EventTime, Payload: e.Payload}
		if !slices.Contains(businesses, e.Entry.BusinessID) {
			businesses = append(businesses, e.Entry.BusinessID)
		}
	}
	// In one order, so two writers of the same businesses cannot deadlock.
	slices.SortFunc(businesses, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	for _, bid := range businesses {
		if err := r.store.LockBusiness(ctx, bid); err != nil {
			return err
		}
	}
	fresh, err := r.store.RecordEntries(ctx, journal)
	if err != nil || len(fresh) == 0 {
		return err
	}
	if err := r.store.ApplyLines(ctx, fresh); err != nil {
		return err
	}
	if err := r.applyCashEntries(ctx, fresh); err != nil {
		return err
	}
	if err := r.applyAging(ctx, fresh); err != nil {
		return err
	}
	return r.markChanged(ctx, businesses...)
}

// BankTransactionSnapshot is a bank_transaction.upserted snapshot and
// when it happened.
type BankTransactionSnapshot struct {
	Snapshot  events.BankTransactionUpserted
	EventTime time.Time
}

// BankTransactionRow is a bank transaction as the read model keeps it: the
// snapshot, the day it counts on and when it happened.
type BankTransactionRow struct {
	Transaction domain.BankTransaction
	Day         time.Time
	EventTime   time.Time
}

// ApplyBankTransaction keeps snapshot p of a bank transaction in the
// transaction ctx carries (the consumer's): ApplyBankTransactions of one.
func (r *Reports) ApplyBankTransaction(ctx context.Context, p events.BankTransactionUpserted, eventTime time.Time) error {
	return r.ApplyBankTransactions(ctx, []BankTransactionSnapshot{{Snapshot: p, EventTime: eventTime}})
}

// ApplyBankTransactions keeps snapshots of bank transactions in the
// transaction ctx carries (the consumer's batch), with a few statements
// for all of them: the newest version of each transaction wins, whatever
// the order and number of deliveries (of two snapshots of one version, the
// first). The businesses' locks come first, in one order, as for every
// writer of their read model: a writer holding the row of one of its
// transactions while it waits for the business's export version (held by a
// batch that then wants that row) would deadlock.
func (r *Reports) ApplyBankTransactions(ctx context.Context, snaps []BankTransactionSnapshot) error {
	if len(snaps) == 0 {
		return nil
	}
	type key struct{ business, transaction uuid.UUID }
	at := map[key]int{} // the row kept of each transaction
	rows := make([]BankTransactionRow, 0, len(snaps))
	freshness := map[uuid.UUID]time.Time{}
	var businesses []uuid.UUID
	for _, sn := range snaps {
		p := sn.Snapshot
		day, err := time.Parse(domain.DateLayout, p.Date)
		if err != nil {
			if p.DateTime.IsZero() {
				return fmt.Errorf("bank transaction %s: bad date %q", p.TransactionID, p.Date)
			}
			y, m, d := p.DateTime.UTC().Date()
			day = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
		if last, ok := freshness[p.BusinessID]; !ok {
			businesses = append(businesses, p.BusinessID)
			freshness[p.BusinessID] = sn.EventTime
		} else if sn.EventTime.After(last) {
			freshness[p.BusinessID] = sn.EventTime
		}
		row := BankTransactionRow{Transaction: domain.NewBankTransaction(p), Day: day, EventTime: sn.EventTime}
		k := key{p.BusinessID, p.TransactionID}
		if i, ok := at[k]; !ok {
			at[k] = len(rows)
			rows = append(rows, row)
		} else if p.Version > rows[i].Transaction.Version {
			rows[i] = row
		}
	}
	slices.SortFunc(businesses, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	for _, bid := range businesses {
		if err := r.store.LockBusiness(ctx, bid); err != nil {
			return err
		}
	}
	written, err := r.store.UpsertBankTransactions(ctx, rows)
	if err != nil {
		return err
	}
	var changed []uuid.UUID
	for _, bid := range businesses {
		if err := r.cash.TouchFreshness(ctx, bid, freshness[bid]); err != nil {
			return err
		}
		if written[bid] {
			changed = append(changed, bid)
		}
	}
	// Snapshots the read model already had (a redelivery, a late older
	// version) change nothing, not even the export version: the topic
	// keeps no inbox rows.
	return r.markChanged(ctx, changed...)
}

// Report is a profit-and-loss report with its basis and freshness.
type Report struct {
	BusinessID  uuid.UUID
	Query       domain.PnLQuery
	Basis       string
	PnL         domain.PnL
	LastEventAt *time.Time
}

// ProfitAndLoss is the report of business bid on q's basis (else the
// business's default).
func (r *Reports) ProfitAndLoss(ctx context.Context, bid uuid.UUID, q domain.PnLQuery) (Report, error) {
	out := Report{BusinessID: bid, Query: q}
	var err error
	out.Basis, out.LastEventAt, err = r.view(ctx, bid, q.Basis, func(ctx context.Context, basis string, accounts map[uuid.UUID]domain.Account) error {
		amounts, err := r.store.Amounts(ctx, bid, basis, q.Start, q.End, q.Filter)
		if err != nil {
			return err
		}
		out.PnL = domain.BuildPnL(accounts, amounts, q.Structure)
		unc, err := r.store.Uncategorized(ctx, bid, []time.Time{q.Start}, []time.Time{q.End})
		out.PnL.FullyCategorized = err == nil && !unc[0]
		return err
	})
	return out, err
}

// ComparisonItem is the report of one period × tag filter.
type ComparisonItem struct {
	Period domain.ComparisonPeriod
	Filter domain.RequiredTags
	PnL    domain.PnL
}

// ComparisonReport is a comparison's reports, period-major (every filter
// of the first period, then of the second...), with their basis and
// freshness.
type ComparisonReport struct {
	BusinessID  uuid.UUID
	Basis       string
	Items       []ComparisonItem
	LastEventAt *time.Time
}

// Comparison is the report of business bid for every period × tag filter
// of c on c's basis (else the business's default), from one consistent
// snapshot: one statement grouped by filter and period.
func (r *Reports) Comparison(ctx context.Context, bid uuid.UUID, c domain.Comparison) (ComparisonReport, error) {
	out := ComparisonReport{BusinessID: bid}
	var err error
	if out.Basis, err = r.basis(ctx, bid, c.Basis); err != nil {
		return out, err
	}
	starts, ends := make([]time.Time, len(c.Periods)), make([]time.Time, len(c.Periods))
	for i, p := range c.Periods {
		starts[i], ends[i] = p.Start, p.End
	}
	err = r.snapshot.Do(ctx, func(ctx context.Context) error {
		accounts, err := r.store.Accounts(ctx, bid)
		if err != nil {
			return err
		}
		byFilter, err := r.store.PeriodAmounts(ctx, bid, out.Basis, starts, ends, c.Filters)
		if err != nil {
			return err
		}
		unc, err := r.store.Uncategorized(ctx, bid, starts, ends)
		if err != nil {
			return err
		}
		out.Items = make([]ComparisonItem, 0, len(c.Periods)*len(c.Filters))
		for i, p := range c.Periods {
			for j, f := range c.Filters {
				pnl := domain.BuildPnL(accounts, byFilter[j][i], c.Structure)
				pnl.FullyCategorized = !unc[i]
				out.Items = append(out.Items, ComparisonItem{Period: p, Filter: f, PnL: pnl})
			}
		}
		out.LastEventAt, err = r.store.LastEventAt(ctx, bid)
		return err
	})
	return out, err
}

// rebuildPage is how many journal entries a rebuild reads at a time.
const rebuildPage = 500

// Rebuild recomputes the read model of business bid from the journal copy
// and the payments' latest snapshots, in one unit of work (readers see the
// old figures until it commits).
func (r *Reports) Rebuild(ctx context.Context, bid uuid.UUID) (int, error) {
	n := 0
	err := r.uow.Do(ctx, func(ctx context.Context) error {
		if err := r.store.LockBusiness(ctx, bid); err != nil {
			return err
		}
		if err := r.store.ClearBusiness(ctx, bid); err != nil {
			return err
		}
		after := uuid.Nil
		for {
			page, err := r.store.JournalPage(ctx, bid, after, rebuildPage)
			if err != nil {
				return err
			}
			if len(page) > 0 {
				if err := r.store.ApplyLines(ctx, page); err != nil {
					return err
				}
				for _, e := range page {
					if _, _, err := r.applyCash(ctx, e.Entry, e.Day, false); err != nil {
						return err
					}
				}
				if err := r.applyAging(ctx, page); err != nil {
					return err
				}
				after = page[len(page)-1].Entry.EntryID
			}
			n += len(page)
			if len(page) < rebuildPage {
				break
			}
		}
		docs, err := r.cash.CashDocs(ctx, bid)
		if err != nil {
			return err
		}
		for _, d := range docs {
			if err := r.recognize(ctx, bid, d); err != nil {
				return err
			}
		}
		if err := r.rebuildAging(ctx, bid); err != nil {
			return err
		}
		return r.markChanged(ctx, bid)
	})
	return n, err
}

// Businesses is every business of the journal copy.
func (r *Reports) Businesses(ctx context.Context) ([]uuid.UUID, error) {
	return r.store.JournalBusinesses(ctx)
}

// SummariesReport is the P&L summaries of a range of months with their
// basis and freshness.
type SummariesReport struct {
	BusinessID  uuid.UUID
	Basis       string
	Months      []domain.Summary
	LastEventAt *time.Time
}

// Summaries is GET /reports/profit-and-loss-summaries: for each month of
// q, on q's basis (else the business's default) and with q's tag filter,
// the P&L's figures (the same as GET /reports/profit-and-loss for that
// month) and the month's bank transactions to review, from one snapshot
// (one statement for every month's amounts).
func (r *Reports) Summaries(ctx context.Context, bid uuid.UUID, q domain.SummariesQuery) (SummariesReport, error) {
	out := SummariesReport{BusinessID: bid}
	var err error
	if out.Basis, err = r.basis(ctx, bid, q.Basis); err != nil {
		return out, err
	}
	months := q.Months()
	starts, ends := make([]time.Time, len(months)), make([]time.Time, len(months))
	for i, m := range months {
		starts[i], ends[i] = m.Start(), m.End()
	}
	err = r.snapshot.Do(ctx, func(ctx context.Context) error {
		accounts, err := r.store.Accounts(ctx, bid)
		if err != nil {
			return err
		}
		unc, err := r.store.Uncategorized(ctx, bid, starts, ends)
		if err != nil {
			return err
		}
		counts, err := r.store.TransactionCounts(ctx, bid, starts, ends)
		if err != nil {
			return err
		}
		amounts, err := r.store.FilteredPeriodAmounts(ctx, bid, out.Basis, starts, ends, q.Filter)
		if err != nil {
			return err
		}
		out.Months = make([]domain.Summary, len(months))
		for i, m := range months {
			pnl := domain.BuildPnL(accounts, amounts[i], domain.StructureDefault)
			pnl.FullyCategorized = !unc[i]
			out.Months[i] = domain.Summarize(m, pnl, accounts, amounts[i], counts[i][0], counts[i][1])
		}
		out.LastEventAt, err = r.store.LastEventAt(ctx, bid)
		return err
	})
	return out, err
}
