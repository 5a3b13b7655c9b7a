// Package httpx is the HTTP app factory every service and the gateway share:
// a Fiber v2 app with request ids, panic recovery, OpenTelemetry server
// spans, Prometheus metrics, an access log, body limits and timeouts, and the
// single error handler that turns any error into the spec's error object. It
// also holds the request helpers (BindJSON, UUIDParam, QueryBool, QueryInt),
// the response wrappers (OK, Created, List), the health endpoints and the
// graceful server loop.
package httpx

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Defaults applied when the matching Options field is zero.
const (
	DefaultBodyLimit    = 10 << 20
	DefaultReadTimeout  = 30 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	DefaultIdleTimeout  = 120 * time.Second
	// DefaultStreamTimeout: a 50 MB upload at 64 KiB/s.
	DefaultStreamTimeout = 15 * time.Minute
)

// Header and locals names shared with other packages.
const (
	HeaderRequestID = "X-Request-Id"
	// LocalRequestID is the c.Locals key holding the request id (string).
	LocalRequestID = "request_id"
	// LocalClientID is the c.Locals key the access log reads the
	// authenticated client id (string) from.
	LocalClientID = "client_id"
)

// Options configures New.
type Options struct {
	Service           string // service label on metrics and logs
	BodyLimit         int    // bytes; DefaultBodyLimit when 0
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	Logger            *slog.Logger // slog.Default() when nil
	StreamRequestBody bool         // let handlers stream large bodies (gateway proxying)
	// StreamBody, when set, names the requests whose handlers read their
	// body as it arrives (StreamedBody), such as a large file upload: such a
	// body is never held whole in memory, and the handler bounds what it
	// reads. Every other request's body is read before its handler runs, at
	// most BodyLimit bytes (413 beyond), as without streaming.
	StreamBody func(c *fiber.Ctx) bool
	// StreamTimeout bounds how long a streamed body (StreamBody) may take
	// to arrive in all, DefaultStreamTimeout when 0. Meanwhile ReadTimeout
	// bounds each pause in its arrival, not the whole upload.
	StreamTimeout time.Duration
	// Metrics receives the HTTP metrics and is served at GET /metrics. When
	// nil a private registry with Go and process collectors is used.
	Metrics *prometheus.Registry
	// NoMetricsRoute leaves GET /metrics off this app (the registry is
	// served on an admin listener instead).
	NoMetricsRoute bool
	// AccessLog, when set, receives the access log as hand-built JSON
	// lines (the fields of the slog record, one Write per line) instead of
	// records through Logger: a fraction of the cost, for the gateway's
	// hot path. Lines are written only when Logger is enabled at info.
	// telemetry.Stdout() is the writer behind telemetry.Logger.
	AccessLog io.Writer
	// Classify, when set, gets the errors that are neither *apperr.Error
	// nor *fiber.Error before they become a 500, and may give them their
	// error object (pgdb.Classify: a contended transaction is a 503).
	Classify func(error) *apperr.Error
}

// New builds the app. Register routes on it, then call Finish last.
func New(opts Options) *fiber.App {
	if opts.BodyLimit <= 0 {
		opts.BodyLimit = DefaultBodyLimit
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.StreamTimeout <= 0 {
		opts.StreamTimeout = DefaultStreamTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Metrics == nil {
		opts.Metrics = prometheus.NewRegistry()
		opts.Metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	logger := opts.Logger

	app := fiber.New(fiber.Config{
		AppName:           opts.Service,
		BodyLimit:         opts.BodyLimit,
		ReadTimeout:       opts.ReadTimeout,
		WriteTimeout:      opts.WriteTimeout,
		IdleTimeout:       opts.IdleTimeout,
		StreamRequestBody: opts.StreamRequestBody || opts.StreamBody != nil,
		// A streamed multipart body is read by its handler, not parsed
		// ahead into temporary files.
		DisablePreParseMultipartForm: opts.StreamBody != nil,
		ReadBufferSize:               16 << 10, // bearer tokens plus trace headers outgrow fasthttp's 4 KiB
		DisableStartupMessage:        true,
		ErrorHandler:                 ErrorHandler(logger, opts.Classify),
		// Answers are encoded byte for byte as encoding/json would
		// (escaping, key order, RawMessage compacted), about twice as
		// fast: a listing page of 100 invoices spends a fifth of its
		// service time encoding.
		JSONEncoder: fastjson.Marshal,
	})

	loggers.Store(app, logger)
	obs := newObserver(opts.Service, logger, opts.Metrics, opts.AccessLog)
	app.Use(obs.handle, tracing(), recoverer(logger))
	if opts.StreamBody != nil {
		app.Use(boundBodies(opts.BodyLimit, opts.ReadTimeout, opts.StreamTimeout, opts.StreamBody))
	}
	if !opts.NoMetricsRoute {
		app.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(opts.Metrics, promhttp.HandlerOpts{})))
	}
	return app
}

// loggers remembers each app's logger for helpers that only get the app.
var loggers sync.Map // *fiber.App -> *slog.Logger

func loggerOf(app *fiber.App) *slog.Logger {
	if l, ok := loggers.Load(app); ok {
		return l.(*slog.Logger)
	}
	return slog.Default()
}

// localUnmatched marks requests that reached Finish's catch-all.
const localUnmatched = "httpx_unmatched"

// Finish registers the catch-all that must come after every route. Nothing
// matched, so fiber answers 405 MethodNotAllowed when the path exists under
// another method and 404 NotFound otherwise, both as error objects.
func Finish(app *fiber.App) {
	app.Use(func(c *fiber.Ctx) error {
		c.Locals(localUnmatched, true)
		return c.Next()
	})
}

// ErrorHandler is the one place an error becomes the error object:
// *apperr.Error keeps its status and body, *fiber.Error maps through
// apperr.TypeForStatus, classify (when not nil) may name any other error,
// and the rest is a 500 logged with the request id whose body reveals
// nothing. A 503 without Retry-After gets the error's apperr.RetryAfterMeta, or
// "Retry-After: 1".
func ErrorHandler(logger *slog.Logger, classify func(error) *apperr.Error) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		ae := toAppError(err, classify)
		status := ae.Status()
		if status == http.StatusServiceUnavailable && len(c.Response().Header.Peek(fiber.HeaderRetryAfter)) == 0 {
			retry := "1"
			if n, ok := ae.Meta[apperr.RetryAfterMeta].(int); ok && n > 0 {
				retry = strconv.Itoa(n)
			}
			c.Set(fiber.HeaderRetryAfter, retry)
		}
		if status >= http.StatusInternalServerError {
			rid, _ := c.Locals(LocalRequestID).(string)
			logger.LogAttrs(c.UserContext(), slog.LevelError, "request failed",
				slog.String("request_id", rid),
				slog.String("method", c.Method()),
				slog.String("path", c.Path()),
				slog.Int("status", status),
				slog.String("error", err.Error()))
		}
		if status == http.StatusUnauthorized && len(c.Response().Header.Peek(fiber.HeaderWWWAuthenticate)) == 0 {
			c.Set(fiber.HeaderWWWAuthenticate, "Bearer")
		}
		return c.Status(status).JSON(ae.Body())
	}
}

func toAppError(err error, classify func(error) *apperr.Error) *apperr.Error {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae
	}
	if classify != nil {
		if ae := classify(err); ae != nil {
			return ae
		}
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		t := apperr.TypeForStatus(fe.Code)
		msg := fe.Message
		switch fe.Code {
		case fiber.StatusNotFound:
			msg = "route not found"
		case fiber.StatusMethodNotAllowed:
			msg = "method not allowed on this route"
		case fiber.StatusRequestEntityTooLarge:
			msg = "request body too large"
		}
		return &apperr.Error{Type: t, Message: msg, Err: err}
	}
	return apperr.Wrap(apperr.Internal, err, "internal error")
}
