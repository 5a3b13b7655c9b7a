// Command bench is `make bench`: it starts the suite (as `make run` does, on
// free ports and a throw-away data folder) and measures GET /whoami (token
// verified, no database) three ways in one run: directly on auth-tokens,
// through nginx as a plain reverse proxy, and through our gateway (token
// verification, tenancy, rate limits, request ids, metrics). It does so
// twice, with both proxies' access logs off and then on (nginx's default
// format to a file, ours at LOG_LEVEL=info to a file), plus a bare Fiber
// endpoint as the machine's ceiling and a database-backed read. Every
// figure is reported as a ratio to a baseline measured in the same run,
// because shared machines are noisy.
//
// -only all (`make bench`) runs every part of the suite's benchmarks
// (gateway, transactions, invoicing, reports, mileage, bills, webhooks); -only <part>
// (`make bench-<part>`) one of them. Every part returns its figures as
// results (results.go), and the run updates the performance summary
// docs/benchmarks.md and its data docs/benchmarks.json (-table): the rows
// of the sections it measured are replaced, the others kept, each row
// naming the run (date, commit, machine, load, command) it came from.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/acctsuite/acct/tools/internal/stack"
)

// options are the command-line settings of a full run.
type options struct {
	root         string
	dur          time.Duration
	conns        int
	rounds       int
	rate         int
	loadGen      string // "wrk" or "go"
	wrkBin       string
	nginxBin     string
	pprofDir     string // when set, CPU profiles of the gateway go here
	outboxEvents int    // the outbox part's backlog
	gwEnv        envList
	svcEnv       envList // service:KEY=VALUE for the suite's services
	only         string  // gateway, transactions, invoicing, reports, mileage, bills, webhooks or all
	table        string  // the performance summary to update ("" or "none": none)
	txParts      string  // transactions parts: "all", "list" (the listing alone) or "ledger" (the general ledger alone)
	// ledgerLines is the number of lines of the general ledger's account.
	ledgerLines int
	reports     reportsSize
	trips       int // mileage: trips in the summary's business
	bills       billsOptions
	webhooks    webhooksOptions
}

// envList is a repeatable KEY=VALUE flag.
type envList []string

func (e *envList) String() string     { return strings.Join(*e, " ") }
func (e *envList) Set(v string) error { *e = append(*e, v); return nil }

func main() {
	var o options
	flag.StringVar(&o.root, "root", ".", "repository root")
	flag.DurationVar(&o.dur, "duration", 8*time.Second, "length of each measured run")
	flag.IntVar(&o.conns, "connections", 32, "concurrent connections")
	flag.IntVar(&o.rounds, "rounds", 2, "alternating rounds per target (best round is kept)")
	flag.IntVar(&o.rate, "rate", 2000, "requests/s of the fixed-rate latency runs")
	flag.StringVar(&o.loadGen, "load", "", "saturation load generator: wrk or go (default: wrk when installed)")
	flag.StringVar(&o.nginxBin, "nginx", "nginx", "nginx binary (Debian: apt-get install -y nginx-light)")
	flag.StringVar(&o.pprofDir, "pprof-dir", "", "save CPU profiles here: the gateway's saturation runs, the webhooks service's last throughput round")
	flag.StringVar(&o.only, "only", "gateway", "which part: gateway (GET /whoami and a database read, `make bench-gateway`), transactions (import, categorize, listing: `make bench-transactions`), invoicing (invoice listing, payments: `make bench-invoicing`), reports (catch-up, P&L comparison, CSV export: `make bench-reports`), mileage (the summary over 200,000 trips: `make bench-mileage`), bills (receipts parsed per second, bill creation: `make bench-bills`), receipts (real receipts: accuracy per field and folder, time per receipt vs bare tesseract: `make bench-receipts`), webhooks (deliveries per second, event-to-delivery latency, a slow endpoint's isolation: `make bench-webhooks`), outbox (the relay draining a backlog vs the Kafka writer alone: `make bench-outbox`), or all (`make bench`)")
	flag.StringVar(&o.txParts, "tx-parts", "all", "transactions parts: all (import, categorize, listing, general ledger), import (the import and its bound alone), list (the listing alone) or ledger (the general ledger alone)")
	flag.IntVar(&o.ledgerLines, "ledger-lines", 1_000_000, "transactions general ledger: lines on the measured account (1,000,000 by default; smaller while developing)")
	flag.IntVar(&o.reports.catchUpEntries, "reports-entries", 500_000, "reports catch-up: two-line ledger entries published (1,000,000 lines by default; smaller while developing)")
	flag.IntVar(&o.reports.exportRows, "reports-export-rows", 1_000_000, "reports CSV export: bank transactions exported")
	flag.IntVar(&o.trips, "mileage-trips", 200_000, "mileage summary: trips in the business (200,000 by default; smaller while developing)")
	flag.StringVar(&o.bills.parts, "bills-parts", "all", "bills parts: all, receipts (receipts parsed per second) or create (bill creation at concurrency 32)")
	flag.DurationVar(&o.bills.receiptsDur, "receipts-duration", 15*time.Second, "bills: length of each receipts run (two rounds alternating with the baseline per kind; smaller while developing)")
	flag.DurationVar(&o.bills.createDur, "bills-duration", 10*time.Second, "bills: length of the bill creation run through the gateway and of pgbench's (-T)")
	flag.StringVar(&o.webhooks.parts, "webhooks-parts", "all", "webhooks parts: all, throughput (deliveries per second), latency (event to delivery at 200/s) or isolation (a slow endpoint)")
	flag.IntVar(&o.webhooks.deliveries, "webhooks-deliveries", 20_000, "webhooks: deliveries in each throughput backlog (20,000 by default; smaller while developing)")
	flag.DurationVar(&o.webhooks.duration, "webhooks-duration", 20*time.Second, "webhooks: length of the latency run at 200 events/s (the four isolation runs take a quarter each)")
	flag.IntVar(&o.outboxEvents, "outbox-events", 500_000, "outbox: events in the relay's backlog (500,000 by default; smaller while developing)")
	flag.StringVar(&o.table, "table", "docs/benchmarks.md", "the performance summary this run updates (relative to -root; its data is the .json next to it); none to write nothing")
	flag.Var(&o.svcEnv, "service-env", "extra SERVICE:KEY=VALUE for one of the suite's services (repeatable), e.g. customers-invoices:PPROF_ADDR=127.0.0.1:6061 to profile it")
	flag.Var(&o.gwEnv, "gateway-env", "extra KEY=VALUE for the measured gateways (repeatable), e.g. GOGC=200 for experiments")
	bare := flag.String("serve-bare", "", "internal: serve the bare Fiber endpoint on this address")
	target := flag.String("url", "", "load this URL only (with -token) instead of starting the suite")
	token := flag.String("token", "", "bearer token for -url")
	flag.Parse()
	if *bare != "" {
		serveBare(*bare)
		return
	}
	if *target != "" {
		res, err := load(context.Background(), *target, *target, *token, o.conns, o.dur)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %.0f req/s  p50 %s  p90 %s  p99 %s  errors %d\n", *target, res.rps, res.p50, res.p90, res.p99, res.errors)
		return
	}
	parts, err := selectParts(o.only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := o.resolveTools(parts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if err := run(o, parts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// benchParts are the parts of `make bench`, in the order they run.
var benchParts = []string{"gateway", "transactions", "invoicing", "reports", "mileage", "bills", "receipts", "webhooks", "outbox"}

// selectParts is the parts -only names: one of them, or all.
func selectParts(only string) ([]string, error) {
	if only == "all" {
		return benchParts, nil
	}
	for _, p := range benchParts {
		if p == only {
			return []string{p}, nil
		}
	}
	return nil, fmt.Errorf("-only must be %s or all, not %q", strings.Join(benchParts, ", "), only)
}

// resolveTools finds nginx (required when the gateway part runs) and wrk
// (preferred).
func (o *options) resolveTools(parts []string) error {
	if !slices.Contains(parts, "gateway") {
		return nil
	}
	bin, err := exec.LookPath(o.nginxBin)
	if err != nil {
		for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
			if fileExists(p) {
				bin, err = p, nil
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("nginx not found (Debian: apt-get install -y nginx-light): %w", err)
	}
	o.nginxBin = bin
	wrk, wrkErr := exec.LookPath("wrk")
	switch o.loadGen {
	case "":
		o.loadGen = "go"
		if wrkErr == nil {
			o.loadGen, o.wrkBin = "wrk", wrk
		}
	case "wrk":
		if wrkErr != nil {
			return fmt.Errorf("wrk not found (Debian: apt-get install -y wrk): %w", wrkErr)
		}
		o.wrkBin = wrk
	case "go":
	default:
		return fmt.Errorf("-load must be wrk or go, not %q", o.loadGen)
	}
	return nil
}

// serveBare is the machine's ceiling: a Fiber app answering a small JSON
// document, with no middleware, in its own process like the services.
func serveBare(addr string) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/whoami", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"data": fiber.Map{"type": "whoami", "clientName": "bench", "clientId": "bench"}})
	})
	go func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM, os.Interrupt)
		<-ch
		_ = app.Shutdown()
	}()
	if err := app.Listen(addr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// loadResult is one load run's figures (the gateway part).
type loadResult struct {
	name          string
	requests      int64
	errors        int64
	rps           float64
	p50, p90, p99 time.Duration
	// proxyCPU is the CPU time the proxy's own processes (nginx's master
	// and workers, or the gateway) spent per request: unlike req/s it does
	// not depend on how the machine's cores were shared out.
	proxyCPU time.Duration
}

// target is one URL under load.
type target struct{ name, url string }

const (
	nameBare    = "bare-fiber"
	nameDirect  = "auth-tokens direct"
	nameNginx   = "via nginx"
	nameGateway = "via gateway"
)

func run(o options, parts []string) error {
	started := time.Now()
	info := runInfo{Date: started.UTC().Truncate(time.Second), Commit: gitCommit(o.root), Machine: machineInfo(),
		LoadStart: loadAverage(), Command: commandLine(os.Args)}
	info.ID = info.Date.Format(time.RFC3339)
	fmt.Printf("bench run %s: commit %s, %s, load average %s\n", info.ID, info.Commit, info.Machine, info.LoadStart)
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	dataDir, err := os.MkdirTemp("", "acct-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)
	logFile, err := os.Create(filepath.Join(os.TempDir(), "acct-bench.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	fmt.Printf("starting the suite (logs: %s)...\n", logFile.Name())
	// Every round of the CSV export builds its file: an identical export
	// within the reuse window would be the stored file.
	serviceEnv := map[string][]string{"reports": {"EXPORT_REUSE_WINDOW=0"}}
	if o.pprofDir != "" {
		o.webhooks.pprofAddr = fmt.Sprintf("127.0.0.1:%d", stack.FreePort())
		o.webhooks.pprofDir = o.pprofDir
		serviceEnv["webhooks"] = []string{"PPROF_ADDR=" + o.webhooks.pprofAddr}
	}
	for _, kv := range o.svcEnv {
		svc, env, ok := strings.Cut(kv, ":")
		if !ok || !strings.Contains(env, "=") {
			return fmt.Errorf("-service-env %q: want SERVICE:KEY=VALUE", kv)
		}
		serviceEnv[svc] = append(serviceEnv[svc], env)
	}
	st, err := stack.Start(ctx, stack.Options{
		BinDir:           filepath.Join(o.root, "bin"),
		DataDir:          dataDir,
		DatabaseURL:      os.Getenv("DATABASE_URL"),
		PGPort:           stack.FreePort(),
		BrokerPort:       stack.FreePort(),
		FreeServicePorts: true,
		GatewayAddr:      fmt.Sprintf("127.0.0.1:%d", stack.FreePort()),
		Logs:             logFile,
		// auth-tokens is the upstream of every measured path: it logs
		// only warnings in both settings. A rate limit that would
		// otherwise throttle the load generator's single client is lifted.
		ExtraEnv:   []string{"LOG_LEVEL=warn", "RATE_LIMIT_RPS=1000000", "RATE_LIMIT_BURST=1000000"},
		ServiceEnv: serviceEnv,
	})
	if err != nil {
		return err
	}
	defer st.Stop()

	bareAddr := fmt.Sprintf("127.0.0.1:%d", stack.FreePort())
	self, _ := os.Executable()
	bareCmd := exec.Command(self, "-serve-bare", bareAddr)
	if err := bareCmd.Start(); err != nil {
		return err
	}
	defer func() { _ = bareCmd.Process.Signal(syscall.SIGTERM); _ = bareCmd.Wait() }()
	if err := waitTCP(bareAddr); err != nil {
		return fmt.Errorf("bare fiber: %w", err)
	}

	token, err := fetchToken(st)
	if err != nil {
		return err
	}
	info.Parts = append(info.Parts, partRun{Part: "suite start", DurationS: time.Since(started).Seconds()})

	// Every part runs even when an earlier one failed (each makes its own
	// businesses); the figures of the parts that ran are written.
	var all []result
	var errs []error
	for _, part := range parts {
		if ctx.Err() != nil {
			info.Incomplete = true
			errs = append(errs, fmt.Errorf("interrupted before %s", part))
			break
		}
		t0 := time.Now()
		res, err := o.runPart(ctx, part, st, dataDir, bareAddr, token)
		pr := partRun{Part: part, DurationS: time.Since(t0).Seconds()}
		if err != nil {
			pr.Error = firstLine(err.Error(), 200)
			info.Incomplete = true
			errs = append(errs, fmt.Errorf("%s: %w", part, err))
			fmt.Fprintf(os.Stderr, "bench: %s failed after %s: %v\n", part, time.Since(t0).Round(time.Second), err)
		}
		info.Parts = append(info.Parts, pr)
		all = append(all, res...)
	}
	info.DurationS = time.Since(started).Seconds()
	info.LoadEnd = loadAverage()
	fmt.Printf("\n%d figures in %s:\n", len(all), time.Since(started).Round(time.Second))
	for _, r := range all {
		fmt.Printf("  %-13s %-70s %s\n", r.Part, r.Name, r.verdict())
	}
	if o.table != "" && o.table != "none" && len(all) > 0 {
		path := o.table
		if !filepath.IsAbs(path) {
			path = filepath.Join(o.root, path)
		}
		if err := writeTable(path, info, all); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", path, err))
		} else {
			fmt.Printf("wrote %s (and its .json): the rows of the sections measured now, the others kept\n", path)
		}
	}
	return errors.Join(errs...)
}

// runPart runs one part of the bench and returns its figures (those it
// measured before an error, too).
func (o options) runPart(ctx context.Context, part string, st *stack.Stack, dataDir, bareAddr, token string) ([]result, error) {
	switch part {
	case "gateway":
		return o.runGateway(ctx, st, dataDir, bareAddr, token)
	case "transactions":
		return runTransactions(ctx, st, token, o.txParts, o.ledgerLines)
	case "invoicing":
		return printInvoicing(ctx, st, token)
	case "reports":
		return printReports(ctx, st, token, o.reports)
	case "mileage":
		return printMileage(ctx, st, token, o.trips)
	case "bills":
		return printBills(ctx, st, token, o.root, o.bills)
	case "receipts":
		return printReceipts(ctx, o.root)
	case "webhooks":
		return printWebhooks(ctx, st, token, o.webhooks)
	case "outbox":
		return printOutbox(ctx, st, o.outboxEvents)
	}
	return nil, fmt.Errorf("unknown part %q", part)
}

// runGateway is the gateway part: GET /whoami with access logs off and
// on, then a database read.
func (o options) runGateway(ctx context.Context, st *stack.Stack, dataDir, bareAddr, token string) ([]result, error) {
	fmt.Printf("load: %s for saturation (%d connections), Go open-loop client at %d req/s for latency\n", o.loadGen, o.conns, o.rate)
	var all []result
	var failed int64
	for _, logs := range []bool{false, true} {
		res, n, err := o.measureSetting(ctx, st, dataDir, bareAddr, token, logs)
		all = append(all, res...)
		if err != nil {
			return all, err
		}
		failed += n
	}
	if failed > 0 {
		return all, fmt.Errorf("%d requests failed", failed)
	}
	res, err := o.databaseRead(ctx, st, token)
	return append(all, res...), err
}

// printBills runs the bills benchmarks and prints their summary.
func printBills(ctx context.Context, st *stack.Stack, token, root string, o billsOptions) ([]result, error) {
	sum, res, err := runBills(ctx, st, token, root, o)
	if err != nil {
		return res, fmt.Errorf("bills: %w", err)
	}
	fmt.Printf("\nbills summary (load average now: %s):\n%s", loadAverage(), sum)
	return res, nil
}

// printReceipts runs the real receipts' accuracy and time and prints
// their summary.
func printReceipts(ctx context.Context, root string) ([]result, error) {
	sum, res, err := benchReceiptsReal(ctx, root)
	if err != nil {
		return res, fmt.Errorf("receipts: %w", err)
	}
	fmt.Printf("\nreceipts summary (load average now: %s):\n%s", loadAverage(), sum)
	return res, nil
}

// printWebhooks runs the webhooks benchmarks and prints their summary.
func printWebhooks(ctx context.Context, st *stack.Stack, token string, o webhooksOptions) ([]result, error) {
	sum, res, err := runWebhooks(ctx, st, token, o)
	if err != nil {
		return res, fmt.Errorf("webhooks: %w", err)
	}
	fmt.Printf("\nwebhooks summary (load average now: %s):\n%s", loadAverage(), sum)
	return res, nil
}

// printMileage runs the mileage benchmark and prints its summary.
func printMileage(ctx context.Context, st *stack.Stack, token string, trips int) ([]result, error) {
	sum, res, err := runMileage(ctx, st, token, trips)
	if err != nil {
		return res, fmt.Errorf("mileage: %w", err)
	}
	fmt.Printf("\nmileage summary (load average now: %s):\n%s", loadAverage(), sum)
	return res, nil
}

// printReports runs the reports benchmarks and prints their summary.
func printReports(ctx context.Context, st *stack.Stack, token string, size reportsSize) ([]result, error) {
	sum, res, err := runReports(ctx, st, token, size)
	if err != nil {
		return res, fmt.Errorf("reports: %w", err)
	}
	fmt.Printf("\nreports summary (load average now: %s):\n%s", loadAverage(), sum)
	return res, nil
}

// printInvoicing runs the customers-invoices benchmarks and prints their
// summary.
func printInvoicing(ctx context.Context, st *stack.Stack, token string) ([]result, error) {
	sum, res, err := runInvoicing(ctx, st, token)
	if err != nil {
		return res, fmt.Errorf("invoicing: %w", err)
	}
	fmt.Printf("\ncustomers-invoices summary (load average now: %s):\n%s", loadAverage(), sum)
	return res, nil
}

// measureSetting starts nginx and a gateway with access logs off or on, in
// front of the same auth-tokens, measures direct/nginx/gateway (and the bare
// ceiling with logs off) and prints the comparison. It returns the figures
// and the number of failed requests.
func (o options) measureSetting(ctx context.Context, st *stack.Stack, dataDir, bareAddr, token string, logs bool) ([]result, int64, error) {
	setting, level := "access logs off", "warn"
	if logs {
		setting, level = "access logs on", "info"
	}
	dir := filepath.Join(dataDir, strings.ReplaceAll(setting, " ", "-"))
	ngx, err := startNginx(o.nginxBin, filepath.Join(dir, "nginx"), fmt.Sprintf("127.0.0.1:%d", stack.FreePort()), st.ServiceURLs["auth-tokens"], logs)
	if err != nil {
		return nil, 0, err
	}
	defer ngx.Stop()
	gw, err := o.startGateway(ctx, st, dir, level)
	if err != nil {
		return nil, 0, err
	}
	defer gw.stop()

	targets := []target{
		{nameDirect, st.ServiceURLs["auth-tokens"] + "/whoami"},
		{nameNginx, "http://" + ngx.Addr + "/whoami"},
		{nameGateway, gw.url + "/whoami"},
	}
	if !logs {
		targets = append([]target{{nameBare, "http://" + bareAddr + "/whoami"}}, targets...)
	}
	fmt.Printf("\n== %s (nginx: %s; gateway: LOG_LEVEL=%s to %s) ==\n", setting, orNone(ngx.AccessLog), level, gw.logPath)
	for _, t := range targets { // warm-up: connection pools, caches
		if _, err := o.saturate(ctx, t, token, time.Second); err != nil {
			return nil, 0, err
		}
	}
	best := map[string]loadResult{}
	for r := 0; r < o.rounds; r++ {
		for _, t := range targets {
			var prof *profile
			if t.name == nameGateway && gw.pprofAddr != "" && r == o.rounds-1 {
				prof = startProfile(gw.pprofAddr, o.dur-time.Second)
			}
			pids := map[string]func() []int{nameNginx: ngx.pids, nameGateway: gw.pids}[t.name]
			var cpu0 time.Duration
			if pids != nil {
				cpu0 = processCPU(pids())
			}
			res, err := o.saturate(ctx, t, token, o.dur)
			if err != nil {
				return nil, 0, err
			}
			if pids != nil && res.requests > 0 {
				res.proxyCPU = (processCPU(pids()) - cpu0) / time.Duration(res.requests)
			}
			if prof != nil {
				path := filepath.Join(o.pprofDir, "gateway-"+strings.ReplaceAll(setting, " ", "-")+".pprof")
				if err := prof.save(path); err != nil {
					fmt.Printf("  (profile not saved: %v)\n", err)
				} else {
					fmt.Printf("  CPU profile of the gateway: %s\n", path)
				}
			}
			fmt.Printf("  round %d %-20s %9.0f req/s  p50 %-9s p99 %-9s errors %d%s\n", r+1, t.name, res.rps, res.p50, res.p99, res.errors, cpuNote(res))
			if b, ok := best[t.name]; !ok || res.rps > b.rps {
				best[t.name] = res
			}
		}
	}
	// Latency at a fixed request rate below saturation: at saturation p50
	// only mirrors throughput (queueing), here it is the added work.
	fixed := map[string]loadResult{}
	for _, t := range targets {
		if t.name == nameBare {
			continue
		}
		res, err := loadAtRate(ctx, t.name, t.url, token, o.rate, o.dur)
		if err != nil {
			return nil, 0, err
		}
		fixed[t.name] = res
	}

	fmt.Printf("\nGET /whoami, %s; load generator, proxies, auth-tokens and PostgreSQL share this machine's %d cores\n", setting, runtime.NumCPU())
	fmt.Printf("saturation: %d connections (%s), %s per run, best of %d rounds\n", o.conns, o.loadGen, o.dur, o.rounds)
	fmt.Printf("  %-20s %10s %10s %10s %10s %14s\n", "target", "req/s", "p50", "p90", "p99", "proxy CPU/req")
	var failed int64
	for _, t := range targets {
		r := best[t.name]
		cpu := "-"
		if r.proxyCPU > 0 {
			cpu = r.proxyCPU.Round(100 * time.Nanosecond).String()
		}
		fmt.Printf("  %-20s %10.0f %10s %10s %10s %14s\n", r.name, r.rps, r.p50, r.p90, r.p99, cpu)
		failed += r.errors
	}
	fmt.Printf("fixed rate: %d req/s for %s (Go open loop, latency from the scheduled send time)\n", o.rate, o.dur)
	for _, t := range targets {
		if r, ok := fixed[t.name]; ok {
			fmt.Printf("  %-20s %10.0f %10s %10s %10s\n", r.name, r.rps, r.p50, r.p90, r.p99)
			failed += r.errors
		}
	}
	direct, ngxR, gwR := best[nameDirect], best[nameNginx], best[nameGateway]
	fd, fn, fg := fixed[nameDirect], fixed[nameNginx], fixed[nameGateway]
	vsNginx := gwR.rps / ngxR.rps
	fmt.Printf("\n%s:\n", setting)
	fmt.Printf("  gateway / nginx throughput:   %.2f (target >= 1.00) %s\n", vsNginx, verdict(vsNginx >= 1.0))
	fmt.Printf("  gateway / direct throughput:  %.2f (nginx / direct: %.2f)\n", gwR.rps/direct.rps, ngxR.rps/direct.rps)
	if ngxR.proxyCPU > 0 {
		fmt.Printf("  proxy CPU per request:        gateway %s, nginx %s (%.2fx)\n", gwR.proxyCPU.Round(100*time.Nanosecond),
			ngxR.proxyCPU.Round(100*time.Nanosecond), float64(gwR.proxyCPU)/float64(ngxR.proxyCPU))
	}
	fmt.Printf("  p50 at %d req/s: gateway %s, nginx %s, direct %s; gateway - nginx = %s (target <= 200µs) %s\n",
		o.rate, fg.p50, fn.p50, fd.p50, fg.p50-fn.p50, verdict(fg.p50-fn.p50 <= 200*time.Microsecond))
	fmt.Printf("  p99 at %d req/s: gateway %s, nginx %s, direct %s\n", o.rate, fg.p99, fn.p99, fd.p99)
	if b, ok := best[nameBare]; ok {
		fmt.Printf("  direct / bare-fiber: %.2f; nginx / bare-fiber: %.2f; gateway / bare-fiber: %.2f\n",
			direct.rps/b.rps, ngxR.rps/b.rps, gwR.rps/b.rps)
	}
	res := []result{
		{Part: "gateway", Section: setting, Name: "GET /whoami through the gateway, saturated, " + setting, Unit: "req/s", Value: gwR.rps,
			Note:     fmt.Sprintf("%s, %d connections, best of %d × %s", o.loadGen, o.conns, o.rounds, o.dur),
			Baseline: "nginx as a plain reverse proxy", BaselineValue: ngxR.rps, Target: []bound{ratioAtLeast(1)}},
		{Part: "gateway", Section: setting, Name: fmt.Sprintf("GET /whoami through the gateway, p50 at %d req/s, %s", o.rate, setting), Unit: "ms",
			Value: durationMS(fg.p50), Note: "p99 " + msText(fg.p99) + "; nginx p99 " + msText(fn.p99),
			Baseline: "nginx p50", BaselineValue: durationMS(fn.p50), Target: []bound{margin(1, 0.2)}},
	}
	if ngxR.proxyCPU > 0 && gwR.proxyCPU > 0 {
		res = append(res, result{Part: "gateway", Section: setting, Name: "proxy CPU per request, gateway, " + setting, Unit: "µs",
			Value: durationUS(gwR.proxyCPU), Baseline: "nginx's processes", BaselineValue: durationUS(ngxR.proxyCPU),
			TargetNote: "the stable figure on shared cores: explains the throughput ratio"})
	}
	if failed > 0 {
		for i := range res {
			res[i].Failure = fmt.Sprintf("%d requests failed", failed)
		}
	}
	return res, failed, nil
}

// saturate loads t with the configured generator.
func (o options) saturate(ctx context.Context, t target, token string, d time.Duration) (loadResult, error) {
	if o.loadGen == "wrk" {
		return wrkLoad(ctx, o.wrkBin, t.name, t.url, token, o.conns, runtime.NumCPU(), d)
	}
	return load(ctx, t.name, t.url, token, o.conns, d)
}

// gatewayProc is a gateway started by the bench with its own log level; its
// output goes straight to a file (as nginx's access log does), not through
// a pipe to this process.
type gatewayProc struct {
	cmd       *exec.Cmd
	url       string
	logPath   string
	pprofAddr string
}

func (o options) startGateway(ctx context.Context, st *stack.Stack, dir, level string) (*gatewayProc, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", stack.FreePort())
	g := &gatewayProc{url: "http://" + addr, logPath: filepath.Join(dir, "gateway.log")}
	out, err := os.Create(g.logPath)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child has its own descriptor
	env := append(os.Environ(),
		"HTTP_ADDR="+addr,
		"LOG_LEVEL="+level,
		"JWKS_URL="+st.ServiceURLs["auth-tokens"]+"/.well-known/jwks.json",
		"UPSTREAM_AUTH_TOKENS_URL="+st.ServiceURLs["auth-tokens"],
		"RATE_LIMIT_RPS=1000000", "RATE_LIMIT_BURST=1000000",
		"OTEL_SERVICE_NAME=gateway",
	)
	env = append(env, o.gwEnv...)
	if o.pprofDir != "" {
		g.pprofAddr = fmt.Sprintf("127.0.0.1:%d", stack.FreePort())
		env = append(env, "PPROF_ADDR="+g.pprofAddr)
	}
	g.cmd = exec.Command(filepath.Join(o.root, "bin", "gateway"))
	g.cmd.Env, g.cmd.Stdout, g.cmd.Stderr = env, out, out
	if err := g.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start gateway: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(g.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return g, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			g.stop()
			return nil, fmt.Errorf("gateway not ready (log: %s)", g.logPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (g *gatewayProc) pids() []int { return []int{g.cmd.Process.Pid} }

func (g *gatewayProc) stop() {
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	_ = g.cmd.Wait()
}

// profile is a CPU profile being taken over HTTP from a pprof listener.
type profile struct {
	done chan struct{}
	data []byte
	err  error
}

func startProfile(addr string, d time.Duration) *profile {
	p := &profile{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, max(1, int(d.Seconds()))))
		if err != nil {
			p.err = err
			return
		}
		defer resp.Body.Close()
		p.data, p.err = io.ReadAll(resp.Body)
	}()
	return p
}

func (p *profile) save(path string) error {
	<-p.done
	if p.err != nil {
		return p.err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, p.data, 0o644)
}

// databaseRead compares direct and gateway on a read that reaches
// PostgreSQL (tenancy check and business row): the gateway's share of a
// realistic request.
func (o options) databaseRead(ctx context.Context, st *stack.Stack, token string) ([]result, error) {
	bizID, err := createBusiness(st, token)
	if err != nil {
		return nil, err
	}
	path := "/v1/businesses/" + bizID
	dbDirect, err := o.saturate(ctx, target{nameDirect, st.ServiceURLs["auth-tokens"] + path}, token, o.dur)
	if err != nil {
		return nil, err
	}
	dbGW, err := o.saturate(ctx, target{nameGateway, st.GatewayURL + path}, token, o.dur)
	if err != nil {
		return nil, err
	}
	fmt.Printf("\nGET /v1/businesses/{id} (PostgreSQL read), %d connections (%s), %s per run\n", o.conns, o.loadGen, o.dur)
	for _, r := range []loadResult{dbDirect, dbGW} {
		fmt.Printf("  %-20s %10.0f %10s %10s %10s\n", r.name, r.rps, r.p50, r.p90, r.p99)
	}
	fmt.Printf("gateway / direct throughput on a database read: %.2f\n", dbGW.rps/dbDirect.rps)
	res := []result{{Part: "gateway", Section: "database read", Name: "GET /v1/businesses/{id} (a PostgreSQL read) through the gateway, saturated",
		Unit: "req/s", Value: dbGW.rps, Note: fmt.Sprintf("%s, %d connections, %s", o.loadGen, o.conns, o.dur),
		Baseline: "auth-tokens directly", BaselineValue: dbDirect.rps, TargetNote: "the gateway's share of a realistic request"}}
	if n := dbDirect.errors + dbGW.errors; n > 0 {
		res[0].Failure = fmt.Sprintf("%d requests failed", n)
		return res, fmt.Errorf("%d requests failed", n)
	}
	return res, nil
}

// processCPU sums the user and system CPU time of pids from /proc (zero
// where /proc is unavailable).
func processCPU(pids []int) time.Duration {
	var ticks int64
	for _, pid := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command name; utime and stime
		// are fields 14 and 15 of the whole line.
		rest := string(data)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + s
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is Linux's USER_HZ, the unit of /proc/<pid>/stat times.
const clockTicks = 100

func cpuNote(r loadResult) string {
	if r.proxyCPU == 0 {
		return ""
	}
	return "  proxy CPU/req " + r.proxyCPU.Round(100*time.Nanosecond).String()
}

func orNone(s string) string {
	if s == "" {
		return "off"
	}
	return s
}

func createBusiness(st *stack.Stack, token string) (string, error) {
	body := strings.NewReader(`{"legal_name":"Bench Co","external_id":"bench-1","country":"US"}`)
	req, _ := http.NewRequest(http.MethodPost, st.GatewayURL+"/v1/businesses", body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Data.ID == "" {
		return "", fmt.Errorf("create business: status %d, %v", resp.StatusCode, err)
	}
	return out.Data.ID, nil
}

func verdict(ok bool) string {
	if ok {
		return "MET"
	}
	return "NOT MET"
}

func fetchToken(st *stack.Stack) (string, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {st.ClientID}, "scope": {"bench"}}
	req, _ := http.NewRequest(http.MethodPost, st.GatewayURL+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(st.ClientID, st.ClientSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.AccessToken == "" {
		return "", fmt.Errorf("token request: status %d, %v", resp.StatusCode, err)
	}
	return body.AccessToken, nil
}

// load runs a closed loop of conns workers against url for d.
func load(ctx context.Context, name, url, token string, conns int, d time.Duration) (loadResult, error) {
	client := &fasthttp.Client{MaxConnsPerHost: conns * 2, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second}
	var total, errs atomic.Int64
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	start := time.Now()
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI(url)
			req.Header.Set("Authorization", "Bearer "+token)
			samples := make([]time.Duration, 0, 1<<16)
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t0 := time.Now()
				err := client.Do(req, resp)
				el := time.Since(t0)
				total.Add(1)
				if err != nil || resp.StatusCode() != http.StatusOK {
					errs.Add(1)
					continue
				}
				samples = append(samples, el)
			}
			lat[w] = samples
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, s := range lat {
		all = append(all, s...)
	}
	if len(all) == 0 {
		return loadResult{}, fmt.Errorf("%s: no successful request (errors %d)", name, errs.Load())
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration { return all[int(float64(len(all)-1)*p)].Round(time.Microsecond) }
	return loadResult{
		name: name, requests: total.Load(), errors: errs.Load(),
		rps: float64(len(all)) / elapsed.Seconds(),
		p50: pct(0.50), p90: pct(0.90), p99: pct(0.99),
	}, nil
}

// loadAtRate sends rate requests/s for d (open loop) and measures each
// latency from its scheduled send time, so a stall is not hidden by the
// requests it delayed (no coordinated omission).
func loadAtRate(ctx context.Context, name, url, token string, rate int, d time.Duration) (loadResult, error) {
	client := &fasthttp.Client{MaxConnsPerHost: 512, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second}
	n := int(float64(rate) * d.Seconds())
	interval := time.Second / time.Duration(rate)
	sched := make(chan time.Time, 1024)
	lat := make([]time.Duration, n)
	var idx, errs atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 128; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI(url)
			req.Header.Set("Authorization", "Bearer "+token)
			for at := range sched {
				if wait := time.Until(at); wait > 0 {
					time.Sleep(wait)
				}
				err := client.Do(req, resp)
				el := time.Since(at)
				if err != nil || resp.StatusCode() != http.StatusOK {
					errs.Add(1)
					continue
				}
				lat[idx.Add(1)-1] = el
			}
		}()
	}
	start := time.Now()
	for i := 0; i < n && ctx.Err() == nil; i++ {
		sched <- start.Add(time.Duration(i) * interval)
	}
	close(sched)
	wg.Wait()
	elapsed := time.Since(start)
	all := lat[:idx.Load()]
	if len(all) == 0 {
		return loadResult{}, fmt.Errorf("%s: no successful request (errors %d)", name, errs.Load())
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration { return all[int(float64(len(all)-1)*p)].Round(time.Microsecond) }
	return loadResult{name: name, requests: int64(n), errors: errs.Load(), rps: float64(len(all)) / elapsed.Seconds(),
		p50: pct(0.50), p90: pct(0.90), p99: pct(0.99)}, nil
}

var errNotListening = errors.New("not listening")

func waitTCP(addr string) error {
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s: %w", addr, errNotListening)
}
