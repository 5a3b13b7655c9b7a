package egress

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hits counts the requests a test server received.
type hits struct{ n atomic.Int64 }

func (h *hits) wrap(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.n.Add(1)
		next(w, r)
	}
}

func TestNewClient(t *testing.T) {
	c := New(Options{})
	if c.http.Dial != nil || c.http.ConfigureClient == nil {
		t.Error("every host's connections must be dialed by the guarded dial (ConfigureClient), no other Dial")
	}
	if !c.http.DisablePathNormalizing || !c.http.StreamResponseBody || c.http.MaxResponseBodySize != DefaultMaxResponseBytes {
		t.Errorf("paths must go out as given and answers be read at most %d bytes: %+v", DefaultMaxResponseBytes, c.http)
	}
	if c.http.MaxIdemponentCallAttempts != 2 {
		t.Errorf("MaxIdemponentCallAttempts = %d, want 2 (one retry on a closed kept-alive connection)", c.http.MaxIdemponentCallAttempts)
	}
	if c.opts.Timeout != DefaultTimeout || c.opts.MaxResponseBytes != DefaultMaxResponseBytes || c.opts.Resolver != net.DefaultResolver {
		t.Errorf("defaults not applied: %+v", c.opts)
	}
}

func TestPostDelivers(t *testing.T) {
	type seen struct {
		method, contentType, userAgent, signature string
		body                                      []byte
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), r.Header.Get("X-Acct-Signature"), b}
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "thanks")
	}))
	defer srv.Close()

	c := New(Options{AllowPrivate: true, AllowHTTP: true})
	h := map[string]string{"X-Acct-Signature": "t=1,v1=abc", "Content-Type": "text/plain"} // ours wins
	payload := []byte(`{"type":"invoice.paid"}`)
	res, err := c.Post(context.Background(), srv.URL+"/hook", h, payload)
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	if res.StatusCode != http.StatusAccepted || string(res.Body) != "thanks" || res.Latency <= 0 {
		t.Fatalf("Result = %d %q %v, want 202 \"thanks\" and a latency", res.StatusCode, res.Body, res.Latency)
	}
	s := <-got
	if s.method != http.MethodPost || s.contentType != "application/json" || s.userAgent != UserAgent ||
		s.signature != "t=1,v1=abc" || !bytes.Equal(s.body, payload) {
		t.Fatalf("server saw %+v", s)
	}
}

func TestPostTruncatesAnswer(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write(big)
	}))
	defer srv.Close()

	c := New(Options{AllowPrivate: true, AllowHTTP: true})
	res, err := c.Post(context.Background(), srv.URL, nil, []byte(`{}`))
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	if res.StatusCode != http.StatusInternalServerError {
		t.Errorf("StatusCode = %d, want 500", res.StatusCode)
	}
	if len(res.Body) != DefaultMaxResponseBytes || !bytes.Equal(res.Body, big[:DefaultMaxResponseBytes]) {
		t.Errorf("Body has %d bytes, want the first %d", len(res.Body), DefaultMaxResponseBytes)
	}
	if res.Latency <= 0 {
		t.Errorf("Latency = %v", res.Latency)
	}

	small := New(Options{AllowPrivate: true, AllowHTTP: true, MaxResponseBytes: 10})
	res, err = small.Post(context.Background(), srv.URL, nil, nil)
	if err != nil || len(res.Body) != 10 {
		t.Errorf("MaxResponseBytes 10: %d bytes, err %v", len(res.Body), err)
	}
}

// TestPostRefusedAtDial shows the Control hook at work: the URL is a
// literal 127.0.0.1, no lookup happens (the fake resolver stays unasked),
// and the refusal comes from the dial, before any byte is sent.
func TestPostRefusedAtDial(t *testing.T) {
	var h hits
	srv := httptest.NewServer(h.wrap(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	tls := httptest.NewTLSServer(h.wrap(func(w http.ResponseWriter, r *http.Request) {}))
	defer tls.Close()

	res := testResolver()
	c := New(Options{AllowHTTP: true, Resolver: res})
	for _, u := range []string{srv.URL, tls.URL, strings.Replace(srv.URL, "127.0.0.1", "[::ffff:127.0.0.1]", 1)} {
		_, err := c.Post(context.Background(), u+"/secret-token", nil, []byte(`{}`))
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("Post(%s) = %v, want ErrRefused", u, err)
		}
		var op *net.OpError
		if !errors.As(err, &op) || op.Op != "dial" {
			t.Errorf("Post(%s) = %v, want the refusal to come from the dial", u, err)
		}
		if strings.Contains(err.Error(), "secret-token") {
			t.Errorf("error %q leaks the URL path", err)
		}
	}
	if n := h.n.Load(); n != 0 {
		t.Errorf("servers were hit %d times", n)
	}
	if n := res.total(); n != 0 {
		t.Errorf("resolver consulted %d times by Post", n)
	}
}

// TestPostDNSRebinding: the name answers a public address when the URL is
// registered, then (the dialer's own lookup, here the system's "localhost")
// 127.0.0.1 at delivery. CheckURL passes; Post is refused at connect time.
func TestPostDNSRebinding(t *testing.T) {
	var h hits
	srv := httptest.NewServer(h.wrap(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	target := "http://localhost:" + port + "/hook"

	res := newFakeResolver(map[string][][]string{"localhost": {{publicIP}, {"127.0.0.1"}}})
	c := New(Options{AllowHTTP: true, Resolver: res})
	if err := c.CheckURL(context.Background(), target); err != nil {
		t.Fatalf("CheckURL(%s) with a public answer = %v, want accepted", target, err)
	}
	_, err := c.Post(context.Background(), target, nil, []byte(`{}`))
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Post after rebinding = %v, want ErrRefused", err)
	}
	if n := h.n.Load(); n != 0 {
		t.Errorf("server was hit %d times", n)
	}
	if n := res.total(); n != 1 {
		t.Errorf("fake resolver asked %d times, want once (by CheckURL only)", n)
	}
}

func TestPostMetadataRefusedWithAllowPrivate(t *testing.T) {
	c := New(Options{AllowPrivate: true, AllowHTTP: true, Timeout: 2 * time.Second})
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://[::ffff:169.254.169.254]/",
		"http://100.100.100.200/",
		"http://metadata.google.internal/computeMetadata/v1/",
		"http://METADATA./",
	} {
		start := time.Now()
		_, err := c.Post(context.Background(), u, nil, nil)
		if !errors.Is(err, ErrRefused) {
			t.Errorf("Post(%s) = %v, want ErrRefused", u, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Post(%s) took %v: refused after trying to connect?", u, d)
		}
	}
}

func TestPostValidatesURL(t *testing.T) {
	c := New(Options{AllowPrivate: true})
	for _, u := range []string{"http://127.0.0.1/", "ftp://127.0.0.1/", "https://u:p@127.0.0.1/", "https:///x"} {
		if _, err := c.Post(context.Background(), u, nil, nil); !errors.Is(err, ErrInvalidURL) {
			t.Errorf("Post(%s) = %v, want ErrInvalidURL", u, err)
		}
	}
}

func TestPostDoesNotFollowRedirects(t *testing.T) {
	var h hits
	target := httptest.NewServer(h.wrap(func(w http.ResponseWriter, r *http.Request) {}))
	defer target.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/elsewhere", http.StatusFound)
	}))
	defer redirector.Close()

	c := New(Options{AllowPrivate: true, AllowHTTP: true})
	res, err := c.Post(context.Background(), redirector.URL, nil, []byte(`{}`))
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	if res.StatusCode != http.StatusFound {
		t.Errorf("StatusCode = %d, want 302 returned as the answer", res.StatusCode)
	}
	if n := h.n.Load(); n != 0 {
		t.Errorf("redirect target was hit %d times", n)
	}
}

func TestPostTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client hanging up.
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()

	c := New(Options{AllowPrivate: true, AllowHTTP: true, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := c.Post(context.Background(), srv.URL, nil, []byte(`{}`))
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Post = %v, want context.DeadlineExceeded", err)
	}
	if errors.Is(err, ErrRefused) {
		t.Errorf("timeout %v reported as a refusal", err)
	}
	if elapsed > 2*time.Second {
		t.Errorf("timeout took %v, want about 200ms", elapsed)
	}
}

func TestPostHTTPSThroughGuardedDialer(t *testing.T) {
	proto := make(chan string, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto <- r.Proto
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.StartTLS()
	defer srv.Close()

	c := New(Options{AllowPrivate: true})
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	c.tls.RootCAs = pool

	res, err := c.Post(context.Background(), srv.URL, nil, []byte(`{}`))
	if err != nil {
		t.Fatalf("Post over TLS: %v", err)
	}
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("StatusCode = %d", res.StatusCode)
	}
	if p := <-proto; p != "HTTP/1.1" {
		t.Errorf("server saw %s, want HTTP/1.1", p)
	}

	// The server's certificate is checked: a client that does not trust
	// it fails the handshake and sends nothing.
	untrusting := New(Options{AllowPrivate: true})
	if _, err := untrusting.Post(context.Background(), srv.URL, nil, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("https Post to an untrusted certificate = %v, want a certificate error", err)
	}

	// The TLS dial goes through the same Control hook: without
	// AllowPrivate the same server is refused before any handshake.
	strict := New(Options{})
	if _, err := strict.Post(context.Background(), srv.URL, nil, nil); !errors.Is(err, ErrRefused) {
		t.Errorf("https Post without AllowPrivate = %v, want ErrRefused", err)
	}
	if u, _ := url.Parse(srv.URL); u.Scheme != "https" {
		t.Fatalf("test server is not https: %s", srv.URL)
	}
}

// A receiver that accepts the connection but never answers the TLS
// handshake holds a delivery no longer than the timeout.
func TestPostTLSHandshakeTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held open, silent, until the test ends
		}
	}()
	c := New(Options{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	start := time.Now()
	_, err = c.Post(context.Background(), "https://"+ln.Addr().String()+"/hook", nil, []byte(`{}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Post = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a silent TLS handshake held the delivery %v, want about 300ms", d)
	}
}

// Deliveries to one receiver share kept-alive connections, whether the
// answers come with a length or chunked; an answer longer than the limit
// is not read to its end, so its connection is closed, never handed to the
// next delivery with the rest of the answer still in it.
func TestPostKeepsConnectionsAlive(t *testing.T) {
	big := bytes.Repeat([]byte("z"), 64<<10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte("ok"))
			w.(http.Flusher).Flush() // no Content-Length: chunked
			w.Write([]byte(" chunked"))
		case "/big":
			w.Write(big)
		case "/big-chunked":
			w.Write(big[:100])
			w.(http.Flusher).Flush()
			w.Write(big)
		default:
			w.Write([]byte("ok"))
		}
	}))
	var conns atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	c := New(Options{AllowPrivate: true, AllowHTTP: true})
	post := func(path, want string) {
		t.Helper()
		res, err := c.Post(context.Background(), srv.URL+path, nil, []byte(`{}`))
		if err != nil || res.StatusCode != 200 || string(res.Body) != want {
			t.Fatalf("Post %s = %d %q %v, want 200 %q", path, res.StatusCode, res.Body, err, want)
		}
	}
	for range 10 {
		post("/", "ok")
		post("/chunked", "ok chunked")
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("20 deliveries in a row opened %d connections, want 1", n)
	}
	for _, path := range []string{"/big", "/big-chunked"} {
		before := conns.Load()
		post(path, string(big[:DefaultMaxResponseBytes]))
		post("/", "ok")
		if n := conns.Load() - before; n != 1 {
			t.Errorf("a delivery after a truncated %s answer opened %d connections, want 1 (the truncated one closed)", path, n)
		}
	}
}

// An answer ended by closing the connection (no length, not chunked) is
// read up to the limit like any other, its status kept.
func TestPostCloseDelimitedAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, size := range []int{10, 4096} {
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
			buf := make([]byte, 4096)
			conn.Read(buf) // the request (small: one read)
			io.WriteString(conn, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n")
			conn.Write(bytes.Repeat([]byte("x"), size))
		}()
		c := New(Options{AllowPrivate: true, AllowHTTP: true})
		res, err := c.Post(context.Background(), "http://"+ln.Addr().String()+"/hook", nil, []byte(`{}`))
		if err != nil {
			t.Fatalf("Post (answer of %d bytes) = %v", size, err)
		}
		if want := min(size, DefaultMaxResponseBytes); res.StatusCode != 503 || len(res.Body) != want {
			t.Errorf("answer of %d bytes: %d with %d bytes, want 503 with %d", size, res.StatusCode, len(res.Body), want)
		}
	}
}
