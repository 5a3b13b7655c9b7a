package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/acctsuite/acct/pkg/pgcluster"
	"github.com/acctsuite/acct/tools/internal/stack"
)

// The customers-invoices benchmarks, each against a baseline of
// the same run.
const (
	invoiceRows      = 500_000
	invoiceCustomers = 50
	invoiceSamples   = 300
	paymentConns     = 32
	paymentDur       = 10 * time.Second
)

// runInvoicing loads a business with 500,000 invoices (COPY into the
// service's tables) and measures (1) a listing with three filters at once
// through the gateway against the same query run directly in SQL, and
// (2) payment creation at concurrency 32 against pgbench running the
// statements one payment issues.
func runInvoicing(ctx context.Context, st *stack.Stack, token string) (string, []result, error) {
	db, err := pgx.Connect(ctx, st.DatabaseURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect to the suite's database: %w", err)
	}
	defer db.Close(context.Background())
	b := &txbench{st: st, token: token, db: db,
		client: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	fmt.Printf("\n== customers-invoices (load average at start: %s) ==\n", loadAverage())
	biz, customers, err := b.loadInvoices(ctx)
	if err != nil {
		return "", nil, err
	}
	if err := b.settle(ctx); err != nil {
		return "", nil, err
	}
	list, res, err := b.benchInvoiceList(ctx, biz, customers)
	if err != nil {
		return "", nil, fmt.Errorf("invoice listing: %w", err)
	}
	pay, payRes, err := b.benchPayments(ctx, biz)
	if err != nil {
		return "", res, fmt.Errorf("payments: %w", err)
	}
	return list + pay, append(res, payRes...), nil
}

// loadInvoices creates a business and its customers through the gateway,
// then COPYs invoiceRows invoices (one line each) spread over the
// customers, three statuses, a year of dates and amounts from $1 to
// $5,000.
func (b *txbench) loadInvoices(ctx context.Context) (string, []uuid.UUID, error) {
	biz, err := b.newBusiness(ctx, "bench-invoices")
	if err != nil {
		return "", nil, err
	}
	base := "/v1/businesses/" + biz
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if _, err := b.do(ctx, http.MethodGet, base+"/invoices", nil, nil); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return "", nil, fmt.Errorf("business %s never reached customers-invoices", biz)
		}
	}
	customers := make([]uuid.UUID, invoiceCustomers)
	for i := range customers {
		var out struct {
			Data struct {
				ID uuid.UUID `json:"id"`
			} `json:"data"`
		}
		body, _ := json.Marshal(map[string]any{"external_id": fmt.Sprintf("bench-c-%d", i), "company_name": fmt.Sprintf("Customer %d", i)})
		if _, err := b.do(ctx, http.MethodPost, base+"/customers", body, &out); err != nil {
			return "", nil, err
		}
		customers[i] = out.Data.ID
	}
	bizID := uuid.MustParse(biz)
	start := time.Now()
	now := time.Now().UTC()
	statuses := []string{"SENT", "PARTIALLY_PAID", "PAID"}
	ids := make([]uuid.UUID, invoiceRows)
	i := 0
	n, err := b.db.CopyFrom(ctx, pgx.Identifier{"invoicing", "invoices"}, []string{
		"business_id", "id", "external_id", "invoice_number", "customer_id", "sent_at", "due_at", "due_sort", "paid_at",
		"reference_number", "memo", "subtotal", "total_discount", "total_tax", "additional_taxes_total", "total_amount",
		"paid_amount", "outstanding_balance", "status", "version", "imported_at", "updated_at",
	}, pgx.CopyFromFunc(func() ([]any, error) {
		if i >= invoiceRows {
			return nil, nil
		}
		id := uuid.Must(uuid.NewV7())
		ids[i] = id
		sent := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, i%365).Add(time.Duration(i%86400) * time.Second)
		due := sent.AddDate(0, 0, 30)
		total := int64(100 + (i*7919)%500_000)
		status := statuses[i%3]
		paid, paidAt := int64(0), (*time.Time)(nil)
		switch status {
		case "PARTIALLY_PAID":
			paid = total / 2
		case "PAID":
			paid, paidAt = total, &due
		}
		row := []any{bizID, id, fmt.Sprintf("bench-inv-%d", i), strconv.Itoa(100000 + i), customers[i%invoiceCustomers],
			sent, due, due, paidAt, fmt.Sprintf("REF-%d", i%1000), "Bench invoice", total, int64(0), int64(0), int64(0), total,
			paid, total - paid, status, 1, now, now}
		i++
		return row, nil
	}))
	if err != nil {
		return "", nil, fmt.Errorf("COPY invoices: %w", err)
	}
	i = 0
	if _, err := b.db.CopyFrom(ctx, pgx.Identifier{"invoicing", "invoice_lines"}, []string{
		"business_id", "invoice_id", "id", "line_number", "product", "unit_price", "quantity", "account_stable_name",
		"discount_amount", "subtotal", "sales_taxes_total", "total_amount", "revenue",
	}, pgx.CopyFromFunc(func() ([]any, error) {
		if i >= invoiceRows {
			return nil, nil
		}
		total := int64(100 + (i*7919)%500_000)
		row := []any{bizID, ids[i], uuid.Must(uuid.NewV7()), 1, "Service", total, int64(1_000_000), "SALES", int64(0), total, int64(0), total, total}
		i++
		return row, nil
	})); err != nil {
		return "", nil, fmt.Errorf("COPY invoice lines: %w", err)
	}
	if _, err := b.db.Exec(ctx, "ANALYZE invoicing.invoices; ANALYZE invoicing.invoice_lines"); err != nil {
		return "", nil, err
	}
	fmt.Printf("  loaded %d invoices (and their lines) by COPY in %s\n", n, time.Since(start).Round(time.Millisecond))
	return biz, customers, nil
}

// benchInvoiceList times a listing with three filters (statuses, a
// customer, a minimum total) through the gateway, against the same query
// run directly (the rows of one page, and its lines and allocations, as
// the service reads them).
func (b *txbench) benchInvoiceList(ctx context.Context, biz string, customers []uuid.UUID) (string, []result, error) {
	fmt.Printf("1. invoice listing: %d invoices, filters status=SENT,PARTIALLY_PAID & customer_id & min_total_amount\n", invoiceRows)
	cust := customers[7]
	path := "/v1/businesses/" + biz + "/invoices?" + url.Values{
		"status": {"SENT,PARTIALLY_PAID"}, "customer_id": {cust.String()}, "min_total_amount": {"100000"},
		"sort_by": {"sent_at"}, "sort_order": {"DESC"},
	}.Encode()
	// The statements the service runs for the page: the invoices with
	// their lines, allocations and write-offs, then their customers.
	const rawQuery = `SELECT i.*,
		(SELECT coalesce(json_agg(il ORDER BY il.line_number), '[]') FROM invoicing.invoice_lines il
			WHERE il.business_id = i.business_id AND il.invoice_id = i.id) AS lines_json,
		(SELECT coalesce(json_agg(json_build_object('payment_id', a.payment_id, 'invoice_id', a.invoice_id,
				'amount', a.amount, 'paid_at', p.paid_at, 'method', p.method) ORDER BY p.paid_at, p.id), '[]')
			FROM invoicing.payment_allocations a JOIN invoicing.invoice_payments p ON p.business_id = a.business_id AND p.id = a.payment_id
			WHERE a.business_id = i.business_id AND a.invoice_id = i.id) AS allocs_json,
		(SELECT coalesce(json_agg(w ORDER BY w.created_at, w.id), '[]') FROM invoicing.invoice_write_offs w
			WHERE w.business_id = i.business_id AND w.invoice_id = i.id) AS write_offs_json
		FROM invoicing.invoices i
		WHERE i.business_id = $1 AND i.status = ANY($2::text[]) AND i.customer_id = $3 AND i.total_amount >= $4
		ORDER BY i.sent_at DESC, i.id DESC LIMIT 101`
	const rawCustomers = `SELECT * FROM invoicing.customers WHERE business_id = $1 AND id = ANY($2::uuid[])`
	var api, raw []time.Duration
	var rows int
	for k := 0; k < invoiceSamples; k++ {
		t0 := time.Now()
		var out struct {
			Data []json.RawMessage `json:"data"`
		}
		if _, err := b.do(ctx, http.MethodGet, path, nil, &out); err != nil {
			return "", nil, err
		}
		api = append(api, time.Since(t0))
		rows = len(out.Data)

		t0 = time.Now()
		r, err := b.db.Query(ctx, rawQuery, biz, []string{"SENT", "PARTIALLY_PAID"}, cust, 100000)
		if err != nil {
			return "", nil, err
		}
		customerIDs := map[string]bool{}
		for r.Next() {
			vals, err := r.Values()
			if err != nil {
				r.Close()
				return "", nil, err
			}
			if c, ok := vals[4].([16]byte); ok { // customer_id
				customerIDs[uuid.UUID(c).String()] = true
			}
		}
		r.Close()
		var ids []string
		for id := range customerIDs {
			ids = append(ids, id)
		}
		rr, err := b.db.Query(ctx, rawCustomers, biz, ids)
		if err != nil {
			return "", nil, err
		}
		for rr.Next() {
			if _, err := rr.Values(); err != nil {
				rr.Close()
				return "", nil, err
			}
		}
		rr.Close()
		raw = append(raw, time.Since(t0))
	}
	a, z := percentiles(api), percentiles(raw)
	fmt.Printf("  gateway: p50 %s p99 %s (%d rows per page); SQL: p50 %s p99 %s\n", a.p50, a.p99, rows, z.p50, z.p99)
	if err := b.straight(ctx, "customers-invoices", path, invoiceSamples/3, "straight to the service"); err != nil {
		return "", nil, err
	}
	limit50 := 2*z.p50 + 2*time.Millisecond
	limit99 := 2*z.p99 + 2*time.Millisecond
	ok := a.p50 <= limit50 && a.p99 <= limit99
	name := fmt.Sprintf("invoice listing with 3 filters (%s invoices, a page of 100)", formatNumber(invoiceRows))
	res := []result{
		{Part: "invoicing", Section: "listing", Name: name + ", p50", Unit: "ms", Value: durationMS(a.p50),
			Baseline: "the service's statements in SQL, p50", BaselineValue: durationMS(z.p50), Target: []bound{margin(2, 2)}},
		{Part: "invoicing", Section: "listing", Name: name + ", p99", Unit: "ms", Value: durationMS(a.p99),
			Baseline: "the service's statements in SQL, p99", BaselineValue: durationMS(z.p99), Target: []bound{margin(2, 2)}},
	}
	return fmt.Sprintf("  invoice listing (500k, 3 filters): gateway p50 %s p99 %s; SQL p50 %s p99 %s; target 2×SQL+2ms (%s / %s) %s\n",
		a.p50, a.p99, z.p50, z.p99, limit50, limit99, verdict(ok)), res, nil
}

// benchPayments creates payments of open invoices through the gateway at
// concurrency 32, then runs pgbench with the statements one payment
// issues against the same tables.
func (b *txbench) benchPayments(ctx context.Context, biz string) (string, []result, error) {
	fmt.Printf("2. payments: %d concurrent clients for %s through the gateway, then pgbench -c %d\n", paymentConns, paymentDur, paymentConns)
	rows, err := b.db.Query(ctx, `SELECT id FROM invoicing.invoices WHERE business_id = $1 AND status = 'SENT' ORDER BY id LIMIT 60000`, biz)
	if err != nil {
		return "", nil, err
	}
	var open []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return "", nil, err
		}
		open = append(open, id)
	}
	rows.Close()
	var next, ok, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	deadline := time.Now().Add(paymentDur)
	start := time.Now()
	for w := 0; w < paymentConns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(open) {
					return
				}
				body, _ := json.Marshal(map[string]any{"paid_at": "2026-03-05T12:00:00Z", "method": "ACH", "amount": 100,
					"invoice_payments": []map[string]any{{"invoice_id": open[i], "amount": 100}}})
				if _, err := b.do(ctx, http.MethodPost, "/v1/businesses/"+biz+"/invoices/payments", body, nil); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() == 0 {
		return "", nil, fmt.Errorf("no payment succeeded; first error: %v", firstErr.Load())
	}
	apiTPS := float64(ok.Load()) / time.Since(start).Seconds()
	fmt.Printf("  gateway: %d payments = %.0f tps (%d failed)\n", ok.Load(), apiTPS, failed.Load())
	if err := b.drainSchema(ctx, "invoicing"); err != nil {
		return "", nil, err
	}
	pgTPS, err := b.pgbenchPayments(ctx, biz, open[ok.Load()+failed.Load():])
	if err != nil {
		return "", nil, err
	}
	fmt.Printf("  pgbench: %.0f tps\n", pgTPS)
	ratio := apiTPS / pgTPS
	res := []result{{Part: "invoicing", Section: "payments", Name: fmt.Sprintf("payment creation through the gateway, %d clients", paymentConns),
		Unit: "tps", Value: apiTPS, Baseline: fmt.Sprintf("pgbench -c %d, the same statements", paymentConns), BaselineValue: pgTPS,
		Target: []bound{ratioAtLeast(0.5)}}}
	if n := failed.Load(); n > 0 {
		res[0].Failure = fmt.Sprintf("%d payments failed", n)
	}
	return fmt.Sprintf("  payments @%d: gateway %.0f tps, pgbench %.0f tps, ratio %.2f (target >= 0.50) %s\n",
		paymentConns, apiTPS, pgTPS, ratio, verdict(ratio >= 0.5 && failed.Load() == 0)), res, nil
}

// drainSchema waits until the schema's outbox relay has published
// everything.
func (b *txbench) drainSchema(ctx context.Context, schema string) error {
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		var n int
		if err := b.db.QueryRow(ctx, "SELECT count(*) FROM "+schema+".outbox WHERE sent_at IS NULL").Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s outbox: %d events unpublished after 5 minutes", schema, n)
		}
	}
}

// paymentScript is, for pgbench, the statements one payment of one invoice
// issues (see the service's FindInvoice, InsertPayment, UpdateInvoice and
// the outbox write): lock the invoice, read its lines, allocations and
// write-offs, insert the payment and its allocation, update the invoice's
// balance, take the event-ordering lock and write the two events (copies
// of the last ones the gateway run wrote): ten statements, BEGIN and
// COMMIT included, as the service's. %[1]s is the business, %[2]d the
// number of invoices in the table bench.pay_targets (the invoice to pay
// is looked up inside the locking statement), %[3]s the events.
const paymentScript = `\set n random(1, %[2]d)
BEGIN;
SELECT quote_literal(i.id) AS inv, i.status FROM invoicing.invoices AS i WHERE i.business_id = '%[1]s' AND i.id = (SELECT id FROM bench.pay_targets WHERE n = :n) FOR UPDATE OF i \gset
SELECT il.* FROM invoicing.invoice_lines AS il WHERE il.business_id = '%[1]s' AND il.invoice_id IN (:inv) ORDER BY il.invoice_id, il.line_number;
SELECT a.payment_id, a.invoice_id, a.amount, p.paid_at, p.method FROM invoicing.payment_allocations a JOIN invoicing.invoice_payments p ON p.business_id = a.business_id AND p.id = a.payment_id WHERE a.business_id = '%[1]s' AND a.invoice_id IN (:inv) ORDER BY p.paid_at, p.id;
SELECT w.* FROM invoicing.invoice_write_offs AS w WHERE w.business_id = '%[1]s' AND w.invoice_id IN (:inv) ORDER BY w.created_at, w.id;
INSERT INTO invoicing.invoice_payments (business_id, id, external_id, paid_at, method, amount, fee, processor, memo, reference_number, tags, version, created_at, updated_at) VALUES ('%[1]s', gen_random_uuid(), DEFAULT, '2026-03-05 12:00:00+00', 'ACH', 100, 0, DEFAULT, DEFAULT, DEFAULT, '[]', 1, now(), now()) ON CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING RETURNING quote_literal(id) AS pid \gset
INSERT INTO invoicing.payment_allocations (business_id, payment_id, invoice_id, amount) VALUES ('%[1]s', :pid, :inv, 100);
UPDATE invoicing.invoices AS i SET paid_amount = i.paid_amount + 100, outstanding_balance = i.outstanding_balance - 100, status = 'PARTIALLY_PAID', version = i.version + 1, updated_at = now() WHERE i.business_id = '%[1]s' AND i.id = :inv;
WITH lk AS MATERIALIZED (SELECT pg_notify('acct_outbox_invoicing', ''), (SELECT count(pg_advisory_xact_lock(hashtextextended('acct_outbox_key:invoicing:' || k, 0))) FROM (SELECT DISTINCT k FROM unnest('{"%[1]s"}'::text[]) AS k ORDER BY k) AS keys)) INSERT INTO invoicing.outbox (id, topic, key, type, source, subject, time, headers, data) SELECT v.id::uuid, v.topic, v.key, v.type, v.source, v.subject, v.time::timestamptz, v.headers::json, v.data::json FROM lk CROSS JOIN (VALUES %[3]s) AS v (id, topic, key, type, source, subject, time, headers, data);
COMMIT;
`

// pgbenchPayments runs paymentScript over targets (invoices the gateway
// run did not pay).
func (b *txbench) pgbenchPayments(ctx context.Context, biz string, targets []uuid.UUID) (float64, error) {
	if _, err := b.db.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS bench; DROP TABLE IF EXISTS bench.pay_targets; CREATE TABLE bench.pay_targets (n int PRIMARY KEY, id uuid NOT NULL)"); err != nil {
		return 0, err
	}
	n := 0
	if _, err := b.db.CopyFrom(ctx, pgx.Identifier{"bench", "pay_targets"}, []string{"n", "id"}, pgx.CopyFromFunc(func() ([]any, error) {
		if n >= len(targets) {
			return nil, nil
		}
		n++
		return []any{n, targets[n-1]}, nil
	})); err != nil {
		return 0, err
	}
	values, err := b.lastEvents(ctx, "invoicing", biz, 2)
	if err != nil {
		return 0, err
	}
	binDir, err := pgcluster.BinDir()
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "acct-pgbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "payment.sql")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(paymentScript, biz, len(targets), strings.Join(values, ", "))), 0o644); err != nil {
		return 0, err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "pgbench"), "-c", strconv.Itoa(paymentConns), "-j", "2",
		"-T", strconv.Itoa(int(paymentDur.Seconds())), "-n", "-f", script, b.st.DatabaseURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench: %w\n%s", err, out)
	}
	r, err := parsePgbench(out)
	if err != nil {
		return 0, fmt.Errorf("%w:\n%s", err, out)
	}
	if r.failed > 0 {
		return 0, fmt.Errorf("pgbench: %d failed transactions:\n%s", r.failed, out)
	}
	return r.tps, nil
}
