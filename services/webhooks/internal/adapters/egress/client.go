// Package egress is the webhooks service's outbound HTTP client: it posts
// deliveries to URLs that platform clients chose, without letting those
// URLs reach our own network.
//
// A webhook URL is attacker-controlled input that makes our servers send
// requests (server-side request forgery). The guard therefore works at two
// moments:
//
//   - CheckURL, when a client registers a URL: form (https, a host, no
//     userinfo) and every address the host resolves to;
//   - every Post, at connect time: a net.Dialer Control hook checks the IP
//     actually dialed, after DNS resolution. A name can resolve to a public
//     address at registration and to 127.0.0.1 a minute later (DNS
//     rebinding), so the registration check alone proves nothing.
//
// Non-public addresses (loopback, RFC 1918, ULA, link-local, CGNAT,
// multicast and the rest of the IANA special-purpose registries) are
// refused by code.dny.dev/ssrf unless Options.AllowPrivate is set; cloud
// metadata addresses, the link-local ranges and the metadata host names are
// refused always.
//
// The client follows no redirects (a 302 to http://169.254.169.254/ would
// otherwise be dialed on the receiver's say-so, and a redirect is not a
// delivery anyway) and uses no proxy from the environment (a proxy would
// make the dialed address the proxy's, bypassing the guard).
//
// Deliveries go over HTTP/1.1 with kept-alive connections (fasthttp's
// client: a delivery is one small POST, and this client costs about half
// the CPU of net/http's per request, which at thousands of deliveries a
// second is most of the service's own work). The guarded dialer makes
// every connection, TLS handshake included, so nothing reaches the network
// around it.
package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"time"

	"code.dny.dev/ssrf"
	"github.com/valyala/fasthttp"
)

// Defaults applied by New to zero (or negative) Options fields.
const (
	DefaultTimeout          = 15 * time.Second
	DefaultMaxResponseBytes = 1024
)

// UserAgent is sent with every delivery.
const UserAgent = "acct-webhooks/1"

// maxResponseHeaderBytes bounds an answer's status line and headers.
const maxResponseHeaderBytes = 64 << 10

// Resolver resolves a host name to its addresses; *net.Resolver satisfies
// it. Tests inject a fake one.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Options configures a Client. The zero value is the production setting.
type Options struct {
	// AllowPrivate lets URLs reach loopback, private and other non-public
	// addresses: for development and tests only. Cloud metadata addresses,
	// link-local ranges and metadata host names stay refused.
	AllowPrivate bool
	// AllowHTTP accepts http:// URLs as well as https://.
	AllowHTTP bool
	// Timeout bounds a whole delivery: dial, TLS, request, answer. Default
	// DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes is how much of the answer's body is read and kept;
	// the rest is never read. Default DefaultMaxResponseBytes.
	MaxResponseBytes int
	// Resolver is used by CheckURL. Default net.DefaultResolver. When it is
	// a *net.Resolver, Post's dialer uses it too; otherwise the dialer
	// resolves with the system resolver, and its Control hook checks
	// whatever address that gives.
	Resolver Resolver
}

// Result is the receiver's answer to one delivery.
type Result struct {
	StatusCode int           // as answered; a 3xx is returned as is, not followed
	Body       []byte        // at most MaxResponseBytes of the answer's body
	Latency    time.Duration // from sending the request to the end of reading Body
}

// Client posts webhook deliveries through an SSRF-guarded dialer. It is
// safe for concurrent use and keeps connections alive per host: create one
// per process.
type Client struct {
	opts     Options
	guardian *ssrf.Guardian
	dialer   *net.Dialer
	tls      *tls.Config // cloned for each TLS connection, with its server name
	http     *fasthttp.Client
	answers  sync.Pool // *[]byte of MaxResponseBytes+1: an answer's first bytes
}

// New returns a Client with opts, defaults filled in.
func New(opts Options) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	c := &Client{
		opts: opts,
		// Webhook receivers listen on any port (8443, 3000...), so the
		// library's default 80/443 restriction is lifted; the network stays
		// limited to tcp4/tcp6 and the IP deny list is the library's.
		guardian: ssrf.New(ssrf.WithAnyPort()),
		tls:      &tls.Config{MinVersion: tls.VersionTLS12},
	}
	c.dialer = &net.Dialer{
		Timeout:   opts.Timeout,
		KeepAlive: 30 * time.Second,
		Control:   c.control,
	}
	if r, ok := opts.Resolver.(*net.Resolver); ok {
		c.dialer.Resolver = r
	}
	c.answers.New = func() any {
		b := make([]byte, opts.MaxResponseBytes+1)
		return &b
	}
	c.http = &fasthttp.Client{
		// Every connection, plain or TLS, is made by dial: through the
		// guard, with the handshake inside the delivery's time limit.
		// fasthttp uses no proxy and follows no redirect unless asked.
		ConfigureClient: func(hc *fasthttp.HostClient) error {
			hc.Dial = c.dial(hc.IsTLS)
			return nil
		},
		NoDefaultUserAgentHeader: true,
		// Paths go out exactly as the endpoint's URL spells them.
		DisablePathNormalizing: true,
		// The dispatcher bounds how many deliveries run at once; the pool
		// never refuses one of them, it waits for a connection instead.
		MaxConnsPerHost:     4096,
		MaxConnWaitTimeout:  opts.Timeout,
		MaxIdleConnDuration: 90 * time.Second,
		// A delivery is retried at once only when a kept-alive connection
		// turns out closed before any answer (the receiver's idle timeout).
		MaxIdemponentCallAttempts: 2,
		ReadBufferSize:            maxResponseHeaderBytes,
		ReadTimeout:               opts.Timeout,
		WriteTimeout:              opts.Timeout,
		// An answer up to the limit is read whole; a longer one is
		// streamed, its first bytes read and the connection then closed.
		MaxResponseBodySize: opts.MaxResponseBytes,
		StreamResponseBody:  true,
	}
	return c
}

// dial connects to addr (host:port) through the guarded dialer and, for an
// https host, completes the TLS handshake, all within the timeout.
func (c *Client) dial(isTLS bool) fasthttp.DialFunc {
	return func(addr string) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout)
		defer cancel()
		conn, err := c.dialer.DialContext(ctx, "tcp", addr)
		if err != nil || !isTLS {
			return conn, err
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			conn.Close()
			return nil, err
		}
		cfg := c.tls.Clone()
		cfg.ServerName = host
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		return tc, nil
	}
}

// Post delivers body to rawURL as application/json, with headers added
// (Content-Type and User-Agent are ours and override them). It checks the
// URL's form again (ErrInvalidURL) and refuses metadata host names, then the
// dialer refuses any address CheckURL would refuse (ErrRefused).
//
// Any answer, 3xx, 4xx and 5xx included, is a Result with a nil error; what
// counts as delivered is the caller's decision. Errors:
//   - ErrInvalidURL, ErrRefused: the guard (errors.Is);
//   - a timeout (Options.Timeout or the caller's deadline): errors.Is(err,
//     context.DeadlineExceeded) holds;
//   - DNS failures: errors.As(err, **net.DNSError);
//   - other transport failures: a *url.Error whose URL is reduced to
//     scheme://host, since webhook URLs often carry secrets in the path.
//
// If the status line arrived but reading the body failed, the error is
// returned together with a Result carrying StatusCode and the bytes read.
// A delivery under way is not interrupted when ctx is canceled: it ends by
// its deadline.
func (c *Client) Post(ctx context.Context, rawURL string, headers map[string]string, body []byte) (Result, error) {
	u, err := c.parseWebhookURL(rawURL)
	if err != nil {
		return Result{}, err
	}
	if err := checkHostName(u.Hostname()); err != nil {
		return Result{}, err
	}
	start := time.Now()
	deadline := start.Add(c.opts.Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}

	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(u.String())
	req.Header.SetMethod(fasthttp.MethodPost)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.SetContentType("application/json")
	req.Header.SetUserAgent(UserAgent)
	req.SetBodyRaw(body)

	if err := c.http.DoDeadline(req, resp, deadline); err != nil {
		if errors.Is(err, fasthttp.ErrBodyTooLarge) {
			// An answer without a length, ended by closing the connection
			// (HTTP/1.0 style), longer than the limit: its status and first
			// bytes arrived, the rest was not read (the connection is
			// closed).
			b := resp.Body()
			return Result{StatusCode: resp.StatusCode(), Body: append([]byte(nil), b[:min(len(b), c.opts.MaxResponseBytes)]...),
				Latency: time.Since(start)}, nil
		}
		return Result{Latency: time.Since(start)}, transportError(u, start, deadline, err)
	}
	res := Result{StatusCode: resp.StatusCode()}
	stream := resp.BodyStream()
	if stream == nil { // no body (a 204, say)
		res.Latency = time.Since(start)
		return res, nil
	}
	bp := c.answers.Get().(*[]byte)
	defer c.answers.Put(bp)
	n, err := io.ReadFull(stream, *bp)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		err = nil // the whole answer, within the limit: the connection is kept
	case err == nil:
		// More than the limit: the rest is never read, so the connection
		// cannot carry another request.
		resp.SetConnectionClose()
		n = c.opts.MaxResponseBytes
	default:
		resp.SetConnectionClose()
	}
	if n > 0 {
		res.Body = append([]byte(nil), (*bp)[:n]...)
	}
	_ = resp.CloseBodyStream() // hands the connection back, or closes it
	res.Latency = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("read answer from %s: %w", redact(u), transportError(u, start, deadline, err))
	}
	return res, nil
}

// transportError hides the URL's path and query and makes a timeout
// recognisable as context.DeadlineExceeded whatever layer noticed it.
func transportError(u *url.URL, start, deadline time.Time, err error) error {
	err = &url.Error{Op: "Post", URL: redact(u), Err: err}
	var ne net.Error
	timedOut := errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, fasthttp.ErrDialTimeout) ||
		errors.Is(err, fasthttp.ErrTLSHandshakeTimeout) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()) || !time.Now().Before(deadline)
	if !timedOut || errors.Is(err, ErrRefused) {
		return err
	}
	took := time.Since(start).Round(time.Millisecond)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %s: %w", took, err)
	}
	return fmt.Errorf("timed out after %s: %w: %w", took, context.DeadlineExceeded, err)
}

func redact(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}
