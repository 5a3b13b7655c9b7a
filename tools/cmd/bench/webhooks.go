package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/acctsuite/acct/pkg/webhooksig"
	"github.com/acctsuite/acct/tools/internal/stack"
)

// The webhooks benchmark: three figures of services/webhooks, each with
// its baseline from the same run, delivered to receivers in this process
// (net/http servers answering 204 at once, checking every signature):
//
//  1. throughput: a backlog of deliveries written into the service's
//     tables by SQL, as its Enqueue writes them (messages, deliveries,
//     lanes, then the notification), timed from the commit to the last
//     arrival, against a plain net/http client posting the same signed
//     payloads at the same concurrency to the same receivers;
//  2. latency: customers created through the gateway at 200/s, from each
//     event's created_at to its arrival, against the writes' own round
//     trip (and where the time went, from the services' rows);
//  3. isolation: healthy endpoints' deliveries, from their enqueueing to
//     their arrival, while another endpoint takes 10 s to answer, against
//     the same load without it.
const (
	// whConcurrency is the service's WEBHOOKS_CONCURRENCY default: the
	// plain client's concurrency too.
	whConcurrency = 64
	// whPerEndpoint is the service's WEBHOOKS_PER_ENDPOINT default: an
	// unordered endpoint's lanes.
	whPerEndpoint = 8
	// whEndpoints are the throughput's endpoints: at whPerEndpoint, at
	// least 8 are needed for 64 in flight.
	whEndpoints       = 16
	whRounds          = 2     // throughput rounds, alternating with the plain client (best kept)
	whWarmup          = 2_000 // deliveries of the unmeasured first round of each
	whBusinesses      = 10    // the paced runs' events are spread over them (one lane each per endpoint)
	whLatencyRate     = 200   // events/s of the latency run
	whIsolationRate   = 100   // events/s of the isolation runs
	whHealthy         = 4     // healthy endpoints of the isolation runs
	whIsolationRounds = 2     // isolation runs of each kind, alternating
	whSlowDelay       = 10 * time.Second
	whPacedWarmup     = 2 * time.Second // the paced runs' first seconds, not counted
	whPacedWorkers    = 64
	// whNotifyChannel is the channel the service LISTENs on for enqueued
	// deliveries (its postgres.NotifyChannel).
	whNotifyChannel = "webhooks_due"
	// whQuietType is what the throughput endpoints subscribe to (Webhook.test
	// is not subscribable): a type this part never produces, so that they
	// receive the bench's backlog alone.
	whQuietType = "Endpoint.disabled"
)

// webhooksOptions size the webhooks part.
type webhooksOptions struct {
	parts      string        // all, throughput, latency or isolation
	deliveries int           // the throughput's backlog
	duration   time.Duration // the latency run (each isolation run takes half)
	// pprofAddr is the service's pprof listener, set with pprofDir: the
	// last throughput round's CPU profile is saved there.
	pprofAddr, pprofDir string
}

// whbench carries what the webhooks figures share.
type whbench struct {
	*txbench
	o        webhooksOptions
	rc       *receiver
	clientID string
	created  []uuid.UUID // endpoints still to delete
	plain    *http.Client
	bizs     []string
}

// whEndpoint is an endpoint the bench created, and its receiver.
type whEndpoint struct {
	id     uuid.UUID
	secret string
	slot   *slot
}

// runWebhooks runs the three webhooks figures and returns their summary.
func runWebhooks(ctx context.Context, st *stack.Stack, token string, o webhooksOptions) (string, []result, error) {
	if o.deliveries < whEndpoints*10 {
		return "", nil, fmt.Errorf("-webhooks-deliveries must be at least %d, not %d", whEndpoints*10, o.deliveries)
	}
	if o.duration < 2*time.Second {
		return "", nil, fmt.Errorf("-webhooks-duration must be at least 2s, not %s", o.duration)
	}
	if !slices.Contains([]string{"all", "throughput", "latency", "isolation"}, o.parts) {
		return "", nil, fmt.Errorf("-webhooks-parts must be all, throughput, latency or isolation, not %q", o.parts)
	}
	db, err := pgx.Connect(ctx, st.DatabaseURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect to the suite's database: %w", err)
	}
	defer db.Close(context.Background())
	w := &whbench{
		txbench: &txbench{st: st, token: token, db: db,
			client: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: whPacedWorkers}}},
		o:  o,
		rc: &receiver{},
		// The baseline client has the service's egress settings (no proxy,
		// no redirects, 15 s, 256 idle connections, 16 per host).
		plain: &http.Client{
			Timeout:       15 * time.Second,
			Transport:     &http.Transport{Proxy: nil, MaxIdleConns: 256, MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	defer w.rc.close()
	defer func() {
		// The endpoints go, and their pending deliveries with them.
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.deleteEndpoints(dctx, slices.Clone(w.created)); err != nil {
			fmt.Printf("  (could not delete the bench's endpoints: %v)\n", err)
		}
	}()
	fmt.Printf("\n== webhooks (load average at start: %s) ==\n", loadAverage())
	// After other parts the service may still be consuming their events.
	if err := w.waitCaughtUp(ctx); err != nil {
		return "", nil, err
	}
	var res []result
	var sum strings.Builder
	figures := map[string]func(context.Context) (string, []result, error){
		"throughput": w.benchThroughput, "latency": w.benchLatency, "isolation": w.benchIsolation}
	for _, name := range []string{"throughput", "latency", "isolation"} {
		fig := figures[name]
		if o.parts != "all" && o.parts != name {
			continue
		}
		if err := w.settle(ctx); err != nil {
			return sum.String(), res, err
		}
		s, r, err := fig(ctx)
		res = append(res, r...)
		sum.WriteString(s)
		if err != nil {
			return sum.String(), res, err
		}
	}
	return sum.String(), res, nil
}

// waitCaughtUp waits until the webhooks service's consumer has no lag
// (its /metrics), so that no other part's events compete with the
// measurements.
func (w *whbench) waitCaughtUp(ctx context.Context) error {
	start := time.Now()
	url := w.st.ServiceURLs["webhooks"] + "/metrics"
	for {
		lag, err := consumerLag(ctx, url)
		if err != nil {
			return err
		}
		if lag == 0 {
			if d := time.Since(start); d > time.Second {
				fmt.Printf("  (waited %s for the webhooks consumer to catch up)\n", d.Round(time.Second))
			}
			return nil
		}
		if time.Since(start) > 10*time.Minute {
			return fmt.Errorf("the webhooks consumer is still %d messages behind after 10 minutes", lag)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// consumerLag sums consumer_lag_messages over the topics of a service's
// /metrics.
func consumerLag(ctx context.Context, url string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("webhooks metrics: %w", err)
	}
	defer resp.Body.Close()
	var lag float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "consumer_lag_messages") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("webhooks metrics: %q: %w", line, err)
		}
		lag += v
	}
	return int64(lag), sc.Err()
}

// createEndpoint subscribes s's URL to types (empty: all) through the
// gateway; the receiver checks deliveries with the secret it answers.
func (w *whbench) createEndpoint(ctx context.Context, s *slot, types []string, ordering string) (whEndpoint, error) {
	body, _ := json.Marshal(map[string]any{"url": s.url, "event_types": types, "ordering": ordering, "description": "bench"})
	var out struct {
		Data struct {
			ID     uuid.UUID `json:"id"`
			Secret string    `json:"secret"`
		} `json:"data"`
	}
	if _, err := w.do(ctx, http.MethodPost, "/v1/webhooks/endpoints", body, &out); err != nil {
		return whEndpoint{}, fmt.Errorf("create endpoint: %w", err)
	}
	s.secret.Store(&out.Data.Secret)
	s.endpoint = out.Data.ID
	w.created = append(w.created, out.Data.ID)
	return whEndpoint{id: out.Data.ID, secret: out.Data.Secret, slot: s}, nil
}

// deleteEndpoints deletes endpoints ids (their deliveries go with them).
func (w *whbench) deleteEndpoints(ctx context.Context, ids []uuid.UUID) error {
	var errs []error
	for _, id := range ids {
		if _, err := w.do(ctx, http.MethodDelete, "/v1/webhooks/endpoints/"+id.String(), nil, nil); err != nil {
			errs = append(errs, err)
			continue
		}
		w.created = slices.DeleteFunc(w.created, func(x uuid.UUID) bool { return x == id })
	}
	return errors.Join(errs...)
}

func endpointIDs(eps []whEndpoint) []uuid.UUID {
	ids := make([]uuid.UUID, len(eps))
	for i, e := range eps {
		ids[i] = e.id
	}
	return ids
}

// benchThroughput is figure 1: deliveries per second from a backlog, the
// service against the plain client, whRounds rounds each, alternating,
// after an unmeasured round of each.
func (w *whbench) benchThroughput(ctx context.Context) (string, []result, error) {
	n := w.o.deliveries
	fmt.Printf("1. throughput: backlogs of %d deliveries (%d endpoints, ordering none, a receiver each) written by SQL as the service enqueues them; "+
		"baseline: net/http at concurrency %d posting the same signed payloads\n", n, whEndpoints, whConcurrency)
	eps := make([]whEndpoint, whEndpoints)
	for i := range eps {
		s, err := w.rc.add(0)
		if err != nil {
			return "", nil, err
		}
		if eps[i], err = w.createEndpoint(ctx, s, []string{whQuietType}, "none"); err != nil {
			return "", nil, err
		}
	}
	if err := w.db.QueryRow(ctx, "SELECT client_id FROM webhooks.endpoints WHERE id = $1", eps[0].id).Scan(&w.clientID); err != nil {
		return "", nil, fmt.Errorf("endpoint's platform: %w", err)
	}
	if _, err := w.serviceRound(ctx, eps, whWarmup); err != nil {
		return "", nil, fmt.Errorf("warm-up: %w", err)
	}
	if _, err := w.plainRound(ctx, eps, whWarmup); err != nil {
		return "", nil, fmt.Errorf("warm-up: %w", err)
	}
	var svc, plain []float64
	var best, bestPlain roundResult
	for r := 1; r <= whRounds; r++ {
		p, err := w.plainRound(ctx, eps, n)
		if err != nil {
			return "", nil, err
		}
		plain = append(plain, p.rate)
		if p.rate > bestPlain.rate {
			bestPlain = p
		}
		var prof *profile
		if r == whRounds && w.o.pprofAddr != "" {
			// About the round's length at the last rate seen.
			prof = startProfile(w.o.pprofAddr, time.Duration(float64(n)/max(best.rate, 1000)*float64(time.Second)))
		}
		s, err := w.serviceRound(ctx, eps, n)
		if err != nil {
			return "", nil, err
		}
		if prof != nil {
			path := filepath.Join(w.o.pprofDir, "webhooks-throughput.pprof")
			if err := prof.save(path); err != nil {
				return "", nil, fmt.Errorf("webhooks profile: %w", err)
			}
			fmt.Printf("  the webhooks service's CPU profile of round %d: %s\n", r, path)
		}
		svc = append(svc, s.rate)
		if s.rate > best.rate {
			best = s
		}
		fmt.Printf("  round %d: service %.0f deliveries/s (CPU per delivery: %s), plain client %.0f deliveries/s (%s)\n", r, s.rate, s.cpu, p.rate, p.cpu)
	}
	bad := w.rc.bad.Load()
	if err := w.deleteEndpoints(ctx, endpointIDs(eps)); err != nil {
		return "", nil, err
	}
	s, p := slices.Max(svc), slices.Max(plain)
	res := []result{{Part: "webhooks", Section: "throughput",
		Name: fmt.Sprintf("deliveries per second to a local receiver, backlog of %s (%d endpoints, ordering none)", formatNumber(float64(n)), whEndpoints),
		Unit: "deliveries/s", Value: s,
		Note: fmt.Sprintf("best of %d rounds (%s); WEBHOOKS_CONCURRENCY %d, 8 per endpoint; from the commit of the enqueue to the last arrival; "+
			"CPU per delivery: %s (plain client: %s)", whRounds, joinRates(svc), whConcurrency, best.cpu, bestPlain.cpu),
		Baseline:      fmt.Sprintf("plain net/http client, %d concurrent, the same signed payloads, best of %d (%s)", whConcurrency, whRounds, joinRates(plain)),
		BaselineValue: p, Target: []bound{ratioAtLeast(0.5)}}}
	if bad > 0 {
		res[0].Failure = fmt.Sprintf("%d deliveries failed signature verification", bad)
	}
	sum := fmt.Sprintf("  webhooks throughput (backlog %d): service %.0f deliveries/s, plain client %.0f/s, ratio %.2f (target >= 0.50) %s\n",
		n, s, p, s/p, verdict(s >= 0.5*p && bad == 0))
	if res[0].Failure != "" {
		sum += "    FAILED: " + res[0].Failure + "\n"
	}
	fmt.Print(sum)
	return sum, res, nil
}

func joinRates(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = formatNumber(x)
	}
	return strings.Join(s, ", ")
}

// whEvent is a webhook's body as the service marshals it (domain.Event).
type whEvent struct {
	ID                 uuid.UUID  `json:"id"`
	Type               string     `json:"type"`
	BusinessID         *uuid.UUID `json:"business_id"`
	BusinessExternalID *string    `json:"business_external_id"`
	CreatedAt          time.Time  `json:"created_at"`
	Data               struct {
		EntityID         string  `json:"entity_id"`
		EntityExternalID *string `json:"entity_external_id"`
	} `json:"data"`
}

// testBody is the body of a Webhook.test event to endpoint, as POST
// .../test makes it.
func testBody(id, endpoint uuid.UUID, at time.Time) []byte {
	ev := whEvent{ID: id, Type: "Webhook.test", CreatedAt: at}
	ev.Data.EntityID = endpoint.String()
	b, _ := json.Marshal(ev)
	return b
}

// roundResult is one throughput round: deliveries per second, and where
// the CPU went per delivery.
type roundResult struct {
	rate float64
	cpu  cpuPer
}

// cpuPer is CPU time per delivery: the webhooks process, PostgreSQL's
// processes, this one (the receivers, and the plain client's posts).
type cpuPer struct{ svc, pg, self time.Duration }

func (c cpuPer) String() string {
	us := func(d time.Duration) string { return formatValue(durationUS(d), "µs") }
	if c.svc == 0 && c.pg == 0 {
		return "bench process (client and receivers) " + us(c.self)
	}
	return fmt.Sprintf("webhooks %s, PostgreSQL %s, receivers %s", us(c.svc), us(c.pg), us(c.self))
}

// cpuNow is the CPU time so far of the webhooks process, PostgreSQL's
// processes and this process.
func (w *whbench) cpuNow() cpuPer {
	var c cpuPer
	if p := w.st.Proc("webhooks"); p != nil {
		c.svc = processCPU([]int{p.Pid()})
	}
	c.pg = processCPU(postgresPIDs())
	c.self = processCPU([]int{os.Getpid()})
	return c
}

// per is the CPU from c0 to c over n deliveries.
func (c cpuPer) per(c0 cpuPer, n int) cpuPer {
	d := time.Duration(n)
	return cpuPer{svc: (c.svc - c0.svc) / d, pg: (c.pg - c0.pg) / d, self: (c.self - c0.self) / d}
}

// postgresPIDs are the processes named postgres (the server and its
// backends; a backend that exits meanwhile takes its CPU time with it).
func postgresPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, err := os.ReadFile("/proc/" + e.Name() + "/comm"); err == nil && strings.TrimSpace(string(comm)) == "postgres" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// serviceRound writes n pending deliveries of Webhook.test events, spread
// over eps, into the service's tables in one transaction with the
// notification its Enqueue sends, and returns the deliveries per second
// from the commit to the receivers' last arrival.
func (w *whbench) serviceRound(ctx context.Context, eps []whEndpoint, n int) (roundResult, error) {
	w.rc.reset()
	now := time.Now().UTC().Truncate(time.Microsecond)
	msgs, dels := make([][]any, n), make([][]any, n)
	var lanes [][]any
	for i := range n {
		e := eps[i%len(eps)]
		mid, did := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
		// Ordering none: an endpoint's deliveries take its lanes in turn,
		// as many lanes as WEBHOOKS_PER_ENDPOINT.
		k := i / len(eps)
		lane := "n:" + strconv.Itoa(k%whPerEndpoint)
		msgs[i] = []any{mid, w.clientID, nil, "Webhook.test", testBody(mid, e.id, now), now}
		dels[i] = []any{did, e.id, mid, lane, "Webhook.test", nil, "pending", now, now, now}
		if k < whPerEndpoint {
			lanes = append(lanes, []any{e.id, lane, now})
		}
	}
	tx, err := w.db.Begin(ctx)
	if err != nil {
		return roundResult{}, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }() // after Commit: a no-op
	for _, c := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"messages", []string{"id", "client_id", "business_id", "type", "body", "created_at"}, msgs},
		{"deliveries", []string{"id", "endpoint_id", "message_id", "lane", "event_type", "business_id", "status", "next_attempt_at", "created_at", "updated_at"}, dels},
		{"lanes", []string{"endpoint_id", "lane", "due_at"}, lanes},
	} {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"webhooks", c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
			return roundResult{}, fmt.Errorf("enqueue %s: %w", c.table, err)
		}
	}
	if _, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", whNotifyChannel); err != nil {
		return roundResult{}, err
	}
	c0 := w.cpuNow()
	start := time.Now()
	if err := tx.Commit(ctx); err != nil {
		return roundResult{}, fmt.Errorf("enqueue: %w", err)
	}
	if err := w.rc.waitDistinct(ctx, n, 5*time.Minute); err != nil {
		return roundResult{}, fmt.Errorf("service: %w", err)
	}
	elapsed := w.rc.lastArrival().Sub(start)
	cpu := w.cpuNow()
	// Every delivery recorded as delivered before the next round.
	ids := endpointIDs(eps)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var left int
		if err := w.db.QueryRow(ctx, "SELECT count(*) FROM webhooks.deliveries WHERE endpoint_id = ANY($1) AND status <> 'delivered'", ids).Scan(&left); err != nil {
			return roundResult{}, err
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			return roundResult{}, fmt.Errorf("service: %d deliveries not recorded delivered a minute after they all arrived", left)
		}
	}
	if d := w.rc.duplicates(); d > 0 {
		fmt.Printf("  (%d deliveries arrived twice)\n", d)
	}
	return roundResult{rate: float64(n) / elapsed.Seconds(), cpu: cpu.per(c0, n)}, nil
}

// plainRound posts n Webhook.test events spread over eps, signed with
// their endpoint's secret at send time as the service signs each attempt,
// from whConcurrency goroutines, and returns the deliveries per second to
// the receivers' last arrival.
func (w *whbench) plainRound(ctx context.Context, eps []whEndpoint, n int) (roundResult, error) {
	w.rc.reset()
	now := time.Now().UTC().Truncate(time.Microsecond)
	ids, bodies := make([]string, n), make([][]byte, n)
	for i := range n {
		id := uuid.Must(uuid.NewV7())
		ids[i], bodies[i] = id.String(), testBody(id, eps[i%len(eps)].id, now)
	}
	var next, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	c0 := w.cpuNow()
	start := time.Now()
	for range whConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := w.post(ctx, eps[i%len(eps)], ids[i], bodies[i]); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		return roundResult{}, fmt.Errorf("plain client: %d posts failed, the first: %v", f, firstErr.Load())
	}
	if err := w.rc.waitDistinct(ctx, n, 30*time.Second); err != nil {
		return roundResult{}, fmt.Errorf("plain client: %w", err)
	}
	c := w.cpuNow().per(c0, n)
	return roundResult{rate: float64(n) / w.rc.lastArrival().Sub(start).Seconds(), cpu: cpuPer{self: c.self}}, nil
}

// post is one delivery by the plain client, with the service's headers.
func (w *whbench) post(ctx context.Context, e whEndpoint, id string, body []byte) error {
	ts := time.Now()
	sig, err := webhooksig.SignatureHeader([]string{e.secret}, id, ts, body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.slot.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set(webhooksig.HeaderID, id)
	req.Header.Set(webhooksig.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(webhooksig.HeaderSignature, sig)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "acct-bench")
	resp, err := w.plain.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1024))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("answered %d", resp.StatusCode)
	}
	return err
}

// makeBusinesses creates the paced runs' businesses (once) and waits
// until both customers-invoices and the webhooks service know them (the
// latter's Business.created reaching an endpoint made for the purpose),
// so that no event of the measured runs waits for its business.
func (w *whbench) makeBusinesses(ctx context.Context) error {
	if len(w.bizs) > 0 {
		return nil
	}
	s, err := w.rc.add(0)
	if err != nil {
		return err
	}
	e, err := w.createEndpoint(ctx, s, []string{"Business.created"}, "none")
	if err != nil {
		return err
	}
	defer func() {
		_ = w.deleteEndpoints(ctx, []uuid.UUID{e.id}) // else deleted at the end of the part
		s.close()
	}()
	for i := range whBusinesses {
		biz, err := w.newBusiness(ctx, fmt.Sprintf("bench-webhooks-%d", i))
		if err != nil {
			return err
		}
		w.bizs = append(w.bizs, biz)
	}
	for _, biz := range w.bizs {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			if _, err := w.do(ctx, http.MethodGet, "/v1/businesses/"+biz+"/customers", nil, nil); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("business %s never reached customers-invoices", biz)
			}
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		known := s.arrivals("Business.created")
		missing := 0
		for _, biz := range w.bizs {
			if _, ok := known[biz]; !ok {
				missing++
			}
		}
		if missing == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d businesses' Business.created never delivered", missing)
		}
	}
}

// pacedWrite is one customer created by a paced run.
type pacedWrite struct {
	at  time.Time     // its scheduled send time
	rtt time.Duration // from at to the answer
	id  string        // the customer's id ("" when it failed)
}

// pacedCustomers creates customers at rate per second for d (open loop,
// spread over the businesses), each timed from its scheduled send time.
func (w *whbench) pacedCustomers(ctx context.Context, tag string, rate int, d time.Duration) ([]pacedWrite, int64) {
	n := int(float64(rate) * d.Seconds())
	interval := time.Second / time.Duration(rate)
	out := make([]pacedWrite, n)
	sched := make(chan int, n)
	var failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now().Add(50 * time.Millisecond)
	for range whPacedWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range sched {
				at := start.Add(time.Duration(i) * interval)
				if wait := time.Until(at); wait > 0 {
					time.Sleep(wait)
				}
				body, _ := json.Marshal(map[string]any{"external_id": fmt.Sprintf("%s-%d", tag, i), "company_name": fmt.Sprintf("Webhooks bench %s %d", tag, i)})
				var res struct {
					Data struct {
						ID string `json:"id"`
					} `json:"data"`
				}
				_, err := w.do(ctx, http.MethodPost, "/v1/businesses/"+w.bizs[i%len(w.bizs)]+"/customers", body, &res)
				out[i] = pacedWrite{at: at, rtt: time.Since(at)}
				if err != nil || res.Data.ID == "" {
					failed.Add(1)
					continue
				}
				out[i].id = res.Data.ID
			}
		}()
	}
	for i := range n {
		sched <- i
	}
	close(sched)
	wg.Wait()
	return out, failed.Load()
}

// pacedLatencies waits until every write's Customer.created reached
// every slot, then returns, for the writes scheduled after the warm-up,
// each delivery's latency from the event's created_at, from the write's
// send time, and the writes' round trips. missing counts deliveries
// that never came.
func (w *whbench) pacedLatencies(ctx context.Context, writes []pacedWrite, slots []*slot) (fromEvent, fromSend, rtts []time.Duration, missing int) {
	from := writes[0].at.Add(whPacedWarmup)
	deadline := time.Now().Add(time.Minute)
	var got []map[string]arrival
	for {
		got, missing = got[:0], 0
		for _, s := range slots {
			a := s.arrivals("Customer.created")
			got = append(got, a)
			for _, wr := range writes {
				if _, ok := a[wr.id]; wr.id != "" && !ok {
					missing++
				}
			}
		}
		if missing == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if missing > 0 {
		w.explainMissing(ctx, writes, slots, got)
	}
	for _, wr := range writes {
		if wr.at.Before(from) || wr.id == "" {
			continue
		}
		rtts = append(rtts, wr.rtt)
		for _, a := range got {
			if arr, ok := a[wr.id]; ok {
				fromEvent = append(fromEvent, arr.at.Sub(arr.created))
				fromSend = append(fromSend, arr.at.Sub(wr.at))
			}
		}
	}
	return fromEvent, fromSend, rtts, missing
}

// explainMissing prints what became of the first deliveries that never
// arrived, from the service's rows.
func (w *whbench) explainMissing(ctx context.Context, writes []pacedWrite, slots []*slot, got []map[string]arrival) {
	shown := 0
	for i, s := range slots {
		for _, wr := range writes {
			if _, ok := got[i][wr.id]; wr.id == "" || ok || shown == 3 {
				continue
			}
			shown++
			var status, lastErr, lane string
			var attempts, code int
			var at *time.Time
			// The last attempt: in attempts, or the first one in the row.
			err := w.db.QueryRow(ctx, `SELECT d.status, d.attempts, coalesce(a.status_code, d.first_status_code, 0),
					coalesce(a.error, d.first_error, ''), coalesce(a.attempted_at, d.first_attempted_at),
					coalesce((SELECT 'due ' || l.due_at::text || coalesce(', leased until ' || l.lease_until::text, '') FROM webhooks.lanes l
						WHERE l.endpoint_id = d.endpoint_id AND l.lane = d.lane), 'no lane row')
				FROM webhooks.messages m JOIN webhooks.deliveries d ON d.message_id = m.id
				LEFT JOIN LATERAL (SELECT * FROM webhooks.attempts a WHERE a.delivery_id = d.id ORDER BY a.attempted_at DESC LIMIT 1) a ON true
				WHERE d.endpoint_id = $1 AND convert_from(m.body, 'UTF8') LIKE '%' || $2 || '%'`, s.endpoint, wr.id).Scan(&status, &attempts, &code, &lastErr, &at, &lane)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				var parked int
				_ = w.db.QueryRow(ctx, "SELECT count(*) FROM webhooks.parked_events WHERE event::text LIKE '%' || $1 || '%'", wr.id).Scan(&parked)
				fmt.Printf("  missing: customer %s (sent %s) at endpoint %s: no delivery row (%d parked events name it)\n",
					wr.id, wr.at.Format("15:04:05.000"), s.endpoint, parked)
			case err != nil:
				fmt.Printf("  missing: customer %s at endpoint %s: %v\n", wr.id, s.endpoint, err)
			default:
				last := "none"
				if at != nil {
					last = fmt.Sprintf("at %s, status %d, %q", at.Format("15:04:05.000"), code, lastErr)
				}
				fmt.Printf("  missing: customer %s (sent %s) at endpoint %s: delivery %s after %d attempts, the last %s; its lane: %s\n",
					wr.id, wr.at.Format("15:04:05.000"), s.endpoint, status, attempts, last, lane)
			}
		}
	}
}

// benchLatency is figure 2: customers created through the gateway at
// whLatencyRate per second, from each event's created_at to its arrival,
// against the writes' round trip.
func (w *whbench) benchLatency(ctx context.Context) (string, []result, error) {
	d := w.o.duration
	fmt.Printf("2. latency: customers created through the gateway at %d/s for %s (+%s warm-up) over %d businesses, one endpoint (ordering business)\n",
		whLatencyRate, d, whPacedWarmup, whBusinesses)
	s, err := w.rc.add(0)
	if err != nil {
		return "", nil, err
	}
	if err := w.makeBusinesses(ctx); err != nil {
		return "", nil, err
	}
	e, err := w.createEndpoint(ctx, s, []string{"Customer.created"}, "business")
	if err != nil {
		return "", nil, err
	}
	writes, failed := w.pacedCustomers(ctx, "lat", whLatencyRate, d+whPacedWarmup)
	ev, send, rtt, missing := w.pacedLatencies(ctx, writes, []*slot{s})
	stages, err := w.stages(ctx, []uuid.UUID{e.id}, writes[0].at.Add(whPacedWarmup))
	if err != nil {
		return "", nil, err
	}
	fmt.Printf("  %s\n", stages)
	if err := w.deleteEndpoints(ctx, []uuid.UUID{e.id}); err != nil {
		return "", nil, err
	}
	if len(ev) == 0 || len(rtt) == 0 {
		return "", nil, fmt.Errorf("latency: no delivery arrived (%d writes failed, %d deliveries missing)", failed, missing)
	}
	le, ls, lr := percentiles(ev), percentiles(send), percentiles(rtt)
	res := []result{{Part: "webhooks", Section: "latency",
		Name: fmt.Sprintf("event-to-delivery, customers created at %d/s through the gateway (%d businesses), p99", whLatencyRate, whBusinesses),
		Unit: "ms", Value: durationMS(le.p99),
		Note: fmt.Sprintf("p50 %s; from the bench's send: p50 %s, p99 %s; %d events over %s; %s",
			msText(le.p50), msText(ls.p50), msText(ls.p99), len(ev), d, stages),
		Baseline: "the same writes' round trip through the gateway, p99", BaselineValue: durationMS(lr.p99),
		Target: []bound{absolute(atMost, 1000)}}}
	if failed > 0 || missing > 0 || w.rc.bad.Load() > 0 {
		res[0].Failure = fmt.Sprintf("%d writes failed, %d deliveries missing, %d bad signatures", failed, missing, w.rc.bad.Load())
	}
	sum := fmt.Sprintf("  webhooks latency at %d events/s: created_at to arrival p50 %s p99 %s (send to arrival p99 %s); the writes' round trip p50 %s p99 %s (target p99 <= 1 s) %s\n",
		whLatencyRate, le.p50, le.p99, ls.p99, lr.p50, lr.p99, verdict(le.p99 <= time.Second && res[0].Failure == ""))
	if res[0].Failure != "" {
		sum += "    FAILED: " + res[0].Failure + "\n"
	}
	fmt.Print(sum)
	return sum, res, nil
}

// stages is where the time of the endpoints' deliveries of events
// created since went, from the services' own rows: from the event's time
// to its publication (customers-invoices' outbox relay), to its delivery
// rows (the broker and the webhooks consumer), and from there to the
// first attempt (the dispatcher).
func (w *whbench) stages(ctx context.Context, endpoints []uuid.UUID, since time.Time) (string, error) {
	var relay [2]float64
	if err := w.db.QueryRow(ctx, `SELECT
			percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - time)),
			percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - time))
		FROM invoicing.outbox WHERE time >= $1 AND sent_at IS NOT NULL`, since).Scan(&relay[0], &relay[1]); err != nil {
		return "", fmt.Errorf("relay stage: %w", err)
	}
	var q [4]float64
	var n int
	var first, last time.Time
	err := w.db.QueryRow(ctx, `SELECT count(*), min(d.created_at), max(d.created_at),
			percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - m.created_at)),
			percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - m.created_at)),
			percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.first_attempted_at - d.created_at)),
			percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.first_attempted_at - d.created_at))
		FROM webhooks.deliveries d JOIN webhooks.messages m ON m.id = d.message_id
		WHERE d.endpoint_id = ANY($1) AND m.created_at >= $2 AND d.first_attempted_at IS NOT NULL`, endpoints, since).Scan(&n, &first, &last, &q[0], &q[1], &q[2], &q[3])
	if err != nil {
		return "", fmt.Errorf("delivery stages: %w", err)
	}
	// How fast the consumer fanned the events out: the rate they came at
	// when it keeps up, its ceiling when it falls behind.
	rate := float64(n) / float64(len(endpoints)) / max(last.Sub(first).Seconds(), 0.001)
	ms := func(s float64) string { return msText(time.Duration(s * float64(time.Second))) }
	return fmt.Sprintf("event to published p50 %s p99 %s, to enqueued p50 %s p99 %s (enqueued at %s events/s), enqueued to sent p50 %s p99 %s",
		ms(relay[0]), ms(relay[1]), ms(q[0]), ms(q[1]), formatNumber(rate), ms(q[2]), ms(q[3])), nil
}

// benchIsolation is figure 3: healthy endpoints' deliveries under the
// same paced load without, then with, an endpoint that answers after 10 s
// (ordering none: it holds all the deliveries WEBHOOKS_PER_ENDPOINT lets
// it), whIsolationRounds times each, alternating, so that a drift of the
// shared machine touches both. Each delivery is timed from its enqueueing
// (the consumer's fan-out, which a slow endpoint does not touch) to its
// arrival: the dispatcher's share, which the slow endpoint must not
// stretch.
func (w *whbench) benchIsolation(ctx context.Context) (string, []result, error) {
	d := w.o.duration / (2 * whIsolationRounds)
	fmt.Printf("3. isolation: customers at %d/s to %d healthy endpoints, %d × %s (+%s warm-up each) without and with one answering after %s (ordering none), alternating\n",
		whIsolationRate, whHealthy, whIsolationRounds, d, whPacedWarmup, whSlowDelay)
	if err := w.makeBusinesses(ctx); err != nil {
		return "", nil, err
	}
	var healthy []*slot
	var ids []uuid.UUID
	for range whHealthy {
		s, err := w.rc.add(0)
		if err != nil {
			return "", nil, err
		}
		e, err := w.createEndpoint(ctx, s, []string{"Customer.created"}, "business")
		if err != nil {
			return "", nil, err
		}
		healthy, ids = append(healthy, s), append(ids, e.id)
	}
	// samples are one condition's deliveries over its runs.
	type samples struct {
		dispatch, event []time.Duration
		failed          int64
		missing         int
	}
	run := func(tag string, into *samples) error {
		writes, failed := w.pacedCustomers(ctx, tag, whIsolationRate, d+whPacedWarmup)
		ev, _, _, missing := w.pacedLatencies(ctx, writes, healthy)
		disp, err := w.dispatchLatencies(ctx, healthy, writes[0].at.Add(whPacedWarmup))
		if err != nil {
			return err
		}
		if len(ev) == 0 || len(disp) == 0 {
			return fmt.Errorf("isolation: no delivery arrived (%d writes failed, %d deliveries missing)", failed, missing)
		}
		p := percentiles(disp)
		fmt.Printf("  %-5s enqueued to arrival p50 %s p99 %s (created_at to arrival p99 %s)\n", tag, p.p50, p.p99, percentiles(ev).p99)
		into.dispatch, into.event = append(into.dispatch, disp...), append(into.event, ev...)
		into.failed, into.missing = into.failed+failed, into.missing+missing
		return nil
	}
	var without, with samples
	var held int64
	for r := 1; r <= whIsolationRounds; r++ {
		if err := run(fmt.Sprintf("a%d", r), &without); err != nil {
			return "", nil, err
		}
		slow, err := w.rc.add(whSlowDelay)
		if err != nil {
			return "", nil, err
		}
		se, err := w.createEndpoint(ctx, slow, []string{"Customer.created"}, "none")
		if err != nil {
			return "", nil, err
		}
		if err := run(fmt.Sprintf("b%d", r), &with); err != nil {
			return "", nil, err
		}
		held = max(held, slow.maxInflight.Load())
		// Its backlog goes with it; closing its server ends the attempts
		// under way, which would otherwise hold the dispatcher's slots
		// into the next run.
		if err := w.deleteEndpoints(ctx, []uuid.UUID{se.id}); err != nil {
			return "", nil, err
		}
		slow.close()
	}
	if err := w.deleteEndpoints(ctx, ids); err != nil {
		return "", nil, err
	}
	wo, wi := percentiles(without.dispatch), percentiles(with.dispatch)
	fmt.Printf("  without the slow endpoint: p50 %s p99 %s; with it: p50 %s p99 %s (it held %d deliveries at once)\n", wo.p50, wo.p99, wi.p50, wi.p99, held)
	res := []result{{Part: "webhooks", Section: "isolation",
		Name: fmt.Sprintf("healthy endpoints' delivery p99 (enqueued to arrival) while another answers after %s (%d healthy, %d events/s)",
			whSlowDelay, whHealthy, whIsolationRate),
		Unit: "ms", Value: durationMS(wi.p99),
		Note: fmt.Sprintf("p50 %s (without: %s); created_at to arrival p99 %s (without: %s); %d × %s each, alternating; the slow endpoint held %d deliveries at once",
			msText(wi.p50), msText(wo.p50), msText(percentiles(with.event).p99), msText(percentiles(without.event).p99), whIsolationRounds, d, held),
		Baseline: "the same load without the slow endpoint, p99", BaselineValue: durationMS(wo.p99),
		Target: []bound{margin(1, 100)}}}
	failed, missing := without.failed+with.failed, without.missing+with.missing
	if failed > 0 || missing > 0 || w.rc.bad.Load() > 0 {
		res[0].Failure = fmt.Sprintf("%d writes failed, %d deliveries missing, %d bad signatures", failed, missing, w.rc.bad.Load())
	}
	diff := wi.p99 - wo.p99
	sum := fmt.Sprintf("  webhooks isolation: healthy endpoints' p99 %s with a %s endpoint, %s without: %+dms (target <= +100ms) %s\n",
		wi.p99, whSlowDelay, wo.p99, diff.Milliseconds(), verdict(diff <= 100*time.Millisecond && res[0].Failure == ""))
	if res[0].Failure != "" {
		sum += "    FAILED: " + res[0].Failure + "\n"
	}
	fmt.Print(sum)
	return sum, res, nil
}

// dispatchLatencies are the slots' deliveries of the events created
// since, each from its delivery row's creation (the enqueueing) to its
// arrival.
func (w *whbench) dispatchLatencies(ctx context.Context, slots []*slot, since time.Time) ([]time.Duration, error) {
	bySlot := map[uuid.UUID]*slot{}
	var ids []uuid.UUID
	for _, s := range slots {
		bySlot[s.endpoint] = s
		ids = append(ids, s.endpoint)
	}
	rows, err := w.db.Query(ctx, `SELECT d.endpoint_id, d.message_id, d.created_at FROM webhooks.deliveries d
		JOIN webhooks.messages m ON m.id = d.message_id WHERE d.endpoint_id = ANY($1) AND m.created_at >= $2`, ids, since)
	if err != nil {
		return nil, fmt.Errorf("enqueued deliveries: %w", err)
	}
	defer rows.Close()
	var out []time.Duration
	for rows.Next() {
		var endpoint, message uuid.UUID
		var enqueued time.Time
		if err := rows.Scan(&endpoint, &message, &enqueued); err != nil {
			return nil, err
		}
		if a, ok := bySlot[endpoint].arrival(message.String()); ok {
			out = append(out, a.at.Sub(enqueued))
		}
	}
	return out, rows.Err()
}

// receiver is the bench's webhook receiver: an in-process net/http
// server per slot (each endpoint its own host, as different platforms'
// receivers are), answering 204 at once (or after the slot's delay),
// checking every signature with the endpoint's secret and noting every
// arrival.
type receiver struct {
	mu    sync.Mutex
	slots []*slot
	bad   atomic.Int64 // signatures that did not verify, bodies that did not parse
	last  atomic.Int64 // unix nanoseconds of the latest arrival
}

// slot is one endpoint's receiving server.
type slot struct {
	url         string
	endpoint    uuid.UUID // the endpoint it receives for (once created)
	delay       time.Duration
	srv         *http.Server
	secret      atomic.Pointer[string]
	inflight    atomic.Int64
	maxInflight atomic.Int64

	mu   sync.Mutex
	seen map[string]arrival // by webhook-id: the first arrival of each
	dups int
}

// arrival is one delivery as received.
type arrival struct {
	at       time.Time // its body read
	typ      string
	created  time.Time // the event's created_at
	business string
	entity   string
}

// add starts a slot answering after delay.
func (rc *receiver) add(delay time.Duration) (*slot, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &slot{url: "http://" + ln.Addr().String() + "/hooks", delay: delay, seen: map[string]arrival{}}
	s.srv = &http.Server{Handler: rc.handler(s), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	rc.mu.Lock()
	rc.slots = append(rc.slots, s)
	rc.mu.Unlock()
	return s, nil
}

func (rc *receiver) handler(s *slot) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		at := time.Now()
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		if s.delay > 0 {
			n := s.inflight.Add(1)
			defer s.inflight.Add(-1)
			for m := s.maxInflight.Load(); n > m && !s.maxInflight.CompareAndSwap(m, n); m = s.maxInflight.Load() {
			}
			select {
			case <-time.After(s.delay):
			case <-r.Context().Done():
				return
			}
		}
		// A bad delivery is counted (the figure fails) but acknowledged,
		// so that no retry stretches the run.
		var ev whEvent
		secret := s.secret.Load()
		if secret == nil || webhooksig.Verify(*secret, r.Header, body, at, webhooksig.DefaultTolerance) != nil || json.Unmarshal(body, &ev) != nil {
			rc.bad.Add(1)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		a := arrival{at: at, typ: ev.Type, created: ev.CreatedAt, entity: ev.Data.EntityID}
		if ev.BusinessID != nil {
			a.business = ev.BusinessID.String()
		}
		s.mu.Lock()
		if _, dup := s.seen[r.Header.Get(webhooksig.HeaderID)]; dup {
			s.dups++
		} else {
			s.seen[r.Header.Get(webhooksig.HeaderID)] = a
		}
		s.mu.Unlock()
		for l := rc.last.Load(); at.UnixNano() > l && !rc.last.CompareAndSwap(l, at.UnixNano()); l = rc.last.Load() {
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// reset forgets every arrival.
func (rc *receiver) reset() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, s := range rc.slots {
		s.mu.Lock()
		s.seen, s.dups = map[string]arrival{}, 0
		s.mu.Unlock()
	}
	rc.last.Store(0)
}

// distinct is how many different deliveries arrived, over every slot.
func (rc *receiver) distinct() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, s := range rc.slots {
		s.mu.Lock()
		n += len(s.seen)
		s.mu.Unlock()
	}
	return n
}

func (rc *receiver) duplicates() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, s := range rc.slots {
		s.mu.Lock()
		n += s.dups
		s.mu.Unlock()
	}
	return n
}

func (rc *receiver) lastArrival() time.Time { return time.Unix(0, rc.last.Load()) }

// waitDistinct waits until n different deliveries arrived.
func (rc *receiver) waitDistinct(ctx context.Context, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		got := rc.distinct()
		if got >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d deliveries arrived in %s", got, n, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (rc *receiver) close() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, s := range rc.slots {
		s.close()
	}
}

func (s *slot) close() { _ = s.srv.Close() }

// arrival is the first arrival of delivery id (its webhook-id).
func (s *slot) arrival(id string) (arrival, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.seen[id]
	return a, ok
}

// arrivals are the slot's first arrivals of events of type typ, by
// entity (a business's own id for Business.created).
func (s *slot) arrivals(typ string) map[string]arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]arrival{}
	for _, a := range s.seen {
		if a.typ == typ {
			if _, ok := out[a.entity]; !ok || a.at.Before(out[a.entity].at) {
				out[a.entity] = a
			}
		}
	}
	return out
}
