// Package config is the gateway's configuration, read from the environment.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/telemetry"

	"github.com/acctsuite/acct/services/gateway/internal/clientip"
	"github.com/acctsuite/acct/services/gateway/internal/routes"
)

// Config is the gateway's whole configuration.
type Config struct {
	// The gateway does not embed pkgconfig.HTTP because its body limit
	// default differs (32 MiB instead of 10 MiB: uploads pass through it).
	Addr            string        `env:"HTTP_ADDR" envDefault:":8080"`
	BodyLimit       int           `env:"BODY_LIMIT_BYTES" envDefault:"33554432"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"20s"`

	Log       pkgconfig.Log
	Telemetry telemetry.Config

	JWKSURL   string `env:"JWKS_URL" envDefault:"http://127.0.0.1:8081/.well-known/jwks.json"`
	Upstreams Upstreams

	// UpstreamTimeout bounds reading an upstream response (headers and
	// body) and writing a request to it; generous because CSV exports and
	// uploads stream through.
	UpstreamTimeout    time.Duration `env:"UPSTREAM_TIMEOUT" envDefault:"120s"`
	UpstreamMaxConns   int           `env:"UPSTREAM_MAX_CONNS" envDefault:"512"`
	OpenAPIRefresh     time.Duration `env:"OPENAPI_REFRESH_INTERVAL" envDefault:"30s"`
	CORSAllowedOrigins []string      `env:"CORS_ALLOWED_ORIGINS" envSeparator:","`

	// Per-client buckets (token routes) and per-IP buckets (public routes,
	// and token routes whose token is missing or invalid) share the rate
	// but live in separate tables, so a flood of addresses cannot evict
	// the clients' buckets.
	RateLimitRPS        float64 `env:"RATE_LIMIT_RPS" envDefault:"200"`
	RateLimitBurst      int     `env:"RATE_LIMIT_BURST" envDefault:"400"`
	RateLimitMaxClients int     `env:"RATE_LIMIT_MAX_CLIENTS" envDefault:"100000"`
	RateLimitMaxIPs     int     `env:"RATE_LIMIT_MAX_IPS" envDefault:"100000"`
	// POST /oauth2/token checks client secrets: a stricter per-IP limit
	// of its own slows down guessing.
	TokenRateLimitRPS   float64 `env:"TOKEN_RATE_LIMIT_RPS" envDefault:"10"`
	TokenRateLimitBurst int     `env:"TOKEN_RATE_LIMIT_BURST" envDefault:"20"`
	// TrustedProxies are the addresses (IPs or CIDRs) whose
	// X-Forwarded-For is believed when finding a client's IP; from any
	// other peer the peer address is the client.
	TrustedProxies []string `env:"TRUSTED_PROXIES" envSeparator:","`
}

// Upstreams holds one base URL per upstream service.
type Upstreams struct {
	AuthTokens string `env:"UPSTREAM_AUTH_TOKENS_URL" envDefault:"http://127.0.0.1:8081"`
}

// URLs maps routing-table upstream names to base URLs.
func (u Upstreams) URLs() map[string]string {
	return map[string]string{routes.AuthTokens: u.AuthTokens}
}

// Load reads the configuration from the environment and validates it.
func Load() (Config, error) {
	var c Config
	if err := pkgconfig.Load(&c); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Validate checks values that would otherwise fail late or silently.
func (c Config) Validate() error {
	var errs []error
	if c.BodyLimit <= 0 {
		errs = append(errs, errors.New("BODY_LIMIT_BYTES must be positive"))
	}
	if c.RateLimitRPS <= 0 {
		errs = append(errs, errors.New("RATE_LIMIT_RPS must be positive"))
	}
	if c.RateLimitBurst < 1 {
		errs = append(errs, errors.New("RATE_LIMIT_BURST must be at least 1"))
	}
	if c.RateLimitMaxClients < 1 || c.RateLimitMaxIPs < 1 {
		errs = append(errs, errors.New("RATE_LIMIT_MAX_CLIENTS and RATE_LIMIT_MAX_IPS must be at least 1"))
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
	if c.UpstreamMaxConns < 1 {
		errs = append(errs, errors.New("UPSTREAM_MAX_CONNS must be at least 1"))
	}
	if err := checkURL("JWKS_URL", c.JWKSURL); err != nil {
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
