// Package telemetry sets up the process-wide observability plumbing every
// service shares: OpenTelemetry tracing (OTLP/HTTP export when an endpoint is
// configured, W3C trace-context and baggage propagation always) and the JSON
// slog logger written to stdout.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Config is the telemetry block embedded in each service configuration.
type Config struct {
	ServiceName  string `env:"OTEL_SERVICE_NAME"`
	OTLPEndpoint string `env:"OTEL_EXPORTER_OTLP_ENDPOINT"`
	// PprofAddr, when set (e.g. 127.0.0.1:6060), serves net/http/pprof on
	// its own listener, never on the public port. Off by default.
	PprofAddr string `env:"PPROF_ADDR"`
}

// tracesPath is appended to OTEL_EXPORTER_OTLP_ENDPOINT, which names the
// collector's base URL (OTLP exporter specification).
const tracesPath = "/v1/traces"

// Setup installs the W3C TraceContext+Baggage propagator globally and, when
// cfg.OTLPEndpoint is set, a tracer provider exporting spans in batches over
// OTLP/HTTP. Without an endpoint no exporter runs: spans stay non-recording
// but incoming trace context is still propagated. The returned shutdown
// flushes pending spans; call it once on exit.
func Setup(ctx context.Context, cfg Config) (shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if cfg.PprofAddr != "" {
		if err := servePprof(cfg.PprofAddr); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(cfg.OTLPEndpoint) == "" {
		return func(context.Context) error { return nil }, nil
	}
	endpoint, err := tracesURL(cfg.OTLPEndpoint)
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("telemetry: otlp exporter: %w", err)
	}
	tp, err := NewTracerProvider(ctx, cfg.ServiceName, sdktrace.NewBatchSpanProcessor(exp))
	if err != nil {
		return nil, errors.Join(err, exp.Shutdown(ctx))
	}
	otel.SetTracerProvider(tp)
	return tp.Shutdown, nil
}

// NewTracerProvider builds a tracer provider carrying the service name
// resource with the given span processor (tests pass an in-memory one).
func NewTracerProvider(ctx context.Context, service string, sp sdktrace.SpanProcessor) (*sdktrace.TracerProvider, error) {
	if service == "" {
		service = "unknown_service"
	}
	// Plain attribute keys instead of a semconv package keep the resource
	// free of schema-URL conflicts with the SDK's own detectors.
	res, err := resource.New(ctx,
		resource.WithFromEnv(),
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", service)),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(sp),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())),
	), nil
}

// tracesURL turns the base endpoint into the traces URL.
func tracesURL(endpoint string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("telemetry: OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL, got %q", endpoint)
	}
	if !strings.HasSuffix(u.Path, tracesPath) {
		u.Path = strings.TrimSuffix(u.Path, "/") + tracesPath
	}
	return u.String(), nil
}

// flushInterval bounds how long an info line may sit in the log buffer.
const flushInterval = 200 * time.Millisecond
