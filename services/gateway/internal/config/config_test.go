package config

import (
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/servicekit"
)

func valid() Config {
	return Config{
		Base: servicekit.Base{Addr: ":8080"},
		Auth: servicekit.Auth{JWKSURL: "http://127.0.0.1:8081/.well-known/jwks.json"},
		Upstreams: Upstreams{AuthTokens: "http://127.0.0.1:8081", Transactions: "http://127.0.0.1:8082", CustomersInvoices: "http://127.0.0.1:8083", Reports: "http://127.0.0.1:8084", BillsTags: "http://127.0.0.1:8085",
			Mileage: "http://127.0.0.1:8086", Webhooks: "http://127.0.0.1:8087"},
		UpstreamTimeout: time.Second, UpstreamMaxConns: 10, OpenAPIRefresh: time.Second,
		RateLimitRPS: 1, RateLimitBurst: 1, RateLimitMaxClients: 1, RateLimitMaxIPs: 1,
		TokenRateLimitRPS: 1, TokenRateLimitBurst: 1,
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*Config)
		wantErr string
	}{
		{"valid", func(*Config) {}, ""},
		{"body limit", func(c *Config) { c.Base.BodyLimit = -1 }, "BODY_LIMIT_BYTES"},
		{"rps", func(c *Config) { c.RateLimitRPS = 0 }, "RATE_LIMIT_RPS"},
		{"burst", func(c *Config) { c.RateLimitBurst = 0 }, "RATE_LIMIT_BURST"},
		{"jwks", func(c *Config) { c.Auth.JWKSURL = "ftp://x" }, "JWKS_URL"},
		{"upstream", func(c *Config) { c.Upstreams.AuthTokens = "" }, "upstream auth-tokens"},
		{"customers-invoices upstream", func(c *Config) { c.Upstreams.CustomersInvoices = "not a url" }, "upstream customers-invoices"},
		{"reports upstream", func(c *Config) { c.Upstreams.Reports = "not a url" }, "upstream reports"},
		{"bills-tags upstream", func(c *Config) { c.Upstreams.BillsTags = "not a url" }, "upstream bills-tags"},
		{"mileage upstream", func(c *Config) { c.Upstreams.Mileage = "not a url" }, "upstream mileage"},
		{"timeouts", func(c *Config) { c.UpstreamTimeout = 0 }, "UPSTREAM_TIMEOUT"},
		{"ip table", func(c *Config) { c.RateLimitMaxIPs = 0 }, "RATE_LIMIT_MAX_IPS"},
		{"token endpoint rate", func(c *Config) { c.TokenRateLimitRPS = 0 }, "TOKEN_RATE_LIMIT_RPS"},
		{"platform cap rate", func(c *Config) { c.PlatformRateLimitRPS = -1 }, "PLATFORM_RATE_LIMIT_RPS"},
		{"platform cap burst", func(c *Config) { c.PlatformRateLimitBurst = -1 }, "PLATFORM_RATE_LIMIT_BURST"},
		{"token endpoint burst", func(c *Config) { c.TokenRateLimitBurst = 0 }, "TOKEN_RATE_LIMIT_BURST"},
		{"trusted proxies", func(c *Config) { c.TrustedProxies = []string{"10.0.0.0/99"} }, "TRUSTED_PROXIES"},
		{"trusted proxies valid", func(c *Config) { c.TrustedProxies = []string{"10.0.0.0/8", "::1"} }, ""},
		{"cors headers valid", func(c *Config) { c.CORSAllowedHeaders = []string{"X-Platform-Trace", " Baggage ", ""} }, ""},
		{"cors header with a space", func(c *Config) { c.CORSAllowedHeaders = []string{"X Trace"} }, "CORS_ALLOWED_HEADERS"},
		{"cors header with a colon", func(c *Config) { c.CORSAllowedHeaders = []string{"X-Trace:1"} }, "CORS_ALLOWED_HEADERS"},
		{"cors header not ASCII", func(c *Config) { c.CORSAllowedHeaders = []string{"X-Tracé"} }, "CORS_ALLOWED_HEADERS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.mutate(&c)
			err := c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want mention of %q", err, tt.wantErr)
			}
		})
	}
}

func TestLoadDefaults(t *testing.T) {
	t.Setenv("CORS_ALLOWED_ORIGINS", "https://a.example,https://b.example")
	t.Setenv("TRUSTED_PROXIES", "10.0.0.0/8,192.168.0.1")
	t.Setenv("CORS_ALLOWED_HEADERS", "X-Platform-Trace,Baggage")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.BodyLimit() != 54525952 || c.RateLimitRPS != 200 || c.RateLimitBurst != 400 || c.Base.Addr != ":8080" {
		t.Fatalf("defaults: %+v", c)
	}
	if c.TokenRateLimitRPS != 10 || c.TokenRateLimitBurst != 20 || c.RateLimitMaxIPs != 100000 {
		t.Fatalf("token endpoint and IP table defaults: %+v", c)
	}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[1] != "192.168.0.1" {
		t.Fatalf("trusted proxies: %v", c.TrustedProxies)
	}
	if c.Upstreams.AuthTokens != "http://127.0.0.1:8081" || c.Upstreams.CustomersInvoices != "http://127.0.0.1:8083" || len(c.CORSAllowedOrigins) != 2 {
		t.Fatalf("upstreams/cors: %+v", c)
	}
	// The real client's headers are always allowed; the configured ones follow.
	h := strings.Join(c.CORSHeaders(), ",")
	for _, want := range []string{"Layer-Locale", "Layer-React-Version", "Cache-Control", "Authorization", "Idempotency-Key", "X-Platform-Trace", "Baggage"} {
		if !strings.Contains(h, want) {
			t.Fatalf("CORSHeaders() = %s lacks %s", h, want)
		}
	}
}

// TestEmptyTrustedProxies: the chart sets TRUSTED_PROXIES="" by default,
// which must mean "trust nobody", not a configuration error.
func TestEmptyTrustedProxies(t *testing.T) {
	t.Setenv("TRUSTED_PROXIES", "")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
}

func TestPlatformLimitDefaults(t *testing.T) {
	c := Config{RateLimitRPS: 200, RateLimitBurst: 400}
	if rps, burst := c.PlatformLimit(); rps != 2000 || burst != 4000 {
		t.Fatalf("default cap = %v, %d; want ten times the caller's 200, 400", rps, burst)
	}
	c.PlatformRateLimitRPS, c.PlatformRateLimitBurst = 50, 60
	if rps, burst := c.PlatformLimit(); rps != 50 || burst != 60 {
		t.Fatalf("set cap = %v, %d; want 50, 60", rps, burst)
	}
}
