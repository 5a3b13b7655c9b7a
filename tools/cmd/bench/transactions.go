package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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

// The transactions benchmarks. Each figure is a ratio to a
// baseline taken in the same run on the same PostgreSQL: the machine is
// shared, so absolute numbers move from run to run, ratios much less.
const (
	importRows      = 200_000
	importBatch     = 1_000
	importClients   = 4
	categorizeConns = 32
	categorizeDur   = 10 * time.Second
	listRows        = 1_000_000
	listSteps       = 1_000
	listSamples     = 400
	scratchSchema   = "bench"
)

// txbench carries what the transactions benchmarks share: the suite, a
// token and a connection to the suite's database.
type txbench struct {
	st     *stack.Stack
	token  string
	client *http.Client
	db     *pgx.Conn
	// imported are the ids and directions of the rows part 1 imported
	// through the gateway, categorized by part 2.
	imported []importedTxn
}

type importedTxn struct {
	biz    string
	id     string
	credit bool
}

// runTransactions runs the four transactions benchmarks in order and
// prints a summary; an error of one part stops the others (they depend
// on its data). parts "import", "list" and "ledger" run the import (with
// its bound), the listing or the general ledger alone; ledgerLines is the
// size of the general ledger's account.
func runTransactions(ctx context.Context, st *stack.Stack, token, parts string, ledgerLines int) ([]result, error) {
	if parts != "all" && parts != "import" && parts != "list" && parts != "ledger" {
		return nil, fmt.Errorf("-tx-parts must be all, import, list or ledger, not %q", parts)
	}
	if ledgerLines < ledgerPage*3 {
		return nil, fmt.Errorf("-ledger-lines must be at least %d, not %d", ledgerPage*3, ledgerLines)
	}
	db, err := pgx.Connect(ctx, st.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("connect to the suite's database: %w", err)
	}
	defer db.Close(context.Background())
	b := &txbench{st: st, token: token, db: db,
		client: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	fmt.Printf("\n== transactions (load average at start: %s) ==\n", loadAverage())
	if _, err := db.Exec(ctx, "DROP SCHEMA IF EXISTS "+scratchSchema+" CASCADE; CREATE SCHEMA "+scratchSchema); err != nil {
		return nil, fmt.Errorf("scratch schema: %w", err)
	}
	if parts == "list" {
		lst, res, err := b.benchList(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing: %w", err)
		}
		fmt.Printf("\ntransactions summary (load average now: %s):\n%s", loadAverage(), lst)
		return res, nil
	}
	if parts == "ledger" {
		gl, res, err := b.benchLedger(ctx, ledgerLines)
		if err != nil {
			return res, fmt.Errorf("general ledger: %w", err)
		}
		fmt.Printf("\ntransactions summary (load average now: %s):\n%s", loadAverage(), gl)
		return res, nil
	}
	// One business per import client: the outbox orders a business's
	// events by locking its key, so writes of one business serialize.
	bizs := make([]string, importClients)
	for w := range bizs {
		if bizs[w], err = b.newBusiness(ctx, fmt.Sprintf("bench-import-%d", w)); err != nil {
			return nil, err
		}
	}
	var all []result
	imp, res, err := b.benchImport(ctx, bizs)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	all = append(all, res...)
	if parts == "import" {
		fmt.Printf("\ntransactions summary (load average now: %s):\n%s", loadAverage(), imp)
		return all, nil
	}
	if err := b.settle(ctx); err != nil {
		return all, err
	}
	cat, res, err := b.benchCategorize(ctx, bizs)
	if err != nil {
		return all, fmt.Errorf("categorize: %w", err)
	}
	all = append(all, res...)
	if err := b.settle(ctx); err != nil {
		return all, err
	}
	lst, res, err := b.benchList(ctx)
	if err != nil {
		return all, fmt.Errorf("listing: %w", err)
	}
	all = append(all, res...)
	if err := b.settle(ctx); err != nil {
		return all, err
	}
	gl, res, err := b.benchLedger(ctx, ledgerLines)
	if err != nil {
		return all, fmt.Errorf("general ledger: %w", err)
	}
	all = append(all, res...)
	fmt.Printf("\ntransactions summary (load average now: %s):\n", loadAverage())
	for _, s := range []string{imp, cat, lst, gl} {
		fmt.Print(s)
	}
	return all, nil
}

// newBusiness creates a business through the gateway and waits until the
// transactions service has seeded its chart (an import answers 201).
func (b *txbench) newBusiness(ctx context.Context, name string) (string, error) {
	body := fmt.Sprintf(`{"legal_name":%q,"external_id":%q,"country":"US"}`, name, name+"-"+uuid.NewString())
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if status, err := b.do(ctx, http.MethodPost, "/v1/businesses", []byte(body), &out); err != nil || status != http.StatusCreated {
		return "", fmt.Errorf("create business: status %d: %v", status, err)
	}
	return out.Data.ID, nil
}

// do sends a JSON request through the gateway and decodes a JSON answer
// into out (when not nil).
func (b *txbench) do(ctx context.Context, method, path string, body []byte, out any) (int, error) {
	return b.doAt(ctx, b.st.GatewayURL, method, path, body, out)
}

// doAt is do against base (the gateway, or a service directly).
func (b *txbench) doAt(ctx context.Context, base, method, path string, body []byte, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d: %.300s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// benchTxn is row i of a generated import: dates over a year, both
// directions, a few source accounts and counterparties.
type benchTxn struct {
	Source              string `json:"source"`
	SourceTransactionID string `json:"source_transaction_id"`
	SourceAccountID     string `json:"source_account_id"`
	AccountName         string `json:"account_name"`
	Date                string `json:"date"`
	Direction           string `json:"direction"`
	Amount              int64  `json:"amount"`
	CounterpartyName    string `json:"counterparty_name"`
	Description         string `json:"description"`
}

var benchCounterparties = []string{"Hydro One", "Staples", "Acme Supplies", "City Parking", "Rogers", "Client Co"}

func genTxn(prefix string, i int) benchTxn {
	dir := "DEBIT"
	if i%2 == 1 {
		dir = "CREDIT"
	}
	// One source account per client (batch b goes to client b%4): an
	// import locks its source accounts' external accounts, so concurrent
	// batches of one account run one after the other (as a provider
	// sync of one account would).
	acct := "acc-" + strconv.Itoa((i/importBatch)%importClients)
	return benchTxn{
		Source: "API", SourceTransactionID: prefix + strconv.Itoa(i), SourceAccountID: acct, AccountName: "Account " + acct,
		Date:      time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%365).Format("2006-01-02"),
		Direction: dir, Amount: int64(100 + i%100_000),
		CounterpartyName: benchCounterparties[i%len(benchCounterparties)], Description: "Bench transaction " + strconv.Itoa(i),
	}
}

// copyRow is the row COPY writes for t: the columns an import fills.
func copyRow(businessID, ledgerAccountID, externalAccountID uuid.UUID, t benchTxn, now time.Time) []any {
	date, _ := time.Parse("2006-01-02", t.Date)
	return []any{
		businessID, uuid.Must(uuid.NewV7()), t.Source, t.SourceTransactionID, t.SourceAccountID,
		externalAccountID, ledgerAccountID, t.AccountName, date, t.Direction, t.Amount,
		t.CounterpartyName, strings.ToLower(t.CounterpartyName), t.Description, "READY_FOR_INPUT", now, now, 1,
	}
}

var copyColumns = []string{
	"business_id", "id", "source", "source_transaction_id", "source_account_id",
	"external_account_id", "ledger_account_id", "account_name", "date", "direction", "amount",
	"counterparty_name", "counterparty_key", "description", "categorization_status", "imported_at", "updated_at", "version",
}

// benchImport is part 1: 200,000 rows through POST /bank-transactions/bulk
// (batches of 1,000, a few clients) vs COPY of the same rows into a scratch
// copy of the indexed table.
func (b *txbench) benchImport(ctx context.Context, bizs []string) (string, []result, error) {
	fmt.Printf("1. bulk import: %d rows, %d per call, %d clients (one business each), through the gateway\n", importRows, importBatch, importClients)
	bodies := make([]chan int, importClients)
	for w := range bodies {
		bodies[w] = make(chan int)
	}
	ids := make([]importedTxn, importRows)
	var failed atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < importClients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			biz := bizs[w]
			for batch := range bodies[w] {
				txns := make([]benchTxn, importBatch)
				for k := range txns {
					txns[k] = genTxn("bench-", batch*importBatch+k)
				}
				body, _ := json.Marshal(map[string]any{"transactions": txns})
				var out struct {
					Data []struct {
						ID        string `json:"id"`
						Direction string `json:"direction"`
					} `json:"data"`
				}
				if _, err := b.do(ctx, http.MethodPost, "/v1/businesses/"+biz+"/bank-transactions/bulk", body, &out); err != nil || len(out.Data) != importBatch {
					failed.Add(1)
					errOnce.Do(func() { firstErr = fmt.Errorf("batch %d: %d rows back: %v", batch, len(out.Data), err) })
					continue
				}
				for k, d := range out.Data {
					ids[batch*importBatch+k] = importedTxn{biz: biz, id: d.ID, credit: d.Direction == "CREDIT"}
				}
			}
		}(w)
	}
	// The first batch alone: it creates the external accounts, and it
	// waits for the chart the business.created event seeds.
	closeAll := func() {
		for _, c := range bodies {
			close(c)
		}
	}
	for w, biz := range bizs {
		if err := b.firstBatch(ctx, biz, "acc-"+strconv.Itoa(w)); err != nil {
			closeAll()
			wg.Wait()
			return "", nil, err
		}
	}
	start = time.Now()
	for batch := 0; batch < importRows/importBatch; batch++ {
		bodies[batch%importClients] <- batch
	}
	closeAll()
	wg.Wait()
	apiDur := time.Since(start)
	if failed.Load() > 0 {
		return "", nil, fmt.Errorf("%d of %d batches failed; first: %w", failed.Load(), importRows/importBatch, firstErr)
	}
	b.imported = ids
	apiRate := float64(importRows) / apiDur.Seconds()
	fmt.Printf("  gateway: %d rows in %s = %.0f rows/s\n", importRows, apiDur.Round(time.Millisecond), apiRate)

	// The relay publishes the import's events first: the baselines run
	// on a quiet database.
	if err := b.drainOutbox(ctx); err != nil {
		return "", nil, err
	}
	if err := b.settle(ctx); err != nil {
		return "", nil, err
	}
	// The same rows by COPY into the service's own table (its indexes,
	// constraints and foreign keys), in a business of their own whose
	// external account a real import made.
	copyBiz, err := b.newBusiness(ctx, "bench-copy")
	if err != nil {
		return "", nil, err
	}
	if err := b.firstBatch(ctx, copyBiz, "copy"); err != nil {
		return "", nil, err
	}
	var extAcct, ledgerAcct uuid.UUID
	if err := b.db.QueryRow(ctx, `SELECT id, ledger_account_id FROM transactions.external_accounts WHERE business_id = $1`, copyBiz).Scan(&extAcct, &ledgerAcct); err != nil {
		return "", nil, fmt.Errorf("external account of %s: %w", copyBiz, err)
	}
	bizID := uuid.MustParse(copyBiz)
	now := time.Now().UTC()
	rows := make([][]any, importRows)
	for i := range rows {
		rows[i] = copyRow(bizID, ledgerAcct, extAcct, genTxn("bench-", i), now)
	}
	start = time.Now()
	n, err := b.db.CopyFrom(ctx, pgx.Identifier{"transactions", "bank_transactions"}, copyColumns, pgx.CopyFromRows(rows))
	if err != nil {
		return "", nil, fmt.Errorf("COPY: %w", err)
	}
	copyDur := time.Since(start)
	copyRate := float64(n) / copyDur.Seconds()
	fmt.Printf("  COPY:    %d rows in %s = %.0f rows/s (into transactions.bank_transactions)\n", n, copyDur.Round(time.Millisecond), copyRate)
	boundRate, err := b.copyEverything(ctx, bizs)
	if err != nil {
		return "", nil, err
	}
	fmt.Printf("           so even at COPY speed, writing what an import must write allows at most %.2f× of COPY\n", boundRate/copyRate)
	ratio := apiRate / copyRate
	res := []result{
		{Part: "transactions", Section: "import", Name: fmt.Sprintf("bulk import through the gateway (%s rows, %s per call, %d clients)",
			formatNumber(importRows), formatNumber(importBatch), importClients), Unit: "rows/s", Value: apiRate,
			Baseline: "COPY into transactions.bank_transactions", BaselineValue: copyRate, Target: []bound{ratioAtLeast(0.25)}},
		{Part: "transactions", Section: "import", Name: "the import's bound: COPY of every row an import writes (transactions, entries, lines, events)",
			Unit: "rows/s", Value: boundRate, Baseline: "COPY into transactions.bank_transactions", BaselineValue: copyRate,
			TargetNote: "the best ratio any implementation could reach"},
	}
	return fmt.Sprintf("  bulk import: gateway %.0f rows/s, COPY %.0f rows/s, ratio %.2f (target >= 0.25) %s; all of an import's rows by COPY: %.2f×\n",
		apiRate, copyRate, ratio, verdict(ratio >= 0.25), boundRate/copyRate), res, nil
}

// importTables are the tables an import writes, with the rows of the
// import's businesses: each transaction, its uncategorized entry, the
// entry's two lines and the two events (its snapshot and the entry).
var importTables = []struct{ table, where string }{
	{"bank_transactions", "business_id = ANY($1::uuid[])"},
	{"ledger_entries", "business_id = ANY($1::uuid[])"},
	{"ledger_lines", "business_id = ANY($1::uuid[])"},
	{"outbox", "key = ANY($1::text[])"},
}

// copyEverything measures the cheapest way to write every row the import
// wrote: COPY of those rows (read back from the service's tables) into
// scratch copies of the four tables (same indexes, no foreign keys and
// no balance triggers, so cheaper than the real ones), one table after
// the other. It returns the transactions per second that allows.
func (b *txbench) copyEverything(ctx context.Context, bizs []string) (float64, error) {
	var txns int64
	var total time.Duration
	var parts []string
	for _, t := range importTables {
		if _, err := b.db.Exec(ctx, fmt.Sprintf("CREATE TABLE %s.%s (LIKE transactions.%s INCLUDING ALL)", scratchSchema, t.table, t.table)); err != nil {
			return 0, fmt.Errorf("scratch %s: %w", t.table, err)
		}
		// Read the rows out (untimed) in COPY's text format.
		var buf bytes.Buffer
		sel := strings.Replace(t.where, "$1", "'"+pgArray(bizs)+"'", 1)
		if _, err := b.db.PgConn().CopyTo(ctx, &buf, fmt.Sprintf("COPY (SELECT * FROM transactions.%s WHERE %s) TO STDOUT", t.table, sel)); err != nil {
			return 0, fmt.Errorf("read %s: %w", t.table, err)
		}
		start := time.Now()
		tag, err := b.db.PgConn().CopyFrom(ctx, &buf, fmt.Sprintf("COPY %s.%s FROM STDIN", scratchSchema, t.table))
		if err != nil {
			return 0, fmt.Errorf("COPY %s: %w", t.table, err)
		}
		d := time.Since(start)
		total += d
		if t.table == "bank_transactions" {
			txns = tag.RowsAffected()
		}
		parts = append(parts, fmt.Sprintf("%s %d rows %s", t.table, tag.RowsAffected(), d.Round(time.Millisecond)))
	}
	rate := float64(txns) / total.Seconds()
	fmt.Printf("  COPY of all the rows the import wrote (%s): %s = %.0f transactions/s\n", strings.Join(parts, ", "), total.Round(time.Millisecond), rate)
	return rate, nil
}

// pgArray is ss as a PostgreSQL array literal (the values are uuids).
func pgArray(ss []string) string { return "{" + strings.Join(ss, ",") + "}" }

// settle waits (up to two minutes) until no autovacuum worker runs in the
// suite's database, so that a part does not share the two cores with the
// vacuuming the previous part left behind (the 400,000 relayed outbox
// rows, a million COPY'd rows), runs a checkpoint (so that their dirty
// pages are not written during the next measurement), then waits (up to
// two more minutes) until the machine is quiet (the consumers of the
// previous part's events done), and prints how long it waited.
func (b *txbench) settle(ctx context.Context) error {
	start := time.Now()
	for {
		var workers int
		if err := b.db.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND datname = current_database()").Scan(&workers); err != nil {
			return fmt.Errorf("autovacuum workers: %w", err)
		}
		if workers == 0 {
			if d := time.Since(start); d > time.Second {
				fmt.Printf("  (waited %s for autovacuum to finish)\n", d.Round(time.Second))
			}
			// The previous part's writes (a million rows by COPY) flushed
			// now, not by a checkpoint spread over the measurement.
			if _, err := b.db.Exec(ctx, "CHECKPOINT"); err != nil {
				fmt.Printf("  (CHECKPOINT: %v; measuring without)\n", err)
			}
			return waitQuiet(ctx, 2*time.Minute)
		}
		if time.Since(start) > 2*time.Minute {
			fmt.Printf("  (autovacuum still running after %s; measuring anyway)\n", time.Since(start).Round(time.Second))
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// quietShare is the share of the machine's CPU time that may be busy for
// it to count as quiet: a latency measured while an earlier part's
// consumers still catch up measures them, not the path.
const quietShare = 0.25

// waitQuiet waits until the machine's CPUs were busy less than
// quietShare of a second (from /proc/stat), at most limit; where
// /proc/stat cannot be read it does not wait.
func waitQuiet(ctx context.Context, limit time.Duration) error {
	start := time.Now()
	prevBusy, prevTotal, ok := cpuTimes()
	if !ok {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
		busy, total, ok := cpuTimes()
		if !ok {
			return nil
		}
		share := 0.0
		if total > prevTotal {
			share = float64(busy-prevBusy) / float64(total-prevTotal)
		}
		if share < quietShare {
			if d := time.Since(start); d > 2*time.Second {
				fmt.Printf("  (waited %s for the machine to go quiet)\n", d.Round(time.Second))
			}
			return nil
		}
		if time.Since(start) > limit {
			fmt.Printf("  (the machine is still %.0f%% busy after %s; measuring anyway)\n", 100*share, time.Since(start).Round(time.Second))
			return nil
		}
		prevBusy, prevTotal = busy, total
	}
}

// cpuTimes is the machine's busy and total CPU time in clock ticks (the
// first line of /proc/stat; idle and iowait are not busy).
func cpuTimes() (busy, total uint64, ok bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0, false
	}
	for i, f := range fields[1:min(len(fields), 9)] { // guest time is in user already
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total, true
}

// drainOutbox waits until the relay has published every event of the
// import (two per row: the transaction's snapshot and its ledger entry),
// so that part 2 measures categorizations, not the relay catching up, and
// prints how fast it published.
func (b *txbench) drainOutbox(ctx context.Context) error {
	start := time.Now()
	var pending, total int64
	if err := b.db.QueryRow(ctx, "SELECT count(*) FILTER (WHERE sent_at IS NULL), count(*) FROM transactions.outbox").Scan(&pending, &total); err != nil {
		return fmt.Errorf("count outbox rows: %w", err)
	}
	first := pending
	for pending > 0 {
		if time.Since(start) > 10*time.Minute {
			return fmt.Errorf("outbox: %d events still unpublished after %s", pending, time.Since(start).Round(time.Second))
		}
		time.Sleep(250 * time.Millisecond)
		if err := b.db.QueryRow(ctx, "SELECT count(*) FROM transactions.outbox WHERE sent_at IS NULL").Scan(&pending); err != nil {
			return fmt.Errorf("count outbox rows: %w", err)
		}
	}
	d := time.Since(start)
	fmt.Printf("  relay:   %d events (of %d in the outbox) still unpublished when the import ended, all published %s later (%.0f events/s)\n",
		first, total, d.Round(time.Millisecond), float64(first)/max(d.Seconds(), 0.001))
	return nil
}

// firstBatch imports one row per source account, so that the measured
// batches find their external accounts, retrying until the business's
// chart exists (seeded from business.created).
func (b *txbench) firstBatch(ctx context.Context, biz string, accounts ...string) error {
	txns := make([]benchTxn, len(accounts))
	for i, a := range accounts {
		txns[i] = genTxn("warmup-", i)
		txns[i].SourceAccountID = a
	}
	body, _ := json.Marshal(map[string]any{"transactions": txns})
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := b.do(ctx, http.MethodPost, "/v1/businesses/"+biz+"/bank-transactions/bulk", body, nil)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("first import into %s: %w", biz, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// benchCategorize is part 2: categorizations of distinct imported
// transactions through the gateway at concurrency 32 vs pgbench running
// the writes of one categorization against scratch tables.
func (b *txbench) benchCategorize(ctx context.Context, bizs []string) (string, []result, error) {
	fmt.Printf("2. categorize: %d concurrent clients for %s through the gateway, then pgbench -c %d -j 2 -T %d\n",
		categorizeConns, categorizeDur, categorizeConns, int(categorizeDur.Seconds()))
	var before counts
	if err := before.read(ctx, b.db, bizs); err != nil {
		return "", nil, err
	}
	var next, ok, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	deadline := time.Now().Add(categorizeDur)
	start := time.Now()
	for w := 0; w < categorizeConns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(b.imported) {
					return
				}
				// Round-robin over the businesses' rows.
				t := b.imported[(i%importClients)*importBatch+(i/importClients)%importBatch+(i/(importClients*importBatch))*importClients*importBatch]
				category := "OFFICE_EXPENSES"
				if t.credit {
					category = "SALES"
				}
				body := fmt.Sprintf(`{"type":"Category","category":{"type":"StableName","stable_name":%q}}`, category)
				if _, err := b.do(ctx, http.MethodPut, "/v1/businesses/"+t.biz+"/bank-transactions/"+t.id+"/categorize", []byte(body), nil); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	apiTPS := float64(ok.Load()) / time.Since(start).Seconds()
	if ok.Load() == 0 {
		return "", nil, fmt.Errorf("no categorization succeeded; first error: %v", firstErr.Load())
	}
	failNote := ""
	if n := failed.Load(); n > 0 {
		failNote = fmt.Sprintf(" (%d FAILED, first: %v)", n, firstErr.Load())
		fmt.Printf("  %d categorizations failed; first: %v\n", n, firstErr.Load())
	}
	var after counts
	if err := after.read(ctx, b.db, bizs); err != nil {
		return "", nil, err
	}
	per := func(a, b int64) float64 { return float64(a-b) / float64(ok.Load()) }
	fmt.Printf("  gateway: %d categorizations = %.0f tps; per categorization: %.2f ledger entries, %.2f ledger lines, %.2f outbox rows\n",
		ok.Load(), apiTPS, per(after.entries, before.entries), per(after.lines, before.lines), per(after.outbox, before.outbox))

	pgTPS, err := b.pgbenchCategorize(ctx, bizs)
	if err != nil {
		return "", nil, err
	}
	fmt.Printf("  pgbench: %.0f tps\n", pgTPS)
	ratio := apiTPS / pgTPS
	res := []result{{Part: "transactions", Section: "categorize", Name: fmt.Sprintf("categorize through the gateway, %d clients", categorizeConns),
		Unit: "tps", Value: apiTPS, Baseline: fmt.Sprintf("pgbench -c %d, the same statements", categorizeConns), BaselineValue: pgTPS,
		Target: []bound{ratioAtLeast(0.5)}}}
	if n := failed.Load(); n > 0 {
		res[0].Failure = fmt.Sprintf("%d categorizations failed", n)
	}
	return fmt.Sprintf("  categorize @%d: gateway %.0f tps, pgbench %.0f tps, ratio %.2f (target >= 0.50) %s%s\n",
		categorizeConns, apiTPS, pgTPS, ratio, verdict(ratio >= 0.5 && failed.Load() == 0), failNote), res, nil
}

// counts are the service's row counts a categorization adds to.
type counts struct{ entries, lines, outbox int64 }

func (c *counts) read(ctx context.Context, db *pgx.Conn, bizs []string) error {
	err := db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM transactions.ledger_entries WHERE business_id = ANY($1::uuid[])),
		(SELECT count(*) FROM transactions.ledger_lines WHERE business_id = ANY($1::uuid[])),
		(SELECT count(*) FROM transactions.outbox)`, bizs).Scan(&c.entries, &c.lines, &c.outbox)
	if err != nil {
		return fmt.Errorf("count ledger and outbox rows: %w", err)
	}
	return nil
}

// categorizeScript is, for pgbench, the statements one categorization
// of an imported transaction issues (make bench shows them with
// -querytiming), against the service's own tables (their foreign keys,
// balance and append-only triggers) in the business %[1]s: lock the row
// with its tags and documents; read the live entry, its lines and the
// accounts with their ancestors (share-locked); insert the reversal and
// mark the reversed entry; insert the new entry; insert the four lines;
// update the row; take the event-ordering lock and write the three events
// (%[4]s: copies of the events the gateway run wrote). Each client picks
// rows of the business at random (part 1 sent business w the batches w,
// w+4, w+8..., so its rows are %[6]d + 4000k + j), and rows the gateway
// run categorized are recategorized. %[2]s is the business's
// OFFICE_EXPENSES account, %[3]s the category JSON.
const categorizeScript = `\set n %[6]d + 4000 * random(0, %[5]d) + random(0, 999)
BEGIN;
SELECT quote_literal(bt.id) AS txn, quote_literal(bt.ledger_account_id) AS bank, bt.amount AS amt, bt.version AS ver, quote_literal(bt.date) AS d, (SELECT coalesce(json_agg(json_build_object('id', t.id, 'key', t.key, 'value', t.value, 'dimension_id', t.dimension_id, 'definition_id', t.definition_id, 'dimension_display_name', t.dimension_display_name, 'value_display_name', t.value_display_name, 'created_at', t.created_at, 'updated_at', t.updated_at) ORDER BY t.key, t.value), '[]') FROM transactions.bank_transaction_tags t WHERE t.business_id = bt.business_id AND t.transaction_id = bt.id) AS tags_json, (SELECT coalesce(array_agg(d.id::text ORDER BY d.created_at, d.id), '{}') FROM transactions.bank_transaction_documents d WHERE d.business_id = bt.business_id AND d.transaction_id = bt.id AND d.archived_at IS NULL) AS document_ids FROM transactions.bank_transactions AS bt WHERE bt.business_id = '%[1]s' AND bt.source = 'API' AND bt.source_transaction_id = 'bench-' || :n FOR UPDATE \gset
WITH RECURSIVE live AS (SELECT * FROM transactions.ledger_entries e WHERE e.business_id = '%[1]s' AND e.source_type = 'BANK_TRANSACTION' AND e.source_id = :txn AND e.reversal_of_id IS NULL AND e.reversal_id IS NULL), live_lines AS (SELECT l.* FROM transactions.ledger_lines l JOIN live e ON l.business_id = e.business_id AND l.entry_id = e.id), picked AS (SELECT a.* FROM transactions.ledger_accounts a WHERE a.business_id = '%[1]s' AND (a.id = ANY(ARRAY[:bank]::uuid[]) OR a.stable_name = ANY('{"OFFICE_EXPENSES"}'::text[]) OR a.id IN (SELECT account_id FROM live_lines)) FOR KEY SHARE), up AS (SELECT * FROM picked UNION SELECT p.* FROM transactions.ledger_accounts p JOIN up ON p.id = up.parent_id AND p.business_id = up.business_id) SELECT (SELECT row_to_json(live) FROM live) AS entry, (SELECT json_agg(l ORDER BY l.line_number) FROM live_lines l) AS lines, (SELECT json_agg(up ORDER BY up.id) FROM up) AS accounts, (SELECT quote_literal(id) FROM live) AS live, (SELECT quote_literal(entry_at) FROM live) AS eat, (SELECT quote_literal(source_version) FROM live) AS lver, (SELECT quote_literal(account_id) FROM live_lines WHERE line_number = 1) AS a1, (SELECT quote_literal(account_id) FROM live_lines WHERE line_number = 2) AS a2, (SELECT quote_literal(CASE direction WHEN 'DEBIT' THEN 'CREDIT' ELSE 'DEBIT' END) FROM live_lines WHERE line_number = 1) AS r1, (SELECT quote_literal(CASE direction WHEN 'DEBIT' THEN 'CREDIT' ELSE 'DEBIT' END) FROM live_lines WHERE line_number = 2) AS r2 \gset
WITH r AS (INSERT INTO transactions.ledger_entries AS e (id, business_id, entry_type, agent, date, entry_at, source_type, source_id, source_version, reversal_of_id, memo, reference_number, metadata, tags, created_at) VALUES (gen_random_uuid(), '%[1]s', 'BANK', 'API', :d, :eat, 'BANK_TRANSACTION', :txn, :lver, :live, DEFAULT, DEFAULT, 'null', '[]', now()) ON CONFLICT DO NOTHING RETURNING id, entry_number), mark AS (UPDATE transactions.ledger_entries SET reversal_id = r.id FROM r WHERE ledger_entries.business_id = '%[1]s' AND ledger_entries.id = :live AND ledger_entries.reversal_id IS NULL RETURNING ledger_entries.id) SELECT quote_literal(r.id) AS rid, r.entry_number AS rnum, (SELECT count(*) FROM mark) AS marked FROM r \gset
INSERT INTO transactions.ledger_entries AS e (id, business_id, entry_type, agent, date, entry_at, source_type, source_id, source_version, reversal_of_id, memo, reference_number, metadata, tags, created_at) VALUES (gen_random_uuid(), '%[1]s', 'BANK', 'API', :d, :eat, 'BANK_TRANSACTION', :txn, (:ver + 1)::text, DEFAULT, DEFAULT, DEFAULT, 'null', '[]', now()) ON CONFLICT DO NOTHING RETURNING quote_literal(id) AS nid, entry_number AS nnum \gset
INSERT INTO transactions.ledger_lines (id, entry_id, business_id, line_number, account_id, direction, amount, entry_at, entry_number, memo, tags, created_at) VALUES (gen_random_uuid(), :rid, '%[1]s', 1, :a1, :r1, :amt, :eat, :rnum, DEFAULT, '[]', now()), (gen_random_uuid(), :rid, '%[1]s', 2, :a2, :r2, :amt, :eat, :rnum, DEFAULT, '[]', now()), (gen_random_uuid(), :nid, '%[1]s', 1, '%[2]s', 'DEBIT', :amt, :eat, :nnum, DEFAULT, '[]', now()), (gen_random_uuid(), :nid, '%[1]s', 2, :bank, 'CREDIT', :amt, :eat, :nnum, DEFAULT, '[]', now()) RETURNING memo;
UPDATE transactions.bank_transactions AS bt SET categorization_status = 'CATEGORIZED', categorization_method = 'API', category = '%[3]s', tax_code = DEFAULT, memo = DEFAULT, updated_at = now(), version = :ver + 1 WHERE bt.business_id = '%[1]s' AND bt.id = :txn;
WITH lk AS MATERIALIZED (SELECT pg_notify('acct_outbox_transactions', ''), (SELECT count(pg_advisory_xact_lock(hashtextextended('acct_outbox_key:transactions:' || k, 0))) FROM (SELECT DISTINCT k FROM unnest('{"%[1]s"}'::text[]) AS k ORDER BY k) AS keys)) INSERT INTO transactions.outbox (id, topic, key, type, source, subject, time, headers, data) SELECT v.id::uuid, v.topic, v.key, v.type, v.source, v.subject, v.time::timestamptz, v.headers::json, v.data::json FROM lk CROSS JOIN (VALUES %[4]s) AS v (id, topic, key, type, source, subject, time, headers, data);
COMMIT;
`

// pgbenchCategorize writes the script for each business's rows (with the
// last three events the gateway run wrote for it as the events) and runs
// pgbench against the suite's database, each transaction picking one of
// the businesses at random as the gateway run went round them.
func (b *txbench) pgbenchCategorize(ctx context.Context, bizs []string) (float64, error) {
	binDir, err := pgcluster.BinDir()
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "acct-pgbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	args := []string{"-c", strconv.Itoa(categorizeConns), "-j", "2", "-T", strconv.Itoa(int(categorizeDur.Seconds())), "-n"}
	for i, biz := range bizs {
		body, err := b.categorizeScript(ctx, biz)
		if err != nil {
			return 0, err
		}
		script := filepath.Join(dir, fmt.Sprintf("categorize-%d.sql", i))
		if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
			return 0, err
		}
		args = append(args, "-f", script+"@1")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "pgbench"), append(args, b.st.DatabaseURL)...)
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

// categorizeScript is the pgbench script for the rows of biz.
func (b *txbench) categorizeScript(ctx context.Context, biz string) (string, error) {
	var office string
	if err := b.db.QueryRow(ctx, `SELECT id FROM transactions.ledger_accounts WHERE business_id = $1 AND stable_name = 'OFFICE_EXPENSES'`, biz).Scan(&office); err != nil {
		return "", fmt.Errorf("OFFICE_EXPENSES of %s: %w", biz, err)
	}
	var category string
	if err := b.db.QueryRow(ctx, `SELECT category::text FROM transactions.bank_transactions
		WHERE business_id = $1 AND category->'entries'->0->>'stable_name' = 'OFFICE_EXPENSES' LIMIT 1`, biz).Scan(&category); err != nil {
		return "", fmt.Errorf("a categorized row of %s: %w", biz, err)
	}
	values, err := b.lastEvents(ctx, "transactions", biz, 3)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(categorizeScript, biz, office, strings.ReplaceAll(category, "'", "''"), strings.Join(values, ", "),
		importRows/(importBatch*importClients)-1, batchOffset(b.imported, biz)), nil
}

// batchOffset is the first row number of biz's batches in part 1 (batch k
// went to business k mod importClients).
func batchOffset(imported []importedTxn, biz string) int {
	for w := 0; w < importClients && w*importBatch < len(imported); w++ {
		if imported[w*importBatch].biz == biz {
			return w * importBatch
		}
	}
	return 0
}

// lastEvents are the last n events of biz in schema's outbox as SQL
// VALUES rows for a pgbench script's outbox insert (fresh ids and times).
func (b *txbench) lastEvents(ctx context.Context, schema, biz string, n int) ([]string, error) {
	rows, err := b.db.Query(ctx, `SELECT topic, type, source, subject, headers::text, data::text FROM `+schema+`.outbox
		WHERE key = $1 ORDER BY seq DESC LIMIT $2`, biz, n)
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", biz, err)
	}
	defer rows.Close()
	var values []string
	for rows.Next() {
		var topic, typ, source, subject, headers, data string
		if err := rows.Scan(&topic, &typ, &source, &subject, &headers, &data); err != nil {
			return nil, err
		}
		values = append(values, fmt.Sprintf("(gen_random_uuid()::text, %s, %s, %s, %s, %s, now()::text, %s, %s)",
			sqlQuote(topic), sqlQuote(biz), sqlQuote(typ), sqlQuote(source), sqlQuote(subject), sqlQuote(headers), sqlQuote(data)))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(values) != n {
		return nil, fmt.Errorf("%d events of %s in %s.outbox, want %d", len(values), biz, schema, n)
	}
	return values, nil
}

// straight requests path n times from the service itself, not through
// the gateway, and prints the p50 and p99 under label: beside the same
// page through the gateway, what the gateway hop adds.
func (b *txbench) straight(ctx context.Context, service, path string, n int, label string) error {
	svc := b.st.ServiceURLs[service]
	if svc == "" {
		return nil
	}
	var direct []time.Duration
	for range n {
		t0 := time.Now()
		if _, err := b.doAt(ctx, svc, http.MethodGet, path, nil, nil); err != nil {
			return err
		}
		direct = append(direct, time.Since(t0))
	}
	d := percentiles(direct)
	fmt.Printf("  %s: p50 %s p99 %s (%d requests)\n", label, d.p50, d.p99, len(direct))
	return nil
}

// sqlQuote is s as an SQL string literal.
func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// benchList is part 3: a business with 1,000,000 transactions (COPY into
// the service's table, in an external account made by a real import);
// p50/p99 of page 1 and of the page reached after 1,000 cursor steps.
func (b *txbench) benchList(ctx context.Context) (string, []result, error) {
	fmt.Printf("3. listing: %d transactions in one business, page 1 vs the page after %d cursor steps\n", listRows, listSteps)
	biz, err := b.newBusiness(ctx, "bench-list")
	if err != nil {
		return "", nil, err
	}
	if err := b.firstBatch(ctx, biz, "list"); err != nil {
		return "", nil, err
	}
	var extAcct, ledgerAcct uuid.UUID
	if err := b.db.QueryRow(ctx, `SELECT id, ledger_account_id FROM transactions.external_accounts WHERE business_id = $1`, biz).Scan(&extAcct, &ledgerAcct); err != nil {
		return "", nil, fmt.Errorf("external account of %s: %w", biz, err)
	}
	bizID := uuid.MustParse(biz)
	now := time.Now().UTC()
	start := time.Now()
	i := 0
	n, err := b.db.CopyFrom(ctx, pgx.Identifier{"transactions", "bank_transactions"}, copyColumns, pgx.CopyFromFunc(func() ([]any, error) {
		if i >= listRows {
			return nil, nil
		}
		t := genTxn("list-", i)
		t.SourceAccountID = "list"
		i++
		return copyRow(bizID, ledgerAcct, extAcct, t, now), nil
	}))
	if err != nil {
		return "", nil, fmt.Errorf("COPY %d rows: %w", listRows, err)
	}
	if _, err := b.db.Exec(ctx, "ANALYZE transactions.bank_transactions"); err != nil {
		return "", nil, fmt.Errorf("analyze: %w", err)
	}
	fmt.Printf("  loaded %d rows by COPY in %s\n", n, time.Since(start).Round(time.Millisecond))
	if err := b.settle(ctx); err != nil {
		return "", nil, err
	}

	first := "/v1/businesses/" + biz + "/bank-transactions"
	path := first
	start = time.Now()
	for step := 0; step < listSteps; step++ {
		cursor, err := b.listPage(ctx, path)
		if err != nil {
			return "", nil, fmt.Errorf("step %d: %w", step, err)
		}
		if cursor == "" {
			return "", nil, fmt.Errorf("no next cursor after %d pages", step+1)
		}
		path = first + "?" + url.Values{"cursor": {cursor}}.Encode()
	}
	fmt.Printf("  walked %d cursor steps in %s\n", listSteps, time.Since(start).Round(time.Millisecond))
	deep := path
	// Alternate the two pages so both see the same machine.
	var p1, pN []time.Duration
	for k := 0; k < listSamples; k++ {
		for _, s := range []struct {
			path string
			into *[]time.Duration
		}{{first, &p1}, {deep, &pN}} {
			t0 := time.Now()
			if _, err := b.listPage(ctx, s.path); err != nil {
				return "", nil, err
			}
			*s.into = append(*s.into, time.Since(t0))
		}
	}
	a, z := percentiles(p1), percentiles(pN)
	fmt.Printf("  page 1:     p50 %s  p99 %s  (%d requests, one client)\n", a.p50, a.p99, len(p1))
	fmt.Printf("  page %d:  p50 %s  p99 %s\n", listSteps+1, z.p50, z.p99)
	if err := b.straight(ctx, "transactions", first, listSamples/4, "page 1 straight to the service"); err != nil {
		return "", nil, err
	}
	ratio := float64(z.p50) / float64(a.p50)
	p99OK := a.p99 < 25*time.Millisecond && z.p99 < 25*time.Millisecond
	size := formatNumber(listRows) + " transactions"
	res := []result{
		{Part: "transactions", Section: "listing", Name: fmt.Sprintf("listing p50, page %s (%s)", formatNumber(listSteps+1), size), Unit: "ms",
			Value: durationMS(z.p50), Baseline: "page 1 p50", BaselineValue: durationMS(a.p50), Target: []bound{ratioAtMost(1.2)}},
		{Part: "transactions", Section: "listing", Name: fmt.Sprintf("listing p99, page 1 (%s)", size), Unit: "ms",
			Value: durationMS(a.p99), Target: []bound{absolute(below, 25)}},
		{Part: "transactions", Section: "listing", Name: fmt.Sprintf("listing p99, page %s (%s)", formatNumber(listSteps+1), size), Unit: "ms",
			Value: durationMS(z.p99), Target: []bound{absolute(below, 25)}},
	}
	return fmt.Sprintf("  listing (1M rows): page 1 p50 %s p99 %s; page %d p50 %s p99 %s; p50 ratio %.2f (target <= 1.20) %s; p99 < 25ms %s\n",
		a.p50, a.p99, listSteps+1, z.p50, z.p99, ratio, verdict(ratio <= 1.2), verdict(p99OK)), res, nil
}

// listPage GETs one listing page and returns its next cursor.
func (b *txbench) listPage(ctx context.Context, path string) (string, error) {
	var out struct {
		Data []json.RawMessage `json:"data"`
		Meta struct {
			Pagination struct {
				Cursor *string `json:"cursor"`
			} `json:"pagination"`
		} `json:"meta"`
	}
	if _, err := b.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return "", err
	}
	if len(out.Data) == 0 {
		return "", fmt.Errorf("%s: empty page", path)
	}
	if out.Meta.Pagination.Cursor == nil {
		return "", nil
	}
	return *out.Meta.Pagination.Cursor, nil
}

type latency struct{ p50, p99 time.Duration }

func percentiles(d []time.Duration) latency {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(p float64) time.Duration { return s[int(float64(len(s)-1)*p)].Round(10 * time.Microsecond) }
	return latency{p50: at(0.50), p99: at(0.99)}
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
