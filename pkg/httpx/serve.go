package httpx

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Serve listens on addr and serves app until ctx is cancelled, then stops
// accepting connections and lets in-flight requests finish for up to drain.
func Serve(ctx context.Context, app *fiber.App, addr string, drain time.Duration) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("httpx: listen %s: %w", addr, err)
	}
	return ServeListener(ctx, app, ln, drain)
}

// ServeListener is Serve on an existing listener (tests use 127.0.0.1:0).
// Its connections close lingering (linger.go), so an answer sent while the
// client is still writing a refused body is read, not lost to a reset.
func ServeListener(ctx context.Context, app *fiber.App, ln net.Listener, drain time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- app.Listener(lingerListener{ln}) }()
	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("httpx: serve: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	shutdownErr := app.ShutdownWithTimeout(drain)
	// Listener returns once the listener is closed by the shutdown.
	if err := <-errc; err != nil && !errors.Is(err, net.ErrClosed) {
		return errors.Join(shutdownErr, fmt.Errorf("httpx: serve: %w", err))
	}
	if shutdownErr != nil {
		return fmt.Errorf("httpx: drain did not finish within %s: %w", drain, shutdownErr)
	}
	return nil
}
