// Command soak is `make soak`: it starts the whole suite as `make run` does
// (plus a standby transactions process), drives it through the gateway
// with several platform clients and businesses at a fixed rate, injects
// faults (kill -9 of every process, a broker outage, a PostgreSQL restart,
// the relay leader's kill, the webhook receivers' downtime), checks the
// invariants after each and at the end (every acknowledged write's
// webhook included), prints a summary and exits 1 on any violation.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/acctsuite/acct/tools/internal/stack"
	"github.com/acctsuite/acct/tools/soak"
)

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func main() {
	os.Exit(run())
}

func run() int {
	root := flag.String("root", ".", "repository root")
	binDir := flag.String("bin", "bin", "folder of the built binaries (make build)")
	duration := flag.Duration("duration", mustDuration(envOr("SOAK_DURATION", "30m")), "how long to drive the suite (env SOAK_DURATION)")
	rate := flag.Float64("rate", mustFloat(envOr("SOAK_RATE", "8")), "operations per second over all businesses (env SOAK_RATE)")
	clients := flag.Int("clients", mustInt(envOr("SOAK_CLIENTS", "3")), "platform clients (env SOAK_CLIENTS)")
	perClient := flag.Int("businesses", mustInt(envOr("SOAK_BUSINESSES", "3")), "businesses per client (env SOAK_BUSINESSES)")
	seed := flag.Uint64("seed", uint64(mustInt(envOr("SOAK_SEED", "0"))), "random seed, 0 for a new one (env SOAK_SEED)")
	logPath := flag.String("log", envOr("SOAK_LOG", ""), "the JSONL log of acknowledged writes (env SOAK_LOG; default .data/soak/writes-<time>.jsonl)")
	interval := flag.Duration("fault-interval", mustDuration(envOr("SOAK_FAULT_INTERVAL", "30s")), "load between two faults (env SOAK_FAULT_INTERVAL)")
	outage := flag.Duration("broker-outage", 30*time.Second, "how long the broker stays stopped")
	catchUp := flag.Duration("catch-up-bound", 2*time.Minute, "the stated bound on the read models' catch-up after a fault")
	downtime := flag.Duration("receiver-downtime", mustDuration(envOr("SOAK_RECEIVER_DOWNTIME", "5m")), "how long the platforms' webhook receivers stay stopped (env SOAK_RECEIVER_DOWNTIME)")
	webhookWait := flag.Duration("webhook-wait", mustDuration(envOr("SOAK_WEBHOOK_WAIT", "8m")), "how long the final check waits for every expected webhook; cover the retry schedule's wait after the downtime (env SOAK_WEBHOOK_WAIT)")
	retrySchedule := flag.String("webhooks-retry-schedule", envOr("SOAK_WEBHOOKS_RETRY_SCHEDULE", ""), "WEBHOOKS_RETRY_SCHEDULE of the webhooks service (env SOAK_WEBHOOKS_RETRY_SCHEDULE; empty: the product's 5s,5m,30m,...)")
	noFaults := flag.Bool("no-faults", false, "load and checks only")
	flag.Parse()

	dataDir, err := os.MkdirTemp("", "acct-soak-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dataDir)
	if *logPath == "" {
		if err := os.MkdirAll(filepath.Join(*root, ".data", "soak"), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		*logPath = filepath.Join(*root, ".data", "soak", "writes-"+time.Now().UTC().Format("20060102-150405")+".jsonl")
	}
	stackLog, err := os.Create(*logPath + ".stack.log")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer stackLog.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Printf("starting the suite (processes' output in %s)\n", stackLog.Name())
	var serviceEnv map[string][]string
	if *retrySchedule != "" {
		serviceEnv = map[string][]string{"webhooks": {"WEBHOOKS_RETRY_SCHEDULE=" + *retrySchedule}}
	}
	st, err := stack.Start(ctx, soak.StackOptions(stack.Options{
		BinDir:           filepath.Join(*root, *binDir),
		DataDir:          filepath.Join(dataDir, "data"),
		PGPort:           stack.FreePort(),
		BrokerPort:       stack.FreePort(),
		FreeServicePorts: true,
		GatewayAddr:      fmt.Sprintf("127.0.0.1:%d", stack.FreePort()),
		Logs:             stackLog,
		ExtraEnv:         []string{"LOG_LEVEL=warn"},
		ServiceEnv:       serviceEnv,
	}))
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the suite: %v (see %s)\n", err, stackLog.Name())
		return 2
	}
	defer st.Stop()
	stats, err := soak.Run(ctx, st, soak.Config{
		Duration: *duration, Rate: *rate, Clients: *clients, BusinessesPerClient: *perClient, Seed: *seed,
		LogPath: *logPath, FaultInterval: *interval, BrokerOutage: *outage, CatchUpBound: *catchUp,
		ReceiverDowntime: *downtime, WebhookWait: *webhookWait, NoFaults: *noFaults, Progress: os.Stdout,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		return 2
	}
	stats.Print(os.Stdout)
	fmt.Printf("write log: %s\nsummary:   %s.summary.json\n", *logPath, *logPath)
	if !stats.OK() {
		return 1
	}
	return 0
}

func mustDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bad duration %q: %v\n", s, err)
		os.Exit(2)
	}
	return d
}

func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bad number %q: %v\n", s, err)
		os.Exit(2)
	}
	return f
}

func mustInt(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bad integer %q: %v\n", s, err)
		os.Exit(2)
	}
	return n
}
