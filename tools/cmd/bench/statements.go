package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
)

// statementSamples is how many requests each statement figure is the p50
// and p99 of (on days spread over the year); statementRawSamples the runs
// of its baseline.
const (
	statementSamples    = 60
	statementRawSamples = 8
)

// copyMonthSums loads the month totals of the comparison's day sums
// (loaded by COPY, so the consumer did not maintain them) into
// reports.account_months, as the consumer does for what it applies.
func (b *txbench) copyMonthSums(ctx context.Context, bid uuid.UUID) error {
	_, err := b.db.Exec(ctx, `INSERT INTO reports.account_months (business_id, month, account_id, amount)
		SELECT business_id, date_trunc('month', day)::date, account_id, sum(amount) FROM reports.account_days
		WHERE business_id = $1 AND day < '2025-01-01' GROUP BY 1, 2, 3
		ON CONFLICT (business_id, month, account_id) DO UPDATE SET amount = reports.account_months.amount + EXCLUDED.amount`, bid)
	if err != nil {
		return err
	}
	_, err = b.db.Exec(ctx, "ANALYZE reports.account_months")
	return err
}

// benchStatements measures the statements over the comparison's 1,000,000
// journal lines of 2024 (and the catch-up's of 2025): the balance sheet on
// days spread over 2024 against the raw SUM ... GROUP BY account over the
// lines up to the day, and, each against its target, the statement of cash
// flows for 12 months, the trial balance and the P&L summaries of 24
// months; the balance sheet's bank balance is checked against the raw sum.
func (b *txbench) benchStatements(ctx context.Context, bid uuid.UUID, lines int) (string, []result, error) {
	var res []result
	if err := b.copyMonthSums(ctx, bid); err != nil {
		return "", res, fmt.Errorf("month totals: %w", err)
	}
	base := "/v1/businesses/" + bid.String()
	r := rand.New(rand.NewPCG(7, 21))
	jan1 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	days := make([]time.Time, statementSamples)
	for i := range days {
		days[i] = jan1.AddDate(0, 0, r.IntN(366))
	}
	bank := events.DefaultAccountID(bid, "BANK_ACCOUNTS")
	var sheet struct {
		Data struct {
			Assets struct {
				Value     int64 `json:"value"`
				LineItems []struct {
					Name  string `json:"name"`
					Value int64  `json:"value"`
				} `json:"line_items"`
			} `json:"assets"`
			LiabilitiesAndEquity struct {
				Value int64 `json:"value"`
			} `json:"liabilities_and_equity"`
		} `json:"data"`
	}
	timed := func(path string, out any) (time.Duration, error) {
		t0 := time.Now()
		if _, err := b.do(ctx, http.MethodGet, path, nil, out); err != nil {
			return 0, err
		}
		return time.Since(t0), nil
	}
	var bs []time.Duration
	for _, d := range days {
		el, err := timed(fmt.Sprintf("%s/reports/balance-sheet?effective_date=%s&reporting_basis=ACCRUAL", base, d.Format("2006-01-02")), &sheet)
		if err != nil {
			return "", res, err
		}
		bs = append(bs, el)
		if sheet.Data.Assets.Value != sheet.Data.LiabilitiesAndEquity.Value {
			return "", res, fmt.Errorf("balance sheet %s: assets %d, liabilities and equity %d", d, sheet.Data.Assets.Value, sheet.Data.LiabilitiesAndEquity.Value)
		}
	}
	// The baseline, and the check of the last day's bank balance.
	const rawSQL = `SELECT account_id, sum(amount) FROM bench.journal_lines WHERE business_id = $1 AND day <= $2 GROUP BY account_id`
	var raw []time.Duration
	var rawBank int64
	for k := range statementRawSamples {
		d := days[len(days)-1]
		if k < statementRawSamples-1 {
			d = days[k]
		}
		t0 := time.Now()
		rows, err := b.db.Query(ctx, rawSQL, bid, d)
		if err != nil {
			return "", res, err
		}
		for rows.Next() {
			var id uuid.UUID
			var sum int64
			if err := rows.Scan(&id, &sum); err != nil {
				rows.Close()
				return "", res, err
			}
			if id == bank {
				rawBank = sum
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return "", res, err
		}
		raw = append(raw, time.Since(t0))
	}
	var gotBank int64
	for _, li := range sheet.Data.Assets.LineItems {
		if li.Name == "BANK_ACCOUNTS" {
			gotBank = li.Value
		}
	}
	if gotBank != rawBank {
		return "", res, fmt.Errorf("balance sheet on %s: bank %d, the raw sum says %d", days[len(days)-1].Format("2006-01-02"), gotBank, rawBank)
	}
	a, z := percentiles(bs), percentiles(raw)
	n := formatNumber(float64(lines))
	res = append(res, result{Part: "reports", Section: "statements", Name: fmt.Sprintf("balance sheet on a day of 2024 over %s journal lines, p50", n),
		Unit: "ms", Value: durationMS(a.p50), Note: "p99 " + msText(a.p99), Baseline: "raw SUM ... GROUP BY account over the lines up to the day, p50",
		BaselineValue: durationMS(z.p50), Target: []bound{absolute(atMost, 20), ratioAtMost(0.05)}})
	sum := fmt.Sprintf("  balance sheet (%s lines): p50 %s p99 %s; raw SUM GROUP BY p50 %s; ratio %.3f (target <= 20ms and <= 0.05x); bank %d both ways\n",
		n, a.p50, a.p99, z.p50, float64(a.p50)/float64(z.p50), gotBank)

	// The others against their targets, on the same days.
	others := []struct {
		name   string
		target float64
		path   func(d time.Time) string
	}{
		{"statement of cash flows, 12 months", 40, func(d time.Time) string {
			return fmt.Sprintf("%s/reports/cashflow-statement?start_date=%s&end_date=%s", base, d.AddDate(-1, 0, 1).Format("2006-01-02"), d.Format("2006-01-02"))
		}},
		{"trial balance on a day", 20, func(d time.Time) string {
			return fmt.Sprintf("%s/reports/unified/trial-balance?effective_date=%s&reporting_basis=ACCRUAL", base, d.Format("2006-01-02"))
		}},
		{"P&L summaries, 24 months", 30, func(time.Time) string {
			return base + "/reports/profit-and-loss-summaries?start_year=2024&start_month=1&end_year=2025&end_month=12"
		}},
	}
	for _, o := range others {
		var ts []time.Duration
		for _, d := range days {
			el, err := timed(o.path(d), nil)
			if err != nil {
				return "", res, fmt.Errorf("%s: %w", o.name, err)
			}
			ts = append(ts, el)
		}
		p := percentiles(ts)
		res = append(res, result{Part: "reports", Section: "statements", Name: fmt.Sprintf("%s over %s journal lines, p50", o.name, n),
			Unit: "ms", Value: durationMS(p.p50), Note: "p99 " + msText(p.p99), Target: []bound{absolute(atMost, o.target)}})
		sum += fmt.Sprintf("  %s: p50 %s p99 %s (target p50 <= %.0f ms)\n", o.name, p.p50, p.p99, o.target)
	}
	fmt.Print(sum)
	return sum, res, nil
}
