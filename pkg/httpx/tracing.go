package httpx

import (
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

const tracerName = "github.com/acctsuite/acct/pkg/httpx"

// tracing starts an OpenTelemetry server span per request, continuing the
// W3C trace context of the incoming headers, and puts it in the user
// context for handlers and outgoing calls. It replaces otelfiber, which
// copies every request header into an http.Header and records OTel metrics
// on each request (about 50 allocations, the bulk of the app's per-request
// cost); here headers are read in place and attributes are only built when
// the span is sampled. The global tracer and propagator delegate to whatever
// telemetry.Setup installs, even after New.
//
// Until a tracer provider is installed (no OTLP endpoint configured) no span
// is started at all: the incoming trace context is still extracted into the
// user context for outgoing calls and events, but the four allocations and
// the bookkeeping of a span nobody records are skipped on every request.
func tracing() fiber.Handler {
	tracer := otel.Tracer(tracerName)
	return func(c *fiber.Ctx) error {
		ctx := otel.GetTextMapPropagator().Extract(c.UserContext(), headerCarrier{&c.Request().Header})
		if otel.GetTracerProvider() == defaultTracerProvider {
			c.SetUserContext(ctx)
			return c.Next()
		}
		ctx, span := tracer.Start(ctx, "http.server", trace.WithSpanKind(trace.SpanKindServer))
		c.SetUserContext(ctx)

		err := c.Next()
		if err != nil {
			// Let the error handler set the status the span should report.
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				c.Status(fiber.StatusInternalServerError)
			}
		}
		if span.IsRecording() {
			route := c.Route()
			status := c.Response().StatusCode()
			span.SetName(route.Method + " " + route.Path)
			span.SetAttributes(
				attribute.String("http.request.method", route.Method),
				attribute.String("http.route", route.Path),
				attribute.String("url.path", string(c.Request().URI().Path())),
				attribute.Int("http.response.status_code", status),
				attribute.String("client.address", c.IP()),
			)
			if rid := RequestID(c); rid != "" {
				span.SetAttributes(attribute.String("http.request.id", rid))
			}
			if err != nil {
				span.RecordError(err)
			}
			if status >= fiber.StatusInternalServerError {
				span.SetStatus(codes.Error, "")
			}
		}
		span.End()
		return nil
	}
}

// defaultTracerProvider is OTel's global provider before any is installed:
// otel.GetTracerProvider returns it until otel.SetTracerProvider is called
// (telemetry.Setup with an OTLP endpoint, or a test), then the installed one.
var defaultTracerProvider = otel.GetTracerProvider()

// headerCarrier reads and writes fasthttp request headers without copying.
type headerCarrier struct{ h *fasthttp.RequestHeader }

var _ propagation.TextMapCarrier = headerCarrier{}

func (hc headerCarrier) Get(key string) string {
	v := hc.h.Peek(key)
	if len(v) == 0 {
		return ""
	}
	return string(v)
}

func (hc headerCarrier) Set(key, value string) { hc.h.Set(key, value) }

func (hc headerCarrier) Keys() []string {
	var keys []string
	hc.h.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}
