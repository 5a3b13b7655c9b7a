package service

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// realClientHeaders are the request headers the real product's client
// sends: Layer-Locale and Layer-React-Version on every call, Cache-Control
// on every non-GET call, with the bearer token and a JSON body.
const realClientHeaders = "authorization,cache-control,content-type,layer-locale,layer-react-version"

func TestCORSPreflightOfTheRealClient(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	cfg := testConfig(is.jwks.URL, fake.URL)
	cfg.CORSAllowedOrigins = []string{"https://app.example.com"}
	cfg.CORSAllowedHeaders = []string{" X-Platform-Trace ", "", "cache-control"} // trimmed, blanks and repeats dropped
	_, gw := startGateway(t, cfg)
	bid := uuid.New()
	path := "/v1/businesses/" + bid.String() + "/bank-transactions/tags"

	allowed := func(h http.Header) []string {
		var out []string
		for _, v := range strings.Split(h.Get("Access-Control-Allow-Headers"), ",") {
			out = append(out, strings.ToLower(strings.TrimSpace(v)))
		}
		return out
	}
	tests := []struct {
		name        string
		origin      string
		method      string
		headers     string
		wantAllowed bool
	}{
		{"the client's non-GET call", "https://app.example.com", http.MethodPost, realClientHeaders, true},
		{"the client's GET", "https://app.example.com", http.MethodGet, "authorization,layer-locale,layer-react-version", true},
		{"a configured extra header", "https://app.example.com", http.MethodDelete, realClientHeaders + ",x-platform-trace", true},
		{"another origin", "https://evil.example.com", http.MethodPost, realClientHeaders, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := call(t, http.MethodOptions, gw+path, "", nil, map[string]string{
				"Origin": tt.origin, "Access-Control-Request-Method": tt.method, "Access-Control-Request-Headers": tt.headers,
			})
			if status != http.StatusNoContent {
				t.Fatalf("preflight status %d: %s", status, body)
			}
			gotOrigin := h.Get("Access-Control-Allow-Origin")
			if !tt.wantAllowed {
				if gotOrigin != "" {
					t.Fatalf("origin %s allowed: %q", tt.origin, gotOrigin)
				}
				return
			}
			if gotOrigin != tt.origin {
				t.Fatalf("Access-Control-Allow-Origin = %q, want %q", gotOrigin, tt.origin)
			}
			if m := h.Get("Access-Control-Allow-Methods"); !strings.Contains(m, tt.method) {
				t.Fatalf("Access-Control-Allow-Methods = %q lacks %s", m, tt.method)
			}
			// A browser refuses the call unless every requested header is allowed.
			got := allowed(h)
			for _, want := range strings.Split(tt.headers, ",") {
				if !slices.Contains(got, want) {
					t.Errorf("Access-Control-Allow-Headers %v lacks %q", got, want)
				}
			}
		})
	}
	// The repeated cache-control is listed once.
	_, h, _ := call(t, http.MethodOptions, gw+path, "", nil, map[string]string{
		"Origin": "https://app.example.com", "Access-Control-Request-Method": http.MethodPost,
	})
	n := 0
	for _, v := range allowed(h) {
		if v == "cache-control" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("cache-control listed %d times in %q", n, h.Get("Access-Control-Allow-Headers"))
	}

	// The actual call that follows carries the CORS answer headers too.
	tok := is.platform(t, "client-c")
	status, h, body := call(t, http.MethodGet, gw+"/whoami", tok, nil, map[string]string{
		"Origin": "https://app.example.com", "Layer-Locale": "en-US", "Layer-React-Version": "0.1.0",
	})
	if status != http.StatusOK || h.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Fatalf("call: %d, Access-Control-Allow-Origin %q: %s", status, h.Get("Access-Control-Allow-Origin"), body)
	}
}
