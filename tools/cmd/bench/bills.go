package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acctsuite/acct/pkg/pgcluster"
	"github.com/acctsuite/acct/tools/internal/stack"
)

// The bills benchmarks: receipts parsed per second (receipts.go)
// and bill creation at concurrency 32 through the gateway against pgbench
// running the statements one creation issues, in the same run.
const (
	billConns    = 32
	billsSchema  = "bills"
	billVendorEx = "bench-bills-vendor"
)

// billsOptions are the bills part's settings.
type billsOptions struct {
	parts       string        // all, receipts or create
	receiptsDur time.Duration // each receipts run
	createDur   time.Duration // the gateway run and pgbench -T
}

// runBills runs the receipts and the bill creation benchmarks and returns
// their summary.
func runBills(ctx context.Context, st *stack.Stack, token, root string, o billsOptions) (string, []result, error) {
	if o.parts != "all" && o.parts != "receipts" && o.parts != "create" {
		return "", nil, fmt.Errorf("-bills-parts must be all, receipts or create, not %q", o.parts)
	}
	fmt.Printf("\n== bills (load average at start: %s) ==\n", loadAverage())
	var sum strings.Builder
	var res []result
	if o.parts != "create" {
		s, r, err := benchReceipts(ctx, root, o.receiptsDur)
		res = append(res, r...)
		if err != nil {
			return "", res, fmt.Errorf("receipts: %w", err)
		}
		sum.WriteString(s)
	}
	if o.parts != "receipts" {
		db, err := pgx.Connect(ctx, st.DatabaseURL)
		if err != nil {
			return "", res, fmt.Errorf("connect to the suite's database: %w", err)
		}
		defer db.Close(context.Background())
		b := &txbench{st: st, token: token, db: db,
			client: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * billConns}}}
		s, r, err := b.benchBills(ctx, o.createDur)
		if err != nil {
			return "", res, fmt.Errorf("bill creation: %w", err)
		}
		sum.WriteString(s)
		res = append(res, r...)
	}
	return sum.String(), res, nil
}

// benchBill is bill n of the bench: two lines (one with a sales tax), a
// vendor by id, terms, a distinct external id.
func benchBill(vendor string, n int) []byte {
	body, _ := json.Marshal(map[string]any{
		"external_id": "bench-bill-" + strconv.Itoa(n), "bill_number": "B-" + strconv.Itoa(n), "vendor_id": vendor,
		"received_at": "2026-03-01T10:00:00Z", "bill_terms": "NET_30", "memo": "March supplies", "reference_number": "PO-" + strconv.Itoa(n),
		"line_items": []any{
			map[string]any{"product_name": "Paper", "unit_price": 1250, "quantity": 4, "discount_amount": 500,
				"account_identifier": map[string]any{"type": "StableName", "stable_name": "OFFICE_EXPENSES"},
				"sales_taxes":        []any{map[string]any{"tax_account": map[string]any{"type": "Tax_Name", "name": "vat"}, "amount": 360}}},
			map[string]any{"description": "Delivery", "unit_price": 999, "quantity": 1},
		},
	})
	return body
}

// billRows are the rows of the business a creation adds to.
type billRows struct{ bills, vendors, outbox int64 }

func (c *billRows) read(ctx context.Context, db *pgx.Conn, biz string) error {
	return db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM bills.bills WHERE business_id = $1),
		(SELECT count(*) FROM bills.vendors WHERE business_id = $1),
		(SELECT count(*) FROM bills.outbox WHERE key = $1::text)`, biz).Scan(&c.bills, &c.vendors, &c.outbox)
}

// benchBills creates bills of one business through the gateway with 32
// clients for d, then runs pgbench -c 32 with the statements of one
// creation for d.
func (b *txbench) benchBills(ctx context.Context, d time.Duration) (string, []result, error) {
	fmt.Printf("3. bill creation: %d concurrent clients for %s, POST /v1/businesses/{id}/bills through the gateway (2 lines each, distinct external_id), then pgbench -c %d -j 2 -T %d\n",
		billConns, d, billConns, int(d.Seconds()))
	biz, err := b.newBusiness(ctx, "bench-bills")
	if err != nil {
		return "", nil, err
	}
	base := "/v1/businesses/" + biz
	var vendor struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	vbody := []byte(`{"company_name":"Bench Paper Co","external_id":"` + billVendorEx + `"}`)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if _, err = b.do(ctx, http.MethodPost, base+"/vendors", vbody, &vendor); err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil { // the business reaches bills-tags through acct.business.v1
			return "", nil, fmt.Errorf("vendor: %w", err)
		}
	}
	// Warm-up: connections and caches, and the bill and event pgbench copies.
	for n := 0; n < 2*billConns; n++ {
		if st, err := b.do(ctx, http.MethodPost, base+"/bills", benchBill(vendor.Data.ID, -1-n), nil); err != nil || st != http.StatusCreated {
			return "", nil, fmt.Errorf("warm-up bill: status %d: %v", st, err)
		}
	}
	var before, after billRows
	if err := before.read(ctx, b.db, biz); err != nil {
		return "", nil, err
	}
	var next, ok, failed atomic.Int64
	var firstErr atomic.Value
	lat := make([][]time.Duration, billConns)
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	start := time.Now()
	for w := 0; w < billConns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				n := int(next.Add(1))
				t0 := time.Now()
				st, err := b.do(ctx, http.MethodPost, base+"/bills", benchBill(vendor.Data.ID, n), nil)
				if err == nil && st != http.StatusCreated {
					err = fmt.Errorf("status %d, want 201", st)
				}
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
				ok.Add(1)
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if ok.Load() == 0 {
		return "", nil, fmt.Errorf("no bill created; first error: %v", firstErr.Load())
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	p := percentiles(all)
	apiRate := float64(ok.Load()) / elapsed.Seconds()
	if err := after.read(ctx, b.db, biz); err != nil {
		return "", nil, err
	}
	per := func(a, b int64) float64 { return float64(a-b) / float64(ok.Load()) }
	failNote := ""
	if n := failed.Load(); n > 0 {
		failNote = fmt.Sprintf(" (%d FAILED, first: %v)", n, firstErr.Load())
	}
	fmt.Printf("  gateway: %d bills in %s = %.0f bills/s, p50 %s p99 %s%s; per bill: %.2f bill rows, %.2f vendor rows, %.2f outbox rows\n",
		ok.Load(), elapsed.Round(time.Millisecond), apiRate, p.p50, p.p99, failNote,
		per(after.bills, before.bills), per(after.vendors, before.vendors), per(after.outbox, before.outbox))

	// pgbench on a quiet database: the relay has published the run's
	// events (and the ledger consumed them) first.
	if err := b.drainSchema(ctx, billsSchema); err != nil {
		return "", nil, err
	}
	if err := b.settle(ctx); err != nil {
		return "", nil, err
	}
	pg, err := b.pgbenchBills(ctx, biz, vendor.Data.ID, d)
	if err != nil {
		return "", nil, err
	}
	fmt.Printf("  pgbench: %d transactions = %.0f tps, latency average %s\n", pg.processed, pg.tps, pg.latency)
	ratio := apiRate / pg.tps
	res := []result{{Part: "bills", Section: "create", Name: fmt.Sprintf("bill creation through the gateway, %d clients", billConns),
		Unit: "bills/s", Value: apiRate, Note: "p50 " + msText(p.p50) + ", p99 " + msText(p.p99),
		Baseline: fmt.Sprintf("pgbench -c %d, the same statements (tps)", billConns), BaselineValue: pg.tps,
		TargetNote: "none"}}
	if n := failed.Load(); n > 0 {
		res[0].Failure = fmt.Sprintf("%d bills failed", n)
	}
	return fmt.Sprintf("  bill creation @%d: gateway %.0f bills/s (p50 %s, p99 %s), pgbench %.0f tps, ratio %.2f (no target)%s\n",
		billConns, apiRate, p.p50, p.p99, pg.tps, ratio, failNote), res, nil
}

// billColumns are the columns the service's InsertBill writes (bun's
// insert of its billRow, in that order).
var billColumns = []string{
	"business_id", "id", "external_id", "bill_number", "vendor_id", "status", "received_at", "due_at", "due_sort",
	"paid_at", "voided_at", "memo", "reference_number", "metadata", "tags", "lines", "additional_sales_taxes",
	"subtotal", "discounts", "line_taxes", "additional_taxes", "total_amount", "settled_amount",
	"outstanding_balance", "version", "imported_at", "updated_at",
}

// billOverrides are the values each pgbench transaction makes anew (the
// others are copied from a bill the gateway made).
var billOverrides = map[string]string{
	"id":          "gen_random_uuid()",
	"external_id": "'pgbench-' || :n",
	"bill_number": "'PB-' || :n",
	"imported_at": "now()",
	"updated_at":  "now()",
}

// billScript is, for pgbench, the statements one POST /bills issues in
// its transaction (outbox.RunInTx in app.Bills.Create; the tenancy check
// before it is answered from the kit's cache; the statements were checked
// against the service's with log_statement = all): look the external id up
// (FindBillByExternalID, with its payments subquery), read the vendor
// (FindVendor), insert the bill with its lines (a JSON column) ON CONFLICT
// of the external id, take the business's event-ordering lock and write
// bill.upserted (a copy of the last one the gateway run wrote), commit.
// %[1]s is the business, %[2]s the vendor, %[3]s the bill's columns,
// %[4]s its values, %[5]s the event.
const billScript = `\set n random(1, 1000000000000)
BEGIN;
SELECT b.*, (SELECT coalesce(json_agg(json_build_object('id', a.id, 'payment_id', a.payment_id, 'amount', a.amount, 'tags', a.tags) ORDER BY p.paid_at, p.id), '[]') FROM bills.bill_payment_allocations a JOIN bills.bill_payments p ON p.business_id = a.business_id AND p.id = a.payment_id WHERE a.business_id = b.business_id AND a.bill_id = b.id) AS payments_json FROM bills.bills AS b WHERE (b.business_id = '%[1]s' AND b.external_id = 'pgbench-' || :n);
SELECT c.business_id, c.id, c.external_id, c.individual_name, c.company_name, c.email, c.mobile_phone, c.office_phone, c.address_string, c.memo, c.status, c.tags, c.version, c.created_at, c.updated_at, c.archived_at, c.merged_into_id FROM bills.vendors AS c WHERE (c.business_id = '%[1]s' AND c.id = '%[2]s');
INSERT INTO bills.bills AS b (%[3]s) VALUES (%[4]s) ON CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING;
WITH lk AS MATERIALIZED (SELECT pg_notify('acct_outbox_bills', ''), (SELECT count(pg_advisory_xact_lock(hashtextextended('acct_outbox_key:bills:' || k, 0))) FROM (SELECT DISTINCT k FROM unnest('{"%[1]s"}'::text[]) AS k ORDER BY k) AS keys)) INSERT INTO bills.outbox (id, topic, key, type, source, subject, time, headers, data) SELECT v.id::uuid, v.topic, v.key, v.type, v.source, v.subject, v.time::timestamptz, v.headers::json, v.data::json FROM lk CROSS JOIN (VALUES %[5]s) AS v (id, topic, key, type, source, subject, time, headers, data);
COMMIT;
`

// billScriptFor fills billScript: values are the literals of a bill the
// gateway wrote, column by column (billColumns), and event the VALUES row
// of its event.
func billScriptFor(biz, vendor string, values []string, event string) (string, error) {
	if len(values) != len(billColumns) {
		return "", fmt.Errorf("%d bill values for %d columns", len(values), len(billColumns))
	}
	vals := make([]string, len(values))
	for i, c := range billColumns {
		vals[i] = values[i]
		if o, ok := billOverrides[c]; ok {
			vals[i] = o
		}
	}
	return fmt.Sprintf(billScript, biz, vendor, strings.Join(billColumns, ", "), strings.Join(vals, ", "), event), nil
}

// pgbenchOut is what the bills part reads from pgbench.
type pgbenchOut struct {
	pgbenchResult
	latency string
}

// pgbenchBills writes billScript with a copy of the last bill the gateway
// made in biz and runs it at -c 32 for d.
func (b *txbench) pgbenchBills(ctx context.Context, biz, vendor string, d time.Duration) (pgbenchOut, error) {
	sel := make([]string, len(billColumns))
	for i, c := range billColumns {
		sel[i] = "quote_nullable(b." + c + ")"
	}
	var values []string
	if err := b.db.QueryRow(ctx, "SELECT ARRAY["+strings.Join(sel, ", ")+"] FROM bills.bills AS b WHERE b.business_id = $1 ORDER BY b.imported_at DESC LIMIT 1", biz).Scan(&values); err != nil {
		return pgbenchOut{}, fmt.Errorf("a bill of %s: %w", biz, err)
	}
	events, err := b.lastEvents(ctx, billsSchema, biz, 1)
	if err != nil {
		return pgbenchOut{}, err
	}
	body, err := billScriptFor(biz, vendor, values, events[0])
	if err != nil {
		return pgbenchOut{}, err
	}
	binDir, err := pgcluster.BinDir()
	if err != nil {
		return pgbenchOut{}, err
	}
	dir, err := os.MkdirTemp("", "acct-pgbench-")
	if err != nil {
		return pgbenchOut{}, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "bill.sql")
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		return pgbenchOut{}, err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "pgbench"), "-c", strconv.Itoa(billConns), "-j", "2",
		"-T", strconv.Itoa(max(1, int(d.Seconds()))), "-n", "-f", script, b.st.DatabaseURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return pgbenchOut{}, fmt.Errorf("pgbench: %w\n%s", err, out)
	}
	r, err := parsePgbench(out)
	if err != nil {
		return pgbenchOut{}, fmt.Errorf("%w:\n%s", err, out)
	}
	if r.failed > 0 {
		return pgbenchOut{}, fmt.Errorf("pgbench: %d failed transactions:\n%s", r.failed, out)
	}
	res := pgbenchOut{pgbenchResult: r}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "latency average = "); ok {
			res.latency = v
		}
	}
	// The script's bills really went in (not a silent no-op).
	var n int64
	if err := b.db.QueryRow(ctx, "SELECT count(*) FROM bills.bills WHERE business_id = $1 AND external_id LIKE 'pgbench-%'", biz).Scan(&n); err != nil {
		return pgbenchOut{}, err
	}
	if n < r.processed*9/10 {
		return pgbenchOut{}, fmt.Errorf("pgbench: %d transactions but %d bills inserted", r.processed, n)
	}
	return res, nil
}
