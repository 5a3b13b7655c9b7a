package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/testkit"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    slog.Level
		wantErr bool
	}{
		{"debug", slog.LevelDebug, false},
		{"INFO", slog.LevelInfo, false},
		{"", slog.LevelInfo, false},
		{"warn", slog.LevelWarn, false},
		{"warning", slog.LevelWarn, false},
		{" error ", slog.LevelError, false},
		{"loud", slog.LevelInfo, true},
	}
	for _, tt := range tests {
		got, err := ParseLevel(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestNewLoggerJSONWithServiceAndLevel(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, "gateway", "warn")
	log.Info("hidden")
	log.Warn("shown", "k", 1)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want 1 line, got %q", buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if rec["service"] != "gateway" || rec["msg"] != "shown" || rec["level"] != "WARN" || rec["k"] != float64(1) {
		t.Fatalf("record %v", rec)
	}
}

func TestBufferedLoggerFlushes(t *testing.T) {
	var out testkit.SyncBuffer
	bw := NewBufferedWriter(&out, 4096, 0)
	log := NewLogger(bw, "svc", "info")

	log.Info("buffered")
	if out.String() != "" {
		t.Fatalf("info record written through: %q", out.String())
	}
	log.Error("urgent")
	if s := out.String(); !strings.Contains(s, "buffered") || !strings.Contains(s, "urgent") {
		t.Fatalf("error record did not flush the buffer: %q", s)
	}

	periodic := NewBufferedWriter(&out, 4096, 10*time.Millisecond)
	NewLogger(periodic, "svc", "info").Info("later")
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(out.String(), "later") {
		if time.Now().After(deadline) {
			t.Fatal("periodic flush never happened")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTracesURL(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"http://collector:4318", "http://collector:4318/v1/traces", false},
		{"http://collector:4318/", "http://collector:4318/v1/traces", false},
		{"https://otel.example.com/otlp", "https://otel.example.com/otlp/v1/traces", false},
		{"http://collector:4318/v1/traces", "http://collector:4318/v1/traces", false},
		{"collector:4318", "", true},
		{"ftp://collector", "", true},
	}
	for _, tt := range tests {
		got, err := tracesURL(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("tracesURL(%q) = %q, %v; want %q, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestSetupWithoutEndpointSetsPropagators(t *testing.T) {
	shutdown, err := Setup(context.Background(), Config{ServiceName: "svc"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shutdown(context.Background()) }()
	fields := otel.GetTextMapPropagator().Fields()
	if !slices.Contains(fields, "traceparent") || !slices.Contains(fields, "baggage") {
		t.Fatalf("propagator fields %v", fields)
	}
}

func TestSetupRejectsBadEndpoint(t *testing.T) {
	if _, err := Setup(context.Background(), Config{OTLPEndpoint: "not a url"}); err == nil {
		t.Fatal("Setup accepted a malformed endpoint")
	}
}

func TestSetupExportsSpansOverOTLPHTTP(t *testing.T) {
	type hit struct {
		path, contentType string
		size              int
	}
	hits := make(chan hit, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hits <- hit{r.URL.Path, r.Header.Get("Content-Type"), len(body)}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()

	prev := otel.GetTracerProvider()
	defer otel.SetTracerProvider(prev)

	ctx := context.Background()
	shutdown, err := Setup(ctx, Config{ServiceName: "svc", OTLPEndpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, span := otel.Tracer("test").Start(ctx, "work")
	span.End()
	if err := shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	select {
	case h := <-hits:
		if h.path != "/v1/traces" || h.contentType != "application/x-protobuf" || h.size == 0 {
			t.Fatalf("export request %+v", h)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no span reached the OTLP endpoint")
	}
}

func TestNewTracerProviderCarriesServiceName(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp, err := NewTracerProvider(context.Background(), "billing", sdktrace.NewSimpleSpanProcessor(exp))
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer("t").Start(context.Background(), "op")
	span.End()
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != "op" {
		t.Fatalf("spans %v", spans)
	}
	var name string
	for _, kv := range spans[0].Resource.Attributes() {
		if kv.Key == "service.name" {
			name = kv.Value.AsString()
		}
	}
	if name != "billing" {
		t.Fatalf("service.name = %q", name)
	}
}

func TestPprofListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	shutdown, err := Setup(context.Background(), Config{ServiceName: "t", PprofAddr: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	resp, err := http.Get("http://" + addr + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("pprof status %d", resp.StatusCode)
	}
	if _, err := Setup(context.Background(), Config{PprofAddr: addr}); err == nil {
		t.Fatal("a second listener on the same address must fail")
	}
}

// gatedWriter blocks every Write until gate is closed, like a stuck pipe.
type gatedWriter struct {
	entered chan struct{}
	gate    chan struct{}
	out     testkit.SyncBuffer
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.gate
	return g.out.Write(p)
}

// TestBufferedWriterDoesNotWaitForOutput: while the underlying writer is
// stuck, writes keep completing from memory (up to the pending bound), and
// nothing is lost or reordered once it moves again.
func TestBufferedWriterDoesNotWaitForOutput(t *testing.T) {
	g := &gatedWriter{entered: make(chan struct{}, 1), gate: make(chan struct{})}
	bw := NewBufferedWriter(g, 64, time.Hour)
	line := func(i int) []byte { return fmt.Appendf(nil, "%063d\n", i) }
	if _, err := bw.Write(line(0)); err != nil { // fills the buffer: a write-out starts
		t.Fatal(err)
	}
	select {
	case <-g.entered:
	case <-time.After(2 * time.Second):
		t.Fatal("a full buffer did not start a background write-out")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= 10; i++ {
			_, _ = bw.Write(line(i))
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Write waited for the stuck underlying writer")
	}
	close(g.gate)
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 0; i <= 10; i++ {
		want.Write(line(i))
	}
	if got := g.out.String(); got != want.String() {
		t.Fatalf("written %q, want %q", got, want.String())
	}
}
