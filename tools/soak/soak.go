// Package soak is the mixed-load soak with chaos of `make soak` (and its
// short version in `go test ./tools/soak`): several platform clients with
// several businesses each drive a realistic mix of writes and reads at a
// fixed rate through the gateway only, while processes are killed, the
// broker stops, PostgreSQL restarts, the outbox relay's leader dies and
// the platforms' webhook receivers go down. After each fault and at the
// end a checker verifies, through the public API and the services' own
// admin commands, that every acknowledged write is there exactly once,
// that no journal entry is duplicated, that every ledger balances, that
// A/R and A/P equal the documents' open balances, that the reports' P&L
// equals the journal, that the DLQs are empty and how long the read models
// took to catch up; at the end, that every acknowledged write's webhook
// reached its platform's receiver, signed (webhooks.go).
package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/acctsuite/acct/tools/internal/stack"
)

// Config configure a run.
type Config struct {
	Duration            time.Duration // how long the driver runs (faults included)
	Rate                float64       // operations per second over every business
	Clients             int           // platform clients
	BusinessesPerClient int
	Seed                uint64
	LogPath             string // the JSONL write log; the summary goes to LogPath+".summary.json"
	// FaultInterval is the load between two faults (and before the first).
	FaultInterval time.Duration
	// OneCycle injects each fault once (the short version); otherwise the
	// faults repeat in turn until Duration.
	OneCycle bool
	// NoFaults runs the load and the checks only.
	NoFaults bool
	// BrokerOutage is how long the broker stays stopped.
	BrokerOutage time.Duration
	// UnknownBound is how long a write is retried before its outcome is
	// recorded as unknown (it is resolved with the same key at the end).
	UnknownBound time.Duration
	// CatchUpBound is the stated bound on the read models' catch-up after
	// a fault: beyond it a disagreement is a violation.
	CatchUpBound time.Duration
	// ReceiverDowntime is how long the platforms' webhook receivers stay
	// stopped (the receiver_downtime fault).
	ReceiverDowntime time.Duration
	// WebhookWait bounds the final wait for every expected webhook to
	// arrive. It must cover the webhooks service's retry after the
	// downtime: with the default schedule (5s, 5m, ...) a delivery refused
	// during a 5-minute downtime is retried up to 5 min 5 s after its
	// first failure.
	WebhookWait time.Duration
	// Progress receives one line per phase (nil: discarded).
	Progress io.Writer
}

func (c *Config) defaults() {
	if c.Duration <= 0 {
		c.Duration = 30 * time.Minute
	}
	if c.Rate <= 0 {
		c.Rate = 8
	}
	if c.Clients <= 0 {
		c.Clients = 3
	}
	if c.BusinessesPerClient <= 0 {
		c.BusinessesPerClient = 3
	}
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	if c.FaultInterval <= 0 {
		c.FaultInterval = 30 * time.Second
	}
	if c.BrokerOutage <= 0 {
		c.BrokerOutage = 30 * time.Second
	}
	if c.UnknownBound <= 0 {
		c.UnknownBound = 2 * time.Minute
	}
	if c.CatchUpBound <= 0 {
		c.CatchUpBound = 2 * time.Minute
	}
	if c.ReceiverDowntime <= 0 {
		c.ReceiverDowntime = 5 * time.Minute
	}
	if c.WebhookWait <= 0 {
		c.WebhookWait = 8 * time.Minute
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

// StackOptions are what the soak needs of the stack besides `make run`'s:
// two transactions processes (so the relay has a standby), a short
// Idempotency-Key reservation (a request cut by a kill -9 can be retried
// after 15 s, not 5 min) and a rate limit above the driver's rate.
func StackOptions(o stack.Options) stack.Options {
	if o.Replicas == nil {
		o.Replicas = map[string]int{}
	}
	if o.Replicas["transactions"] < 2 {
		o.Replicas["transactions"] = 2
	}
	o.ExtraEnv = append(o.ExtraEnv, "IDEMPOTENCY_IN_PROGRESS_TIMEOUT=15s", "RECEIPTS_IMPORT_TIMEOUT=5s", "RATE_LIMIT_RPS=5000", "RATE_LIMIT_BURST=5000")
	return o
}

// Run drives the stack st for cfg.Duration with faults, checks, and
// returns the summary (also written next to the log). The error is for a
// run that could not be made; violations are in the summary (Stats.OK).
func Run(ctx context.Context, st *stack.Stack, cfg Config) (*Stats, error) {
	cfg.defaults()
	if cfg.LogPath == "" {
		return nil, errors.New("soak: no log path")
	}
	wlog, err := openLog(cfg.LogPath)
	if err != nil {
		return nil, err
	}
	stats := newStats()
	stats.Seed, stats.Clients, stats.Rate, stats.Log = cfg.Seed, cfg.Clients, cfg.Rate, cfg.LogPath
	stats.CatchUpBound, stats.UnknownBound = Duration(cfg.CatchUpBound), Duration(cfg.UnknownBound)
	progress := func(format string, args ...any) {
		fmt.Fprintf(cfg.Progress, "[soak %s] %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
	}

	bs, receivers, err := setup(ctx, st, cfg, progress)
	if err != nil {
		_ = wlog.close()
		return nil, err
	}
	stats.Businesses = len(bs)
	d := &driver{cfg: cfg, businesses: bs, log: wlog, stats: stats}
	c := &checker{cfg: cfg, verified: map[string]bool{}}
	services := append(stack.ServiceNames(), "gateway")

	started := time.Now()
	driveCtx, stopDriving := context.WithCancel(ctx)
	driving := make(chan struct{})
	go func() { d.run(driveCtx); close(driving) }()
	progress("driving %d businesses of %d clients at %.1f ops/s for %s", len(bs), cfg.Clients, cfg.Rate, cfg.Duration)

	faults := faultPlan(st)
	for i := 0; !cfg.NoFaults; i++ {
		if cfg.OneCycle && i == len(faults) {
			break
		}
		if !cfg.OneCycle && time.Since(started)+cfg.FaultInterval > cfg.Duration {
			break
		}
		if !sleep(ctx, cfg.FaultInterval) {
			break
		}
		fl := faults[i%len(faults)]
		progress("fault %d: %s %s", i+1, fl.kind, fl.target)
		rep := injectFault(ctx, st, fl, cfg)
		// Check at once: the catch-up is measured from the recovery.
		d.gate.Lock()
		f, took := c.check(ctx, bs, st, services, false, stats.DLQ)
		d.gate.Unlock()
		rep.CatchUp = Duration(took)
		rep.Violations = f.violations
		stats.Faults = append(stats.Faults, rep)
		stats.FaultsByKind[fl.kind]++
		stats.MaxCatchUp = max(stats.MaxCatchUp, Duration(took))
		addFindings(stats, f)
		progress("  %s %s: down %s, caught up in %s, %d violations", fl.kind, fl.target, rep.Downtime, rep.CatchUp, len(f.violations))
	}
	if rest := cfg.Duration - time.Since(started); rest > 0 {
		sleep(ctx, rest)
	}
	stopDriving()
	<-driving
	stats.Duration = Duration(time.Since(started))
	progress("load stopped after %s; resolving %d unknown-outcome writes", stats.Duration, pendingCount(bs))
	d.resolve(ctx)
	progress("final check")
	f, took := c.check(ctx, bs, st, services, true, stats.DLQ)
	stats.MaxCatchUp = max(stats.MaxCatchUp, Duration(took))
	addFindings(stats, f)
	progress("waiting (up to %s) for the webhooks of every acknowledged write", cfg.WebhookWait)
	ws, wv := checkWebhooks(ctx, st.ProcURLs, receivers, bs, cfg.WebhookWait)
	stats.Webhooks = ws
	stats.Violations = append(stats.Violations, wv...)
	progress("  webhooks: %d expected, %d missing after %s", ws.Expected, ws.Missing, ws.Waited)
	stats.Violations = append(stats.Violations, prefixed("unresolved unknown outcome: ", stats.Unresolved)...)
	stats.Violations = append(stats.Violations, prefixed("write refused: ", stats.Rejected)...)
	stats.Violations = append(stats.Violations, prefixed("answer mismatch: ", stats.Mismatches)...)
	stats.Violations = append(stats.Violations, prefixed("read failed: ", stats.ReadErrors)...)
	if err := wlog.close(); err != nil {
		return stats, err
	}
	if err := stats.WriteJSON(cfg.LogPath + ".summary.json"); err != nil {
		return stats, err
	}
	return stats, nil
}

func prefixed(p string, l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = p + s
	}
	return out
}

func pendingCount(bs []*business) int {
	n := 0
	for _, b := range bs {
		n += len(b.pending)
	}
	return n
}

func addFindings(s *Stats, f *findings) {
	s.Lost += f.lost
	s.Duplicated += f.duplicated
	s.DuplicateEntries += f.dupEntries
	s.Unbalanced += f.unbalanced
	s.ARMismatches += f.ar
	s.APMismatches += f.ap
	s.PnLMismatches += f.pnl
	s.Violations = append(s.Violations, f.violations...)
}

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// setup creates the platform clients (auth-tokens' admin command), each
// with its webhook endpoint and receiver, then their businesses, waits
// until every service knows each business, and gives each one a custom
// bank account and a vehicle.
func setup(ctx context.Context, st *stack.Stack, cfg Config, progress func(string, ...any)) ([]*business, []receiver, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	var bs []*business
	var receivers []receiver
	runID := fmt.Sprintf("%x", cfg.Seed)[:6]
	for ci := range cfg.Clients {
		out, err := st.Exec(ctx, "auth-tokens", "admin", "create-client", "--name", fmt.Sprintf("soak platform %d", ci))
		if err != nil {
			return nil, nil, fmt.Errorf("admin create-client: %v\n%s", err, out)
		}
		id, secret := parseClient(string(out))
		if id == "" || secret == "" {
			return nil, nil, fmt.Errorf("cannot read the new client's credentials from:\n%s", out)
		}
		c := newAPI(st.GatewayURL, id, secret)
		// Subscribed before its businesses exist, so that their
		// Business.created reaches it too.
		rc, err := subscribe(ctx, st, c, ci, runID, cfg)
		if err != nil {
			return nil, nil, err
		}
		receivers = append(receivers, rc)
		for bi := range cfg.BusinessesPerClient {
			ext := fmt.Sprintf("soak-%s-%d-%d", runID, ci, bi)
			raw := fmt.Sprintf(`{"legal_name":"Soak %s","external_id":%q,"country":"US","us_state":"CA","entity_type":"LLC","default_reporting_basis":"ACCRUAL","activation_at":"2026-01-01"}`, ext, ext)
			r, _, err := c.write(ctx, http.MethodPost, "/v1/businesses", "application/json", []byte(raw), "soak-biz-"+ext, cfg.UnknownBound)
			if err != nil || r.status != http.StatusCreated && r.status != http.StatusOK {
				return nil, nil, fmt.Errorf("create business %s: %v %d %s", ext, err, r.status, truncate(r.body))
			}
			bs = append(bs, newBusiness(c, ci, str(r.data(), "id"), ext, rng.Uint64()))
		}
	}
	for _, b := range bs {
		// The business reaches the other services through acct.business.v1.
		for _, p := range []string{"/ledger/chart", "/invoices", "/vendors", "/mileage/vehicles", "/customers",
			"/reports/profit-and-loss?start_date=2026-01-01&end_date=2026-01-31"} {
			deadline := time.Now().Add(time.Minute)
			for {
				r, err := b.client.do(ctx, http.MethodGet, b.base()+p, "", nil, "")
				if err == nil && r.status == http.StatusOK {
					break
				}
				if time.Now().After(deadline) {
					return nil, nil, fmt.Errorf("business %s never reached %s: %v %d %s", b.id, p, err, r.status, truncate(r.body))
				}
				if !sleep(ctx, 200*time.Millisecond) {
					return nil, nil, ctx.Err()
				}
			}
		}
		acct := jsonOp("custom_account", http.MethodPost, b.base()+"/custom-accounts", map[string]any{
			"account_name": "Operating", "institution_name": "Soak Bank", "mask": "1234",
			"account_type": "DEPOSITORY", "account_subtype": "CHECKING", "external_id": "soak-op"}, "soak-acct-"+b.id, created, nil)
		r, _, err := b.client.write(ctx, acct.method, acct.path, acct.contentType, acct.body, acct.key, cfg.UnknownBound)
		if err != nil || r.status != http.StatusCreated {
			return nil, nil, fmt.Errorf("custom account: %v %d %s", err, r.status, truncate(r.body))
		}
		b.acctID = str(r.data(), "id")
		veh := jsonOp("vehicle", http.MethodPost, b.base()+"/mileage/vehicles", map[string]any{"make_and_model": "Van", "year": 2021,
			"external_id": "soak-van"}, "soak-van-"+b.id, created, nil)
		r, _, err = b.client.write(ctx, veh.method, veh.path, veh.contentType, veh.body, veh.key, cfg.UnknownBound)
		if err != nil || r.status != http.StatusCreated {
			return nil, nil, fmt.Errorf("vehicle: %v %d %s", err, r.status, truncate(r.body))
		}
		b.vehicleID = str(r.data(), "id")
	}
	progress("%d clients, %d businesses ready, %d webhook receivers subscribed", cfg.Clients, len(bs), len(receivers))
	return bs, receivers, nil
}

func parseClient(out string) (id, secret string) {
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(strings.ToLower(k)) {
		case "client_id":
			id = strings.TrimSpace(v)
		case "client_secret":
			secret = strings.TrimSpace(v)
		}
	}
	return id, secret
}
