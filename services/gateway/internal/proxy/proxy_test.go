package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/acctsuite/acct/pkg/httpauth"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/propagation"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/testkit"
)

// gatewayFor serves a bare streaming fiber app whose every route is
// forwarded to up, after the given middleware.
func gatewayFor(t *testing.T, up *Upstream, bodyLimit int, mw ...fiber.Handler) string {
	t.Helper()
	app := fiber.New(fiber.Config{
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		BodyLimit:                    bodyLimit,
		DisableStartupMessage:        true,
		ErrorHandler:                 httpx.ErrorHandler(slog.New(slog.DiscardHandler), nil),
	})
	app.All("/*", append(mw, up.Forward)...)
	return testkit.Serve(t, app)
}

func newUpstream(t *testing.T, base string, limit int64) *Upstream {
	t.Helper()
	up, err := New(Options{Name: "svc", BaseURL: base, BodyLimit: limit, Timeout: 10 * time.Second,
		Propagator: propagation.TraceContext{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(up.Close)
	return up
}

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"no scheme", Options{Name: "x", BaseURL: "127.0.0.1:1", BodyLimit: 1}},
		{"ftp", Options{Name: "x", BaseURL: "ftp://h", BodyLimit: 1}},
		{"no limit", Options{Name: "x", BaseURL: "http://h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.opts); err == nil {
				t.Fatal("New accepted invalid options")
			}
		})
	}
}

func TestForwardsRequestAndRelaysResponse(t *testing.T) {
	seen := make(chan *http.Request, 1)
	var gotBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotBody, _ = io.ReadAll(r.Body)
		seen <- r
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "yes")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()

	bid := uuid.New()
	id := authn.Identity{ClientID: "c1", ClientName: "Client One", Scope: authn.ScopeBusiness, BusinessID: bid}
	up := newUpstream(t, srv.URL+"/prefix/", 1<<20)
	gw := gatewayFor(t, up, 1<<20, func(c *fiber.Ctx) error { httpauth.SetIdentity(c, id); return c.Next() })

	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	req, _ := http.NewRequest(http.MethodPost, gw+"/v1/things?x=1&y=two", strings.NewReader(`{"a":1}`))
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", traceparent)
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	req.Header.Set("X-Request-Id", "rid-123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r := <-seen

	checks := []struct {
		name, got, want string
	}{
		{"path", r.URL.Path, "/prefix/v1/things"},
		{"query", r.URL.RawQuery, "x=1&y=two"},
		{"body", string(gotBody), `{"a":1}`},
		{"authorization kept", r.Header.Get("Authorization"), "Bearer tok"},
		{"client id", r.Header.Get(httpauth.HeaderClientID), "c1"},
		{"client name", r.Header.Get(httpauth.HeaderClientName), "Client One"},
		{"scope", r.Header.Get(httpauth.HeaderScope), "business"},
		{"business id", r.Header.Get(httpauth.HeaderBusinessID), bid.String()},
		{"request id", r.Header.Get("X-Request-Id"), "rid-123"},
		{"forwarded for", r.Header.Get("X-Forwarded-For"), "203.0.113.9, 127.0.0.1"},
		{"forwarded proto", r.Header.Get("X-Forwarded-Proto"), "http"},
		{"trace id", traceID(r.Header.Get("traceparent")), traceID(traceparent)},
		{"status", resp.Status[:3], "201"},
		{"response body", string(body), `{"ok":true}`},
		{"response header", resp.Header.Get("X-Upstream"), "yes"},
		{"content type", resp.Header.Get("Content-Type"), "application/json"},
		{"cookies", strings.Join(resp.Header.Values("Set-Cookie"), ";"), "a=1;b=2"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

func traceID(traceparent string) string {
	parts := strings.Split(traceparent, "-")
	if len(parts) != 4 {
		return "malformed:" + traceparent
	}
	return parts[1]
}

func TestUpstreamDownIs503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused

	tests := []struct {
		name string
		base string
	}{
		{"connection refused", "http://" + addr},
		{"dns failure", "http://no-such-host.invalid:80"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := gatewayFor(t, newUpstream(t, tt.base, 1<<20), 1<<20)
			resp, err := http.Get(gw + "/whoami")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body apperr.Body
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != http.StatusServiceUnavailable || body.Type != string(apperr.Unavailable) ||
				body.Description != "svc is unavailable" || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("got %d %+v Retry-After=%q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		n, _ := io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte(strings.Repeat("x", 0) + `{"n":` + itoa(n) + `}`))
	}))
	defer srv.Close()
	const limit = 64 << 10
	gw := gatewayFor(t, newUpstream(t, srv.URL, limit), limit)

	tests := []struct {
		name     string
		size     int
		chunked  bool
		wantCode int
	}{
		{"under limit, content-length", limit / 2, false, http.StatusOK},
		{"at limit, chunked", limit, true, http.StatusOK},
		{"over limit, content-length", limit + 1, false, http.StatusRequestEntityTooLarge},
		{"over limit, chunked", 4 * limit, true, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := bytes.Repeat([]byte("a"), tt.size)
			var body io.Reader = bytes.NewReader(payload)
			if tt.chunked {
				body = io.MultiReader(bytes.NewReader(payload)) // unknown length → chunked
			}
			req, _ := http.NewRequest(http.MethodPost, gw+"/upload", body)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status = %d (%s), want %d", resp.StatusCode, data, tt.wantCode)
			}
			if tt.wantCode == http.StatusRequestEntityTooLarge {
				var e apperr.Body
				if err := json.Unmarshal(data, &e); err != nil || e.Type != string(apperr.PayloadTooLarge) {
					t.Fatalf("413 body = %s", data)
				}
			} else if string(data) != `{"n":`+itoa(int64(tt.size))+`}` {
				t.Fatalf("upstream saw %s, want %d bytes", data, tt.size)
			}
		})
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestUploadStreams proves the gateway forwards a body while it is still
// arriving: the upstream reads the first part before the client has sent the
// rest (a buffering gateway would deadlock here).
func TestUploadStreams(t *testing.T) {
	firstSeen := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 1<<10)
		if _, err := io.ReadFull(r.Body, buf); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		close(firstSeen)
		n, _ := io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte(itoa(n + int64(len(buf)))))
	}))
	defer srv.Close()
	gw := gatewayFor(t, newUpstream(t, srv.URL, 32<<20), 32<<20)

	pr, pw := io.Pipe()
	go func() {
		chunk := bytes.Repeat([]byte("b"), 64<<10)
		_, _ = pw.Write(chunk)
		select {
		case <-firstSeen:
		case <-time.After(10 * time.Second):
			pw.CloseWithError(io.ErrUnexpectedEOF)
			return
		}
		for range 15 {
			_, _ = pw.Write(chunk)
		}
		pw.Close()
	}()
	resp, err := http.Post(gw+"/upload", "application/octet-stream", pr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(data) != itoa(16*64<<10) {
		t.Fatalf("got %d %s; the upstream did not see the body before it was complete", resp.StatusCode, data)
	}
}

// TestOversizedBodyIsDrained: a body moderately over the limit is read and
// dropped before the 413, so the client never meets a connection reset and
// the keep-alive connection serves the next request.
func TestOversizedBodyIsDrained(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	const limit = 64 << 10
	gw := gatewayFor(t, newUpstream(t, srv.URL, limit), 2*maxDrain)
	conn, err := net.Dial("tcp", strings.TrimPrefix(gw, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	body := bytes.Repeat([]byte("a"), 4*limit)
	fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: gw\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", len(body))
	if _, err := conn.Write(body); err != nil {
		t.Fatalf("writing the whole oversized body: %v", err)
	}
	fmt.Fprintf(conn, "GET /next HTTP/1.1\r\nHost: gw\r\n\r\n")
	br := bufio.NewReader(conn)
	first, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, first.Body)
	first.Body.Close()
	if first.StatusCode != http.StatusRequestEntityTooLarge || first.Close {
		t.Fatalf("first response %d close=%v, want 413 on a kept-alive connection", first.StatusCode, first.Close)
	}
	second, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("second request on the same connection: %v", err)
	}
	defer second.Body.Close()
	if second.StatusCode != http.StatusOK {
		t.Fatalf("second response %d", second.StatusCode)
	}
}

// resetOnce is an upstream whose first connection is reset once a request
// has arrived on it (a pod going away under a rolling restart); the later
// ones answer 201. It counts the requests it received.
func resetOnce(t *testing.T) (base string, requests *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	requests = &atomic.Int32{}
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn, first bool) {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					requests.Add(1)
					if first {
						_ = c.(*net.TCPConn).SetLinger(0) // close with a reset
						return
					}
					_, _ = io.WriteString(c, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
				}
			}(c, conns.Add(1) == 1)
		}
	}()
	return "http://" + ln.Addr().String(), requests
}

// TestBrokenConnectionRetriedOnlyWhenSafe: a request whose upstream
// connection breaks off before an answer is sent again when that is safe
// (an Idempotency-Key makes the service answer a repeat with the first
// answer), and is a 503 otherwise.
func TestBrokenConnectionRetriedOnlyWhenSafe(t *testing.T) {
	tests := []struct {
		name         string
		key          string
		wantStatus   int
		wantRequests int32
	}{
		{"POST with an Idempotency-Key is sent again", "k-1", http.StatusCreated, 2},
		{"POST without one is not", "", http.StatusServiceUnavailable, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, requests := resetOnce(t)
			gw := gatewayFor(t, newUpstream(t, base, 1<<20), 1<<20)
			req, err := http.NewRequest(http.MethodPost, gw+"/v1/things", strings.NewReader(`{"name":"a"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tt.key != "" {
				req.Header.Set("Idempotency-Key", tt.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus || requests.Load() != tt.wantRequests {
				t.Fatalf("status %d after %d upstream requests, want %d after %d", resp.StatusCode, requests.Load(), tt.wantStatus, tt.wantRequests)
			}
		})
	}
}
