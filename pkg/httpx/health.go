package httpx

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/apperr"
)

// ReadyTimeout bounds each readiness check.
const ReadyTimeout = 2 * time.Second

type statusBody struct {
	Status string `json:"status"`
}

// Health registers GET /healthz (the process is alive) and GET /readyz
// (every named check passes within ReadyTimeout). A failing readiness
// answers 503 Unavailable whose meta.failed_checks lists only the names of
// the failed checks; their errors go to the log, not the wire.
func Health(app *fiber.App, checks map[string]func(context.Context) error) {
	logger := loggerOf(app)
	app.Get("/healthz", func(c *fiber.Ctx) error {
		return c.JSON(statusBody{Status: "ok"})
	})
	app.Get("/readyz", func(c *fiber.Ctx) error {
		failed := runChecks(c.UserContext(), checks, logger, RequestID(c))
		if len(failed) == 0 {
			return c.JSON(statusBody{Status: "ok"})
		}
		// Written here rather than through ErrorHandler: apperr strips meta
		// from 5xx bodies, and check names are the one detail worth showing.
		return c.Status(fiber.StatusServiceUnavailable).JSON(apperr.Body{
			Type:        string(apperr.Unavailable),
			Description: "service not ready",
			Meta:        map[string]any{"failed_checks": failed},
		})
	})
}

type checkResult struct {
	name string
	err  error
}

// runChecks runs the checks concurrently; a check still running at the
// deadline counts as failed even if it ignores its context.
func runChecks(parent context.Context, checks map[string]func(context.Context) error, logger *slog.Logger, rid string) []string {
	if len(checks) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(parent, ReadyTimeout)
	defer cancel()
	results := make(chan checkResult, len(checks))
	for name, check := range checks {
		go func() {
			results <- checkResult{name: name, err: check(ctx)}
		}()
	}
	pending := make(map[string]bool, len(checks))
	for name := range checks {
		pending[name] = true
	}
	var failed []string
	for len(pending) > 0 {
		select {
		case r := <-results:
			delete(pending, r.name)
			if r.err != nil {
				failed = append(failed, r.name)
				logger.Warn("readiness check failed", "check", r.name, "error", r.err.Error(), "request_id", rid)
			}
		case <-ctx.Done():
			for name := range pending {
				failed = append(failed, name)
				logger.Warn("readiness check timed out", "check", name, "request_id", rid)
			}
			pending = nil
		}
	}
	slices.Sort(failed)
	return failed
}
