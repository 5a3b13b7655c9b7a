package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/acctsuite/acct/pkg/httpauth"
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"

	"github.com/acctsuite/acct/services/gateway/internal/apidocs"
	"github.com/acctsuite/acct/services/gateway/internal/routes"
)

// wantError checks an error object of the given category.
func wantError(t *testing.T, status int, body []byte, wantStatus int, wantType apperr.Type) {
	t.Helper()
	var e apperr.Body
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("status %d, body is not an error object: %s", status, body)
	}
	if status != wantStatus || e.Type != string(wantType) {
		t.Fatalf("got %d %s, want %d %s", status, body, wantStatus, wantType)
	}
}

// TestTenancyOverRoutingTable iterates every row of the routing table, so a
// route added later is covered without touching this test.
func TestTenancyOverRoutingTable(t *testing.T) {
	const clientA, clientB = "client-a", "client-b"
	ownBiz, otherOwnBiz, foreignBiz, unknownBiz := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	fake := newFakeAuthTokens(t, map[uuid.UUID]string{ownBiz: clientA, otherOwnBiz: clientA, foreignBiz: clientB})
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))

	platformA := is.platform(t, clientA)
	businessA := is.business(t, clientA, ownBiz)
	expired := is.expired(t, clientA)
	path := func(r routes.Route, bid string) string {
		return routes.Concrete(r.Path, map[string]string{routes.BusinessParam: bid})
	}

	type check struct {
		name       string
		token      string
		businessID string
		wantStatus int
		wantType   apperr.Type // empty: forwarded to the upstream
	}
	for _, r := range routes.Table {
		var checks []check
		if r.Auth == routes.Public {
			checks = append(checks, check{"public without token", "", ownBiz.String(), http.StatusOK, ""})
		} else {
			checks = append(checks,
				check{"no token", "", ownBiz.String(), http.StatusUnauthorized, apperr.Unauthenticated},
				check{"malformed token", "not-a-jwt", ownBiz.String(), http.StatusUnauthorized, apperr.Unauthenticated},
				check{"tampered token", platformA[:len(platformA)-4] + "AAAA", ownBiz.String(), http.StatusUnauthorized, apperr.Unauthenticated},
				check{"expired token", expired, ownBiz.String(), http.StatusUnauthorized, apperr.Unauthenticated},
				check{"platform token", platformA, ownBiz.String(), http.StatusOK, ""},
			)
			switch {
			case r.Tenancy.Has(routes.PlatformOnly):
				checks = append(checks, check{"business token on platform-only route", businessA, ownBiz.String(), http.StatusForbidden, apperr.Forbidden})
			default:
				checks = append(checks, check{"business token", businessA, ownBiz.String(), http.StatusOK, ""})
			}
			if r.Tenancy.Has(routes.Business) {
				checks = append(checks,
					check{"platform token, foreign business", platformA, foreignBiz.String(), http.StatusNotFound, apperr.NotFound},
					check{"platform token, unknown business", platformA, unknownBiz.String(), http.StatusNotFound, apperr.NotFound},
					check{"business token, another business of its client", businessA, otherOwnBiz.String(), http.StatusNotFound, apperr.NotFound},
					check{"invalid uuid", platformA, "not-a-uuid", http.StatusBadRequest, apperr.InvalidParameters},
				)
			}
		}
		for _, method := range r.Methods {
			for _, c := range checks {
				t.Run(fmt.Sprintf("%s %s/%s", method, r.Path, c.name), func(t *testing.T) {
					p := path(r, c.businessID)
					var body io.Reader
					hdr := map[string]string{}
					if method != http.MethodGet {
						body = strings.NewReader(`{}`)
						hdr["Content-Type"] = "application/json"
					}
					status, h, data := call(t, method, gw+p, c.token, body, hdr)
					if c.wantType != "" {
						wantError(t, status, data, c.wantStatus, c.wantType)
						if status == http.StatusUnauthorized && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
							t.Fatalf("401 without WWW-Authenticate: Bearer (got %q)", h.Get("WWW-Authenticate"))
						}
						return
					}
					if status != c.wantStatus || !strings.Contains(string(data), `"upstream":"auth-tokens"`) {
						t.Fatalf("got %d %s, want forwarded", status, data)
					}
					seen := fake.seen(method, p)
					if seen == nil {
						t.Fatalf("upstream did not see %s %s", method, p)
					}
					if r.Auth == routes.Token && seen.Header.Get(httpauth.HeaderClientID) != clientA {
						t.Fatalf("upstream saw client id %q", seen.Header.Get(httpauth.HeaderClientID))
					}
				})
			}
		}
	}
}

func TestIdentityHeadersCannotBeSpoofed(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))

	tests := []struct {
		name  string
		token string
	}{
		{"public route", ""},
		{"token route", is.platform(t, "client-a")},
	}
	spoofed := map[string]string{
		"X-Acct-Client-Id":   "evil",
		"x-acct-scope":       "business",
		"X-ACCT-BUSINESS-ID": uuid.NewString(),
		"X-Acct-Client-Name": "Evil Corp",
		"X-Acct-Extra":       "anything",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method, p := http.MethodGet, "/whoami"
			if tt.token == "" {
				method, p = http.MethodPost, "/oauth2/token"
			}
			status, _, data := call(t, method, gw+p, tt.token, nil, spoofed)
			if status != http.StatusOK {
				t.Fatalf("got %d %s", status, data)
			}
			seen := fake.seen(method, p)
			want := map[string]string{"X-Acct-Client-Id": "", "X-Acct-Scope": "", "X-Acct-Business-Id": "", "X-Acct-Client-Name": "", "X-Acct-Extra": ""}
			if tt.token != "" {
				want["X-Acct-Client-Id"] = "client-a"
				want["X-Acct-Scope"] = "platform"
				want["X-Acct-Client-Name"] = "client-a name"
			}
			for k, v := range want {
				if got := seen.Header.Get(k); got != v {
					t.Errorf("upstream saw %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestRequestIDAndTraceparentForwarded(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))

	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name      string
		requestID string
	}{
		{"client request id", "req-abc-123"},
		{"generated request id", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{"traceparent": traceparent}
			if tt.requestID != "" {
				hdr["X-Request-Id"] = tt.requestID
			}
			status, h, _ := call(t, http.MethodGet, gw+"/whoami", is.platform(t, "c"), nil, hdr)
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			seen := fake.seen(http.MethodGet, "/whoami")
			rid := seen.Header.Get("X-Request-Id")
			if rid == "" || rid != h.Get("X-Request-Id") || (tt.requestID != "" && rid != tt.requestID) {
				t.Fatalf("upstream request id %q, response %q, sent %q", rid, h.Get("X-Request-Id"), tt.requestID)
			}
			if got := strings.Split(seen.Header.Get("traceparent"), "-"); len(got) != 4 || got[1] != "4bf92f3577b34da6a3ce929d0e0e4736" {
				t.Fatalf("upstream traceparent %q does not continue the trace", seen.Header.Get("traceparent"))
			}
		})
	}
}

func TestRateLimit(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	cfg := testConfig(is.jwks.URL, fake.URL)
	cfg.RateLimitRPS, cfg.RateLimitBurst = 0.01, 3
	cfg.PlatformRateLimitRPS, cfg.PlatformRateLimitBurst = 0.01, 8
	_, gw := startGateway(t, cfg)

	get := func(t *testing.T, path, token string, want int) {
		t.Helper()
		status, h, data := call(t, http.MethodGet, gw+path, token, nil, nil)
		if want == http.StatusOK {
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d %s, want 200", path, status, data)
			}
			return
		}
		wantError(t, status, data, http.StatusTooManyRequests, apperr.RateLimited)
		if ra := h.Get("Retry-After"); ra == "" || ra == "0" {
			t.Fatalf("Retry-After = %q", ra)
		}
	}
	burst := func(t *testing.T, path, token string) {
		t.Helper()
		for range cfg.RateLimitBurst {
			get(t, path, token, http.StatusOK)
		}
		get(t, path, token, http.StatusTooManyRequests)
	}

	t.Run("per IP on public routes", func(t *testing.T) {
		burst(t, "/.well-known/jwks.json", "")
	})
	t.Run("per caller under the platform's cap", func(t *testing.T) {
		biz1, biz2 := uuid.New(), uuid.New()
		// The platform's own bucket, then each business's own: a busy
		// business does not empty the platform's or another's.
		burst(t, "/whoami", is.platform(t, "client-r"))
		burst(t, "/whoami", is.business(t, "client-r", biz1))
		get(t, "/whoami", is.business(t, "client-r", biz2), http.StatusOK)
		// 3 + 3 + 1 of the platform's 8 (refused calls charge the cap
		// only when their own bucket let them through): one left, then
		// every token of the platform is refused, a fresh business too.
		get(t, "/whoami", is.business(t, "client-r", biz2), http.StatusOK)
		get(t, "/whoami", is.business(t, "client-r", uuid.New()), http.StatusTooManyRequests)
	})
	// Another client is unaffected.
	get(t, "/whoami", is.platform(t, "client-s"), http.StatusOK)
}

func TestBodyLimit(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	cfg := testConfig(is.jwks.URL, fake.URL)
	cfg.Base.BodyLimit = 64 << 10
	_, gw := startGateway(t, cfg)
	tok := is.platform(t, "client-a")

	big := bytes.Repeat([]byte("x"), 3*cfg.Base.BodyLimit)
	tests := []struct {
		name string
		body io.Reader
		want int
	}{
		{"small", bytes.NewReader(big[:1024]), http.StatusOK},
		{"content-length over limit", bytes.NewReader(big), http.StatusRequestEntityTooLarge},
		{"chunked over limit", io.MultiReader(bytes.NewReader(big)), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, data := call(t, http.MethodPost, gw+"/v1/businesses", tok, tt.body, map[string]string{"Content-Type": "application/json"})
			if tt.want == http.StatusOK {
				if status != http.StatusOK {
					t.Fatalf("got %d %s", status, data)
				}
				return
			}
			wantError(t, status, data, tt.want, apperr.PayloadTooLarge)
		})
	}
}

func TestUpstreamDown(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))
	tok := is.platform(t, "client-a")
	if status, _, _ := call(t, http.MethodGet, gw+"/whoami", tok, nil, nil); status != http.StatusOK {
		t.Fatalf("warm-up: %d", status)
	}
	fake.Close()
	// The JWKS is cached, so tokens still verify while auth-tokens is down.
	status, h, data := call(t, http.MethodGet, gw+"/whoami", tok, nil, nil)
	wantError(t, status, data, http.StatusServiceUnavailable, apperr.Unavailable)
	if !strings.Contains(string(data), "auth-tokens is unavailable") || h.Get("Retry-After") == "" {
		t.Fatalf("503 body %s, Retry-After %q", data, h.Get("Retry-After"))
	}
	if strings.Contains(string(data), "127.0.0.1") || strings.Contains(string(data), "refused") {
		t.Fatalf("503 leaks internals: %s", data)
	}
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	fake := newFakeAuthTokens(t, map[uuid.UUID]string{})
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))
	tok := is.platform(t, "client-a")

	tests := []struct {
		name, method, path string
		wantStatus         int
		wantType           apperr.Type
		wantAllow          string
	}{
		{"unknown path", http.MethodGet, "/nope", http.StatusNotFound, apperr.NotFound, ""},
		{"internal endpoint", http.MethodGet, "/internal/v1/businesses/" + uuid.NewString() + "/owner", http.StatusNotFound, apperr.NotFound, ""},
		{"wrong method", http.MethodDelete, "/whoami", http.StatusMethodNotAllowed, apperr.MethodNotAllowed, "GET, HEAD"},
		{"wrong method on parameter route", http.MethodDelete, "/v1/businesses/" + uuid.NewString(), http.StatusMethodNotAllowed, apperr.MethodNotAllowed, "GET, HEAD, PATCH"},
		{"GET on token endpoint", http.MethodGet, "/oauth2/token", http.StatusMethodNotAllowed, apperr.MethodNotAllowed, "POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, data := call(t, tt.method, gw+tt.path, tok, nil, nil)
			wantError(t, status, data, tt.wantStatus, tt.wantType)
			if h.Get("Allow") != tt.wantAllow {
				t.Fatalf("Allow = %q, want %q", h.Get("Allow"), tt.wantAllow)
			}
		})
	}
}

func TestOpenAPIDocsAndHealth(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	svc, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))
	if err := svc.Docs().Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}

	status, _, data := call(t, http.MethodGet, gw+"/openapi.json", "", nil, nil)
	if status != http.StatusOK || !strings.Contains(string(data), `"/whoami"`) {
		t.Fatalf("/openapi.json: %d %s", status, data)
	}
	var doc struct {
		Info struct{ Title string } `json:"info"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Info.Title != apidocs.Title {
		t.Fatalf("/openapi.json title = %q (%v), want %q (not the first service's)", doc.Info.Title, err, apidocs.Title)
	}
	status, h, page := call(t, http.MethodGet, gw+"/docs", "", nil, nil)
	if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("/docs: %d %s", status, h.Get("Content-Type"))
	}
	if !bytes.Contains(page, []byte("<title>"+html.EscapeString(apidocs.Title))) && !bytes.Contains(page, []byte("<title>"+apidocs.Title)) {
		t.Fatalf("/docs page is not titled %q: %.300s", apidocs.Title, page)
	}
	for _, cdn := range []string{"unpkg.com", "jsdelivr", "cdnjs", "googleapis"} {
		if bytes.Contains(page, []byte(cdn)) {
			t.Fatalf("/docs references %s", cdn)
		}
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if status, _, data := call(t, http.MethodGet, gw+p, "", nil, nil); status != http.StatusOK {
			t.Fatalf("%s: %d %s", p, status, data)
		}
	}
	// Metrics are on the admin listener only, never on the public port.
	if status, _, _ := call(t, http.MethodGet, gw+"/metrics", "", nil, nil); status != http.StatusNotFound {
		t.Fatalf("public /metrics: %d, want 404", status)
	}
	status, _, data = call(t, http.MethodGet, "http://"+svc.kit.AdminAddr()+"/metrics", "", nil, nil)
	if status != http.StatusOK || !bytes.Contains(data, []byte(`http_requests_total{`)) {
		t.Fatalf("admin /metrics: %d %.300s", status, data)
	}
}

func TestReadyzNeedsJWKS(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	is.jwks.Close() // auth-tokens' JWKS never reachable
	_, gw := startGateway(t, testConfig(is.jwks.URL, fake.URL))
	if status, _, _ := call(t, http.MethodGet, gw+"/readyz", "", nil, nil); status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz without JWKS: %d", status)
	}
}
