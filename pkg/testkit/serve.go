package testkit

import (
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
)

// Serve makes app listen on 127.0.0.1 on a free port and returns its base
// URL ("http://127.0.0.1:port"); the app is shut down at cleanup. Its
// connections close lingering, as a served service's do (httpx.Serve).
func Serve(t testing.TB, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testkit: listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- app.Listener(httpx.LingeringListener(ln)) }()
	t.Cleanup(func() {
		if err := app.ShutdownWithTimeout(10 * time.Second); err != nil {
			t.Errorf("testkit: shutdown app: %v", err)
		}
		// A shutdown that ran before the serving goroutine reached Serve
		// would leave it serving forever: closing the listener makes that
		// Serve return at once.
		_ = ln.Close()
		if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("testkit: serve app: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}
