package stacktest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/openapi/openapitest"
)

var (
	docOnce sync.Once
	docJSON []byte
)

// validator checks every exchange against the gateway's merged OpenAPI
// document, the one users read.
func validator(t *testing.T) *openapitest.Validator {
	t.Helper()
	docOnce.Do(func() {
		// The gateway merges the services' documents in the background:
		// wait until every service's paths are in (auth-tokens' /whoami,
		// transactions' ledger, customers-invoices' customers, reports' profit
		// and loss, mileage's summary and the webhooks endpoints), as a
		// reader of /docs would.
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			resp, err := http.Get(st.GatewayURL + "/openapi.json")
			if err != nil {
				continue
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if bytes.Contains(body, []byte(`"/whoami"`)) && bytes.Contains(body, []byte(`/ledger/chart"`)) &&
				bytes.Contains(body, []byte(`/customers"`)) && bytes.Contains(body, []byte(`/reports/profit-and-loss"`)) &&
				bytes.Contains(body, []byte(`/mileage/summary"`)) && bytes.Contains(body, []byte(`/v1/webhooks/endpoints"`)) {
				docJSON = body
				return
			}
		}
	})
	if len(docJSON) == 0 {
		t.Fatal("gateway served no /openapi.json")
	}
	return openapitest.New(t, docJSON)
}

type reply struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

// call sends one request through the gateway; validate=true checks the
// exchange against the OpenAPI document.
func call(t *testing.T, method, path, token, contentType string, body []byte, validate bool) reply {
	t.Helper()
	req, err := http.NewRequest(method, st.GatewayURL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, body: b}
	_ = json.Unmarshal(b, &r.json)
	for _, v := range observeShape(method, path, resp.StatusCode, resp.Header, b) {
		t.Errorf("client shape: %s", v)
	}
	if validate {
		vreq, _ := http.NewRequest(method, st.GatewayURL+path, bytes.NewReader(body))
		vreq.Header = req.Header.Clone()
		resp.Body = io.NopCloser(bytes.NewReader(b))
		validator(t).Check(t, vreq, body, resp, b)
	}
	return r
}

func jsonCall(t *testing.T, method, path, token string, body any) reply {
	t.Helper()
	var b []byte
	ct := ""
	if body != nil {
		b, _ = json.Marshal(body)
		ct = "application/json"
	}
	return call(t, method, path, token, ct, b, true)
}

func platformToken(t *testing.T) string {
	t.Helper()
	return tokenFor(t, clientID, clientSecret)
}

func tokenFor(t *testing.T, id, secret string) string {
	t.Helper()
	r := oauth(t, id, secret, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "scope": {"x"}})
	if r.status != http.StatusOK {
		t.Fatalf("token: %d %s", r.status, r.body)
	}
	tok, _ := r.json["access_token"].(string)
	if tok == "" || r.json["token_type"] != "Bearer" || r.json["expires_in"] != float64(3600) {
		t.Fatalf("token response: %s", r.body)
	}
	return tok
}

func oauth(t *testing.T, id, secret string, form url.Values) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, st.GatewayURL+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, body: b}
	_ = json.Unmarshal(b, &r.json)
	return r
}

func createBusiness(t *testing.T, token, externalID string) string {
	t.Helper()
	r := jsonCall(t, http.MethodPost, "/v1/businesses", token, map[string]any{
		"legal_name": "Biz " + externalID, "external_id": externalID, "country": "US", "us_state": "CA",
		"entity_type": "LLC", "default_reporting_basis": "ACCRUAL", "activation_at": "2026-01-01",
	})
	if r.status != http.StatusCreated {
		t.Fatalf("create business: %d %s", r.status, r.body)
	}
	data := r.json["data"].(map[string]any)
	if data["type"] != "Business" || data["previously_imported"] != false {
		t.Fatalf("create business body: %s", r.body)
	}
	return data["id"].(string)
}

func businessToken(t *testing.T, platform, businessID string) string {
	t.Helper()
	r := jsonCall(t, http.MethodPost, "/v1/businesses/"+businessID+"/auth-token", platform, map[string]any{"session_duration": 600})
	if r.status != http.StatusOK && r.status != http.StatusCreated {
		t.Fatalf("business token: %d %s", r.status, r.body)
	}
	tok, _ := r.json["access_token"].(string)
	if tok == "" {
		if d, ok := r.json["data"].(map[string]any); ok {
			tok, _ = d["access_token"].(string)
		}
	}
	if tok == "" {
		t.Fatalf("business token response: %s", r.body)
	}
	return tok
}

func expectError(t *testing.T, r reply, status int, typ string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if r.json["type"] != typ {
		t.Fatalf("error type %v, want %s: %s", r.json["type"], typ, r.body)
	}
	if d, _ := r.json["description"].(string); d == "" {
		t.Fatalf("error without description: %s", r.body)
	}
	_, hasEnum := r.json["error_enum"]
	if status < 500 && !hasEnum {
		t.Fatalf("4xx error without error_enum: %s", r.body)
	}
	if status >= 500 && hasEnum {
		t.Fatalf("5xx error with error_enum: %s", r.body)
	}
}

// The README walk-through: token → whoami → create business → business
// token tenancy.
func TestWalkthrough(t *testing.T) {
	tok := platformToken(t)
	r := jsonCall(t, http.MethodGet, "/whoami", tok, nil)
	if r.status != http.StatusOK {
		t.Fatalf("whoami: %d %s", r.status, r.body)
	}
	who := r.json["data"].(map[string]any)
	if who["type"] != "whoami" || who["clientId"] != clientID || who["clientName"] == "" {
		t.Fatalf("whoami body: %s", r.body)
	}

	ext := "walk-" + uuid.NewString()[:8]
	a := createBusiness(t, tok, ext)
	again := jsonCall(t, http.MethodPost, "/v1/businesses", tok, map[string]any{"legal_name": "Biz " + ext, "external_id": ext, "country": "US"})
	if again.status != http.StatusOK || again.json["data"].(map[string]any)["id"] != a || again.json["data"].(map[string]any)["previously_imported"] != true {
		t.Fatalf("re-import: %d %s", again.status, again.body)
	}
	b := createBusiness(t, tok, "walk-b-"+uuid.NewString()[:8])

	btA := businessToken(t, tok, a)
	if r := jsonCall(t, http.MethodGet, "/v1/businesses/"+a, btA, nil); r.status != http.StatusOK {
		t.Fatalf("business token on own business: %d %s", r.status, r.body)
	}
	expectError(t, jsonCall(t, http.MethodGet, "/v1/businesses/"+b, btA, nil), http.StatusNotFound, "NotFound")
	expectError(t, jsonCall(t, http.MethodPost, "/v1/businesses/"+a+"/auth-token", btA, map[string]any{}), http.StatusForbidden, "Forbidden")
	expectError(t, jsonCall(t, http.MethodPost, "/v1/businesses", btA, map[string]any{"legal_name": "x", "country": "US"}), http.StatusForbidden, "Forbidden")

	// The platform token lists both of its businesses.
	list := jsonCall(t, http.MethodGet, "/v1/businesses?limit=1000", tok, nil)
	if list.status != http.StatusOK {
		t.Fatalf("list: %d %s", list.status, list.body)
	}
	seen := map[string]bool{}
	for _, item := range list.json["data"].([]any) {
		seen[item.(map[string]any)["id"].(string)] = true
	}
	if !seen[a] || !seen[b] {
		t.Fatalf("list misses a business: %s", list.body)
	}
}

// Another platform's token never reaches this platform's businesses.
func TestCrossPlatformTenancy(t *testing.T) {
	tok := platformToken(t)
	mine := createBusiness(t, tok, "mine-"+uuid.NewString()[:8])
	otherID, otherSecret := secondClient(t)
	otherTok := tokenFor(t, otherID, otherSecret)
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/v1/businesses/" + mine},
		{http.MethodPatch, "/v1/businesses/" + mine},
		{http.MethodPost, "/v1/businesses/" + mine + "/auth-token"},
	} {
		r := jsonCall(t, tc.method, tc.path, otherTok, map[string]any{})
		if tc.method == http.MethodGet {
			r = jsonCall(t, tc.method, tc.path, otherTok, nil)
		}
		expectError(t, r, http.StatusNotFound, "NotFound")
	}
}

func TestBadInputThroughGateway(t *testing.T) {
	tok := platformToken(t)
	id := createBusiness(t, tok, "bad-"+uuid.NewString()[:8])
	cases := []struct {
		name, method, path, ct string
		body                   []byte
		status                 int
		typ                    string
	}{
		{"malformed json", http.MethodPost, "/v1/businesses", "application/json", []byte(`{"legal_name":`), 400, "InvalidPayload"},
		{"wrong content type", http.MethodPost, "/v1/businesses", "text/plain", []byte(`legal_name=x`), 415, "UnsupportedMediaType"},
		{"oversized body", http.MethodPost, "/v1/businesses", "application/json", append([]byte(`{"legal_name":"`), bytes.Repeat([]byte("a"), 2<<20)...), 413, "PayloadTooLarge"},
		{"invalid uuid", http.MethodGet, "/v1/businesses/not-a-uuid", "", nil, 400, "InvalidParameters"},
		{"unknown enum", http.MethodPatch, "/v1/businesses/" + id, "application/json", []byte(`{"entity_type":"TRUST"}`), 400, "InvalidPayload"},
		{"unknown route", http.MethodGet, "/v1/nothing-here", "", nil, 404, "NotFound"},
		{"no token", http.MethodGet, "/whoami", "", nil, 401, "Unauthenticated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			token := tok
			if tc.name == "no token" {
				token = ""
			}
			r := call(t, tc.method, tc.path, token, tc.ct, tc.body, false)
			expectError(t, r, tc.status, tc.typ)
			if tc.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("401 without WWW-Authenticate: Bearer")
			}
		})
	}
}

func TestOAuthErrors(t *testing.T) {
	r := oauth(t, clientID, "wrong", url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "scope": {"x"}})
	if r.status != http.StatusUnauthorized || r.json["error"] != "invalid_client" {
		t.Fatalf("wrong secret: %d %s", r.status, r.body)
	}
	r = oauth(t, "nobody", "x", url.Values{"grant_type": {"client_credentials"}, "client_id": {"nobody"}, "scope": {"x"}})
	if r.status != http.StatusUnauthorized || r.json["error"] != "invalid_client" {
		t.Fatalf("unknown client: %d %s", r.status, r.body)
	}
	r = oauth(t, clientID, clientSecret, url.Values{"grant_type": {"password"}, "client_id": {clientID}})
	if r.status != http.StatusBadRequest || r.json["error"] != "unsupported_grant_type" {
		t.Fatalf("unsupported grant: %d %s", r.status, r.body)
	}
}

// Stopping auth-tokens makes its domain answer 503 error objects while the
// gateway itself keeps serving; after a restart the data is still there.
func TestUpstreamDownAndBack(t *testing.T) {
	tok := platformToken(t)
	id := createBusiness(t, tok, "fault-"+uuid.NewString()[:8])
	p := st.Proc("auth-tokens")
	p.Kill()
	r := call(t, http.MethodGet, "/v1/businesses/"+id, tok, "", nil, false)
	// Ownership of id is cached by the gateway, so the request reaches the
	// proxy step and meets the dead upstream.
	expectError(t, r, http.StatusServiceUnavailable, "Unavailable")
	expectError(t, call(t, http.MethodGet, "/whoami", tok, "", nil, false), http.StatusServiceUnavailable, "Unavailable")
	if r := call(t, http.MethodGet, "/healthz", "", "", nil, false); r.status != http.StatusOK {
		t.Fatalf("gateway /healthz while upstream down: %d", r.status)
	}
	if r := call(t, http.MethodGet, "/openapi.json", "", "", nil, false); r.status != http.StatusOK {
		t.Fatalf("gateway /openapi.json while upstream down: %d", r.status)
	}
	if err := p.Restart(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := call(t, http.MethodGet, "/v1/businesses/"+id, tok, "", nil, false)
		if r.status == http.StatusOK {
			if r.json["data"].(map[string]any)["id"] != id {
				t.Fatalf("after restart: %s", r.body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("auth-tokens did not come back: %d %s", r.status, r.body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// secondClient creates another platform client with the admin command.
func secondClient(t *testing.T) (id, secret string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := st.Exec(ctx, "auth-tokens", "admin", "create-client", "--name", "other platform")
	if err != nil {
		t.Fatalf("admin create-client: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(strings.ToLower(k)) {
		case "client_id":
			id = strings.TrimSpace(v)
		case "client_secret":
			secret = strings.TrimSpace(v)
		}
	}
	if id == "" || secret == "" {
		t.Fatalf("cannot read the new client's credentials from:\n%s", out)
	}
	return id, secret
}
