// Package contractfuzz is the suite's contract fuzzer: it starts the whole
// stack (private PostgreSQL, embedded broker, every service, gateway) exactly
// as `make run` does, reads the merged OpenAPI document from the gateway and
// sends generated requests (valid, boundary and invalid) for every operation,
// failing on any 5xx, any answer the document does not describe, any error
// without the error object, and any process that restarted or exited.
package contractfuzz

import (
	"context"
	"encoding/base64"
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
	tmp, err := os.MkdirTemp("", "acct-contractfuzz-")
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
		ExtraEnv: []string{"LOG_LEVEL=warn", "BODY_LIMIT_BYTES=1048576", "RATE_LIMIT_RPS=1000000", "RATE_LIMIT_BURST=1000000", "OPENAPI_REFRESH_INTERVAL=5s",
			// acctsync on, so that its routes answer for real instead of the
			// documented 503 of an unconfigured server; the provider is a
			// closed local port (the fuzzer never holds a valid state, so
			// the callback never reaches it).
			"ACCTSYNC_CLIENT_ID=fuzz", "ACCTSYNC_CLIENT_SECRET=fuzz-secret",
			"ACCTSYNC_AUTH_URL=http://127.0.0.1:9/authorize", "ACCTSYNC_TOKEN_URL=http://127.0.0.1:9/token",
			"ACCTSYNC_API_BASE_URL=http://127.0.0.1:9", "ACCTSYNC_REDIRECT_URL=http://127.0.0.1:9/callback",
			"ACCTSYNC_TOKEN_ENCRYPTION_KEY=" + base64.StdEncoding.EncodeToString(make([]byte, 32))},
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
		// The services' own account of every 5xx they answered.
		var fivexx []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, `"status":5`) && !strings.Contains(l, `"status":503`) {
				fivexx = append(fivexx, l)
			}
		}
		fmt.Fprintf(os.Stderr, "--- 5xx in the stack log (%d, last 40) ---\n%s\n", len(fivexx), lastN(strings.Join(fivexx, "\n"), 40))
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
		return "", fmt.Errorf("contractfuzz needs the go.work workspace")
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
