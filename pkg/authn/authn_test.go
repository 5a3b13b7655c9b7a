package authn

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

func newSigner(t testing.TB, kid string, key ed25519.PrivateKey, clk *clock) *Signer {
	t.Helper()
	s, err := NewSigner(DefaultIssuer, kid, key)
	if err != nil {
		t.Fatal(err)
	}
	return s.WithClock(clk.Now)
}

func platformID() Identity {
	return Identity{ClientID: "client-1", ClientName: "Acme Platform", Scope: ScopePlatform}
}

// rawToken signs arbitrary claims/header with any method, for attack cases.
func rawToken(t *testing.T, method jwt.SigningMethod, kid string, claims jwt.Claims, key any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validClaims(now time.Time) Claims {
	return Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    DefaultIssuer,
			Subject:   "client-1",
			Audience:  jwt.ClaimStrings{Audience},
			ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        "jti-1",
		},
		Scope: ScopePlatform,
	}
}

func TestSignAndVerifyRoundTrip(t *testing.T) {
	clk := newClock()
	key := newKey(t)
	s := newSigner(t, "k1", key, clk)
	v := NewVerifier(StaticKeys{"k1": key.Public().(ed25519.PublicKey)}, VerifierOptions{Now: clk.Now})
	bid := uuid.Must(uuid.NewV7())

	tests := []struct {
		name string
		in   Identity
		ttl  time.Duration
	}{
		{"platform", platformID(), time.Hour},
		{"business", Identity{ClientID: "client-1", ClientName: "Acme", Scope: ScopeBusiness, BusinessID: bid}, 10 * time.Minute},
		{"no client name", Identity{ClientID: "demo", Scope: ScopePlatform}, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, issued, err := s.Issue(tt.in, tt.ttl)
			if err != nil {
				t.Fatal(err)
			}
			if issued.TokenID == "" || !issued.ExpiresAt.Equal(clk.Now().Add(tt.ttl)) {
				t.Fatalf("issued identity = %+v", issued)
			}
			got, err := v.Verify(context.Background(), tok)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if got != issued {
				t.Fatalf("verified %+v, issued %+v", got, issued)
			}
		})
	}
}

func TestSignerRejectsBadInput(t *testing.T) {
	clk := newClock()
	s := newSigner(t, "k1", newKey(t), clk)
	tests := []struct {
		name string
		in   Identity
		ttl  time.Duration
	}{
		{"no client", Identity{Scope: ScopePlatform}, time.Hour},
		{"bad scope", Identity{ClientID: "c", Scope: "admin"}, time.Hour},
		{"business without id", Identity{ClientID: "c", Scope: ScopeBusiness}, time.Hour},
		{"zero ttl", platformID(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.Issue(tt.in, tt.ttl); err == nil {
				t.Fatal("Issue succeeded")
			}
		})
	}
	if _, err := NewSigner(DefaultIssuer, "k", ed25519.PrivateKey{1, 2}); err == nil {
		t.Fatal("NewSigner accepted a short key")
	}
}

func TestVerifyRejects(t *testing.T) {
	clk := newClock()
	now := clk.Now()
	key := newKey(t)
	pub := key.Public().(ed25519.PublicKey)
	foreign := newKey(t)
	v := NewVerifier(StaticKeys{"k1": pub}, VerifierOptions{Now: clk.Now, Leeway: 10 * time.Second})

	good := rawToken(t, jwt.SigningMethodEdDSA, "k1", validClaims(now), key)
	parts := strings.Split(good, ".")
	tamperedClaims := validClaims(now)
	tamperedClaims.Subject = "someone-else"
	payload, _ := json.Marshal(tamperedClaims)
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + parts[2]

	mod := func(f func(c *Claims)) Claims {
		c := validClaims(now)
		f(&c)
		return c
	}
	tests := []struct {
		name     string
		token    string
		wantDesc string
	}{
		{"empty", "", "invalid token"},
		{"garbage", "not.a.jwt", "invalid token"},
		{"expired", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Minute)) }), key), "token expired"},
		{"tampered payload", tampered, "invalid token"},
		{"foreign key same kid", rawToken(t, jwt.SigningMethodEdDSA, "k1", validClaims(now), foreign), "invalid token"},
		{"foreign key unknown kid", rawToken(t, jwt.SigningMethodEdDSA, "k9", validClaims(now), foreign), "invalid token"},
		{"no kid", rawToken(t, jwt.SigningMethodEdDSA, "", validClaims(now), key), "invalid token"},
		{"alg none", rawToken(t, jwt.SigningMethodNone, "k1", validClaims(now), jwt.UnsafeAllowNoneSignatureType), "invalid token"},
		{"HS256 with public key as secret", rawToken(t, jwt.SigningMethodHS256, "k1", validClaims(now), []byte(pub)), "invalid token"},
		{"wrong issuer", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.Issuer = "evil" }), key), "invalid token"},
		{"wrong audience", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.Audience = jwt.ClaimStrings{"other"} }), key), "invalid token"},
		{"no exp", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.ExpiresAt = nil }), key), "invalid token"},
		{"iat in the future", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(time.Hour)) }), key), "invalid token"},
		{"not yet valid", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(time.Hour)) }), key), "invalid token"},
		{"no subject", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.Subject = "" }), key), "invalid token"},
		{"no jti", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.ID = "" }), key), "invalid token"},
		{"unknown scope", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.Scope = "admin" }), key), "invalid token"},
		{"business scope without bid", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.Scope = ScopeBusiness }), key), "invalid token"},
		{"business scope bad bid", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.Scope = ScopeBusiness; c.BusinessID = "nope" }), key), "invalid token"},
		{"platform scope with bid", rawToken(t, jwt.SigningMethodEdDSA, "k1", mod(func(c *Claims) { c.BusinessID = uuid.NewString() }), key), "invalid token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tt.token)
			var ae *apperr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want *apperr.Error", err)
			}
			if ae.Type != apperr.Unauthenticated || ae.Message != tt.wantDesc {
				t.Fatalf("err = %s %q, want Unauthenticated %q", ae.Type, ae.Message, tt.wantDesc)
			}
		})
	}
}

func TestLeewayToleratesSmallSkewOnly(t *testing.T) {
	clk := newClock()
	key := newKey(t)
	s := newSigner(t, "k1", key, clk)
	tok, _, err := s.Issue(platformID(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	v := NewVerifier(StaticKeys{"k1": key.Public().(ed25519.PublicKey)}, VerifierOptions{Now: clk.Now, Leeway: time.Hour, CacheSize: -1})
	clk.Add(time.Minute + 20*time.Second) // within the 30s cap
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("within leeway: %v", err)
	}
	clk.Add(20 * time.Second) // beyond the cap, even though an hour was asked for
	if _, err := v.Verify(context.Background(), tok); !apperr.Is(err, apperr.Unauthenticated) {
		t.Fatalf("beyond capped leeway: err = %v", err)
	}
}

func TestCacheServesUntilExpOnly(t *testing.T) {
	clk := newClock()
	key := newKey(t)
	s := newSigner(t, "k1", key, clk)
	keys := &switchableKeys{keys: StaticKeys{"k1": key.Public().(ed25519.PublicKey)}}
	v := NewVerifier(keys, VerifierOptions{Now: clk.Now, Leeway: -1})
	tok, _, err := s.Issue(platformID(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	keys.set(StaticKeys{}) // only the cache can answer now
	clk.Add(59 * time.Second)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("cached token before exp: %v", err)
	}
	if keys.calls.Load() != 1 {
		t.Fatalf("key lookups = %d, want 1 (second verify must hit the cache)", keys.calls.Load())
	}
	clk.Add(time.Second) // exactly exp
	if _, err := v.Verify(context.Background(), tok); !apperr.Is(err, apperr.Unauthenticated) {
		t.Fatalf("cached token at exp: err = %v", err)
	}
}

func TestCacheIsBounded(t *testing.T) {
	clk := newClock()
	key := newKey(t)
	s := newSigner(t, "k1", key, clk)
	keys := &switchableKeys{keys: StaticKeys{"k1": key.Public().(ed25519.PublicKey)}}
	v := NewVerifier(keys, VerifierOptions{Now: clk.Now, CacheSize: 2})
	var toks []string
	for range 3 {
		tok, _, err := s.Issue(platformID(), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
	if v.cache.Len() != 2 {
		t.Fatalf("cache len = %d, want 2", v.cache.Len())
	}
	// The oldest was evicted, so it needs a key lookup again.
	before := keys.calls.Load()
	if _, err := v.Verify(context.Background(), toks[0]); err != nil {
		t.Fatal(err)
	}
	if keys.calls.Load() != before+1 {
		t.Fatal("evicted token did not go through full verification")
	}
}

type switchableKeys struct {
	mu    sync.Mutex
	keys  StaticKeys
	calls atomic.Int64
}

func (s *switchableKeys) set(k StaticKeys) { s.mu.Lock(); s.keys = k; s.mu.Unlock() }

func (s *switchableKeys) PublicKey(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	s.calls.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys.PublicKey(ctx, kid)
}

// jwksServer serves a JWKS whose keys and availability tests change.
type jwksServer struct {
	*httptest.Server
	mu       sync.Mutex
	set      JWKS
	down     bool
	requests atomic.Int64
}

func newJWKSServer(t *testing.T) *jwksServer {
	js := &jwksServer{}
	js.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		js.requests.Add(1)
		js.mu.Lock()
		defer js.mu.Unlock()
		if js.down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(js.set)
	}))
	t.Cleanup(js.Close)
	return js
}

func (js *jwksServer) publish(signers ...*Signer) {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.set = JWKS{Keys: []JWK{}}
	for _, s := range signers {
		js.set.Keys = append(js.set.Keys, PublicJWK(s.KeyID(), s.PublicKey()))
	}
}

func (js *jwksServer) setDown(down bool) { js.mu.Lock(); js.down = down; js.mu.Unlock() }

func TestJWKSRotation(t *testing.T) {
	clk := newClock()
	oldS := newSigner(t, "old", newKey(t), clk)
	newS := newSigner(t, "new", newKey(t), clk)
	js := newJWKSServer(t)
	js.publish(oldS)
	v := NewJWKSVerifier(js.URL, VerifierOptions{Now: clk.Now, CacheSize: -1, MinRefetchInterval: 5 * time.Second})
	ctx := context.Background()

	oldTok, _, _ := oldS.Issue(platformID(), time.Hour)
	if _, err := v.Verify(ctx, oldTok); err != nil {
		t.Fatalf("old key: %v", err)
	}
	if js.requests.Load() != 1 {
		t.Fatalf("requests = %d, want 1 lazy fetch", js.requests.Load())
	}

	// Rotation: the new key appears beside the old one.
	js.publish(newS, oldS)
	clk.Add(6 * time.Second)
	newTok, _, _ := newS.Issue(platformID(), time.Hour)
	if _, err := v.Verify(ctx, newTok); err != nil {
		t.Fatalf("new key after refetch on unknown kid: %v", err)
	}
	if js.requests.Load() != 2 {
		t.Fatalf("requests = %d, want 2", js.requests.Load())
	}
	if _, err := v.Verify(ctx, oldTok); err != nil {
		t.Fatalf("old key still listed: %v", err)
	}

	// Unknown kids are refetched at most once per MinRefetchInterval.
	foreign := newSigner(t, "foreign", newKey(t), clk)
	fTok, _, _ := foreign.Issue(platformID(), time.Hour)
	clk.Add(6 * time.Second)
	for range 5 {
		if _, err := v.Verify(ctx, fTok); !apperr.Is(err, apperr.Unauthenticated) {
			t.Fatalf("foreign kid: err = %v", err)
		}
	}
	if js.requests.Load() != 3 {
		t.Fatalf("requests = %d, want 3 (one rate-limited refetch)", js.requests.Load())
	}

	// The endpoint goes down: cached keys keep working.
	js.setDown(true)
	clk.Add(10 * time.Minute)
	if _, err := v.Verify(ctx, newTok); err != nil {
		t.Fatalf("cached key while JWKS down: %v", err)
	}
	waitFor(t, func() bool { return !v.src.refreshing.Load() })

	// The old key is retired from the JWKS: its tokens stop verifying after the next refresh.
	js.setDown(false)
	js.publish(newS)
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(ctx, oldTok); !apperr.Is(err, apperr.Unauthenticated) {
		t.Fatalf("retired key: err = %v", err)
	}
	if got := v.KeyIDs(); len(got) != 1 || got[0] != "new" {
		t.Fatalf("KeyIDs = %v", got)
	}
}

func TestJWKSPeriodicRefreshInBackground(t *testing.T) {
	clk := newClock()
	s := newSigner(t, "k1", newKey(t), clk)
	js := newJWKSServer(t)
	js.publish(s)
	v := NewJWKSVerifier(js.URL, VerifierOptions{Now: clk.Now, CacheSize: -1, RefreshInterval: time.Minute})
	tok, _, _ := s.Issue(platformID(), time.Hour)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	clk.Add(2 * time.Minute)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return js.requests.Load() == 2 })
}

func TestJWKSNeverReachableIsUnavailable(t *testing.T) {
	clk := newClock()
	s := newSigner(t, "k1", newKey(t), clk)
	js := newJWKSServer(t)
	js.setDown(true)
	v := NewJWKSVerifier(js.URL, VerifierOptions{Now: clk.Now})
	tok, _, _ := s.Issue(platformID(), time.Hour)
	for range 2 { // a second attempt tries again (no key set yet), same answer
		if _, err := v.Verify(context.Background(), tok); !apperr.Is(err, apperr.Unavailable) {
			t.Fatalf("err = %v, want Unavailable", err)
		}
	}
	js.setDown(false)
	js.publish(s)
	clk.Add(6 * time.Second)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
}

// TestFirstFetchIsJoined: requests arriving while the very first JWKS
// download is still running wait for it (one download) instead of failing.
func TestFirstFetchIsJoined(t *testing.T) {
	clk := newClock()
	s := newSigner(t, "k1", newKey(t), clk)
	release := make(chan struct{})
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-release
		_ = json.NewEncoder(w).Encode(JWKS{Keys: []JWK{PublicJWK(s.KeyID(), s.PublicKey())}})
	}))
	defer srv.Close()
	v := NewJWKSVerifier(srv.URL, VerifierOptions{Now: clk.Now, CacheSize: -1})
	tok, _, _ := s.Issue(platformID(), time.Hour)
	errs := make(chan error, 8)
	for range 8 {
		go func() { _, err := v.Verify(context.Background(), tok); errs <- err }()
	}
	waitFor(t, func() bool { return hits.Load() == 1 })
	time.Sleep(50 * time.Millisecond) // let every caller reach the fetch
	close(release)
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatalf("verify during the first fetch: %v", err)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("%d JWKS downloads, want 1", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestParseJWKS(t *testing.T) {
	pub := newKey(t).Public().(ed25519.PublicKey)
	good := PublicJWK("k1", pub)
	enc := func(keys ...any) []byte {
		b, _ := json.Marshal(map[string]any{"keys": keys})
		return b
	}
	tests := []struct {
		name    string
		doc     []byte
		want    []string
		wantErr bool
	}{
		{"one key", enc(good), []string{"k1"}, false},
		{"skips RSA and encryption keys", enc(good, map[string]string{"kty": "RSA", "kid": "r", "n": "x", "e": "AQAB"}, JWK{Kty: "OKP", Crv: "Ed25519", X: good.X, Kid: "enc", Use: "enc"}), []string{"k1"}, false},
		{"empty", enc(), nil, false},
		{"bad x", enc(JWK{Kty: "OKP", Crv: "Ed25519", X: "AAAA", Kid: "k"}), nil, true},
		{"no kid", enc(JWK{Kty: "OKP", Crv: "Ed25519", X: good.X}), nil, true},
		{"duplicate kid", enc(good, good), nil, true},
		{"not json", []byte("<html>"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, err := ParseJWKS(tt.doc)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if len(keys) != len(tt.want) {
				t.Fatalf("keys = %v, want %v", keys, tt.want)
			}
			for _, kid := range tt.want {
				if !keys[kid].Equal(pub) {
					t.Fatalf("key %s does not round-trip", kid)
				}
			}
		})
	}
}

func BenchmarkVerifyCached(b *testing.B) {
	clk := newClock()
	key := newKey(b)
	s := newSigner(b, "k1", key, clk)
	v := NewVerifier(StaticKeys{"k1": key.Public().(ed25519.PublicKey)}, VerifierOptions{Now: clk.Now})
	tok, _, _ := s.Issue(platformID(), time.Hour)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := v.Verify(context.Background(), tok); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"Bearer abc", "abc", true},
		{"BEARER abc", "abc", true},
		{"Bearer  abc ", "abc", true},
		{"Bearer", "", false},
		{"Bearer a b", "", false},
		{"Token abc", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := BearerToken(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
