package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/tools/internal/stack"
)

// The reports benchmarks.
const (
	reportLines      = 1_000_000 // journal lines the comparison runs over (500,000 entries)
	reportSamples    = 60
	reportRawSamples = 8
	exportRounds     = 2 // exports and COPY baselines, alternating; the best of each
)

// reportsSize is how much the reports benchmarks load (flags, smaller
// while developing).
type reportsSize struct {
	catchUpEntries int // two-line entries published for the catch-up
	exportRows     int // bank transactions exported as CSV
}

// reportAccount is an account of the bench's small chart: its stable name
// and its ancestors (root first).
type reportAccount struct {
	name, typ, normality string
	ancestors            []string
}

var reportChart = map[string]reportAccount{
	"BANK_ACCOUNTS": {"BANK_ACCOUNTS", "ASSET", "DEBIT", []string{"ASSETS"}},
	"SALES":         {"SALES", "REVENUE", "CREDIT", []string{"REVENUE"}},
	"MATERIALS":     {"MATERIALS", "EXPENSE", "DEBIT", []string{"EXPENSES", "COST_OF_GOODS_SOLD"}},
	"RENT":          {"RENT", "EXPENSE", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"SOFTWARE":      {"SOFTWARE", "EXPENSE", "DEBIT", []string{"EXPENSES", "OPERATING_EXPENSES"}},
	"INCOME_TAXES":  {"INCOME_TAXES", "EXPENSE", "DEBIT", []string{"EXPENSES", "TAXES"}},
}

// reportEntry is entry i of the bench's journal: a sale or an expense of
// one of three departments, on a day of year.
func reportEntry(i int) (other string, dept string, amount int64, day int) {
	others := []string{"SALES", "SALES", "MATERIALS", "RENT", "SOFTWARE", "INCOME_TAXES"}
	return others[i%len(others)], []string{"a", "b", "c"}[(i/7)%3], int64(100 + (i*7919)%90_000), i % 365
}

// runReports measures the reports service: the consumer's catch-up rate on
// ledger events published to the broker (against COPY of the same lines),
// the P&L comparison of 12 months × 3 tag filters over a business with
// 1,000,000 journal lines (its read model loaded by COPY), through the
// gateway, against a raw SQL GROUP BY over the same lines, and the
// transactions CSV export against COPY ... TO STDOUT CSV of the same rows,
// with the reports process's peak memory; every baseline in the same run.
func runReports(ctx context.Context, st *stack.Stack, token string, size reportsSize) (string, []result, error) {
	reportCatchUpEntries := size.catchUpEntries
	var res []result
	db, err := pgx.Connect(ctx, st.DatabaseURL)
	if err != nil {
		return "", res, fmt.Errorf("connect to the suite's database: %w", err)
	}
	defer db.Close(context.Background())
	b := &txbench{st: st, token: token, db: db, client: &http.Client{Timeout: 60 * time.Second}}
	fmt.Printf("\n== reports (load average at start: %s) ==\n", loadAverage())
	biz, err := b.newBusiness(ctx, "bench-reports")
	if err != nil {
		return "", res, err
	}
	bid := uuid.MustParse(biz)
	base := "/v1/businesses/" + biz
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if _, err := b.do(ctx, http.MethodGet, base+"/reports/profit-and-loss?start_date=2025-01-01&end_date=2025-01-31", nil, nil); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return "", res, fmt.Errorf("business %s never reached the reports service", biz)
		}
	}

	// 1. Catch-up: entries of 2025 published as the ledger publishes them.
	fmt.Printf("1. catch-up: %d ledger entries (%d lines) published to acct.ledger.v1\n", reportCatchUpEntries, 2*reportCatchUpEntries)
	w := &kafka.Writer{Addr: kafka.TCP(st.BrokerAddr), Balancer: &kafka.Hash{}, BatchSize: 500, BatchTimeout: 10 * time.Millisecond}
	msgs := make([]kafka.Message, 0, 1000)
	start := time.Now()
	var last events.Event // the last entry published
	for i := 0; i < reportCatchUpEntries; i++ {
		e, err := reportEvent(bid, i, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			return "", res, err
		}
		last = e
		msgs = append(msgs, events.ToMessage(e))
		if len(msgs) == cap(msgs) || i == reportCatchUpEntries-1 {
			if err := w.WriteMessages(ctx, msgs...); err != nil {
				return "", res, fmt.Errorf("publish: %w", err)
			}
			msgs = msgs[:0]
		}
	}
	_ = w.Close()
	published := time.Since(start)
	// The entries of one business are applied in order (one partition):
	// the last one there means all are. Looked for by its key, not
	// counted: a count over the growing table every half second would
	// take PostgreSQL's time from the catch-up it measures.
	lastEntry, err := entryIDOf(last)
	if err != nil {
		return "", res, err
	}
	for deadline := time.Now().Add(15 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var done bool
		if err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM reports.entries WHERE business_id = $1 AND entry_id = $2)", bid, lastEntry).Scan(&done); err != nil {
			return "", res, err
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			return "", res, fmt.Errorf("reports had not applied the last of %d entries in 15 minutes", reportCatchUpEntries)
		}
	}
	applied := time.Since(start)
	var n int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM reports.entries WHERE business_id = $1", bid).Scan(&n); err != nil {
		return "", res, err
	}
	if n != reportCatchUpEntries {
		return "", res, fmt.Errorf("reports applied %d of %d entries, the last among them", n, reportCatchUpEntries)
	}
	rate := float64(reportCatchUpEntries) / applied.Seconds()
	fmt.Printf("  published in %s; all applied %s after the first publish: %.0f entries/s (%.0f lines/s)\n",
		published.Round(time.Millisecond), applied.Round(time.Millisecond), rate, 2*rate)
	copyLines, err := b.copyCatchUpLines(ctx, bid, reportCatchUpEntries)
	if err != nil {
		return "", res, err
	}
	catchUpRatio := 2 * rate / copyLines
	lines := formatNumber(float64(2 * reportCatchUpEntries))
	res = append(res,
		result{Part: "reports", Section: "catch-up", Name: fmt.Sprintf("catch-up of %s ledger lines from the broker", lines), Unit: "lines/s",
			Value: 2 * rate, Note: fmt.Sprintf("%s entries/s", formatNumber(rate)), Baseline: "COPY of the same lines into a plain table",
			BaselineValue: copyLines, TargetNote: "the read model does much more per line than COPY"},
		result{Part: "reports", Section: "catch-up", Name: fmt.Sprintf("catch-up of %s ledger lines, time", lines), Unit: "min",
			Value: applied.Minutes(), Target: []bound{absolute(below, 30)},
			TargetNote: "the issue: minutes, not the 30+ of one transaction per event"})
	fmt.Printf("  baseline: COPY of the same %d lines into a plain table: %.0f lines/s; catch-up / COPY = %.3f\n",
		2*reportCatchUpEntries, copyLines, catchUpRatio)

	// 2. The comparison over 1,000,000 lines of 2024: the read model's
	// day × account × tag-set sums and the raw lines, both by COPY (the
	// catch-up made the accounts and the three tag sets).
	tagSets := map[string]uuid.UUID{}
	rows, err := db.Query(ctx, "SELECT id, kv[1] FROM reports.tag_sets WHERE business_id = $1 AND cardinality(kv) = 1", bid)
	if err != nil {
		return "", res, err
	}
	for rows.Next() {
		var id uuid.UUID
		var kv string
		if err := rows.Scan(&id, &kv); err != nil {
			rows.Close()
			return "", res, err
		}
		tagSets[kv] = id
	}
	rows.Close()
	if len(tagSets) != 3 {
		return "", res, fmt.Errorf("reports has %d one-tag sets, want 3", len(tagSets))
	}
	type cell struct {
		day     int
		account uuid.UUID
		set     uuid.UUID
	}
	sums := map[cell]int64{}
	raw := make([][]any, 0, reportLines)
	bank := events.DefaultAccountID(bid, "BANK_ACCOUNTS")
	jan1 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < reportLines/2; i++ {
		other, dept, amount, day := reportEntry(i)
		acct := events.DefaultAccountID(bid, other)
		set := tagSets["dept\x1f"+dept]
		signed := amount // debit the expense, credit the bank
		if other == "SALES" {
			signed = -amount
		}
		sums[cell{day, acct, set}] += signed
		sums[cell{day, bank, set}] -= signed
		d := jan1.AddDate(0, 0, day)
		raw = append(raw, []any{bid, d, acct, dept, signed}, []any{bid, d, bank, dept, -signed})
	}
	cells := make([][]any, 0, len(sums))
	for c, v := range sums {
		cells = append(cells, []any{bid, jan1.AddDate(0, 0, c.day), c.account, c.set, v})
	}
	start = time.Now()
	if _, err := db.CopyFrom(ctx, pgx.Identifier{"reports", "account_days"}, []string{"business_id", "day", "account_id", "tag_set_id", "amount"},
		pgx.CopyFromRows(cells)); err != nil {
		return "", res, fmt.Errorf("COPY account_days: %w", err)
	}
	if _, err := db.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS bench; DROP TABLE IF EXISTS bench.journal_lines; "+
		"CREATE TABLE bench.journal_lines (business_id uuid, day date, account_id uuid, dept text, amount bigint)"); err != nil {
		return "", res, err
	}
	if _, err := db.CopyFrom(ctx, pgx.Identifier{"bench", "journal_lines"}, []string{"business_id", "day", "account_id", "dept", "amount"},
		pgx.CopyFromRows(raw)); err != nil {
		return "", res, fmt.Errorf("COPY journal lines: %w", err)
	}
	if _, err := db.Exec(ctx, "ANALYZE reports.account_days; ANALYZE bench.journal_lines"); err != nil {
		return "", res, err
	}
	fmt.Printf("2. comparison: 12 months × 3 tag filters over %d journal lines (%d read-model rows), loaded by COPY in %s\n",
		len(raw), len(cells), time.Since(start).Round(time.Millisecond))
	if err := b.settle(ctx); err != nil {
		return "", res, err
	}
	body := map[string]any{"reporting_basis": "ACCRUAL"}
	var months []map[string]int
	for m := 1; m <= 12; m++ {
		months = append(months, map[string]int{"year": 2024, "month": m})
	}
	body["periods"] = map[string]any{"type": "Comparison_Months", "months": months}
	var filters []map[string]any
	for _, d := range []string{"a", "b", "c"} {
		filters = append(filters, map[string]any{"required_tags": []map[string]string{{"key": "dept", "value": d}}})
	}
	body["tag_filters"] = filters
	payload, _ := json.Marshal(body)
	var api []time.Duration
	var out struct {
		Data struct {
			Pnls []struct {
				Pnl struct {
					NetProfit float64 `json:"net_profit"`
				} `json:"pnl"`
			} `json:"pnls"`
		} `json:"data"`
	}
	for k := 0; k < reportSamples; k++ {
		t0 := time.Now()
		if _, err := b.do(ctx, http.MethodPost, base+"/reports/profit-and-loss-comparison", payload, &out); err != nil {
			return "", res, err
		}
		api = append(api, time.Since(t0))
	}
	if len(out.Data.Pnls) != 36 {
		return "", res, fmt.Errorf("comparison: %d results, want 36", len(out.Data.Pnls))
	}
	const rawSQL = `SELECT date_trunc('month', day) AS m, account_id, dept, sum(amount) FROM bench.journal_lines
		WHERE business_id = $1 AND day >= '2024-01-01' AND day < '2025-01-01' GROUP BY 1, 2, 3`
	var rawTimes []time.Duration
	var janA int64
	pnl := map[uuid.UUID]bool{}
	for name := range reportChart {
		if name != "BANK_ACCOUNTS" {
			pnl[events.DefaultAccountID(bid, name)] = true
		}
	}
	for k := 0; k < reportRawSamples; k++ {
		t0 := time.Now()
		r, err := db.Query(ctx, rawSQL, bid)
		if err != nil {
			return "", res, err
		}
		janA = 0
		for r.Next() {
			var m time.Time
			var acct uuid.UUID
			var dept string
			var sum int64
			if err := r.Scan(&m, &acct, &dept, &sum); err != nil {
				r.Close()
				return "", res, err
			}
			if m.Month() == time.January && dept == "a" && pnl[acct] {
				janA -= sum // net profit: credits to revenue less debits to expenses
			}
		}
		r.Close()
		rawTimes = append(rawTimes, time.Since(t0))
	}
	// The first result is January × dept=a: the same figure both ways.
	if got := int64(out.Data.Pnls[0].Pnl.NetProfit); got != janA {
		return "", res, fmt.Errorf("comparison January dept=a net profit %d, the raw GROUP BY says %d", got, janA)
	}
	a, z := percentiles(api), percentiles(rawTimes)
	fmt.Printf("  gateway: p50 %s p99 %s (%d requests); raw GROUP BY: p50 %s (%d runs); January dept=a net profit %d both ways\n",
		a.p50, a.p99, len(api), z.p50, len(rawTimes), janA)
	ok := a.p50 <= 40*time.Millisecond && float64(a.p50) <= 0.1*float64(z.p50)
	res = append(res, result{Part: "reports", Section: "comparison",
		Name: fmt.Sprintf("P&L comparison, 12 months × 3 tag filters over %s journal lines, p50", formatNumber(float64(len(raw)))),
		Unit: "ms", Value: durationMS(a.p50), Note: "p99 " + msText(a.p99), Baseline: "raw GROUP BY over the lines, p50",
		BaselineValue: durationMS(z.p50), Target: []bound{absolute(atMost, 40), ratioAtMost(0.1)}})
	sum := fmt.Sprintf("  reports catch-up (%d entries, %d lines): %.0f entries/s (%.0f lines/s); COPY of the lines %.0f lines/s; ratio %.3f\n"+
		"  P&L comparison (1M lines, 12×3): gateway p50 %s p99 %s; raw GROUP BY p50 %s; ratio %.3f (target p50 <= 40ms and <= 0.1×) %s\n",
		reportCatchUpEntries, 2*reportCatchUpEntries, rate, 2*rate, copyLines, catchUpRatio,
		a.p50, a.p99, z.p50, float64(a.p50)/float64(z.p50), verdict(ok))

	// 2b. The statements over the same lines.
	stm, stmRes, err := b.benchStatements(ctx, bid, len(raw))
	res = append(res, stmRes...)
	if err != nil {
		return "", res, err
	}
	sum += stm
	ag, agRes, err := b.benchAging(ctx, bid)
	res = append(res, agRes...)
	if err != nil {
		return "", res, err
	}
	sum += ag

	// 3. The transactions CSV export.
	exp, expRes, err := b.benchExport(ctx, bid, size.exportRows)
	res = append(res, expRes...)
	if err != nil {
		return "", res, err
	}
	return sum + exp, res, nil
}

// copyCatchUpLines is the catch-up's baseline: COPY of the same lines
// (business, entry, day, account, department, signed amount) into a plain
// table, in lines/s: the least work that stores them.
func (b *txbench) copyCatchUpLines(ctx context.Context, bid uuid.UUID, entries int) (float64, error) {
	if _, err := b.db.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS bench; DROP TABLE IF EXISTS bench.catchup_lines; "+
		"CREATE TABLE bench.catchup_lines (business_id uuid, entry_id uuid, day date, account_id uuid, dept text, amount bigint)"); err != nil {
		return 0, err
	}
	bank := events.DefaultAccountID(bid, "BANK_ACCOUNTS")
	jan1 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	i, half := 0, 0
	var id uuid.UUID
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if i == entries {
			return nil, nil
		}
		other, dept, amount, day := reportEntry(i)
		signed := amount
		if other == "SALES" {
			signed = -amount
		}
		d := jan1.AddDate(0, 0, day)
		if half == 0 {
			id = uuid.Must(uuid.NewV7())
			half = 1
			return []any{bid, id, d, events.DefaultAccountID(bid, other), dept, signed}, nil
		}
		half = 0
		i++
		return []any{bid, id, d, bank, dept, -signed}, nil
	})
	start := time.Now()
	n, err := b.db.CopyFrom(ctx, pgx.Identifier{"bench", "catchup_lines"}, []string{"business_id", "entry_id", "day", "account_id", "dept", "amount"}, src)
	if err != nil {
		return 0, fmt.Errorf("COPY catch-up lines: %w", err)
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// exportSelect is the export's query as the service runs it (a business,
// every status, a date range).
const exportSelect = `SELECT to_char(day, 'YYYY-MM-DD'), description, counterparty, account_name, direction, amount, category_display_name,
	categorization_status, tags, memo, reference_number
FROM reports.bank_transactions WHERE business_id = '%s' AND day BETWEEN '2024-01-01' AND '2025-12-31'
ORDER BY day, date_time, transaction_id`

// benchExport loads rows bank transactions into the reports read model by
// COPY, then exports them as CSV through the gateway (timed until the
// object is stored, then downloaded through its pre-signed URL and its
// lines counted) against PostgreSQL's COPY (the same SELECT) TO STDOUT
// CSV, alternating, best of each; meanwhile the reports process's resident
// memory is sampled every 50 ms.
func (b *txbench) benchExport(ctx context.Context, bid uuid.UUID, rows int) (string, []result, error) {
	fmt.Printf("3. transactions CSV export: %d bank transactions loaded by COPY...\n", rows)
	if err := b.loadBankTransactions(ctx, bid, rows); err != nil {
		return "", nil, err
	}
	if err := b.settle(ctx); err != nil {
		return "", nil, err
	}
	pid := 0
	if p := b.st.Proc("reports"); p != nil {
		pid = p.Pid()
	}
	hwmBefore, _ := procMemKB(pid, "VmHWM")
	path := "/v1/businesses/" + bid.String() + "/reports/transactions/exports/csv?start_date=2024-01-01&end_date=2025-12-31"
	var bestExport, bestCopy time.Duration
	var peakRSS int64
	for round := 0; round < exportRounds; round++ {
		t0 := time.Now()
		var cw lineCounter
		if _, err := b.db.PgConn().CopyTo(ctx, &cw, "COPY ("+fmt.Sprintf(exportSelect, bid)+") TO STDOUT CSV"); err != nil {
			return "", nil, fmt.Errorf("COPY TO: %w", err)
		}
		copyEl := time.Since(t0)
		if cw.lines != int64(rows) {
			return "", nil, fmt.Errorf("COPY TO wrote %d lines, want %d", cw.lines, rows)
		}
		if bestCopy == 0 || copyEl < bestCopy {
			bestCopy = copyEl
		}

		stop := make(chan struct{})
		peak := make(chan int64, 1)
		go func() { peak <- sampleRSS(pid, stop) }()
		var out struct {
			Data struct {
				PresignedURL string `json:"presignedUrl"`
			} `json:"data"`
		}
		t0 = time.Now()
		_, err := b.do(ctx, http.MethodGet, path, nil, &out)
		el := time.Since(t0)
		close(stop)
		peakRSS = max(peakRSS, <-peak)
		if err != nil {
			return "", nil, err
		}
		lines, err := downloadLines(ctx, out.Data.PresignedURL)
		if err != nil {
			return "", nil, err
		}
		if lines != int64(rows)+1 {
			return "", nil, fmt.Errorf("the exported CSV has %d lines, want %d (a header and %d rows)", lines, rows+1, rows)
		}
		fmt.Printf("  round %d: COPY TO STDOUT CSV %s (%.0f rows/s); export through the gateway %s (%.0f rows/s), %d lines downloaded\n",
			round+1, copyEl.Round(time.Millisecond), float64(rows)/copyEl.Seconds(), el.Round(time.Millisecond), float64(rows)/el.Seconds(), lines)
		if bestExport == 0 || el < bestExport {
			bestExport = el
		}
	}
	hwmAfter, _ := procMemKB(pid, "VmHWM")
	exportRate, copyRate := float64(rows)/bestExport.Seconds(), float64(rows)/bestCopy.Seconds()
	ratio := exportRate / copyRate
	peakMB := float64(peakRSS) / 1024
	fmt.Printf("  reports process (pid %d): VmHWM %d kB before the exports, %d kB after; peak VmRSS sampled every 50 ms during them: %.1f MB\n",
		pid, hwmBefore, hwmAfter, peakMB)
	res := []result{
		{Part: "reports", Section: "export", Name: fmt.Sprintf("transactions CSV export of %s rows through the gateway", formatNumber(float64(rows))),
			Unit: "rows/s", Value: exportRate, Note: fmt.Sprintf("best of %d", exportRounds),
			Baseline: "COPY (the export's SELECT) TO STDOUT CSV", BaselineValue: copyRate, Target: []bound{ratioAtLeast(0.5)}},
		{Part: "reports", Section: "export", Name: "reports process's peak RSS during the exports", Unit: "MB", Value: peakMB,
			Note:   fmt.Sprintf("VmHWM %.1f MB before, %.1f MB after", float64(hwmBefore)/1024, float64(hwmAfter)/1024),
			Target: []bound{absolute(below, 150)}},
	}
	if hwm := float64(hwmAfter) / 1024; hwm >= 150 {
		res[1].Failure = fmt.Sprintf("VmHWM after the exports %.1f MB", hwm)
	}
	return fmt.Sprintf("  transactions CSV export (%d rows): %.0f rows/s; COPY TO STDOUT CSV %.0f rows/s; ratio %.2f (target >= 0.5) %s; "+
		"peak RSS %.1f MB (VmHWM %.1f MB before, %.1f MB after; target < 150 MB) %s\n",
		rows, exportRate, copyRate, ratio, verdict(ratio >= 0.5), peakMB, float64(hwmBefore)/1024, float64(hwmAfter)/1024,
		verdict(peakMB < 150 && float64(hwmAfter)/1024 < 150)), res, nil
}

// loadBankTransactions COPYs rows bank transactions of business bid, dated
// over 2024 and 2025, into the reports read model: commas, quotes and
// formula-like descriptions included, some without memo or category.
func (b *txbench) loadBankTransactions(ctx context.Context, bid uuid.UUID, rows int) error {
	start := time.Now()
	jan1 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	account := events.DefaultAccountID(bid, "BANK_ACCOUNTS")
	statuses := []string{"CATEGORIZED", "CATEGORIZED", "SPLIT", "PENDING", "MATCHED"}
	categories := []string{"RENT", "SOFTWARE", "MATERIALS", "SALES"}
	now := time.Now().UTC()
	i := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if i == rows {
			return nil, nil
		}
		k := i
		i++
		at := jan1.Add(time.Duration(k%730) * 24 * time.Hour).Add(time.Duration(k%86400) * time.Second)
		desc := fmt.Sprintf("Payment %d to ACME, Inc.", k)
		switch k % 50 {
		case 7:
			desc = fmt.Sprintf(`=HYPERLINK("x") %d`, k)
		case 13:
			desc = fmt.Sprintf(`The "quoted" supplier %d`, k)
		}
		status := statuses[k%len(statuses)]
		cat := categories[k%len(categories)]
		var memo, display any
		if k%3 == 0 {
			memo = fmt.Sprintf("memo %d", k)
		}
		names := []string{cat}
		if status == "PENDING" {
			names = []string{}
		} else {
			display = strings.ToLower(cat)
		}
		dir := "DEBIT"
		if cat == "SALES" {
			dir = "CREDIT"
		}
		return []any{bid, uuid.Must(uuid.NewV7()), 1, at, at, desc, "ACME Inc", "Operating account", account, dir,
			int64(100 + (k*7919)%900_000), names, display, status, status != "PENDING", "dept:" + []string{"a", "b", "c"}[k%3],
			memo, fmt.Sprintf("REF-%07d", k), now}, nil
	})
	n, err := b.db.CopyFrom(ctx, pgx.Identifier{"reports", "bank_transactions"}, []string{"business_id", "transaction_id", "version", "day",
		"date_time", "description", "counterparty", "account_name", "ledger_account_id", "direction", "amount", "category_stable_names",
		"category_display_name", "categorization_status", "categorized", "tags", "memo", "reference_number", "event_time"}, src)
	if err != nil {
		return fmt.Errorf("COPY bank transactions: %w", err)
	}
	if _, err := b.db.Exec(ctx, "ANALYZE reports.bank_transactions"); err != nil {
		return err
	}
	fmt.Printf("  %d rows loaded by COPY in %s (not timed below)\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}

// lineCounter counts the lines written to it.
type lineCounter struct{ lines int64 }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}

// downloadLines fetches a pre-signed URL (no token: the signature is the
// authorisation) and counts its lines.
func downloadLines(ctx context.Context, url string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("download the export: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("download the export: status %d", resp.StatusCode)
	}
	var c lineCounter
	if _, err := io.Copy(&c, resp.Body); err != nil {
		return 0, fmt.Errorf("download the export: %w", err)
	}
	return c.lines, nil
}

// procMemKB reads a memory field (VmRSS, VmHWM) of /proc/<pid>/status, in kB.
func procMemKB(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("%s not in /proc/%d/status", field, pid)
}

// sampleRSS reads pid's VmRSS every 50 ms until stop closes and returns
// the largest, in kB.
func sampleRSS(pid int, stop <-chan struct{}) int64 {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	var peak int64
	for {
		if kb, err := procMemKB(pid, "VmRSS"); err == nil {
			peak = max(peak, kb)
		}
		select {
		case <-stop:
			return peak
		case <-t.C:
		}
	}
}

// reportEvent is entry i of the bench's journal as ledger.entry.posted,
// dated from jan1.
// entryIDOf is the id of the entry ledger event e posts.
func entryIDOf(e events.Event) (uuid.UUID, error) {
	var p events.LedgerEntryPosted
	if err := e.Decode(&p); err != nil {
		return uuid.Nil, err
	}
	return p.EntryID, nil
}

func reportEvent(bid uuid.UUID, i int, jan1 time.Time) (events.Event, error) {
	other, dept, amount, day := reportEntry(i)
	at := jan1.AddDate(0, 0, day)
	id := uuid.Must(uuid.NewV7())
	line := func(name, dir string) events.LedgerLine {
		a := reportChart[name]
		l := events.LedgerLine{LineID: uuid.Must(uuid.NewV7()), AccountID: events.DefaultAccountID(bid, name), AccountName: name,
			StableName: &a.name, AccountType: a.typ, AccountSubtype: name, Normality: a.normality, Direction: dir, Amount: amount,
			SignedAmount: amount, Tags: []events.LedgerTag{{Key: "dept", Value: dept}}}
		if dir == "CREDIT" {
			l.SignedAmount = -amount
		}
		for _, anc := range a.ancestors {
			s := anc
			l.Ancestors = append(l.Ancestors, events.LedgerAccountRef{AccountID: events.DefaultAccountID(bid, anc), StableName: &s, Name: anc})
		}
		return l
	}
	debit, credit := other, "BANK_ACCOUNTS"
	if other == "SALES" {
		debit, credit = "BANK_ACCOUNTS", "SALES"
	}
	p := events.LedgerEntryPosted{EntryID: id, BusinessID: bid, LedgerID: events.LedgerID(bid), EntryNumber: int64(i + 1),
		EntryType: "MANUAL", Agent: "API", Date: at.Format(time.DateOnly), EntryAt: at, SourceType: "BENCH", SourceID: id.String(),
		SourceVersion: "1", Tags: []events.LedgerTag{}, Lines: []events.LedgerLine{line(debit, "DEBIT"), line(credit, "CREDIT")},
		CreatedAt: time.Now().UTC()}
	return events.New(events.TopicLedger, events.TypeLedgerEntryPosted, "acct/transactions", bid, p)
}
