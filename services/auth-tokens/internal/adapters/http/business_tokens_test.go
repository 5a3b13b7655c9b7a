package http_test

import (
	"context"
	"testing"
)

// TestBusinessTokenNeverStored: minting a business token with an
// Idempotency-Key never writes the token to idempotency_keys nor replays
// it, whether the route is wired with the NoStore middleware or none; the
// answer always forbids caching.
func TestBusinessTokenNeverStored(t *testing.T) {
	tests := []struct {
		name string
		opts serverOptions
	}{
		{"NoStore middleware", serverOptions{}},
		{"no token middleware", serverOptions{noTokenIdempotency: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.opts)
			demo := s.platformToken("demo", "demo-secret")
			_, created := s.do(request("POST", "/v1/businesses", demo, map[string]any{"legal_name": "Acme"}), 201)
			path := "/v1/businesses/" + data(created)["id"].(string) + "/auth-token"

			mint := func() string {
				t.Helper()
				rq := request("POST", path, demo, map[string]any{"session_duration": 600})
				rq.Header.Set("Idempotency-Key", "mint-1")
				resp, m := s.do(rq, 200)
				if resp.Header.Get("Idempotent-Replayed") != "" {
					t.Fatal("a token was replayed")
				}
				if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("Pragma") != "no-cache" {
					t.Fatalf("Cache-Control %q Pragma %q", resp.Header.Get("Cache-Control"), resp.Header.Get("Pragma"))
				}
				return data(m)["access_token"].(string)
			}
			first, second := mint(), mint()
			if first == second {
				t.Fatal("the retry got the first token back")
			}
			for _, tok := range []string{first, second} {
				n, err := s.db.NewSelect().TableExpr("idempotency_keys").
					Where("position(? in convert_from(response_body, 'UTF8')) > 0", tok).Count(context.Background())
				if err != nil || n != 0 {
					t.Fatalf("rows holding a token: %d, %v", n, err)
				}
			}
			n, err := s.db.NewSelect().TableExpr("idempotency_keys").Where("response_body IS NOT NULL").Count(context.Background())
			if err != nil || n != 0 {
				t.Fatalf("stored response bodies: %d, %v", n, err)
			}
		})
	}
}

// TestBusinessCreateStillReplayed: the storing middleware still serves
// creating POSTs, replaying the first answer.
func TestBusinessCreateStillReplayed(t *testing.T) {
	s := newServer(t, serverOptions{})
	demo := s.platformToken("demo", "demo-secret")
	post := func() map[string]any {
		rq := request("POST", "/v1/businesses", demo, map[string]any{"legal_name": "Once"})
		rq.Header.Set("Idempotency-Key", "create-1")
		_, m := s.do(rq, 201)
		return data(m)
	}
	if a, b := post(), post(); a["id"] != b["id"] {
		t.Fatalf("replay created another business: %v, %v", a["id"], b["id"])
	}
}
