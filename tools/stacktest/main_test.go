// Package stacktest drives the real binaries, started exactly as `make run`
// starts them (private PostgreSQL, embedded broker, every service, gateway),
// through the gateway's public API only.
package stacktest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/tools/internal/stack"
)

var st *stack.Stack

const (
	clientID     = "demo"
	clientSecret = "demo-secret"
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "acct-stacktest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin")
	// Build fresh binaries: the test never depends on an earlier `make build`.
	args := []string{"build", "-o", bin + "/"}
	for _, s := range append(stack.ServiceNames(), "gateway") {
		args = append(args, "./services/"+s+"/cmd/"+s)
	}
	args = append(args, "./tools/cmd/broker")
	build := exec.Command("go", args...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building binaries: %v\n%s", err, out)
		return 1
	}
	logs, _ := os.Create(filepath.Join(tmp, "stack.log"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	st, err = stack.Start(ctx, stack.Options{
		BinDir:                bin,
		DataDir:               filepath.Join(tmp, "data"),
		DatabaseURL:           os.Getenv("TEST_DATABASE_URL"),
		PGPort:                stack.FreePort(),
		BrokerPort:            stack.FreePort(),
		FreeServicePorts:      true,
		GatewayAddr:           fmt.Sprintf("127.0.0.1:%d", stack.FreePort()),
		BootstrapClientID:     clientID,
		BootstrapClientSecret: clientSecret,
		Logs:                  logs,
		ExtraEnv: []string{"LOG_LEVEL=warn", "BODY_LIMIT_BYTES=1048576", "RATE_LIMIT_RPS=5000", "RATE_LIMIT_BURST=5000",
			// A merge that missed a busy service is retried soon (default 30s).
			"OPENAPI_REFRESH_INTERVAL=5s"},
	})
	if err != nil {
		b, _ := os.ReadFile(logs.Name())
		fmt.Fprintf(os.Stderr, "starting the stack: %v\n--- stack log ---\n%s\n", err, lastN(string(b), 80))
		return 1
	}
	code := m.Run()
	st.Stop()
	if code != 0 {
		b, _ := os.ReadFile(logs.Name())
		fmt.Fprintf(os.Stderr, "--- stack log (tail) ---\n%s\n", lastN(string(b), 80))
	}
	return code
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", err
	}
	w := strings.TrimSpace(string(out))
	if w == "" || w == "off" {
		return "", fmt.Errorf("stacktest needs the go.work workspace")
	}
	return filepath.Dir(w), nil
}

func lastN(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
