package service

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// TestForwardsExactlyTheRoutedPath: the gateway routes on the raw path and
// the upstream must receive those same bytes. Paths a later reader could
// decode or resolve into another path (dot segments, encoded slashes) are
// refused before routing, so no tenancy check can be sidestepped.
func TestForwardsExactlyTheRoutedPath(t *testing.T) {
	mine, other := uuid.New(), uuid.New()
	fake := newFakeAuthTokens(t, map[uuid.UUID]string{mine: "client-a", other: "client-b"})
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))
	tok := is.platform(t, "client-a")
	m, o := mine.String(), other.String()

	tests := []struct {
		name, target string
		wantStatus   int // 200: forwarded, byte for byte
	}{
		{"plain", "/v1/businesses/" + m, http.StatusOK},
		{"trailing slashes stay", "/v1/businesses/" + m + "//", http.StatusOK},
		{"query kept raw", "/v1/businesses/" + m + "?q=..%2Fx&b=%41", http.StatusOK},
		{"case kept", "/V1/Businesses/" + m, http.StatusOK},
		{"dot-dot to another business", "/v1/businesses/" + m + "/../" + o, http.StatusBadRequest},
		{"encoded slash dot-dot", "/v1/businesses/" + m + "/..%2F" + o, http.StatusBadRequest},
		{"encoded slashes inside the id", "/v1/businesses/" + m + "%2F..%2F" + o, http.StatusBadRequest},
		{"encoded dots", "/v1/businesses/" + m + "/%2e%2e/" + o, http.StatusBadRequest},
		{"dot segment", "/v1/businesses/./" + m, http.StatusBadRequest},
		{"trailing dot-dot", "/v1/businesses/" + m + "/..", http.StatusBadRequest},
		{"from a token-free route", "/oauth2/token/../v1/businesses/" + o, http.StatusBadRequest},
		{"backslash", "/v1/businesses/" + m + "\\..\\" + o, http.StatusBadRequest},
		{"encoded backslash", "/v1/businesses/" + m + "%5C..%5C" + o, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake.received()
			status, body := rawCall(t, gw, http.MethodGet, tt.target, tok)
			got := fake.received()
			if tt.wantStatus != http.StatusOK {
				wantError(t, status, body, tt.wantStatus, apperr.InvalidParameters)
				if len(got) != 0 {
					t.Fatalf("upstream received %v", got)
				}
				return
			}
			if status != http.StatusOK {
				t.Fatalf("got %d %s", status, body)
			}
			if len(got) != 1 || got[0] != tt.target {
				t.Fatalf("upstream received %q, want exactly %q", got, tt.target)
			}
		})
	}
}

// TestBusinessTokenCannotPatchItsBusiness: auth-tokens refuses a business
// token changing its business with 403; the gateway answers the same, and
// another business still answers 404 (existence is not revealed).
func TestBusinessTokenCannotPatchItsBusiness(t *testing.T) {
	own, foreign := uuid.New(), uuid.New()
	fake := newFakeAuthTokens(t, map[uuid.UUID]string{own: "client-a", foreign: "client-b"})
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))
	business := is.business(t, "client-a", own)
	platform := is.platform(t, "client-a")
	body := func() *strings.Reader { return strings.NewReader(`{"legal_name":"X"}`) }
	hdr := map[string]string{"Content-Type": "application/json"}

	tests := []struct {
		name       string
		method     string
		token      string
		bid        uuid.UUID
		wantStatus int
		wantType   apperr.Type // empty: forwarded
	}{
		{"business token patches its business", http.MethodPatch, business, own, http.StatusForbidden, apperr.Forbidden},
		{"business token patches another business", http.MethodPatch, business, foreign, http.StatusNotFound, apperr.NotFound},
		{"business token reads its business", http.MethodGet, business, own, http.StatusOK, ""},
		{"platform token patches its business", http.MethodPatch, platform, own, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := "/v1/businesses/" + tt.bid.String()
			var status int
			var data []byte
			if tt.method == http.MethodPatch {
				status, _, data = call(t, tt.method, gw+p, tt.token, body(), hdr)
			} else {
				status, _, data = call(t, tt.method, gw+p, tt.token, nil, nil)
			}
			if tt.wantType != "" {
				wantError(t, status, data, tt.wantStatus, tt.wantType)
				if fake.seen(tt.method, p) != nil {
					t.Fatalf("upstream saw %s %s", tt.method, p)
				}
				return
			}
			if status != tt.wantStatus || fake.seen(tt.method, p) == nil {
				t.Fatalf("got %d %s, want forwarded", status, data)
			}
		})
	}
}

// TestIPLimits: public routes, failed authentication and the token
// endpoint are limited per client IP, where the IP comes from
// X-Forwarded-For only when the peer is a trusted proxy.
func TestIPLimits(t *testing.T) {
	is := newIssuer(t)
	type req struct {
		method, path, token, forwardedFor string
		wantStatus                        int
	}
	valid := is.platform(t, "client-v")
	tests := []struct {
		name    string
		trusted []string
		burst   int
		reqs    []req
	}{
		{"bad tokens are throttled per IP", nil, 2, []req{
			{http.MethodGet, "/whoami", "not-a-jwt", "", http.StatusUnauthorized},
			{http.MethodGet, "/whoami", "", "", http.StatusUnauthorized},
			{http.MethodGet, "/whoami", "not-a-jwt", "", http.StatusTooManyRequests},
			// A valid token is limited per client, not by the IP's bad tokens.
			{http.MethodGet, "/whoami", valid, "", http.StatusOK},
		}},
		{"token endpoint has its own stricter limit", nil, 100, []req{
			{http.MethodPost, "/oauth2/token", "", "", http.StatusOK},
			{http.MethodPost, "/oauth2/token", "", "", http.StatusOK},
			{http.MethodPost, "/oauth2/token", "", "", http.StatusTooManyRequests},
			{http.MethodGet, "/.well-known/jwks.json", "", "", http.StatusOK},
		}},
		{"forwarded-for ignored from an untrusted peer", nil, 1, []req{
			{http.MethodGet, "/.well-known/jwks.json", "", "198.51.100.1", http.StatusOK},
			{http.MethodGet, "/.well-known/jwks.json", "", "198.51.100.2", http.StatusTooManyRequests},
		}},
		{"forwarded-for believed from a trusted proxy", []string{"127.0.0.0/8"}, 1, []req{
			{http.MethodGet, "/.well-known/jwks.json", "", "198.51.100.1", http.StatusOK},
			{http.MethodGet, "/.well-known/jwks.json", "", "198.51.100.2", http.StatusOK},
			{http.MethodGet, "/.well-known/jwks.json", "", "198.51.100.1", http.StatusTooManyRequests},
			// The client cannot pick its address by prepending one.
			{http.MethodGet, "/.well-known/jwks.json", "", "203.0.113.77, 198.51.100.2", http.StatusTooManyRequests},
		}},
		{"an IPv6 client is limited per /64", []string{"127.0.0.0/8"}, 1, []req{
			{http.MethodGet, "/.well-known/jwks.json", "", "2001:db8:1:2::1", http.StatusOK},
			// Another address of the same /64: the same subscriber.
			{http.MethodGet, "/.well-known/jwks.json", "", "2001:db8:1:2:9f3c:77aa:1:2", http.StatusTooManyRequests},
			{http.MethodGet, "/.well-known/jwks.json", "", "2001:db8:1:3::1", http.StatusOK},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeAuthTokens(t, nil)
			cfg := testConfig(is.jwks.URL, fake.URL)
			cfg.RateLimitRPS, cfg.RateLimitBurst = 0.01, tt.burst
			cfg.TokenRateLimitRPS, cfg.TokenRateLimitBurst = 0.01, 2
			cfg.TrustedProxies = tt.trusted
			_, gw := startGateway(t, cfg)
			for i, r := range tt.reqs {
				hdr := map[string]string{}
				if r.forwardedFor != "" {
					hdr["X-Forwarded-For"] = r.forwardedFor
				}
				status, h, data := call(t, r.method, gw+r.path, r.token, nil, hdr)
				if status != r.wantStatus {
					t.Fatalf("request %d (%s %s): got %d %s, want %d", i, r.method, r.path, status, data, r.wantStatus)
				}
				if status == http.StatusTooManyRequests {
					wantError(t, status, data, status, apperr.RateLimited)
					if h.Get("Retry-After") == "" {
						t.Fatalf("request %d: 429 without Retry-After", i)
					}
				}
			}
		})
	}
}
