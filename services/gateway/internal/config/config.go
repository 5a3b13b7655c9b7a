// Package config is the gateway's configuration, read from the environment.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"

	"github.com/acctsuite/acct/services/gateway/internal/clientip"
	"github.com/acctsuite/acct/services/gateway/internal/routes"
)

// Config is the gateway's whole configuration.
type Config struct {
	// The kit's blocks: listener, logs, telemetry, admin listener; JWKS.
	Base servicekit.Base
	Auth servicekit.Auth

	Upstreams Upstreams

	// UpstreamTimeout bounds reading an upstream response (headers and
	// body) and writing a request to it; generous because CSV exports and
	// uploads stream through.
	UpstreamTimeout    time.Duration `env:"UPSTREAM_TIMEOUT" envDefault:"120s"`
	UpstreamMaxConns   int           `env:"UPSTREAM_MAX_CONNS" envDefault:"512"`
	OpenAPIRefresh     time.Duration `env:"OPENAPI_REFRESH_INTERVAL" envDefault:"30s"`
	CORSAllowedOrigins []string      `env:"CORS_ALLOWED_ORIGINS" envSeparator:","`
	// CORSAllowedHeaders are request headers a browser may send besides
	// CORSDefaultHeaders (comma-separated header names).
	CORSAllowedHeaders []string `env:"CORS_ALLOWED_HEADERS" envSeparator:","`

	// Per-caller buckets (token routes: a platform token's client, a
	// business token's business) and per-IP buckets (public routes, and
	// token routes whose token is missing or invalid) share the rate but
	// live in separate tables, so a flood of addresses cannot evict the
	// callers' buckets.
	RateLimitRPS   float64 `env:"RATE_LIMIT_RPS" envDefault:"200"`
	RateLimitBurst int     `env:"RATE_LIMIT_BURST" envDefault:"400"`
	// A platform's cap over all its tokens (platform and business ones):
	// one busy business cannot starve the platform's others, and a
	// platform cannot multiply its rate by minting business tokens. 0: ten
	// times RATE_LIMIT_RPS and RATE_LIMIT_BURST.
	PlatformRateLimitRPS   float64 `env:"PLATFORM_RATE_LIMIT_RPS" envDefault:"0"`
	PlatformRateLimitBurst int     `env:"PLATFORM_RATE_LIMIT_BURST" envDefault:"0"`
	RateLimitMaxClients    int     `env:"RATE_LIMIT_MAX_CLIENTS" envDefault:"100000"`
	RateLimitMaxIPs        int     `env:"RATE_LIMIT_MAX_IPS" envDefault:"100000"`
	// POST /oauth2/token checks client secrets: a stricter per-IP limit
	// of its own slows down guessing.
	TokenRateLimitRPS   float64 `env:"TOKEN_RATE_LIMIT_RPS" envDefault:"10"`
	TokenRateLimitBurst int     `env:"TOKEN_RATE_LIMIT_BURST" envDefault:"20"`
	// TrustedProxies are the addresses (IPs or CIDRs) whose
	// X-Forwarded-For is believed when finding a client's IP; from any
	// other peer the peer address is the client.
	TrustedProxies []string `env:"TRUSTED_PROXIES" envSeparator:","`

	// StorageDir and StorageSigningKey enable the public download route of
	// the filesystem object store (signed, expiring URLs the services hand
	// out); both or neither. Deployments on S3 leave them unset.
	StorageDir        string `env:"STORAGE_DIR"`
	StorageSigningKey string `env:"STORAGE_SIGNING_KEY"`
}

// CORSDefaultHeaders are the request headers every browser preflight may
// name: ours (Authorization, Content-Type, Idempotency-Key, X-Request-Id,
// trace context) and those the real product's client sends on every call
// (Layer-Locale, Layer-React-Version) and on every non-GET call
// (Cache-Control).
var CORSDefaultHeaders = []string{
	"Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id", "traceparent", "tracestate",
	"Layer-Locale", "Layer-React-Version", "Cache-Control",
}

// CORSHeaders is CORSDefaultHeaders followed by the configured extra
// headers (trimmed, without blanks or repeats, case-insensitively).
func (c Config) CORSHeaders() []string {
	out := slices.Clone(CORSDefaultHeaders)
	for _, h := range c.CORSAllowedHeaders {
		h = strings.TrimSpace(h)
		if h != "" && !slices.ContainsFunc(out, func(x string) bool { return strings.EqualFold(x, h) }) {
			out = append(out, h)
		}
	}
	return out
}

// validHeaderName reports whether h is an HTTP header name (an RFC 9110
// token).
func validHeaderName(h string) bool {
	if h == "" {
		return false
	}
	for _, r := range h {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// DownloadRoute reports whether the filesystem store's download route is
// on, with its decoded signing key.
func (c Config) DownloadRoute() (on bool, key []byte, err error) {
	if c.StorageDir == "" && c.StorageSigningKey == "" {
		return false, nil, nil
	}
	if c.StorageDir == "" {
		return false, nil, errors.New("STORAGE_DIR is required with STORAGE_SIGNING_KEY")
	}
	key, err = storage.Config{SigningKey: c.StorageSigningKey}.SigningKeyBytes()
	return err == nil, key, err
}

// DefaultBodyLimit is the gateway's request body limit when
// BODY_LIMIT_BYTES is unset: above the services' 10 MiB, because uploads
// (receipts, multipart records, the 50 MiB bank statement of
// POST .../custom-accounts/{id}/parse-csv and its framing) pass through it.
const DefaultBodyLimit = 52 << 20

// DefaultAdminAddr is where /metrics is served when ADMIN_ADDR is unset:
// never on the public listener.
const DefaultAdminAddr = ":9090"

// BodyLimit is the effective request body limit.
func (c Config) BodyLimit() int {
	if c.Base.BodyLimit > 0 {
		return c.Base.BodyLimit
	}
	return DefaultBodyLimit
}

// Upstreams holds one base URL per upstream service.
type Upstreams struct {
	AuthTokens        string `env:"UPSTREAM_AUTH_TOKENS_URL" envDefault:"http://127.0.0.1:8081"`
	Transactions      string `env:"UPSTREAM_TRANSACTIONS_URL" envDefault:"http://127.0.0.1:8082"`
	CustomersInvoices string `env:"UPSTREAM_CUSTOMERS_INVOICES_URL" envDefault:"http://127.0.0.1:8083"`
	Reports           string `env:"UPSTREAM_REPORTS_URL" envDefault:"http://127.0.0.1:8084"`
	BillsTags         string `env:"UPSTREAM_BILLS_TAGS_URL" envDefault:"http://127.0.0.1:8085"`
	Mileage           string `env:"UPSTREAM_MILEAGE_URL" envDefault:"http://127.0.0.1:8086"`
	Webhooks          string `env:"UPSTREAM_WEBHOOKS_URL" envDefault:"http://127.0.0.1:8087"`
}

// URLs maps routing-table upstream names to base URLs.
func (u Upstreams) URLs() map[string]string {
	return map[string]string{
		routes.AuthTokens: u.AuthTokens, routes.Transactions: u.Transactions, routes.CustomersInvoices: u.CustomersInvoices,
		routes.Reports: u.Reports, routes.BillsTags: u.BillsTags,
		routes.Mileage: u.Mileage, routes.Webhooks: u.Webhooks,
	}
}

// PlatformLimit is the platform cap's rate and burst, defaults applied.
func (c Config) PlatformLimit() (float64, int) {
	rps, burst := c.PlatformRateLimitRPS, c.PlatformRateLimitBurst
	if rps == 0 {
		rps = 10 * c.RateLimitRPS
	}
	if burst == 0 {
		burst = 10 * c.RateLimitBurst
	}
	return rps, burst
}

// Load reads the configuration from the environment and validates it.
func Load() (Config, error) { return pkgconfig.Read[Config]() }

// Validate checks values that would otherwise fail late or silently.
func (c Config) Validate() error {
	errs := []error{c.Base.Validate()}
	if c.RateLimitRPS <= 0 {
		errs = append(errs, errors.New("RATE_LIMIT_RPS must be positive"))
	}
	if c.RateLimitBurst < 1 {
		errs = append(errs, errors.New("RATE_LIMIT_BURST must be at least 1"))
	}
	if c.RateLimitMaxClients < 1 || c.RateLimitMaxIPs < 1 {
		errs = append(errs, errors.New("RATE_LIMIT_MAX_CLIENTS and RATE_LIMIT_MAX_IPS must be at least 1"))
	}
	if c.PlatformRateLimitRPS < 0 || c.PlatformRateLimitBurst < 0 {
		errs = append(errs, errors.New("PLATFORM_RATE_LIMIT_RPS and PLATFORM_RATE_LIMIT_BURST must not be negative (0: ten times RATE_LIMIT_RPS and RATE_LIMIT_BURST)"))
	}
	if c.TokenRateLimitRPS <= 0 || c.TokenRateLimitBurst < 1 {
		errs = append(errs, errors.New("TOKEN_RATE_LIMIT_RPS must be positive and TOKEN_RATE_LIMIT_BURST at least 1"))
	}
	if _, err := clientip.New(c.TrustedProxies); err != nil {
		errs = append(errs, fmt.Errorf("TRUSTED_PROXIES: %w", err))
	}
	if c.UpstreamTimeout <= 0 || c.OpenAPIRefresh <= 0 {
		errs = append(errs, errors.New("UPSTREAM_TIMEOUT and OPENAPI_REFRESH_INTERVAL must be positive"))
	}
	for _, h := range c.CORSAllowedHeaders {
		if h = strings.TrimSpace(h); h != "" && !validHeaderName(h) {
			errs = append(errs, fmt.Errorf("CORS_ALLOWED_HEADERS: %q is not a header name", h))
		}
	}
	if c.UpstreamMaxConns < 1 {
		errs = append(errs, errors.New("UPSTREAM_MAX_CONNS must be at least 1"))
	}
	if err := checkURL("JWKS_URL", c.Auth.JWKSURL); err != nil {
		errs = append(errs, err)
	}
	if _, _, err := c.DownloadRoute(); err != nil {
		errs = append(errs, err)
	}
	urls := c.Upstreams.URLs()
	for _, name := range routes.Upstreams(routes.Table) {
		if err := checkURL("upstream "+name, urls[name]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func checkURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: %q is not an http(s) URL", what, raw)
	}
	return nil
}
