package telemetry

import (
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

// BufferedWriter is a goroutine-safe buffered writer whose writers do not
// wait for the underlying writer: a Write appends to memory, and a
// background goroutine writes the pending bytes out once size of them
// accumulate, every interval, and on Flush. Per-request log lines thus cost
// a copy, not a write(2) each (nor, every 64 KiB, a write(2) under a lock
// every request goroutine is queueing on). Writers wait only when more than
// maxPendingFactor times size bytes are pending, i.e. when the underlying
// writer cannot keep up at all. With interval 0 there is no goroutine and
// the buffer is written out by the Write that fills it.
type BufferedWriter struct {
	w    io.Writer
	size int
	kick chan struct{} // nil without a background goroutine

	mu      sync.Mutex
	drained sync.Cond // broadcast after each write-out
	pending []byte
	spare   []byte
	outMu   sync.Mutex // serialises write-outs, in order
}

// maxPendingFactor bounds pending bytes (times size) before writers wait.
const maxPendingFactor = 16

// NewBufferedWriter buffers w and, if interval > 0, writes pending data out
// in the background (at least every interval) for the life of the process.
func NewBufferedWriter(w io.Writer, size int, interval time.Duration) *BufferedWriter {
	b := &BufferedWriter{w: w, size: size, pending: make([]byte, 0, size), spare: make([]byte, 0, size)}
	b.drained.L = &b.mu
	if interval > 0 {
		b.kick = make(chan struct{}, 1)
		go func() {
			t := time.NewTicker(interval)
			for {
				select {
				case <-b.kick:
				case <-t.C:
				}
				_ = b.Flush()
			}
		}()
	}
	return b
}

// Write appends p to the pending bytes; it never writes to the underlying
// writer itself unless the writer has no background goroutine.
func (b *BufferedWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.kick == nil {
		b.pending = append(b.pending, p...)
		full := len(b.pending) >= b.size
		b.mu.Unlock()
		if full {
			return len(p), b.Flush()
		}
		return len(p), nil
	}
	for len(b.pending) > 0 && len(b.pending)+len(p) > maxPendingFactor*b.size {
		b.wake()
		b.drained.Wait()
	}
	b.pending = append(b.pending, p...)
	if len(b.pending) >= b.size {
		b.wake()
	}
	b.mu.Unlock()
	return len(p), nil
}

// wake asks the background goroutine for a write-out without waiting.
func (b *BufferedWriter) wake() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// Flush writes all pending bytes to the underlying writer before returning.
func (b *BufferedWriter) Flush() error {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	b.mu.Lock()
	out := b.pending
	b.pending = b.spare[:0]
	b.spare = nil
	b.mu.Unlock()

	var err error
	if len(out) > 0 {
		_, err = b.w.Write(out)
	}

	b.mu.Lock()
	if cap(out) <= maxPendingFactor*b.size {
		b.spare = out[:0] // reuse; an overgrown buffer is dropped
	} else {
		b.spare = make([]byte, 0, b.size)
	}
	b.drained.Broadcast()
	b.mu.Unlock()
	return err
}

// Stdout is the process's shared buffered stdout, the writer of Logger. Code
// that writes its own JSON lines (the access log) writes here, so they
// interleave whole with the logger's records.
func Stdout() io.Writer { return stdout() }

var stdout = sync.OnceValue(func() *BufferedWriter {
	return NewBufferedWriter(os.Stdout, 64<<10, flushInterval)
})
