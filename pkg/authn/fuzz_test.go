package authn

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParseJWKS feeds arbitrary JWKS documents (the answer of the
// auth-tokens service's /.well-known/jwks.json, read by the gateway and
// every service): an accepted set holds 32-byte keys only, and published
// again (PublicJWK) it parses to the same keys.
func FuzzParseJWKS(f *testing.F) {
	pub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	good, _ := json.Marshal(JWKS{Keys: []JWK{PublicJWK("k1", pub)}})
	f.Add(good)
	f.Add([]byte(`{"keys":[]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"x","e":"AQAB","kid":"r"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"short","kid":"k"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","use":"enc","x":"","kid":"e"}]}`))
	f.Add([]byte(`{"keys":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := ParseJWKS(data)
		if err != nil {
			return
		}
		var set JWKS
		for kid, k := range keys {
			if len(k) != ed25519.PublicKeySize {
				t.Fatalf("key %q has %d bytes", kid, len(k))
			}
			set.Keys = append(set.Keys, PublicJWK(kid, k))
		}
		out, _ := json.Marshal(set)
		again, err := ParseJWKS(out)
		if err != nil || len(again) != len(keys) {
			t.Fatalf("republished set %s: %v (%d keys, want %d)", out, err, len(again), len(keys))
		}
		for kid, k := range keys {
			if !k.Equal(again[kid]) {
				t.Fatalf("key %q changed in the round trip", kid)
			}
		}
	})
}

// FuzzVerify feeds arbitrary Authorization headers to the bearer-token
// path of the gateway and every service (BearerToken, then Verify): a
// refused token is a 401 error object, and an accepted one is a
// token for an identity the signer issued, in canonical form.
func FuzzVerify(f *testing.F) {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s, err := NewSigner(DefaultIssuer, "k1", key)
	if err != nil {
		f.Fatal(err)
	}
	s = s.WithClock(func() time.Time { return now })
	v := NewVerifier(StaticKeys{"k1": key.Public().(ed25519.PublicKey)}, VerifierOptions{Now: func() time.Time { return now }, CacheSize: -1})
	platform, pid, err := s.Issue(Identity{ClientID: "client-a", Scope: ScopePlatform}, time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	business, bid, err := s.Issue(Identity{ClientID: "client-a", Scope: ScopeBusiness, BusinessID: uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")}, time.Minute)
	if err != nil {
		f.Fatal(err)
	}
	issued := map[string]Identity{platform: pid, business: bid}
	f.Add("Bearer " + platform)
	f.Add("bearer  " + business + " ")
	f.Add("Bearer " + platform[:len(platform)-2] + "AA")
	f.Add("Bearer " + strings.Replace(business, ".", "..", 1))
	f.Add("Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ4In0.")
	f.Add("Bearer eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIn0.e30.sig")
	f.Add("Basic Y2xpZW50OnNlY3JldA==")
	f.Add("Bearer ")
	f.Add("Bearer a b")
	f.Add("")
	f.Fuzz(func(t *testing.T, header string) {
		tok, ok := BearerToken(header)
		if !ok {
			return
		}
		id, err := v.Verify(context.Background(), tok)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		// Tokens carry a random jti, so each fuzz worker issues its own:
		// an accepted token must speak for one of the identities issued,
		// and each of its three parts must be canonical base64url (a
		// token is not malleable into another string that verifies).
		match := false
		for _, want := range issued {
			match = match || id.ClientID == want.ClientID && id.Scope == want.Scope && id.BusinessID == want.BusinessID
		}
		if !match {
			t.Fatalf("accepted %q for %+v, an identity never issued", tok, id)
		}
		for _, part := range strings.Split(tok, ".") {
			raw, err := base64.RawURLEncoding.DecodeString(part)
			if err != nil || base64.RawURLEncoding.EncodeToString(raw) != part {
				t.Fatalf("accepted %q with a non-canonical part %q", tok, part)
			}
		}
	})
}
