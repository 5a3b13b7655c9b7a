package service

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"

	"github.com/acctsuite/acct/services/gateway/internal/config"
)

// fakeAuthTokens stands in for auth-tokens: it answers the owner lookups
// from owners, serves a small OpenAPI document, and echoes every other
// request while remembering what it received.
type fakeAuthTokens struct {
	*httptest.Server
	owners map[uuid.UUID]string

	mu   sync.Mutex
	last map[string]*http.Request // "METHOD path" → last request seen
	uris []string                 // every forwarded request target, raw, in order
}

func newFakeAuthTokens(t testing.TB, owners map[uuid.UUID]string) *fakeAuthTokens {
	f := &fakeAuthTokens{owners: owners, last: map[string]*http.Request{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

const fakeDoc = `{"openapi":"3.0.3","info":{"title":"auth-tokens","version":"1"},"paths":{"/whoami":{"get":{"responses":{"200":{"description":"ok"}}}}}}`

func (f *fakeAuthTokens) serve(w http.ResponseWriter, r *http.Request) {
	if id, ok := strings.CutPrefix(r.URL.Path, "/internal/v1/businesses/"); ok {
		// As auth-tokens: only a holder of a token is answered (the
		// gateway presents its caller's).
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ey") {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		bid, err := uuid.Parse(strings.TrimSuffix(id, "/owner"))
		owner, found := f.owners[bid]
		if err != nil || !found {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"client_id": owner})
		return
	}
	if r.URL.Path == "/openapi.json" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, fakeDoc)
		return
	}
	_, _ = io.Copy(io.Discard, r.Body)
	f.mu.Lock()
	f.last[r.Method+" "+r.URL.Path] = r
	f.uris = append(f.uris, r.RequestURI)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"data":{"upstream":"auth-tokens"}}`)
}

// seen returns the last request the fake received for method and path.
func (f *fakeAuthTokens) seen(method, path string) *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last[method+" "+path]
}

// received returns the raw request targets forwarded so far and forgets them.
func (f *fakeAuthTokens) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.uris
	f.uris = nil
	return out
}

// issuer signs tokens and serves their JWKS.
type issuer struct {
	signer *authn.Signer
	jwks   *httptest.Server
}

func newIssuer(t testing.TB) *issuer {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := authn.NewSigner(authn.DefaultIssuer, "k1", priv)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(authn.JWKS{Keys: []authn.JWK{authn.PublicJWK("k1", pub)}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return &issuer{signer: s, jwks: srv}
}

func (is *issuer) platform(t testing.TB, client string) string {
	return is.token(t, is.signer, authn.Identity{ClientID: client, ClientName: client + " name", Scope: authn.ScopePlatform}, time.Hour)
}

func (is *issuer) business(t testing.TB, client string, bid uuid.UUID) string {
	return is.token(t, is.signer, authn.Identity{ClientID: client, Scope: authn.ScopeBusiness, BusinessID: bid}, time.Hour)
}

func (is *issuer) expired(t testing.TB, client string) string {
	past := is.signer.WithClock(func() time.Time { return time.Now().Add(-2 * time.Hour) })
	return is.token(t, past, authn.Identity{ClientID: client, Scope: authn.ScopePlatform}, time.Minute)
}

func (is *issuer) token(t testing.TB, s *authn.Signer, id authn.Identity, ttl time.Duration) string {
	tok, _, err := s.Issue(id, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// testConfig is a valid configuration pointing at the fakes.
func testConfig(jwksURL, upstream string) config.Config {
	return config.Config{
		Base:            servicekit.Base{Addr: "127.0.0.1:0", BodyLimit: 1 << 20, ShutdownTimeout: time.Second, AdminAddr: "127.0.0.1:0"},
		Auth:            servicekit.Auth{JWKSURL: jwksURL},
		Upstreams:       config.Upstreams{AuthTokens: upstream, Transactions: upstream, CustomersInvoices: upstream, Reports: upstream, BillsTags: upstream, Mileage: upstream, Webhooks: upstream},
		UpstreamTimeout: 10 * time.Second, UpstreamMaxConns: 64, OpenAPIRefresh: time.Minute,
		RateLimitRPS: 10000, RateLimitBurst: 10000, RateLimitMaxClients: 1000, RateLimitMaxIPs: 1000,
		TokenRateLimitRPS: 10000, TokenRateLimitBurst: 10000,
	}
}

// startGateway builds the service and serves it on a real listener.
func startGateway(t testing.TB, cfg config.Config) (*Service, string) {
	t.Helper()
	svc, def := New(cfg)
	_, url := servicetest.RunKit(t, def)
	// Like a load balancer waiting for /readyz: requests start once the
	// signing keys are loaded (ignored when a test makes them unreachable).
	_ = svc.verifier.(*authn.JWKSVerifier).Refresh(t.Context())
	return svc, url
}

// rawCall sends one request with the target written byte for byte (Go's
// client would re-encode it) and returns the status and body.
func rawCall(t testing.TB, base, method, target, token string) (int, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := method + " " + target + " HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n"
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// call sends one request and returns status, headers and body.
func call(t testing.TB, method, url, token string, body io.Reader, headers map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data
}
