package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/acctsuite/acct/pkg/apperr"
)

// observer is the outermost middleware: request id, access log, metrics.
type observer struct {
	service  string
	logger   *slog.Logger
	access   *accessLog // nil: access lines go through logger
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec

	// handles caches the labelled metric children per (route, method,
	// status): lookups read an immutable map through an atomic pointer, so
	// the steady state takes no lock; a miss copies the map under mu.
	handles atomic.Pointer[map[metricKey]metricHandles]
	mu      sync.Mutex
}

type metricKey struct {
	route  string // route pattern, never the raw path
	method string
	status int
}

type metricHandles struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func newObserver(service string, logger *slog.Logger, reg *prometheus.Registry, accessLog io.Writer) *observer {
	labels := []string{"service", "method", "route", "status"}
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total",
		Help: "HTTP requests served, by route pattern and status.",
	}, labels)
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "http_request_duration_seconds",
		Help:    "HTTP request latency, by route pattern and status.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, labels)
	o := &observer{
		service:  service,
		logger:   logger.With(slog.String("component", "http")),
		requests: register(reg, requests),
		duration: register(reg, duration),
	}
	if accessLog != nil {
		o.access = newAccessLog(accessLog, service)
	}
	empty := map[metricKey]metricHandles{}
	o.handles.Store(&empty)
	return o
}

// register reuses a collector already on the registry (several apps of one
// process, e.g. in tests, share the service's registry).
func register[C prometheus.Collector](reg *prometheus.Registry, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(fmt.Sprintf("httpx: register metrics: %v", err))
	}
	return c
}

func (o *observer) handle(c *fiber.Ctx) error {
	start := time.Now()
	rid := c.Get(HeaderRequestID)
	if validRequestID(rid) {
		rid = strings.Clone(rid) // c.Get aliases a buffer fasthttp reuses
	} else {
		rid = newRequestID()
		// Handlers that forward the request (the gateway) pass it on.
		c.Request().Header.Set(HeaderRequestID, rid)
	}
	c.Locals(LocalRequestID, rid)

	if err := c.Next(); err != nil {
		if herr := c.App().ErrorHandler(c, err); herr != nil {
			c.Status(http.StatusInternalServerError)
		}
	}
	c.Response().Header.Set(HeaderRequestID, rid)

	elapsed := time.Since(start)
	status := c.Response().StatusCode()
	route := c.Route()
	pattern := route.Path
	if c.Locals(localUnmatched) != nil {
		pattern = "unmatched"
	}
	mh := o.metricsFor(metricKey{route: pattern, method: route.Method, status: status})
	mh.requests.Inc()
	mh.duration.Observe(elapsed.Seconds())

	if quiet(pattern, status) {
		return nil
	}
	ctx := c.UserContext()
	h := o.logger.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return nil
	}
	if o.access != nil {
		cid, _ := c.Locals(LocalClientID).(string)
		o.access.write(time.Now(), accessEntry{
			method: route.Method, route: pattern, path: c.Request().URI().PathOriginal(),
			status: status, elapsed: elapsed, requestID: rid, clientID: cid,
		})
		return nil
	}
	// A record built by hand with pc 0 skips the runtime.Callers that
	// Logger.LogAttrs pays for a source location nobody reads here.
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(
		slog.String("method", route.Method),
		slog.String("route", pattern),
		slog.String("path", strings.Clone(c.Path())),
		slog.Int("status", status),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		slog.String("request_id", rid),
	)
	if cid, ok := c.Locals(LocalClientID).(string); ok && cid != "" {
		r.AddAttrs(slog.String("client_id", cid))
	}
	_ = h.Handle(ctx, r)
	return nil
}

// quiet keeps probes and scrapes out of the access log unless they fail.
func quiet(route string, status int) bool {
	if status >= 400 {
		return false
	}
	switch route {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return false
}

func (o *observer) metricsFor(k metricKey) metricHandles {
	if h, ok := (*o.handles.Load())[k]; ok {
		return h
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	cur := *o.handles.Load()
	if h, ok := cur[k]; ok {
		return h
	}
	status := strconv.Itoa(k.status)
	h := metricHandles{
		requests: o.requests.WithLabelValues(o.service, k.method, k.route, status),
		duration: o.duration.WithLabelValues(o.service, k.method, k.route, status),
	}
	next := make(map[metricKey]metricHandles, len(cur)+1)
	for key, v := range cur {
		next[key] = v
	}
	next[k] = h
	o.handles.Store(&next)
	return h
}

// validRequestID accepts ids a client or an upstream proxy may send: 1–128
// characters of letters, digits and - _ . : (enough for UUIDs, ULIDs and
// trace-like ids; nothing that could forge log lines or headers).
func validRequestID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9':
		case ch == '-', ch == '_', ch == '.', ch == ':':
		default:
			return false
		}
	}
	return true
}

// RequestID is the id of the request being served.
func RequestID(c *fiber.Ctx) string {
	rid, _ := c.Locals(LocalRequestID).(string)
	return rid
}

var errPanic = errors.New("handler panicked")

// recoverer turns a panic into a 500 error object and logs the stack.
func recoverer(logger *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			logger.LogAttrs(context.Background(), slog.LevelError, "panic while serving request",
				slog.String("request_id", RequestID(c)),
				slog.String("method", c.Method()),
				slog.String("path", c.Path()),
				slog.Any("panic", r),
				slog.String("stack", string(debug.Stack())))
			err = apperr.Wrap(apperr.Internal, fmt.Errorf("%w: %v", errPanic, r), "internal error")
		}()
		return c.Next()
	}
}
