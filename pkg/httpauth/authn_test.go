package httpauth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"
)

// testApp renders errors the way httpx does (the error object), enough to
// assert statuses and bodies without depending on httpx.
func testApp(v authn.TokenVerifier) *fiber.App {
	app := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
		ae := apperr.From(err)
		return c.Status(ae.Status()).JSON(ae.Body())
	}})
	app.Use(Middleware(v))
	app.Get("/me", func(c *fiber.Ctx) error {
		id, ok := IdentityFrom(c)
		if !ok {
			return errors.New("no identity")
		}
		return c.JSON(fiber.Map{"client_id": id.ClientID, "scope": id.Scope, "local": c.Locals(LocalClientID)})
	})
	return app
}

func TestMiddleware(t *testing.T) {
	clk := &clock{t: time.Now()}
	key := newKey(t)
	s := newSigner(t, "k1", key, clk)
	v := authn.NewVerifier(authn.StaticKeys{"k1": key.Public().(ed25519.PublicKey)}, authn.VerifierOptions{})
	app := testApp(v)
	platTok, _, _ := s.Issue(platformID(), time.Hour)
	bid := uuid.New()
	bizTok, _, _ := s.Issue(authn.Identity{ClientID: "client-1", ClientName: "Acme Platform", Scope: authn.ScopeBusiness, BusinessID: bid}, time.Hour)
	expired, _, _ := s.WithClock(func() time.Time { return time.Now().Add(-2 * time.Hour) }).Issue(platformID(), time.Hour)

	tests := []struct {
		name       string
		headers    map[string]string
		wantStatus int
		wantAuthn  string // WWW-Authenticate
		wantEnum   string
	}{
		{"no header", nil, 401, `Bearer realm="acct"`, "MissingToken"},
		{"basic scheme", map[string]string{"Authorization": "Basic Zm9vOmJhcg=="}, 401, `Bearer realm="acct"`, "MissingToken"},
		{"empty bearer", map[string]string{"Authorization": "Bearer "}, 401, `Bearer realm="acct"`, "MissingToken"},
		{"garbage token", map[string]string{"Authorization": "Bearer abc.def.ghi"}, 401, `Bearer realm="acct", error="invalid_token"`, "InvalidToken"},
		{"expired", map[string]string{"Authorization": "Bearer " + expired}, 401, `Bearer realm="acct", error="invalid_token"`, "TokenExpired"},
		{"valid", map[string]string{"Authorization": "Bearer " + platTok}, 200, "", ""},
		{"scheme case-insensitive", map[string]string{"Authorization": "bearer " + platTok}, 200, "", ""},
		{"agreeing headers", map[string]string{"Authorization": "Bearer " + platTok, HeaderClientID: "client-1", HeaderScope: "platform", HeaderClientName: "Acme Platform"}, 200, "", ""},
		{"agreeing business headers", map[string]string{"Authorization": "Bearer " + bizTok, HeaderScope: "business", HeaderBusinessID: bid.String()}, 200, "", ""},
		{"client id disagrees", map[string]string{"Authorization": "Bearer " + platTok, HeaderClientID: "other"}, 401, `Bearer realm="acct", error="invalid_token"`, "IdentityMismatch"},
		{"scope disagrees", map[string]string{"Authorization": "Bearer " + bizTok, HeaderScope: "platform"}, 401, `Bearer realm="acct", error="invalid_token"`, "IdentityMismatch"},
		{"business id on platform token", map[string]string{"Authorization": "Bearer " + platTok, HeaderBusinessID: bid.String()}, 401, `Bearer realm="acct", error="invalid_token"`, "IdentityMismatch"},
		{"other business id", map[string]string{"Authorization": "Bearer " + bizTok, HeaderBusinessID: uuid.NewString()}, 401, `Bearer realm="acct", error="invalid_token"`, "IdentityMismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/me", nil)
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			resp, err := app.Test(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, tt.wantStatus, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tt.wantAuthn {
				t.Fatalf("WWW-Authenticate = %q, want %q", got, tt.wantAuthn)
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			if tt.wantStatus == 200 {
				if m["client_id"] != "client-1" || m["local"] != "client-1" {
					t.Fatalf("body = %s", body)
				}
				return
			}
			if m["type"] != "Unauthenticated" || m["error_enum"] != tt.wantEnum {
				t.Fatalf("body = %s", body)
			}
		})
	}
}

func TestIdentityHeaders(t *testing.T) {
	bid := uuid.New()
	tests := []struct {
		name string
		id   authn.Identity
		want map[string]string // "" = absent
	}{
		{"platform", authn.Identity{ClientID: "c1", ClientName: "Acme", Scope: authn.ScopePlatform},
			map[string]string{HeaderClientID: "c1", HeaderClientName: "Acme", HeaderScope: "platform", HeaderBusinessID: ""}},
		{"business", authn.Identity{ClientID: "c1", Scope: authn.ScopeBusiness, BusinessID: bid},
			map[string]string{HeaderClientID: "c1", HeaderClientName: "", HeaderScope: "business", HeaderBusinessID: bid.String()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h fasthttp.RequestHeader
			// A client's forged headers, in odd cases, plus one that must survive.
			h.Set("x-acct-client-id", "forged")
			h.Set("X-ACCT-BUSINESS-ID", uuid.NewString())
			h.Set("X-Acct-Client-Name", "forged")
			h.Set("X-Acct-Whatever", "forged")
			h.Set("X-Request-Id", "keep")
			StripIdentityHeaders(&h)
			for _, k := range []string{HeaderClientID, HeaderBusinessID, HeaderClientName, "X-Acct-Whatever"} {
				if v := h.Peek(k); v != nil {
					t.Fatalf("%s survived stripping: %q", k, v)
				}
			}
			if string(h.Peek("X-Request-Id")) != "keep" {
				t.Fatal("stripping removed an unrelated header")
			}
			SetIdentityHeaders(&h, tt.id)
			for k, want := range tt.want {
				if got := string(h.Peek(k)); got != want {
					t.Fatalf("%s = %q, want %q", k, got, want)
				}
			}
			if !HeadersAgree(&h, tt.id) {
				t.Fatal("headers written by SetIdentityHeaders disagree with the identity")
			}
		})
	}
}

type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

func newKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

func newSigner(t testing.TB, kid string, key ed25519.PrivateKey, clk *clock) *authn.Signer {
	t.Helper()
	s, err := authn.NewSigner(authn.DefaultIssuer, kid, key)
	if err != nil {
		t.Fatal(err)
	}
	return s.WithClock(clk.Now)
}

func platformID() authn.Identity {
	return authn.Identity{ClientID: "client-1", ClientName: "Acme Platform", Scope: authn.ScopePlatform}
}
