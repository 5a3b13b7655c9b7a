package domain

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// MaxSummaryMonths bounds the months of one P&L summaries request (the
// client asks for one month or a 12-month window).
const MaxSummaryMonths = 36

// Month is a calendar month.
type Month struct {
	Year  int
	Month time.Month
}

// Start is the month's first day (UTC).
func (m Month) Start() time.Time { return time.Date(m.Year, m.Month, 1, 0, 0, 0, 0, time.UTC) }

// End is the month's last day (UTC).
func (m Month) End() time.Time { return m.Start().AddDate(0, 1, -1) }

// Next is the month after m.
func (m Month) Next() Month {
	n := m.Start().AddDate(0, 1, 0)
	return Month{n.Year(), n.Month()}
}

// SummariesQuery is a P&L summaries request: the months From..To
// (inclusive), a tag filter and a basis (empty: the business's default).
type SummariesQuery struct {
	From, To Month
	Filter   TagFilter
	Basis    string
}

// Months lists From..To in order.
func (q SummariesQuery) Months() []Month {
	var out []Month
	for m := q.From; !m.Start().After(q.To.Start()); m = m.Next() {
		out = append(out, m)
	}
	return out
}

// ParseSummariesQuery reads start_year, start_month, end_year, end_month
// (required; months 1–12; end not before start; at most
// MaxSummaryMonths months), tag_key and tag_values (as the P&L's) and
// reporting_basis (ACCRUAL or CASH; absent: the business's default).
// Violations are one 400 naming each parameter.
func ParseSummariesQuery(q url.Values) (SummariesQuery, error) {
	bad := map[string]string{}
	errEnum := ""
	num := func(name string, lo, hi int) int {
		s := q.Get(name)
		n, err := strconv.Atoi(s)
		switch {
		case s == "":
			bad[name] = "required"
		case err != nil || n < lo || n > hi:
			bad[name] = fmt.Sprintf("must be a whole number from %d to %d", lo, hi)
		}
		return n
	}
	out := SummariesQuery{
		From: Month{num("start_year", 1900, 9999), time.Month(num("start_month", 1, 12))},
		To:   Month{num("end_year", 1900, 9999), time.Month(num("end_month", 1, 12))},
	}
	if len(bad) > 0 {
		errEnum = EnumInvalidDateRange
	} else if n := (out.To.Year-out.From.Year)*12 + int(out.To.Month) - int(out.From.Month) + 1; n < 1 {
		bad["end_month"] = "must not be before start_year and start_month"
		errEnum = EnumInvalidDateRange
	} else if n > MaxSummaryMonths {
		bad["end_month"] = fmt.Sprintf("at most %d months per request", MaxSummaryMonths)
		errEnum = EnumInvalidDateRange
	}
	out.Filter, out.Basis = parseFilterAndBasis(q, bad, &errEnum)
	if len(bad) > 0 {
		return SummariesQuery{}, apperr.FieldErrors(apperr.InvalidParameters, bad).WithEnum(errEnum)
	}
	return out, nil
}

// Summary is one month's P&L in figures (cents) and the month's bank
// transactions to review.
type Summary struct {
	Month                                  Month
	Income, CostOfGoodsSold, GrossProfit   int64
	OperatingExpenses, ProfitBeforeTaxes   int64
	Taxes, NetProfit, TotalExpenses        int64
	UncategorizedInflows                   int64 // on UNCATEGORIZED_REVENUE
	UncategorizedOutflows                  int64 // on UNCATEGORIZED_EXPENSES
	FullyCategorized                       bool
	UncategorizedTransactions, Categorized int
}

// Summarize is month m's summary from its P&L p (with FullyCategorized),
// the amounts (signed, debit positive) by account it was built from, and
// the month's uncategorized and categorized bank transactions. Total
// expenses are cost of goods sold, operating expenses and taxes: income
// less net profit.
func Summarize(m Month, p PnL, accounts map[uuid.UUID]Account, amounts map[uuid.UUID]int64, uncategorized, categorized int) Summary {
	s := Summary{
		Month: m, Income: p.Income.Value, CostOfGoodsSold: p.CostOfGoodsSold.Value, GrossProfit: p.GrossProfit,
		OperatingExpenses: p.Expenses.Value, ProfitBeforeTaxes: p.ProfitBeforeTaxes, Taxes: p.Taxes.Value,
		NetProfit: p.NetProfit, FullyCategorized: p.FullyCategorized,
		UncategorizedTransactions: uncategorized, Categorized: categorized,
	}
	s.TotalExpenses = s.CostOfGoodsSold + s.OperatingExpenses + s.Taxes
	for id, amt := range amounts {
		a, ok := accounts[id]
		if !ok || a.StableName == nil {
			continue
		}
		switch *a.StableName {
		case StableUncategorizedRevenue:
			s.UncategorizedInflows -= amt // credit-normal
		case StableUncategorizedExpense:
			s.UncategorizedOutflows += amt
		}
	}
	return s
}
