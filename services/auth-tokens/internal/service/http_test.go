package service

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	authtokens "github.com/acctsuite/acct/services/auth-tokens"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/acctsuite/acct/services/auth-tokens/internal/config"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

type env struct {
	t     *testing.T
	http  *fiber.App
	v     *openapitest.Validator
	db    *bun.DB
	app   *app.App
	keys  *app.KeyRing
	maxBT int
}

func newEnv(t *testing.T) *env {
	t.Helper()
	var s *Service
	var maxBT int
	svc := servicetest.StartService(t, func(env map[string]string) (servicekit.Definition, error) {
		env["SIGNING_KEY_ENCRYPTION_KEY"] = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("e", 32)))
		env["BUSINESS_TOKEN_MAX_SECONDS"] = "7200"
		cfg, err := config.LoadFrom(env)
		if err != nil {
			return servicekit.Definition{}, err
		}
		maxBT = cfg.BusinessTokenMaxSeconds
		var def servicekit.Definition
		s, def = New(cfg)
		return def, nil
	}, servicetest.ServiceOptions{})
	ctx := context.Background()
	for _, c := range [][3]string{{"demo", "Demo Platform", "demo-secret"}, {"other", "Other Platform", "other-secret"}} {
		if err := s.App.EnsureClient(ctx, c[0], c[1], c[2]); err != nil {
			t.Fatal(err)
		}
	}
	return &env{
		t: t, http: svc.Kit.App(), v: openapitest.New(t, authtokens.OpenAPI),
		db: svc.Kit.DB(), app: s.App, keys: s.Keys, maxBT: maxBT,
	}
}

// req builds a request; body may be a string (sent as is) or a value (JSON).
func req(method, path, token string, body any) *http.Request {
	return openapitest.Request(method, path, token, body)
}

// do sends a request the document describes and validates the exchange.
func (e *env) do(rq *http.Request, wantStatus int) map[string]any {
	e.t.Helper()
	return e.v.Expect(e.t, e.http, rq, wantStatus)
}

// doInvalid sends a request the document deliberately does not allow (bad
// JSON, bad enum, bad UUID...): the answer is validated against the Error
// schema and must be of wantType.
func (e *env) doInvalid(rq *http.Request, wantStatus int, wantType string) map[string]any {
	e.t.Helper()
	m := e.v.ExpectError(e.t, e.http, rq, wantStatus)
	if m["type"] != wantType {
		e.t.Fatalf("type = %v, want %s (%v)", m["type"], wantType, m)
	}
	return m
}

func tokenRequest(form url.Values, user, pass string) *http.Request {
	rq := httptest.NewRequest("POST", "/oauth2/token", strings.NewReader(form.Encode()))
	rq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		rq.SetBasicAuth(user, pass)
	}
	return rq
}

func (e *env) platformToken(client, secret string) string {
	e.t.Helper()
	m := e.do(tokenRequest(url.Values{"grant_type": {"client_credentials"}, "client_id": {client}, "scope": {"x"}}, client, secret), 200)
	return m["access_token"].(string)
}

func data(m map[string]any) map[string]any { return m["data"].(map[string]any) }

func TestTokenEndpoint(t *testing.T) {
	e := newEnv(t)
	cc := url.Values{"grant_type": {"client_credentials"}, "client_id": {"demo"}, "scope": {"x"}}
	tests := []struct {
		name       string
		rq         *http.Request
		wantStatus int
		wantError  string
	}{
		{"basic auth", tokenRequest(cc, "demo", "demo-secret"), 200, ""},
		{"client_secret_post", tokenRequest(url.Values{"grant_type": {"client_credentials"}, "client_id": {"demo"}, "client_secret": {"demo-secret"}}, "", ""), 200, ""},
		{"wrong secret", tokenRequest(cc, "demo", "nope"), 401, "invalid_client"},
		{"unknown client", tokenRequest(url.Values{"grant_type": {"client_credentials"}}, "ghost", "demo-secret"), 401, "invalid_client"},
		{"no credentials", tokenRequest(url.Values{"grant_type": {"client_credentials"}}, "", ""), 401, "invalid_client"},
		{"client_id disagrees with Basic", tokenRequest(url.Values{"grant_type": {"client_credentials"}, "client_id": {"other"}}, "demo", "demo-secret"), 401, "invalid_client"},
		{"unsupported grant", tokenRequest(url.Values{"grant_type": {"password"}}, "demo", "demo-secret"), 400, "unsupported_grant_type"},
		{"missing grant", tokenRequest(url.Values{"scope": {"x"}}, "demo", "demo-secret"), 400, "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.v.Do(t, e.http, tt.rq)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			if resp.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("Cache-Control = %q", resp.Header.Get("Cache-Control"))
			}
			if tt.wantStatus == 200 {
				if m["token_type"] != "Bearer" || m["expires_in"] != float64(3600) || m["access_token"] == "" {
					t.Fatalf("body = %s", body)
				}
				return
			}
			if m["error"] != tt.wantError {
				t.Fatalf("error = %v, want %s", m["error"], tt.wantError)
			}
			if tt.wantStatus == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
				t.Fatalf("WWW-Authenticate = %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("wrong content type", func(t *testing.T) {
		rq := httptest.NewRequest("POST", "/oauth2/token", strings.NewReader(`{"grant_type":"client_credentials"}`))
		rq.Header.Set("Content-Type", "application/json")
		rq.SetBasicAuth("demo", "demo-secret")
		resp, err := e.http.Test(rq, -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(body), `"invalid_request"`) {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	})
}

func TestWhoamiAndJWKS(t *testing.T) {
	e := newEnv(t)
	tok := e.platformToken("demo", "demo-secret")
	m := e.do(req("GET", "/whoami", tok, nil), 200)
	if d := data(m); d["type"] != "whoami" || d["clientId"] != "demo" || d["clientName"] != "Demo Platform" {
		t.Fatalf("whoami = %v", m)
	}
	e.do(req("GET", "/whoami", "", nil), 401)
	e.do(req("GET", "/whoami", "garbage.token.here", nil), 401)

	// Expired: signed by the current key, an hour and a half ago.
	signer, err := e.keys.Signer()
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := signer.WithClock(func() time.Time { return time.Now().Add(-90 * time.Minute) }).
		Issue(authn.Identity{ClientID: "demo", Scope: authn.ScopePlatform}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if m := e.do(req("GET", "/whoami", old, nil), 401); m["description"] != "token expired" {
		t.Fatalf("expired = %v", m)
	}

	resp, body := e.v.Do(t, e.http, req("GET", "/.well-known/jwks.json", "", nil))
	if resp.StatusCode != 200 {
		t.Fatalf("jwks %d", resp.StatusCode)
	}
	keys, err := authn.ParseJWKS(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := authn.NewVerifier(authn.StaticKeys(keys), authn.VerifierOptions{}).Verify(context.Background(), tok); err != nil {
		t.Fatalf("token does not verify against the published JWKS: %v", err)
	}
}

func TestBusinesses(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	demo := e.platformToken("demo", "demo-secret")
	other := e.platformToken("other", "other-secret")

	full := map[string]any{
		"external_id": "ext-1", "legal_name": "Acme LLC", "tin": "12-3456789", "us_state": "CA", "country": "US",
		"entity_type": "LLC", "phone_number": "+14155550123", "activation_at": "2024-02-29", "naics_code": "541211",
		"default_reporting_basis": "CASH",
	}
	created := data(e.do(req("POST", "/v1/businesses", demo, full), 201))
	id := created["id"].(string)
	if created["type"] != "Business" || created["previously_imported"] != false || created["activation_at"] != "2024-02-29T00:00:00Z" || created["tin"] != "12-3456789" {
		t.Fatalf("created = %v", created)
	}
	// The event was enqueued with the business, in the outbox table.
	n, err := e.db.NewSelect().Table("outbox").Where("subject = ? AND type = ? AND topic = ?", id, "business.created", "acct.business.v1").Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("outbox rows for business.created = %d", n)
	}
	var raw []byte
	if err := e.db.NewSelect().Table("outbox").Column("data").Where("subject = ?", id).Scan(ctx, &raw); err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	if _, hasTIN := payload["tin"]; payload["client_id"] != "demo" || payload["legal_name"] != "Acme LLC" || hasTIN {
		t.Fatalf("event payload = %v", payload)
	}

	// Same external id again: the existing business, 200, nothing new.
	again := data(e.do(req("POST", "/v1/businesses", demo, map[string]any{"external_id": "ext-1", "legal_name": "Different"}), 200))
	if again["id"] != id || again["previously_imported"] != true || again["legal_name"] != "Acme LLC" {
		t.Fatalf("again = %v", again)
	}
	// Another client may use the same external id.
	otherBiz := data(e.do(req("POST", "/v1/businesses", other, map[string]any{"external_id": "ext-1", "legal_name": "Other Co", "country": "CA"}), 201))
	otherID := otherBiz["id"].(string)

	got := data(e.do(req("GET", "/v1/businesses/"+id, demo, nil), 200))
	if got["id"] != id || got["previously_imported"] != nil {
		t.Fatalf("get = %v", got)
	}
	e.do(req("GET", "/v1/businesses/"+otherID, demo, nil), 404)
	e.do(req("GET", "/v1/businesses/"+uuid.NewString(), demo, nil), 404)

	patched := data(e.do(req("PATCH", "/v1/businesses/"+id, demo, map[string]any{"legal_name": "Acme Holdings", "naics_code": nil}), 200))
	if patched["legal_name"] != "Acme Holdings" || patched["naics_code"] != nil || patched["entity_type"] != "LLC" {
		t.Fatalf("patched = %v", patched)
	}
	if n, _ := e.db.NewSelect().Table("outbox").Where("subject = ? AND type = ?", id, "business.updated").Count(ctx); n != 1 {
		t.Fatalf("outbox rows for business.updated = %d", n)
	}
	e.do(req("PATCH", "/v1/businesses/"+otherID, demo, map[string]any{"legal_name": "x"}), 404)

	// Listing: only the caller's businesses, paginated.
	data(e.do(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "Beta Inc"}), 201))
	page1 := e.do(req("GET", "/v1/businesses?limit=1&sort_by=legal_name&show_total_count=true", demo, nil), 200)
	meta := page1["meta"].(map[string]any)["pagination"].(map[string]any)
	items := page1["data"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["legal_name"] != "Acme Holdings" || meta["has_more"] != true || meta["total_count"] != float64(2) {
		t.Fatalf("page1 = %v", page1)
	}
	page2 := e.do(req("GET", "/v1/businesses?limit=1&sort_by=legal_name&cursor="+url.QueryEscape(meta["cursor"].(string)), demo, nil), 200)
	items = page2["data"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["legal_name"] != "Beta Inc" || page2["meta"].(map[string]any)["pagination"].(map[string]any)["has_more"] != false {
		t.Fatalf("page2 = %v", page2)
	}

	// Invalid input: each gets the right 4xx error object.
	e.doInvalid(req("POST", "/v1/businesses", demo, `{"legal_name": "x",`), 400, "InvalidPayload")
	rq := req("POST", "/v1/businesses", demo, `{"legal_name": "x"}`)
	rq.Header.Set("Content-Type", "text/plain")
	e.doInvalid(rq, 415, "UnsupportedMediaType")
	if m := e.doInvalid(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "x", "entity_type": "CORP"}), 400, "InvalidPayload"); !strings.Contains(m["description"].(string), "entity_type") {
		t.Fatalf("enum error = %v", m)
	}
	e.doInvalid(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "x", "country": "ZZ"}), 400, "InvalidPayload")
	e.doInvalid(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": 5}), 400, "InvalidPayload")
	e.doInvalid(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "x", "surprise": 1}), 400, "InvalidPayload")
	e.doInvalid(req("GET", "/v1/businesses/not-a-uuid", demo, nil), 400, "InvalidParameters")
	e.doInvalid(req("GET", "/v1/businesses?sort_by=tin", demo, nil), 400, "InvalidParameters")
	e.doInvalid(req("GET", "/v1/businesses?cursor=forged", demo, nil), 400, "InvalidParameters")
}

// TestAccountingConfig: the fiscal year start (January unless given, 1–12)
// and the default basis, set on create and by PATCH, carried on
// acct.business.v1 and read at /accounting-config, by a business token too.
func TestAccountingConfig(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	demo := e.platformToken("demo", "demo-secret")
	other := e.platformToken("other", "other-secret")
	config := func(tok, id string, want int) map[string]any {
		t.Helper()
		return data(e.do(req("GET", "/v1/businesses/"+id+"/accounting-config", tok, nil), want))
	}
	plain := data(e.do(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "Plain Co"}), 201))
	if plain["fiscal_year_start_month"] != float64(1) {
		t.Fatalf("default fiscal year start = %v", plain["fiscal_year_start_month"])
	}
	b := data(e.do(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "July Co", "fiscal_year_start_month": 7,
		"default_reporting_basis": "CASH"}), 201))
	id := b["id"].(string)
	if got := config(demo, id, 200); got["type"] != "Accounting_Config" || got["business_id"] != id ||
		got["fiscal_year_start_month"] != float64(7) || got["default_reporting_basis"] != "CASH" {
		t.Fatalf("accounting config = %v", got)
	}
	if p := data(e.do(req("PATCH", "/v1/businesses/"+id, demo, map[string]any{"fiscal_year_start_month": 10}), 200)); p["fiscal_year_start_month"] != float64(10) {
		t.Fatalf("patched = %v", p)
	}
	// A business token reads its own business's configuration.
	var tok struct {
		Data struct {
			AccessToken string `json:"access_token"`
		} `json:"data"`
	}
	raw, _ := json.Marshal(e.do(req("POST", "/v1/businesses/"+id+"/auth-token", demo, map[string]any{}), 200))
	if err := json.Unmarshal(raw, &tok); err != nil || tok.Data.AccessToken == "" {
		t.Fatalf("business token: %s (%v)", raw, err)
	}
	if got := config(tok.Data.AccessToken, id, 200); got["fiscal_year_start_month"] != float64(10) {
		t.Fatalf("read with a business token = %v", got)
	}
	// The events carry it.
	var payloads [][]byte
	if err := e.db.NewSelect().Table("outbox").Column("data").Where("subject = ?", id).Order("seq").Scan(ctx, &payloads); err != nil {
		t.Fatal(err)
	}
	var months []float64
	for _, p := range payloads {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			t.Fatal(err)
		}
		months = append(months, m["fiscal_year_start_month"].(float64))
	}
	if fmt.Sprint(months) != "[7 10]" {
		t.Fatalf("events' fiscal year starts = %v", months)
	}
	// Bad months are 400 naming the field; another client's business is 404.
	for _, bad := range []any{0, 13, "7", 3.5, nil} {
		m := e.doInvalid(req("PATCH", "/v1/businesses/"+id, demo, map[string]any{"fiscal_year_start_month": bad}), 400, "InvalidPayload")
		if !strings.Contains(fmt.Sprint(m), "fiscal_year_start_month") {
			t.Fatalf("month %v: %v", bad, m)
		}
	}
	e.doInvalid(req("GET", "/v1/businesses/"+id+"/accounting-config", other, nil), 404, "NotFound")
	if got := config(demo, id, 200); got["fiscal_year_start_month"] != float64(10) {
		t.Fatalf("a refused patch changed it: %v", got)
	}
}

func TestBusinessTokens(t *testing.T) {
	e := newEnv(t)
	demo := e.platformToken("demo", "demo-secret")
	a := data(e.do(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "A"}), 201))["id"].(string)
	b := data(e.do(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "B"}), 201))["id"].(string)

	tok := data(e.do(req("POST", "/v1/businesses/"+a+"/auth-token", demo, map[string]any{"session_duration": 600}), 200))
	if tok["expires_in"] != float64(600) || tok["token_type"] != "Bearer" {
		t.Fatalf("token = %v", tok)
	}
	bizTok := tok["access_token"].(string)
	noBody := data(e.do(req("POST", "/v1/businesses/"+a+"/auth-token", demo, nil), 200))
	if noBody["expires_in"] != float64(3600) {
		t.Fatalf("default lifetime = %v", noBody)
	}

	// The business token sees its business only.
	if got := data(e.do(req("GET", "/v1/businesses/"+a, bizTok, nil), 200)); got["id"] != a {
		t.Fatalf("own business = %v", got)
	}
	e.do(req("GET", "/v1/businesses/"+b, bizTok, nil), 404)
	list := e.do(req("GET", "/v1/businesses", bizTok, nil), 200)["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != a {
		t.Fatalf("business token list = %v", list)
	}
	if w := data(e.do(req("GET", "/whoami", bizTok, nil), 200)); w["clientId"] != "demo" {
		t.Fatalf("whoami = %v", w)
	}
	// ... and may not create, update or mint.
	e.do(req("POST", "/v1/businesses", bizTok, map[string]any{"legal_name": "C"}), 403)
	e.do(req("PATCH", "/v1/businesses/"+a, bizTok, map[string]any{"legal_name": "C"}), 403)
	e.do(req("POST", "/v1/businesses/"+a+"/auth-token", bizTok, nil), 403)
	e.do(req("POST", "/v1/businesses/"+b+"/auth-token", bizTok, nil), 404)

	// Another platform cannot mint for demo's business.
	other := e.platformToken("other", "other-secret")
	e.do(req("POST", "/v1/businesses/"+a+"/auth-token", other, nil), 404)

	e.doInvalid(req("POST", "/v1/businesses/"+a+"/auth-token", demo, map[string]any{"session_duration": 59}), 400, "InvalidPayload")
	e.doInvalid(req("POST", "/v1/businesses/"+a+"/auth-token", demo, map[string]any{"session_duration": e.maxBT + 1}), 400, "InvalidPayload")
	e.doInvalid(req("POST", "/v1/businesses/"+a+"/auth-token", demo, map[string]any{"session_duration": "600"}), 400, "InvalidPayload")
	e.doInvalid(req("POST", "/v1/businesses/"+a+"/auth-token", demo, map[string]any{"session_duration": 60.5}), 400, "InvalidPayload")
}

func TestIdempotencyAndOwnerLookup(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	demo := e.platformToken("demo", "demo-secret")
	post := func(body map[string]any, want int) map[string]any {
		rq := req("POST", "/v1/businesses", demo, body)
		rq.Header.Set("Idempotency-Key", "key-1")
		return e.do(rq, want)
	}
	first := data(post(map[string]any{"legal_name": "Once"}, 201))
	second := data(post(map[string]any{"legal_name": "Once"}, 201))
	if first["id"] != second["id"] {
		t.Fatalf("replay created another business: %v vs %v", first["id"], second["id"])
	}
	if n, _ := e.db.NewSelect().Table("businesses").Count(ctx); n != 1 {
		t.Fatalf("businesses = %d", n)
	}
	post(map[string]any{"legal_name": "Different"}, 409)

	// The gateway's internal owner lookup (not in the public document),
	// answered only to a holder of a valid token, the gateway presenting
	// its caller's: any client's.
	other := e.platformToken("other", "other-secret")
	for _, tt := range []struct {
		id, token string
		want      int
	}{
		{first["id"].(string), demo, 200}, {first["id"].(string), other, 200}, {uuid.NewString(), demo, 404}, {"nope", demo, 400},
		{first["id"].(string), "", 401}, {first["id"].(string), "not-a-token", 401},
	} {
		rq := httptest.NewRequest("GET", "/internal/v1/businesses/"+tt.id+"/owner", nil)
		if tt.token != "" {
			rq.Header.Set("Authorization", "Bearer "+tt.token)
		}
		resp, err := e.http.Test(rq, -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.want || (tt.want == 200 && !strings.Contains(string(body), `"client_id":"demo"`)) {
			t.Fatalf("owner %s: %d %s", tt.id, resp.StatusCode, body)
		}
	}
}

func TestCreatedClientCanGetToken(t *testing.T) {
	e := newEnv(t)
	creds, err := e.app.CreateClient(context.Background(), "Admin Made")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := uuid.Parse(creds.Client.ID); err != nil || creds.Secret == "" || strings.Contains(creds.Client.SecretHash, creds.Secret) {
		t.Fatalf("creds = %+v", creds)
	}
	tok := e.platformToken(creds.Client.ID, creds.Secret)
	if w := data(e.do(req("GET", "/whoami", tok, nil), 200)); w["clientId"] != creds.Client.ID || w["clientName"] != "Admin Made" {
		t.Fatalf("whoami = %v", w)
	}
	// Bootstrap again with a new secret: the old one stops working.
	if err := e.app.EnsureClient(context.Background(), "demo", "Demo Platform", "rotated"); err != nil {
		t.Fatal(err)
	}
	e.do(tokenRequest(url.Values{"grant_type": {"client_credentials"}}, "demo", "demo-secret"), 401)
	e.platformToken("demo", "rotated")
}
