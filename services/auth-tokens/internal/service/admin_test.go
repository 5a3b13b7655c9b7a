package service

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// adminOut runs `auth-tokens admin args...` and returns its KEY=VALUE lines.
func (e *env) adminOut(args ...string) (map[string]string, error) {
	var out bytes.Buffer
	s := &Service{App: e.app, Keys: e.keys}
	if err := s.admin(context.Background(), nil, args, &out); err != nil {
		return nil, err
	}
	kv := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	return kv, nil
}

// TestAdminRefusedToken: `admin refused-token` signs, with the service's
// real key, tokens that grant nothing: an expired platform token (401
// everywhere) and a business token for a business that does not exist
// (its business is not found, its listing is empty, it may not mint).
func TestAdminRefusedToken(t *testing.T) {
	e := newEnv(t)
	demo := e.platformToken("demo", "demo-secret")
	mine := data(e.do(req("POST", "/v1/businesses", demo, map[string]any{"legal_name": "Mine"}), 201))["id"].(string)

	expired, err := e.adminOut("refused-token", "--client", "demo", "--kind", "expired")
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339, expired["expires_at"])
	if err != nil || time.Until(at) > -30*time.Minute || expired["business_id"] != "" || expired["access_token"] == "" {
		t.Fatalf("expired token output = %v (%v)", expired, err)
	}
	e.doInvalid(req("GET", "/whoami", expired["access_token"], nil), 401, "Unauthenticated")
	e.doInvalid(req("GET", "/v1/businesses/"+mine, expired["access_token"], nil), 401, "Unauthenticated")

	unknown, err := e.adminOut("refused-token", "--client", "demo", "--kind", "unknown-business")
	if err != nil {
		t.Fatal(err)
	}
	bid, err := uuid.Parse(unknown["business_id"])
	if err != nil || bid.String() == mine {
		t.Fatalf("unknown-business output = %v (%v)", unknown, err)
	}
	tok := unknown["access_token"]
	if w := data(e.do(req("GET", "/whoami", tok, nil), 200)); w["clientId"] != "demo" {
		t.Fatalf("whoami = %v", w) // a real signature: authenticated, but...
	}
	e.doInvalid(req("GET", "/v1/businesses/"+bid.String(), tok, nil), 404, "NotFound")
	e.doInvalid(req("GET", "/v1/businesses/"+mine, tok, nil), 404, "NotFound")
	if list := e.do(req("GET", "/v1/businesses", tok, nil), 200)["data"].([]any); len(list) != 0 {
		t.Fatalf("the unknown business's token lists %v", list)
	}
	// Its own business is not found before minting is forbidden.
	e.doInvalid(req("POST", "/v1/businesses/"+bid.String()+"/auth-token", tok, nil), 404, "NotFound")
	e.doInvalid(req("PATCH", "/v1/businesses/"+bid.String(), tok, map[string]any{"legal_name": "X"}), 404, "NotFound")

	for _, args := range [][]string{
		{"refused-token", "--client", "nobody", "--kind", "expired"},
		{"refused-token", "--client", "demo", "--kind", "valid"},
		{"refused-token", "--client", "demo"},
		{"mint"},
		{},
	} {
		if out, err := e.adminOut(args...); err == nil {
			t.Errorf("admin %q: no error, printed %v", args, out)
		}
	}
}
