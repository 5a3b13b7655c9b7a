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
package egress

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"code.dny.dev/ssrf"
)

// Defaults applied by New to zero (or negative) Options fields.
const (
	DefaultTimeout          = 15 * time.Second
	DefaultMaxResponseBytes = 1024
)

// UserAgent is sent with every delivery.
const UserAgent = "acct-webhooks/1"

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

// Client posts webhook deliveries through an SSRF-guarded transport. It is
// safe for concurrent use and keeps connections pooled per host: create one
// per process.
type Client struct {
	opts      Options
	guardian  *ssrf.Guardian
	transport *http.Transport
	http      *http.Client
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
	}
	dialer := &net.Dialer{
		Timeout:   opts.Timeout,
		KeepAlive: 30 * time.Second,
		Control:   c.control,
	}
	if r, ok := opts.Resolver.(*net.Resolver); ok {
		dialer.Resolver = r
	}
	c.transport = &http.Transport{
		Proxy:                  nil, // never from the environment: a proxy would bypass the guard
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true, // HTTP/2 over TLS, dialed through the same guarded dialer
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    10 * time.Second,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	c.http = &http.Client{
		Transport: c.transport,
		// A redirect is the receiver's answer, not a delivery; following
		// it would also let the receiver choose where we send next.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
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
func (c *Client) Post(ctx context.Context, rawURL string, headers http.Header, body []byte) (Result, error) {
	u, err := c.parseWebhookURL(rawURL)
	if err != nil {
		return Result{}, err
	}
	if err := checkHostName(u.Hostname()); err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return Result{}, invalid("%v", err)
	}
	for k, vs := range headers {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)

	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return Result{Latency: time.Since(start)}, transportError(ctx, u, start, err)
	}
	// Read at most the limit, then close: an unread remainder makes the
	// transport drop the connection rather than drain it, which is the point.
	got, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.opts.MaxResponseBytes)))
	resp.Body.Close()
	res := Result{StatusCode: resp.StatusCode, Body: got, Latency: time.Since(start)}
	if err != nil {
		return res, fmt.Errorf("read answer from %s: %w", redact(u), transportError(ctx, u, start, err))
	}
	return res, nil
}

// transportError hides the URL's path and query and makes a timeout
// recognisable as context.DeadlineExceeded whatever layer noticed it.
func transportError(ctx context.Context, u *url.URL, start time.Time, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redact(u)
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
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
