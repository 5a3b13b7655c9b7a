package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// view reads a report of business bid on the basis asked (else the
// business's default): fn runs in one read-only snapshot with the
// business's accounts and the basis; the answer's freshness is read in the
// same snapshot.
func (r *Reports) view(ctx context.Context, bid uuid.UUID, asked string,
	fn func(ctx context.Context, basis string, accounts map[uuid.UUID]domain.Account) error) (basis string, last *time.Time, err error) {
	if basis, err = r.basis(ctx, bid, asked); err != nil {
		return basis, nil, err
	}
	err = r.snapshot.Do(ctx, func(ctx context.Context) error {
		accounts, err := r.store.Accounts(ctx, bid)
		if err != nil {
			return err
		}
		if err := fn(ctx, basis, accounts); err != nil {
			return err
		}
		last, err = r.store.LastEventAt(ctx, bid)
		return err
	})
	return basis, last, err
}

// BalanceSheetReport is a balance sheet with its fiscal year, basis and
// freshness.
type BalanceSheetReport struct {
	BusinessID       uuid.UUID
	Date             time.Time
	FiscalYearStart  time.Time
	Basis            string
	Sheet            domain.BalanceSheet
	FullyCategorized bool
	LastEventAt      *time.Time
}

// fiscalStart is the first day of business bid's fiscal year that holds
// day d.
func (r *Reports) fiscalStart(ctx context.Context, bid uuid.UUID, d time.Time) (time.Time, error) {
	b, _, err := r.businesses.Find(ctx, bid)
	if err != nil {
		return time.Time{}, fmt.Errorf("find business: %w", err)
	}
	return domain.FiscalYearStart(d, b.FiscalYearStart()), nil
}

// splitBalances is every account's balance on day d of the fiscal year
// starting on fy, in two parts: before fy and from fy to d.
func (r *Reports) splitBalances(ctx context.Context, bid uuid.UUID, basis string, fy, d time.Time) (prior, current map[uuid.UUID]int64, err error) {
	b, err := r.store.Balances(ctx, bid, basis, []domain.DayRange{{To: fy.AddDate(0, 0, -1)}, {From: fy, To: d}})
	if err != nil {
		return nil, nil, err
	}
	return b[0], b[1], nil
}

// BalanceSheet is GET /reports/balance-sheet: business bid's balance sheet
// on q's day and basis (else the business's default), its retained
// earnings closed at each fiscal year's end.
func (r *Reports) BalanceSheet(ctx context.Context, bid uuid.UUID, q domain.BalanceQuery) (BalanceSheetReport, error) {
	out := BalanceSheetReport{BusinessID: bid, Date: q.Date}
	var err error
	if out.FiscalYearStart, err = r.fiscalStart(ctx, bid, q.Date); err != nil {
		return out, err
	}
	out.Basis, out.LastEventAt, err = r.view(ctx, bid, q.Basis, func(ctx context.Context, basis string, accounts map[uuid.UUID]domain.Account) error {
		prior, current, err := r.splitBalances(ctx, bid, basis, out.FiscalYearStart, q.Date)
		if err != nil {
			return err
		}
		out.Sheet = domain.BuildBalanceSheet(accounts, prior, current)
		unc, err := r.store.Uncategorized(ctx, bid, []time.Time{{}}, []time.Time{q.Date})
		out.FullyCategorized = err == nil && !unc[0]
		return err
	})
	return out, err
}

// CashFlowReport is a statement of cash flows with its basis and
// freshness.
type CashFlowReport struct {
	BusinessID  uuid.UUID
	Query       domain.PeriodQuery
	Basis       string
	CashFlow    domain.CashFlow
	LastEventAt *time.Time
}

// CashFlow is GET /reports/cashflow-statement: business bid's statement of
// cash flows over q's days on q's basis (else the business's default).
func (r *Reports) CashFlow(ctx context.Context, bid uuid.UUID, q domain.PeriodQuery) (CashFlowReport, error) {
	out := CashFlowReport{BusinessID: bid, Query: q}
	var err error
	out.Basis, out.LastEventAt, err = r.view(ctx, bid, q.Basis, func(ctx context.Context, basis string, accounts map[uuid.UUID]domain.Account) error {
		b, err := r.store.Balances(ctx, bid, basis, []domain.DayRange{{From: q.Start, To: q.End}, {To: q.Start.AddDate(0, 0, -1)}})
		if err != nil {
			return err
		}
		out.CashFlow = domain.BuildCashFlow(accounts, b[0], b[1])
		return nil
	})
	return out, err
}
