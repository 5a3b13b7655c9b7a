// Package contractfuzz is the suite's contract fuzzer: it starts the whole
// stack (private PostgreSQL, embedded broker, every service, gateway) exactly
// as `make run` does, reads the merged OpenAPI document from the gateway and
// sends generated requests (valid, boundary and invalid) for every operation,
// failing on any 5xx, any answer the document does not describe, any error
// without the error object, and any process that restarted or exited.
package contractfuzz

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
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
		Name:         "contractfuzz",
		ClientID:     clientID,
		ClientSecret: clientSecret,
		ExtraEnv: []string{"LOG_LEVEL=warn", "BODY_LIMIT_BYTES=1048576", "RATE_LIMIT_RPS=1000000", "RATE_LIMIT_BURST=1000000", "OPENAPI_REFRESH_INTERVAL=5s",
			// acctsync on, so that its routes answer for real instead of the
			// documented 503 of an unconfigured server; the provider is a
			// closed local port (the fuzzer never holds a valid state, so
			// the callback never reaches it).
			"ACCTSYNC_CLIENT_ID=fuzz", "ACCTSYNC_CLIENT_SECRET=fuzz-secret",
			"ACCTSYNC_AUTH_URL=http://127.0.0.1:9/authorize", "ACCTSYNC_TOKEN_URL=http://127.0.0.1:9/token",
			"ACCTSYNC_API_BASE_URL=http://127.0.0.1:9", "ACCTSYNC_REDIRECT_URL=http://127.0.0.1:9/callback",
			"ACCTSYNC_TOKEN_ENCRYPTION_KEY=" + base64.StdEncoding.EncodeToString(make([]byte, 32))},
		OnFailure: func(log string) {
			// The services' own account of every 5xx they answered.
			var fivexx []string
			for _, l := range strings.Split(log, "\n") {
				if strings.Contains(l, `"status":5`) && !strings.Contains(l, `"status":503`) {
					fivexx = append(fivexx, l)
				}
			}
			fmt.Fprintf(os.Stderr, "--- 5xx in the stack log (%d, last 40) ---\n%s\n", len(fivexx), stack.LastLines(strings.Join(fivexx, "\n"), 40))
		},
	}.Main(m, func(s *stack.Stack) { st = s }))
}
