// Package stacktest drives the real binaries, started exactly as `make run`
// starts them (private PostgreSQL, embedded broker, every service, gateway),
// through the gateway's public API only.
package stacktest

import (
	"os"
	"testing"

	"github.com/acctsuite/acct/tools/internal/stack"
)

var st *stack.Stack

const (
	clientID     = "demo"
	clientSecret = "demo-secret"
)

func TestMain(m *testing.M) {
	os.Exit(stack.TestRun{
		Name:         "stacktest",
		ClientID:     clientID,
		ClientSecret: clientSecret,
		// The whole suite runs behind PgBouncer in transaction pooling mode,
		// as deployments with a pooler do (every other test connects directly).
		PgBouncer: true,
		ExtraEnv: []string{"LOG_LEVEL=warn", "BODY_LIMIT_BYTES=1048576", "RATE_LIMIT_RPS=5000", "RATE_LIMIT_BURST=5000",
			// A merge that missed a busy service is retried soon (default 30s).
			"OPENAPI_REFRESH_INTERVAL=5s"},
	}.Main(m, func(s *stack.Stack) { st = s }))
}
