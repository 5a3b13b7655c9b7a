// Package app holds the reports service's use cases: applying the ledger's
// posted entries to the read model, the profit-and-loss report and the
// rebuild from the service's journal copy.
package app

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// Store is the read model (postgres.Store).
type Store interface {
	CashStore
	RecordEntries(ctx context.Context, db bun.IDB, es []JournalEntry) ([]JournalEntry, error)
	ApplyLines(ctx context.Context, db bun.IDB, es []JournalEntry) error
	ClearBusiness(ctx context.Context, db bun.IDB, bid uuid.UUID) error
	JournalBusinesses(ctx context.Context, db bun.IDB) ([]uuid.UUID, error)
	JournalPage(ctx context.Context, db bun.IDB, bid, after uuid.UUID, limit int) ([]JournalEntry, error)
	Accounts(ctx context.Context, db bun.IDB, bid uuid.UUID) (map[uuid.UUID]domain.Account, error)
	Amounts(ctx context.Context, db bun.IDB, bid uuid.UUID, basis string, start, end time.Time, f domain.TagFilter) (map[uuid.UUID]int64, error)
	PeriodAmounts(ctx context.Context, db bun.IDB, bid uuid.UUID, basis string, starts, ends []time.Time, filters []domain.RequiredTags) ([][]map[uuid.UUID]int64, error)
	LastEventAt(ctx context.Context, db bun.IDB, bid uuid.UUID) (*time.Time, error)
	UpsertBankTransaction(ctx context.Context, db bun.IDB, b domain.BankTransaction, day, eventTime time.Time) error
	Uncategorized(ctx context.Context, db bun.IDB, bid uuid.UUID, starts, ends []time.Time) ([]bool, error)
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

var txReadOnly = sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}

// lockBusiness serialises the writers of business bid's read model (the
// consumer and a rebuild) until tx ends.
func lockBusiness(ctx context.Context, tx bun.IDB, bid uuid.UUID) error {
	if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "reports:"+bid.String()).Exec(ctx); err != nil {
		return fmt.Errorf("lock business: %w", err)
	}
	return nil
}

// Reports are the use cases.
type Reports struct {
	db         *bun.DB
	store      Store
	cash       CashStore
	businesses BusinessFinder
	logger     *slog.Logger
}

// New makes the use cases; businesses tells each business's default
// reporting basis.
func New(db *bun.DB, store Store, businesses BusinessFinder, logger *slog.Logger) *Reports {
	return &Reports{db: db, store: store, cash: store, businesses: businesses, logger: logger}
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
	if found && b.DefaultReportingBasis == domain.BasisCash {
		return domain.BasisCash, nil
	}
	return domain.BasisAccrual, nil
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

// ApplyEntry applies a posted entry in tx: once per entry id, whatever the
// number of deliveries.
func (r *Reports) ApplyEntry(ctx context.Context, tx bun.IDB, p events.LedgerEntryPosted, eventTime time.Time) error {
	return r.ApplyEntries(ctx, tx, []PostedEntry{{Entry: p, EventTime: eventTime}})
}

// PostedEntry is a ledger.entry.posted payload with its event's time and,
// when known, its JSON as the event carried it.
type PostedEntry struct {
	Entry     events.LedgerEntryPosted
	EventTime time.Time
	Payload   json.RawMessage
}

// ApplyEntries applies posted entries in tx, each once per entry id
// whatever the number of deliveries (in es or before), with a few
// statements for all of them: a consumer's batch.
func (r *Reports) ApplyEntries(ctx context.Context, tx bun.IDB, es []PostedEntry) error {
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
		if err := lockBusiness(ctx, tx, bid); err != nil {
			return err
		}
	}
	fresh, err := r.store.RecordEntries(ctx, tx, journal)
	if err != nil || len(fresh) == 0 {
		return err
	}
	if err := r.store.ApplyLines(ctx, tx, fresh); err != nil {
		return err
	}
	return r.applyCashEntries(ctx, tx, fresh)
}

// ApplyBankTransaction keeps snapshot p of a bank transaction in tx: the
// newest version wins, whatever the order and number of deliveries.
func (r *Reports) ApplyBankTransaction(ctx context.Context, tx bun.IDB, p events.BankTransactionUpserted, eventTime time.Time) error {
	day, err := time.Parse(domain.DateLayout, p.Date)
	if err != nil {
		if p.DateTime.IsZero() {
			return fmt.Errorf("bank transaction %s: bad date %q", p.TransactionID, p.Date)
		}
		y, m, d := p.DateTime.UTC().Date()
		day = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	if err := r.store.UpsertBankTransaction(ctx, tx, domain.NewBankTransaction(p), day, eventTime); err != nil {
		return err
	}
	return r.cash.TouchFreshness(ctx, tx, p.BusinessID, eventTime)
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
	if out.Basis, err = r.basis(ctx, bid, q.Basis); err != nil {
		return out, err
	}
	err = r.db.RunInTx(ctx, &txReadOnly, func(ctx context.Context, tx bun.Tx) error {
		accounts, err := r.store.Accounts(ctx, tx, bid)
		if err != nil {
			return err
		}
		amounts, err := r.store.Amounts(ctx, tx, bid, out.Basis, q.Start, q.End, q.Filter)
		if err != nil {
			return err
		}
		out.PnL = domain.BuildPnL(accounts, amounts, q.Structure)
		unc, err := r.store.Uncategorized(ctx, tx, bid, []time.Time{q.Start}, []time.Time{q.End})
		if err != nil {
			return err
		}
		out.PnL.FullyCategorized = !unc[0]
		out.LastEventAt, err = r.store.LastEventAt(ctx, tx, bid)
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
	err = r.db.RunInTx(ctx, &txReadOnly, func(ctx context.Context, tx bun.Tx) error {
		accounts, err := r.store.Accounts(ctx, tx, bid)
		if err != nil {
			return err
		}
		byFilter, err := r.store.PeriodAmounts(ctx, tx, bid, out.Basis, starts, ends, c.Filters)
		if err != nil {
			return err
		}
		unc, err := r.store.Uncategorized(ctx, tx, bid, starts, ends)
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
		out.LastEventAt, err = r.store.LastEventAt(ctx, tx, bid)
		return err
	})
	return out, err
}

// rebuildPage is how many journal entries a rebuild reads at a time.
const rebuildPage = 500

// Rebuild recomputes the read model of business bid from the journal copy
// and the payments' latest snapshots, in one transaction (readers see the
// old figures until it commits).
func (r *Reports) Rebuild(ctx context.Context, bid uuid.UUID) (int, error) {
	n := 0
	err := r.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := lockBusiness(ctx, tx, bid); err != nil {
			return err
		}
		if err := r.store.ClearBusiness(ctx, tx, bid); err != nil {
			return err
		}
		after := uuid.Nil
		for {
			page, err := r.store.JournalPage(ctx, tx, bid, after, rebuildPage)
			if err != nil {
				return err
			}
			if len(page) > 0 {
				if err := r.store.ApplyLines(ctx, tx, page); err != nil {
					return err
				}
				for _, e := range page {
					if _, _, err := r.applyCash(ctx, tx, e.Entry, e.Day, false); err != nil {
						return err
					}
				}
				after = page[len(page)-1].Entry.EntryID
			}
			n += len(page)
			if len(page) < rebuildPage {
				break
			}
		}
		docs, err := r.cash.CashDocs(ctx, tx, bid)
		if err != nil {
			return err
		}
		for _, d := range docs {
			if err := r.recognize(ctx, tx, bid, d); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// Businesses is every business of the journal copy.
func (r *Reports) Businesses(ctx context.Context) ([]uuid.UUID, error) {
	return r.store.JournalBusinesses(ctx, r.db)
}
