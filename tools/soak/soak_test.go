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
// every service process and of the gateway, a 30 s broker outage, a
// PostgreSQL restart and the relay leader's kill — and 0 lost, 0
// duplicates, balanced ledgers, P&L equal to the journal and empty DLQs.
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
		Progress:            &testWriter{t},
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
	for _, k := range []string{FaultKill9, FaultBroker, FaultPostgres, FaultRelayLeader} {
		if stats.FaultsByKind[k] == 0 {
			t.Errorf("no %s fault injected", k)
		}
	}
	if stats.FaultsByKind[FaultKill9] < len(stack.ServiceNames())+1 {
		t.Errorf("%d kill -9, want one per service process and the gateway", stats.FaultsByKind[FaultKill9])
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
	}
	if stats.Lost != 0 || stats.Duplicated != 0 || stats.DuplicateEntries != 0 || stats.Unbalanced != 0 ||
		stats.ARMismatches != 0 || stats.APMismatches != 0 || stats.PnLMismatches != 0 || !stats.OK() {
		t.Errorf("violations (log %s)\n%s", stats.Log, tail(logs.Name()))
	}
}

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
