package service

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/businessdir"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	kafkaadapter "github.com/acctsuite/acct/services/transactions/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/transactions/internal/config"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// The benchmarks here run the service in-process (no gateway, no OpenAPI
// validation): the service's own cost of a request, for profiling
// (-cpuprofile) and, with -querytiming, the database time of each
// statement per op. make bench-transactions measures the whole path
// against its baselines.
var queryTiming = flag.Bool("querytiming", false, "benchmarks print the database time per op of each statement")

// benchEnv is a service with one US business, for benchmarks.
type benchEnv struct {
	b     *testing.B
	svc   *servicetest.Service
	biz   uuid.UUID
	token string
}

func newBenchEnv(b *testing.B) *benchEnv {
	var s *Service
	svc := servicetest.StartService(b, servicetest.Build(config.LoadFrom, New, &s), servicetest.ServiceOptions{})
	now := time.Now().UTC().Truncate(time.Microsecond)
	biz := events.Business{
		ID: uuid.Must(uuid.NewV7()), ClientID: "bench", LegalName: "Bench", Country: "US",
		DefaultReportingBasis: "ACCRUAL", CreatedAt: now, UpdatedAt: now,
	}
	evt, err := events.New(events.TopicBusiness, events.TypeBusinessCreated, "test", biz.ID, biz)
	if err != nil {
		b.Fatal(err)
	}
	err = svc.Kit.DB().RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		if err := businessdir.Handle(ctx, tx, evt); err != nil {
			return err
		}
		return kafkaadapter.BusinessHandler(s.Ledger)(ctx, tx, evt)
	})
	if err != nil {
		b.Fatal(err)
	}
	return &benchEnv{b: b, svc: svc, biz: biz.ID, token: svc.Tokens.Platform(b, "bench")}
}

// timeQueries starts the per-statement timing of -querytiming; the report
// is printed when the benchmark ends, per op of the last run.
func (e *benchEnv) timeQueries() {
	if !*queryTiming {
		return
	}
	h := &timingHook{d: map[string]time.Duration{}, n: map[string]int{}}
	e.svc.Kit.DB().AddQueryHook(h)
	h.reset()
	e.b.Cleanup(func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		keys := make([]string, 0, len(h.d))
		for k := range h.d {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return h.d[keys[i]] > h.d[keys[j]] })
		fmt.Printf("database time per op (N=%d), by statement:\n", e.b.N)
		for _, k := range keys {
			fmt.Printf("%9.3fms %7.2f×  %s\n", float64(h.d[k].Microseconds())/1000/float64(e.b.N),
				float64(h.n[k])/float64(e.b.N), k)
		}
	})
}

// drained waits, outside the timed part, until the relay has published
// every event: the service's stop then has no backlog to flush.
func (e *benchEnv) drained() {
	e.b.StopTimer()
	defer e.b.StartTimer()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		var n int
		if err := e.svc.Kit.DB().NewRaw("SELECT count(*) FROM outbox WHERE sent_at IS NULL").Scan(context.Background(), &n); err != nil {
			e.b.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.b.Fatalf("%d events still unpublished", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// send posts body to path and fails unless the answer is want.
func (e *benchEnv) send(method, path string, body []byte, want int) {
	rq, _ := http.NewRequest(method, "/v1/businesses/"+e.biz.String()+path, bytes.NewReader(body))
	rq.Header.Set("Authorization", "Bearer "+e.token)
	rq.Header.Set("Content-Type", "application/json")
	res, err := e.svc.Kit.App().Test(rq, -1)
	if err != nil {
		e.b.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != want {
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		e.b.Fatalf("%s %s answered %d: %v", method, path, res.StatusCode, m)
	}
}

// importBody is a bulk import of 1,000 new rows named after n.
func (e *benchEnv) importBody(n int) []byte {
	items := make([]map[string]any, banking.MaxImportItems)
	for i := range items {
		items[i] = map[string]any{
			"source": "API", "source_transaction_id": fmt.Sprintf("b-%d-%d", n, i), "source_account_id": "acc",
			"amount": 1000 + i, "direction": []string{"DEBIT", "CREDIT"}[i%2], "date": "2026-03-01",
			"counterparty_name": "Staples", "description": "Office supplies", "reference_number": "R-1",
		}
	}
	out, err := json.Marshal(map[string]any{"transactions": items})
	if err != nil {
		e.b.Fatal(err)
	}
	return out
}

// BenchmarkImport is one POST /bank-transactions/bulk of 1,000 new rows
// per op.
func BenchmarkImport(b *testing.B) {
	e := newBenchEnv(b)
	e.send(http.MethodPost, "/bank-transactions/bulk", e.importBody(-1), http.StatusCreated) // the external account
	payloads := make([][]byte, b.N)
	for i := range payloads {
		payloads[i] = e.importBody(i)
	}
	e.timeQueries()
	b.ResetTimer()
	for i := range b.N {
		e.send(http.MethodPost, "/bank-transactions/bulk", payloads[i], http.StatusCreated)
	}
	b.ReportMetric(float64(b.N*banking.MaxImportItems)/b.Elapsed().Seconds(), "rows/s")
	e.drained()
}

// BenchmarkCategorize is one PUT /bank-transactions/{id}/categorize per
// op, of an imported (hence journaled) transaction: lock, reverse, post,
// update, publish.
func BenchmarkCategorize(b *testing.B) {
	e := newBenchEnv(b)
	var ids []string
	for n := 0; len(ids) < b.N; n++ {
		rq, _ := http.NewRequest(http.MethodPost, "/v1/businesses/"+e.biz.String()+"/bank-transactions/bulk", bytes.NewReader(e.importBody(n)))
		rq.Header.Set("Authorization", "Bearer "+e.token)
		rq.Header.Set("Content-Type", "application/json")
		res, err := e.svc.Kit.App().Test(rq, -1)
		if err != nil {
			b.Fatal(err)
		}
		var out struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		for _, d := range out.Data {
			ids = append(ids, d.ID)
		}
	}
	e.drained()
	body := []byte(`{"type":"Category","category":{"type":"StableName","stable_name":"OFFICE_EXPENSES"}}`)
	e.timeQueries()
	b.ResetTimer()
	for i := range b.N {
		e.send(http.MethodPut, "/bank-transactions/"+ids[i]+"/categorize", body, http.StatusOK)
	}
	e.drained()
}

// timingHook sums the database time of each statement (its first 90
// characters).
type timingHook struct {
	mu sync.Mutex
	d  map[string]time.Duration
	n  map[string]int
}

func (h *timingHook) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.d)
	clear(h.n)
}

func (h *timingHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *timingHook) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	q := strings.Join(strings.Fields(e.Query), " ")
	if len(q) > 90 {
		q = q[:90]
	}
	h.mu.Lock()
	h.d[q] += time.Since(e.StartTime)
	h.n[q]++
	h.mu.Unlock()
}

// BenchmarkList is one GET /bank-transactions (page 1, default limit) per
// op in a business holding 200,000 uncategorized transactions of a few
// counterparties, next to 3,000 categorized ones of other businesses with
// the same counterparties (inserted by SQL).
func BenchmarkList(b *testing.B) {
	e := newBenchEnv(b)
	e.send(http.MethodPost, "/bank-transactions/bulk", e.importBody(-1), http.StatusCreated)
	_, err := e.svc.Kit.DB().Exec(`INSERT INTO bank_transactions (business_id, id, source, source_transaction_id,
			source_account_id, external_account_id, ledger_account_id, date, direction, amount, counterparty_name,
			counterparty_key, description, categorization_status, imported_at, updated_at, version)
		SELECT t.business_id, gen_random_uuid(), 'API', 'list-' || i, t.source_account_id, t.external_account_id,
			t.ledger_account_id, timestamptz '2025-01-01' + (i % 365) * interval '1 day', 'DEBIT', 100 + i,
			'Staples ' || (i % 8), 'staples ' || (i % 8), 'Bench ' || i, 'READY_FOR_INPUT', now(), now(), 1
		FROM generate_series(1, 200000) i, (SELECT * FROM bank_transactions LIMIT 1) t;
		SET session_replication_role = replica; -- other businesses' rows without their charts
		INSERT INTO bank_transactions (business_id, id, source, source_transaction_id,
			source_account_id, external_account_id, ledger_account_id, date, direction, amount, counterparty_name,
			counterparty_key, description, categorization_status, category, imported_at, updated_at, version)
		SELECT gen_random_uuid(), gen_random_uuid(), 'API', 'other-' || i, t.source_account_id, t.external_account_id,
			t.ledger_account_id, timestamptz '2025-01-01', 'DEBIT', 100 + i, 'Staples ' || (i % 8), 'staples ' || (i % 8),
			'Other', 'CATEGORIZED', '{"split": false, "entries": [{"amount": 100, "stable_name": "OFFICE_EXPENSES", "display_name": "Office", "tags": []}]}',
			now(), now(), 2
		FROM generate_series(1, 3000) i, (SELECT * FROM bank_transactions LIMIT 1) t;
		SET session_replication_role = origin;
		ANALYZE bank_transactions`)
	if err != nil {
		b.Fatal(err)
	}
	e.timeQueries()
	b.ResetTimer()
	for range b.N {
		e.send(http.MethodGet, "/bank-transactions", nil, http.StatusOK)
	}
}
