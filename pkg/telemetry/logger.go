package telemetry

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// ParseLevel maps LOG_LEVEL values (debug, info, warn/warning, error; any
// case) to a slog level.
func ParseLevel(level string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(level)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, fmt.Errorf("telemetry: unknown log level %q", level)
}

// Logger is the service logger: JSON lines on stdout with a "service"
// attribute, at the given level (unknown levels fall back to info). Stdout
// is buffered so per-request access logs do not cost a write(2) each; the
// buffer is flushed every 200 ms, immediately after warn/error records, and
// by FlushLogs.
func Logger(service, level string) *slog.Logger {
	return NewLogger(stdout(), service, level)
}

// NewLogger is Logger writing to w.
func NewLogger(w io.Writer, service, level string) *slog.Logger {
	lvl, _ := ParseLevel(level)
	var h slog.Handler = slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl})
	if f, ok := w.(flusher); ok {
		h = flushingHandler{Handler: h, f: f}
	}
	return slog.New(h).With(slog.String("service", service))
}

// FlushLogs writes out whatever the stdout log buffer holds; call it before
// the process exits.
func FlushLogs() error {
	return stdout().Flush()
}

type flusher interface{ Flush() error }

// flushingHandler makes warnings and errors visible at once.
type flushingHandler struct {
	slog.Handler
	f flusher
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		_ = h.f.Flush()
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{Handler: h.Handler.WithAttrs(attrs), f: h.f}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{Handler: h.Handler.WithGroup(name), f: h.f}
}

// BufferedWriter is a goroutine-safe buffered writer flushed periodically.
type BufferedWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// NewBufferedWriter buffers w and flushes it every interval (if > 0) for
// the life of the process.
func NewBufferedWriter(w io.Writer, size int, interval time.Duration) *BufferedWriter {
	b := &BufferedWriter{w: bufio.NewWriterSize(w, size)}
	if interval > 0 {
		go func() {
			for range time.Tick(interval) {
				_ = b.Flush()
			}
		}()
	}
	return b
}

func (b *BufferedWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

// Flush writes buffered data to the underlying writer.
func (b *BufferedWriter) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

var stdout = sync.OnceValue(func() *BufferedWriter {
	return NewBufferedWriter(os.Stdout, 64<<10, flushInterval)
})
