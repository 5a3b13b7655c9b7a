package soak

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/tools/internal/stack"
)

// TestSoakShort is `make soak` in small: the same driver, faults and
// checker over the real binaries (started as `make run` starts them, with
// a standby transactions process), one fault of each kind — kill -9 of
// every service process (the webhooks service included) and of the
// gateway, a 30 s broker outage, a PostgreSQL restart, the relay leader's
// kill and 15 s of webhook receiver downtime — and 0 lost, 0 duplicates,
// balanced ledgers, P&L equal to the journal, empty DLQs, and a signed
// webhook for every acknowledged write at its platform's receiver. The
// webhooks service retries on a short schedule here (1s, 2s, 5s, 10s...)
// so that the deliveries refused during the downtime come back in
// seconds; `make soak` keeps the product's schedule.
func TestSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak starts the whole suite; -short skips it")
	}
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	if err := stack.BuildBinaries(root, bin); err != nil {
		t.Fatal(err)
	}
	logs, err := os.Create(filepath.Join(tmp, "stack.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	st, err := stack.Start(ctx, StackOptions(stack.Options{
		BinDir:           bin,
		DataDir:          filepath.Join(tmp, "data"),
		PGPort:           stack.FreePort(),
		BrokerPort:       stack.FreePort(),
		FreeServicePorts: true,
		GatewayAddr:      fmt.Sprintf("127.0.0.1:%d", stack.FreePort()),
		Logs:             logs,
		ExtraEnv:         []string{"LOG_LEVEL=warn"},
		// A killed webhooks process's in-flight deliveries go again after
		// the lease: a short one keeps the final wait short.
		ServiceEnv: map[string][]string{"webhooks": {"WEBHOOKS_RETRY_SCHEDULE=" + shortRetrySchedule, "WEBHOOKS_LEASE=25s"}},
	}))
	if err != nil {
		t.Fatalf("starting the stack: %v\n%s", err, tail(logs.Name()))
	}
	defer st.Stop()
	stats, err := Run(ctx, st, Config{
		Duration:            30 * time.Second, // the faults, one of each, take longer: the run lasts until they are done
		Rate:                6,
		Clients:             2,
		BusinessesPerClient: 2,
		Seed:                uint64(time.Now().UnixNano()),
		LogPath:             filepath.Join(tmp, "writes.jsonl"),
		FaultInterval:       3 * time.Second,
		OneCycle:            true,
		ReceiverDowntime:    15 * time.Second,
		// A delivery in flight when the webhooks service is killed waits
		// for its lease (WEBHOOKS_LEASE, 25 s here) before it goes again.
		WebhookWait: 90 * time.Second,
		Progress:    &testWriter{t},
	})
	if err != nil {
		t.Fatalf("soak: %v\n%s", err, tail(logs.Name()))
	}
	var out bytes.Buffer
	stats.Print(&out)
	t.Log("\n" + out.String())
	if total(stats.Acknowledged) < 50 {
		t.Errorf("only %d writes acknowledged", total(stats.Acknowledged))
	}
	for _, k := range []string{FaultKill9, FaultBroker, FaultPostgres, FaultRelayLeader, FaultReceiver} {
		if stats.FaultsByKind[k] == 0 {
			t.Errorf("no %s fault injected", k)
		}
	}
	if stats.FaultsByKind[FaultKill9] < len(stack.ServiceNames())+1 {
		t.Errorf("%d kill -9, want one per service process and the gateway", stats.FaultsByKind[FaultKill9])
	}
	killed := map[string]bool{}
	for _, f := range stats.Faults {
		if f.Kind == FaultKill9 {
			killed[f.Target] = true
		}
	}
	if !killed["webhooks"] {
		t.Errorf("the webhooks service was not killed: %v", killed)
	}
	if wh := stats.Webhooks; wh.Receivers != 2 || wh.Expected < 50 || wh.Missing != 0 || wh.Rejected != 0 || wh.Received < wh.Expected {
		t.Errorf("webhooks: %+v", wh)
	}
	if len(stats.DLQ) < len(stack.ServiceNames())-1 {
		t.Errorf("dlq count answered for %v only", stats.DLQ)
	}
	for _, f := range stats.Faults {
		if f.Kind == FaultRelayLeader && f.Takeover <= 0 {
			t.Errorf("relay leader kill without a measured takeover: %+v", f)
		}
		if f.Kind == FaultBroker && !strings.Contains(f.Note, "survived") {
			t.Errorf("broker outage without the data check: %+v", f)
		}
		if f.Kind == FaultReceiver && f.RefusedAttempts == 0 {
			t.Errorf("no delivery attempt was refused during the receivers' downtime: %+v", f)
		}
	}
	if stats.Lost != 0 || stats.Duplicated != 0 || stats.DuplicateEntries != 0 || stats.Unbalanced != 0 ||
		stats.ARMismatches != 0 || stats.APMismatches != 0 || stats.PnLMismatches != 0 || !stats.OK() {
		t.Errorf("violations (log %s)\n%s", stats.Log, tail(logs.Name()))
	}
}

// shortRetrySchedule is WEBHOOKS_RETRY_SCHEDULE for the short soak.
const shortRetrySchedule = "1s,2s,5s,10s,10s,10s,10s"

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	return strings.Join(lines, "\n")
}
