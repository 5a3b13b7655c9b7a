package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/tools/internal/stack"
)

// The reports benchmarks of issue 9.
const (
	reportCatchUpEntries = 20_000    // published to the broker: the consumer's catch-up rate
	reportLines          = 1_000_000 // journal lines the comparison runs over (500,000 entries)
	reportSamples        = 60
	reportRawSamples     = 8
)

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
// ledger events published to the broker, then the P&L comparison of 12
// months × 3 tag filters over a business with 1,000,000 journal lines
// (its read model loaded by COPY), through the gateway, against a raw SQL
// GROUP BY over the same lines in the same run.
func runReports(ctx context.Context, st *stack.Stack, token string) (string, error) {
	db, err := pgx.Connect(ctx, st.DatabaseURL)
	if err != nil {
		return "", fmt.Errorf("connect to the suite's database: %w", err)
	}
	defer db.Close(context.Background())
	b := &txbench{st: st, token: token, db: db, client: &http.Client{Timeout: 60 * time.Second}}
	fmt.Printf("\n== reports (load average at start: %s) ==\n", loadAverage())
	biz, err := b.newBusiness(ctx, "bench-reports")
	if err != nil {
		return "", err
	}
	bid := uuid.MustParse(biz)
	base := "/v1/businesses/" + biz
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if _, err := b.do(ctx, http.MethodGet, base+"/reports/profit-and-loss?start_date=2025-01-01&end_date=2025-01-31", nil, nil); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("business %s never reached the reports service", biz)
		}
	}

	// 1. Catch-up: entries of 2025 published as the ledger publishes them.
	fmt.Printf("1. catch-up: %d ledger entries (%d lines) published to acct.ledger.v1\n", reportCatchUpEntries, 2*reportCatchUpEntries)
	w := &kafka.Writer{Addr: kafka.TCP(st.BrokerAddr), Balancer: &kafka.Hash{}, BatchSize: 500, BatchTimeout: 10 * time.Millisecond}
	msgs := make([]kafka.Message, 0, 1000)
	start := time.Now()
	for i := 0; i < reportCatchUpEntries; i++ {
		e, err := reportEvent(bid, i, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			return "", err
		}
		msgs = append(msgs, events.ToMessage(e))
		if len(msgs) == cap(msgs) || i == reportCatchUpEntries-1 {
			if err := w.WriteMessages(ctx, msgs...); err != nil {
				return "", fmt.Errorf("publish: %w", err)
			}
			msgs = msgs[:0]
		}
	}
	_ = w.Close()
	published := time.Since(start)
	for deadline := time.Now().Add(15 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		var n int
		if err := db.QueryRow(ctx, "SELECT count(*) FROM reports.entries WHERE business_id = $1", bid).Scan(&n); err != nil {
			return "", err
		}
		if n >= reportCatchUpEntries {
			break
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("reports applied %d of %d entries in 15 minutes", n, reportCatchUpEntries)
		}
	}
	applied := time.Since(start)
	rate := float64(reportCatchUpEntries) / applied.Seconds()
	fmt.Printf("  published in %s; all applied %s after the first publish: %.0f entries/s (%.0f lines/s)\n",
		published.Round(time.Millisecond), applied.Round(time.Millisecond), rate, 2*rate)

	// 2. The comparison over 1,000,000 lines of 2024: the read model's
	// day × account × tag-set sums and the raw lines, both by COPY (the
	// catch-up made the accounts and the three tag sets).
	tagSets := map[string]uuid.UUID{}
	rows, err := db.Query(ctx, "SELECT id, kv[1] FROM reports.tag_sets WHERE business_id = $1 AND cardinality(kv) = 1", bid)
	if err != nil {
		return "", err
	}
	for rows.Next() {
		var id uuid.UUID
		var kv string
		if err := rows.Scan(&id, &kv); err != nil {
			rows.Close()
			return "", err
		}
		tagSets[kv] = id
	}
	rows.Close()
	if len(tagSets) != 3 {
		return "", fmt.Errorf("reports has %d one-tag sets, want 3", len(tagSets))
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
		return "", fmt.Errorf("COPY account_days: %w", err)
	}
	if _, err := db.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS bench; DROP TABLE IF EXISTS bench.journal_lines; "+
		"CREATE TABLE bench.journal_lines (business_id uuid, day date, account_id uuid, dept text, amount bigint)"); err != nil {
		return "", err
	}
	if _, err := db.CopyFrom(ctx, pgx.Identifier{"bench", "journal_lines"}, []string{"business_id", "day", "account_id", "dept", "amount"},
		pgx.CopyFromRows(raw)); err != nil {
		return "", fmt.Errorf("COPY journal lines: %w", err)
	}
	if _, err := db.Exec(ctx, "ANALYZE reports.account_days; ANALYZE bench.journal_lines"); err != nil {
		return "", err
	}
	fmt.Printf("2. comparison: 12 months × 3 tag filters over %d journal lines (%d read-model rows), loaded by COPY in %s\n",
		len(raw), len(cells), time.Since(start).Round(time.Millisecond))
	if err := b.settle(ctx); err != nil {
		return "", err
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
		Data []struct {
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
			return "", err
		}
		api = append(api, time.Since(t0))
	}
	if len(out.Data) != 1 || len(out.Data[0].Pnls) != 36 {
		return "", fmt.Errorf("comparison: %d results, want 36", len(out.Data))
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
			return "", err
		}
		janA = 0
		for r.Next() {
			var m time.Time
			var acct uuid.UUID
			var dept string
			var sum int64
			if err := r.Scan(&m, &acct, &dept, &sum); err != nil {
				r.Close()
				return "", err
			}
			if m.Month() == time.January && dept == "a" && pnl[acct] {
				janA -= sum // net profit: credits to revenue less debits to expenses
			}
		}
		r.Close()
		rawTimes = append(rawTimes, time.Since(t0))
	}
	// The first result is January × dept=a: the same figure both ways.
	if got := int64(out.Data[0].Pnls[0].Pnl.NetProfit); got != janA {
		return "", fmt.Errorf("comparison January dept=a net profit %d, the raw GROUP BY says %d", got, janA)
	}
	a, z := percentiles(api), percentiles(rawTimes)
	fmt.Printf("  gateway: p50 %s p99 %s (%d requests); raw GROUP BY: p50 %s (%d runs); January dept=a net profit %d both ways\n",
		a.p50, a.p99, len(api), z.p50, len(rawTimes), janA)
	ok := a.p50 <= 40*time.Millisecond && float64(a.p50) <= 0.1*float64(z.p50)
	return fmt.Sprintf("  reports catch-up: %.0f entries/s (%.0f lines/s)\n  P&L comparison (1M lines, 12×3): gateway p50 %s p99 %s; raw GROUP BY p50 %s; ratio %.3f (target p50 <= 40ms and <= 0.1×) %s\n",
		rate, 2*rate, a.p50, a.p99, z.p50, float64(a.p50)/float64(z.p50), verdict(ok)), nil
}

// reportEvent is entry i of the bench's journal as ledger.entry.posted,
// dated from jan1.
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
