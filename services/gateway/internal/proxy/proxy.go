// Package proxy forwards gateway requests to one upstream service over a
// keep-alive fasthttp.HostClient pool, streaming bodies both ways so uploads
// and CSV downloads are never held whole in gateway memory. It sets the
// forwarding headers (verified identity, request id, trace context,
// X-Forwarded-*) and turns transport failures into 503 error objects.
package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/acctsuite/acct/pkg/httpauth"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/idempotency"
)

// Options configures an Upstream.
type Options struct {
	Name        string        // service name, used in 503 descriptions and logs
	BaseURL     string        // http(s)://host[:port][/prefix]
	MaxConns    int           // keep-alive pool size; default 512
	Timeout     time.Duration // bounds writing the request and reading the response; default 120s
	DialTimeout time.Duration // default 2s
	BodyLimit   int64         // request body limit in bytes (413 above it); required
	RetryAfter  int           // seconds advertised on 503; default 5
	Logger      *slog.Logger
	Propagator  propagation.TextMapPropagator // default: otel's global propagator
}

// Upstream is one proxied service.
type Upstream struct {
	name        string
	prefix      []byte
	hc          *fasthttp.HostClient
	bodyLimit   int64
	retryAfter  string
	unavailable string
	logger      *slog.Logger
	propagator  propagation.TextMapPropagator
	tracer      trace.Tracer
	spanName    string
}

// streamThreshold is the response size above which the body is streamed
// rather than read whole; small JSON answers stay on the fast buffered path.
const streamThreshold = 64 << 10

// New makes an Upstream for opts.BaseURL.
func New(opts Options) (*Upstream, error) {
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("proxy %s: invalid base URL %q", opts.Name, opts.BaseURL)
	}
	if opts.BodyLimit <= 0 {
		return nil, fmt.Errorf("proxy %s: body limit must be positive", opts.Name)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 512
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 120 * time.Second
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 2 * time.Second
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = 5
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Propagator == nil {
		opts.Propagator = otel.GetTextMapPropagator()
	}
	addr := u.Host
	if u.Port() == "" {
		if u.Scheme == "https" {
			addr = net.JoinHostPort(u.Hostname(), "443")
		} else {
			addr = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	dialTimeout := opts.DialTimeout
	up := &Upstream{
		name:        opts.Name,
		bodyLimit:   opts.BodyLimit,
		retryAfter:  strconv.Itoa(opts.RetryAfter),
		unavailable: opts.Name + " is unavailable",
		logger:      opts.Logger,
		propagator:  opts.Propagator,
		tracer:      otel.Tracer("github.com/acctsuite/acct/services/gateway/internal/proxy"),
		spanName:    "proxy " + opts.Name,
		hc: &fasthttp.HostClient{
			Addr:                addr,
			Name:                "acct-gateway",
			IsTLS:               u.Scheme == "https",
			MaxConns:            opts.MaxConns,
			MaxConnWaitTimeout:  5 * time.Second,
			ReadTimeout:         opts.Timeout,
			WriteTimeout:        opts.Timeout,
			ReadBufferSize:      16 << 10, // room for large response headers
			WriteBufferSize:     16 << 10,
			MaxResponseBodySize: streamThreshold,
			StreamResponseBody:  true,
			// The gateway routed on the raw path; send that same path
			// byte for byte so the service sees exactly what was
			// authorised.
			DisablePathNormalizing: true,
			RetryIf:                safeToResend,
			Dial: func(addr string) (net.Conn, error) {
				return fasthttp.DialTimeout(addr, dialTimeout)
			},
		},
	}
	if p := bytes.TrimRight([]byte(u.Path), "/"); len(p) > 0 {
		up.prefix = p
	}
	return up, nil
}

// Name is the upstream's service name.
func (u *Upstream) Name() string { return u.name }

// Close drops idle keep-alive connections.
func (u *Upstream) Close() { u.hc.CloseIdleConnections() }

// BodyConsumedKey is the fiber local set when the request body was read to
// its end (sent upstream). Without it the gateway closes the connection after
// answering, because an unread streamed body would corrupt the next request
// on a keep-alive connection.
const BodyConsumedKey = "gateway.body_consumed"

// Pre-built header names (no per-request string conversions).
var (
	headerForwardedFor   = []byte(fiber.HeaderXForwardedFor)
	headerForwardedProto = []byte(fiber.HeaderXForwardedProto)
	headerForwardedHost  = []byte(fiber.HeaderXForwardedHost)
)

// safeToResend says whether a request whose upstream connection broke off
// before an answer (a pod going away under a rolling restart, a keep-alive
// connection reset) may be sent again: when its method is idempotent, or
// when it carries an Idempotency-Key, with which the service answers a
// repeat with its first answer and applies it once.
func safeToResend(req *fasthttp.Request) bool {
	h := &req.Header
	return h.IsGet() || h.IsHead() || h.IsPut() || len(h.Peek(idempotency.HeaderKey)) > 0
}

// resendableBody is the largest request body read whole before it is
// forwarded (larger ones, and those of unknown length, stream through).
const resendableBody = 64 << 10

// Forward sends the current request to the upstream and relays its answer.
func (u *Upstream) Forward(c *fiber.Ctx) error {
	in := c.Request()
	cl := in.Header.ContentLength()
	if int64(cl) > u.bodyLimit {
		drainRejected(c, int64(cl))
		return TooLarge(u.bodyLimit)
	}

	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	in.Header.CopyTo(&req.Header)
	req.Header.ResetConnectionClose()
	setRequestURI(&req.Header, u.prefix, in.URI())
	if id, ok := httpauth.IdentityFrom(c); ok {
		httpauth.SetIdentityHeaders(&req.Header, id)
	}
	// X-Request-Id travels in the copied headers: httpx's request-id
	// middleware has already put the chosen id on the incoming request.
	setForwarded(c, &req.Header)

	// A client span per upstream call when traces are recorded; its
	// context goes out as traceparent. Otherwise (no OTel SDK configured)
	// the client's own traceparent/tracestate travel in the copied headers
	// untouched, which is all a non-recording span would have sent, and
	// the span bookkeeping is skipped on this hot path.
	ctx := c.UserContext()
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		ctx, span = u.tracer.Start(ctx, u.spanName, trace.WithSpanKind(trace.SpanKindClient))
		defer span.End()
		u.propagator.Inject(ctx, headerCarrier{&req.Header})
	}

	var body *limitedReader
	if cl != 0 {
		stream := in.BodyStream()
		switch {
		case stream == nil:
			req.SetBodyRaw(in.Body())
		case cl > 0 && cl <= resendableBody && safeToResend(req):
			// A small body of a known size, of a request that may be sent
			// again, is read whole so that it can be. Others stream, and
			// fasthttp never resends a streamed body (it would resend any
			// request whose connection closed without an answer).
			b := make([]byte, cl)
			if _, err := io.ReadFull(stream, b); err != nil {
				c.Context().SetConnectionClose()
				return apperr.Wrap(apperr.InvalidPayload, err, "request body could not be read")
			}
			req.SetBodyRaw(b)
		default:
			body = &limitedReader{r: stream, remaining: u.bodyLimit, size: int64(cl)}
			req.SetBodyStream(body, cl)
		}
	}

	resp := fasthttp.AcquireResponse()
	if err := u.hc.Do(req, resp); err != nil {
		fasthttp.ReleaseResponse(resp)
		c.Context().SetConnectionClose()
		switch {
		case body != nil && body.exceeded:
			return TooLarge(u.bodyLimit)
		case body != nil && body.err != nil:
			// The client's own upload broke off; nobody is left to answer.
			return apperr.Wrap(apperr.InvalidPayload, body.err, "request body could not be read")
		}
		if span.IsRecording() {
			span.SetStatus(codes.Error, "upstream unavailable")
		}
		u.logger.WarnContext(ctx, "upstream unavailable",
			slog.String("upstream", u.name), slog.String("error", err.Error()))
		c.Set(fiber.HeaderRetryAfter, u.retryAfter)
		return apperr.Wrap(apperr.Unavailable, err, u.unavailable)
	}
	if body == nil || body.done() {
		c.Locals(BodyConsumedKey, true)
	} else {
		// The upstream answered before taking the whole body (it refused it
		// and reset the connection; fasthttp's client then still reads the
		// answer). The rest is still in the client's connection: drain it
		// so the next request there starts where it should, or close.
		drainRest(c, body, u.bodyLimit)
	}
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode()))
	}
	relay(c, resp)
	return nil
}

// setRequestURI sets the upstream request target to prefix + the path
// exactly as the client sent it (the one fiber routed on, never fasthttp's
// decoded and dot-resolved form) + the raw query.
func setRequestURI(h *fasthttp.RequestHeader, prefix []byte, in *fasthttp.URI) {
	buf := bufPool.Get().(*[]byte)
	b := append(append((*buf)[:0], prefix...), in.PathOriginal()...)
	if q := in.QueryString(); len(q) > 0 {
		b = append(append(b, '?'), q...)
	}
	h.SetRequestURIBytes(b) // copies
	*buf = b
	bufPool.Put(buf)
}

// bufPool holds scratch buffers for header values built per request.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// relay copies the upstream response onto the client response. Headers the
// gateway itself set (CORS) are kept; hop-by-hop headers are not copied
// (httpx sets X-Request-Id itself afterwards). The HostClient has already
// read bodies up to streamThreshold whole; a larger or chunked body is
// handed to fasthttp as a stream, which closes it (returning the upstream
// connection to the pool) once it is written to the client.
func relay(c *fiber.Ctx, resp *fasthttp.Response) {
	out := c.Response()
	out.SetStatusCode(resp.StatusCode())
	resp.Header.VisitAll(func(k, v []byte) {
		switch {
		case skipResponseHeader(k):
		default:
			out.Header.AddBytesKV(k, v)
		}
	})
	out.Header.SetContentTypeBytes(resp.Header.ContentType())
	if resp.BodyStream() != nil {
		out.SetBodyStream(&upstreamBody{resp: resp}, resp.Header.ContentLength())
		return
	}
	// Small and bodiless answers: copied into the client response's pooled
	// buffer, so resp can go back to its pool now.
	out.SetBody(resp.Body())
	if c.Method() == fiber.MethodHead {
		out.Header.SetContentLength(resp.Header.ContentLength())
	}
	fasthttp.ReleaseResponse(resp)
}

var skippedResponseHeaders = [][]byte{
	[]byte(fiber.HeaderConnection), []byte(fiber.HeaderContentLength), []byte(fiber.HeaderContentType),
	[]byte(fiber.HeaderTransferEncoding), []byte(fiber.HeaderKeepAlive), []byte(fiber.HeaderDate),
	[]byte(fiber.HeaderServer), []byte(fiber.HeaderTE), []byte(fiber.HeaderTrailer),
	[]byte(fiber.HeaderUpgrade), []byte(fiber.HeaderProxyAuthenticate),
}

func skipResponseHeader(k []byte) bool {
	for _, s := range skippedResponseHeaders {
		if bytes.EqualFold(k, s) {
			return true
		}
	}
	return false
}

// setForwarded appends the peer address to X-Forwarded-For and records the
// original scheme and host unless an outer proxy already did.
func setForwarded(c *fiber.Ctx, h *fasthttp.RequestHeader) {
	buf := bufPool.Get().(*[]byte)
	v := (*buf)[:0]
	if prior := h.PeekBytes(headerForwardedFor); len(prior) > 0 {
		v = append(append(v, prior...), ", "...)
	}
	v = appendPeerIP(v, c.Context())
	h.SetBytesKV(headerForwardedFor, v) // copies
	*buf = v
	bufPool.Put(buf)
	if len(h.PeekBytes(headerForwardedProto)) == 0 {
		h.SetBytesK(headerForwardedProto, c.Protocol())
	}
	if len(h.PeekBytes(headerForwardedHost)) == 0 {
		h.SetBytesKV(headerForwardedHost, c.Request().Header.Host())
	}
}

// appendPeerIP appends the connection's remote IP without the string
// conversion net.IP.String costs.
func appendPeerIP(b []byte, ctx *fasthttp.RequestCtx) []byte {
	if tcp, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		if a, ok := netip.AddrFromSlice(tcp.IP); ok {
			return a.Unmap().AppendTo(b)
		}
	}
	return append(b, ctx.RemoteIP().String()...)
}

// maxDrain bounds how much of a rejected body the gateway reads and drops.
const maxDrain = 64 << 20

// drainRejected reads and discards a moderately oversized body before the
// 413 goes out. Closing a socket with unread input makes the kernel answer
// with a reset, which can destroy the 413 before the client reads it; a
// drained connection stays clean (and alive). Larger bodies get the 413
// and a closed connection.
func drainRejected(c *fiber.Ctx, contentLength int64) {
	if stream := c.Context().RequestBodyStream(); stream != nil && contentLength <= maxDrain {
		if _, err := io.CopyN(io.Discard, stream, contentLength); err == nil {
			c.Locals(BodyConsumedKey, true)
			return
		}
	}
	// The body stays unread: the connection cannot carry another request.
	c.Context().SetConnectionClose()
}

// drainRest reads and discards what is left of a body the upstream did not
// take, up to the gateway's limit; the connection is closed (lingering, see
// pkg/httpx) when that fails or the body turns out larger.
func drainRest(c *fiber.Ctx, body *limitedReader, limit int64) {
	body.remaining = min(body.remaining, limit)
	if _, err := io.Copy(io.Discard, body); err == nil && body.done() {
		c.Locals(BodyConsumedKey, true)
		return
	}
	c.Context().SetConnectionClose()
}

// TooLarge is the 413 error object for a body over limit bytes.
func TooLarge(limit int64) error {
	return apperr.Newf(apperr.PayloadTooLarge, "request body exceeds %d bytes", limit).WithEnum("PayloadTooLarge")
}

// errBodyTooLarge aborts the upstream write of a chunked body that grew past
// the limit.
var errBodyTooLarge = errors.New("request body too large")

// limitedReader reads the client's body stream, failing once more than
// remaining bytes arrive (chunked bodies have no Content-Length to check),
// and knows whether the body was read to its end.
type limitedReader struct {
	r         io.Reader
	remaining int64
	size      int64 // Content-Length; negative when chunked
	read      int64
	eof       bool
	exceeded  bool
	err       error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.remaining -= int64(n)
	l.read += int64(n)
	if l.remaining < 0 {
		l.exceeded = true
		return 0, errBodyTooLarge
	}
	if err == io.EOF {
		l.eof = true
	} else if err != nil {
		l.err = err
	}
	return n, err
}

// done reports whether the whole body was read.
func (l *limitedReader) done() bool {
	if l.exceeded || l.err != nil {
		return false
	}
	return l.eof || (l.size >= 0 && l.read == l.size)
}

// upstreamBody hands the upstream response stream to the server and
// releases the response (and its pooled connection) when closed.
type upstreamBody struct {
	resp *fasthttp.Response
}

func (b *upstreamBody) Read(p []byte) (int, error) { return b.resp.BodyStream().Read(p) }

func (b *upstreamBody) Close() error {
	err := b.resp.CloseBodyStream()
	fasthttp.ReleaseResponse(b.resp)
	return err
}

// headerCarrier lets the OTel propagator write traceparent/tracestate into a
// fasthttp request header.
type headerCarrier struct{ h *fasthttp.RequestHeader }

func (hc headerCarrier) Get(key string) string { return string(hc.h.Peek(key)) }
func (hc headerCarrier) Set(key, value string) { hc.h.Set(key, value) }
func (hc headerCarrier) Keys() []string {
	var keys []string
	hc.h.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}
