package http_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/idempotency"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/testkit"
	authtokens "github.com/acctsuite/acct/services/auth-tokens"
	httpadapter "github.com/acctsuite/acct/services/auth-tokens/internal/adapters/http"
	"github.com/acctsuite/acct/services/auth-tokens/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/acctsuite/acct/services/auth-tokens/internal/credentials"
	"github.com/acctsuite/acct/services/auth-tokens/internal/signing"
	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// cheapHash keeps hashing fast where the cost itself is not under test.
var cheapHash = credentials.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// server is the auth-tokens HTTP app on a fresh database, wired the way the
// service wires it (plus the token route's NoStore idempotency).
type server struct {
	t     *testing.T
	db    *bun.DB
	app   *app.App
	keys  *app.KeyRing
	http  *fiber.App
	v     *openapitest.Validator
	store *postgres.Store
}

type serverOptions struct {
	hash   credentials.Params
	checks credentials.CheckerOptions
	// noTokenIdempotency leaves TokenIdempotency nil (the route then
	// ignores Idempotency-Key).
	noTokenIdempotency bool
}

func logger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func testCipher(t *testing.T) *signing.Cipher {
	t.Helper()
	key := make([]byte, signing.EncryptionKeySize)
	_, _ = rand.Read(key)
	c, err := signing.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newServer(t *testing.T, o serverOptions) *server {
	t.Helper()
	ctx := context.Background()
	if o.hash == (credentials.Params{}) {
		o.hash = cheapHash
	}
	db := testkit.DB(t, "auth", outbox.Migrations, idempotency.Migrations, postgres.Migrations)
	store := postgres.New(db)
	keys := app.NewKeyRing(store, testCipher(t), app.KeyRingConfig{
		Issuer: authn.DefaultIssuer, Rotation: 720 * time.Hour, MaxLifetime: 24 * time.Hour,
	}, logger())
	if err := keys.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(app.Config{
		Issuer: authn.DefaultIssuer, BusinessTokenMaxSeconds: 7200, HashParams: o.hash, SecretChecks: o.checks,
	}, store, store, keys, logger())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][3]string{{"demo", "Demo Platform", "demo-secret"}, {"other", "Other Platform", "other-secret"}} {
		if err := a.EnsureClient(ctx, c[0], c[1], c[2]); err != nil {
			t.Fatal(err)
		}
	}
	h := httpx.New(httpx.Options{Service: "auth-tokens", Logger: logger()})
	opts := httpadapter.Options{
		App:         a,
		Verifier:    authn.NewVerifier(keys, authn.VerifierOptions{}),
		Owners:      store,
		Cursors:     page.NewCodec([]byte("test-cursor-secret")),
		Idempotency: idempotency.Middleware(db, idempotency.Options{Logger: logger()}),
	}
	if !o.noTokenIdempotency {
		opts.TokenIdempotency = idempotency.Middleware(db, idempotency.Options{Logger: logger(), NoStore: true})
	}
	httpadapter.New(opts).Register(h)
	httpx.Finish(h)
	return &server{t: t, db: db, app: a, keys: keys, http: h, v: openapitest.New(t, authtokens.OpenAPI), store: store}
}

// request builds a request; a non-nil body is sent as JSON.
func request(method, path, token string, body any) *http.Request {
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	rq := httptest.NewRequest(method, path, r)
	if body != nil {
		rq.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		rq.Header.Set("Authorization", "Bearer "+token)
	}
	return rq
}

// do sends a documented request, validates the exchange against the
// OpenAPI document and checks the status.
func (s *server) do(rq *http.Request, wantStatus int) (*http.Response, map[string]any) {
	s.t.Helper()
	resp, body := s.v.Do(s.t, s.http, rq)
	if resp.StatusCode != wantStatus {
		s.t.Fatalf("%s %s: status %d, want %d: %s", rq.Method, rq.URL, resp.StatusCode, wantStatus, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		s.t.Fatalf("%s %s: body %q: %v", rq.Method, rq.URL, body, err)
	}
	return resp, m
}

func tokenForm(client string) url.Values {
	return url.Values{"grant_type": {"client_credentials"}, "client_id": {client}, "scope": {"x"}}
}

func tokenRequest(client, secret string) *http.Request {
	rq := httptest.NewRequest("POST", "/oauth2/token", strings.NewReader(tokenForm(client).Encode()))
	rq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rq.SetBasicAuth(client, secret)
	return rq
}

func (s *server) platformToken(client, secret string) string {
	s.t.Helper()
	_, m := s.do(tokenRequest(client, secret), 200)
	return m["access_token"].(string)
}

func data(m map[string]any) map[string]any { return m["data"].(map[string]any) }
