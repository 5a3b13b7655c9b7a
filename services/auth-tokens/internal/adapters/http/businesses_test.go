package http_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestPatchBusinessWithBusinessToken: a business token may read its
// business but not update it (403 Forbidden, the gateway's answer too);
// any other business does not exist for it (404).
func TestPatchBusinessWithBusinessToken(t *testing.T) {
	s := newServer(t, serverOptions{})
	demo := s.platformToken("demo", "demo-secret")
	other := s.platformToken("other", "other-secret")
	create := func(token, name string) string {
		_, m := s.do(request("POST", "/v1/businesses", token, map[string]any{"legal_name": name}), 201)
		return data(m)["id"].(string)
	}
	own, sibling, foreign := create(demo, "Own"), create(demo, "Sibling"), create(other, "Foreign")
	_, m := s.do(request("POST", "/v1/businesses/"+own+"/auth-token", demo, nil), 200)
	bizTok := data(m)["access_token"].(string)

	tests := []struct {
		name     string
		business string
		want     int
		wantType string
	}{
		{"own business", own, 403, "Forbidden"},
		{"same client's other business", sibling, 404, "NotFound"},
		{"another client's business", foreign, 404, "NotFound"},
		{"no such business", uuid.NewString(), 404, "NotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := s.do(request("PATCH", "/v1/businesses/"+tt.business, bizTok, map[string]any{"legal_name": "Hijacked"}), tt.want)
			if body["type"] != tt.wantType {
				t.Fatalf("type = %v, want %s", body["type"], tt.wantType)
			}
		})
	}
	// Nothing changed.
	for _, id := range []string{own, sibling} {
		_, got := s.do(request("GET", "/v1/businesses/"+id, demo, nil), 200)
		if data(got)["legal_name"] == "Hijacked" {
			t.Fatalf("business %s was updated", id)
		}
	}
}

// TestBusinessShape checks the Business answer against the clients' shape
// (client-shapes.md, Business: id uuid, legal_name, activation_at
// date-time, is_demo boolean, all required) on every route that returns
// it, and the event payload.
func TestBusinessShape(t *testing.T) {
	s := newServer(t, serverOptions{})
	ctx := context.Background()
	demo := s.platformToken("demo", "demo-secret")

	checkShape := func(t *testing.T, b map[string]any, wantDemo bool, wantActivation string) {
		t.Helper()
		if _, err := uuid.Parse(b["id"].(string)); err != nil {
			t.Fatalf("id: %v", err)
		}
		if _, ok := b["legal_name"].(string); !ok {
			t.Fatalf("legal_name = %v", b["legal_name"])
		}
		if demo, ok := b["is_demo"].(bool); !ok || demo != wantDemo {
			t.Fatalf("is_demo = %#v, want %v", b["is_demo"], wantDemo)
		}
		at, ok := b["activation_at"].(string)
		if !ok {
			t.Fatalf("activation_at = %#v, want a date-time string", b["activation_at"])
		}
		if _, err := time.Parse(time.RFC3339Nano, at); err != nil {
			t.Fatalf("activation_at %q: %v", at, err)
		}
		if wantActivation != "" && at != wantActivation {
			t.Fatalf("activation_at = %s, want %s", at, wantActivation)
		}
	}

	tests := []struct {
		name           string
		body           map[string]any
		wantDemo       bool
		wantActivation string // "" means: the creation time
	}{
		{"defaults", map[string]any{"legal_name": "Plain"}, false, ""},
		{"demo", map[string]any{"legal_name": "Sandbox", "is_demo": true}, true, ""},
		{"explicit not demo", map[string]any{"legal_name": "Real", "is_demo": false}, false, ""},
		{"activation date", map[string]any{"legal_name": "Dated", "activation_at": "2024-02-29"}, false, "2024-02-29T00:00:00Z"},
		{"activation date-time", map[string]any{"legal_name": "Timed", "activation_at": "2024-02-29T10:15:00-05:00"}, false, "2024-02-29T15:15:00Z"},
		{"activation null", map[string]any{"legal_name": "Null", "activation_at": nil}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, m := s.do(request("POST", "/v1/businesses", demo, tt.body), 201)
			created := data(m)
			want := tt.wantActivation
			if want == "" {
				want = created["created_at"].(string)
			}
			checkShape(t, created, tt.wantDemo, want)
			id := created["id"].(string)

			_, got := s.do(request("GET", "/v1/businesses/"+id, demo, nil), 200)
			checkShape(t, data(got), tt.wantDemo, want)

			_, patched := s.do(request("PATCH", "/v1/businesses/"+id, demo, map[string]any{"naics_code": "54"}), 200)
			checkShape(t, data(patched), tt.wantDemo, want)

			var raw []byte
			if err := s.db.NewSelect().Table("outbox").Column("data").
				Where("subject = ? AND type = 'business.created'", id).Scan(ctx, &raw); err != nil {
				t.Fatal(err)
			}
			var payload map[string]any
			if err := json.Unmarshal(raw, &payload); err != nil {
				t.Fatal(err)
			}
			if payload["activation_at"] != want || (payload["is_demo"] == true) != tt.wantDemo {
				t.Fatalf("event payload activation_at %v is_demo %v; want %s %v", payload["activation_at"], payload["is_demo"], want, tt.wantDemo)
			}
		})
	}

	_, list := s.do(request("GET", "/v1/businesses", demo, nil), 200)
	items := list["data"].([]any)
	if len(items) != len(tests) {
		t.Fatalf("listed %d businesses, want %d", len(items), len(tests))
	}
	for _, it := range items {
		b := it.(map[string]any)
		checkShape(t, b, b["legal_name"] == "Sandbox", "")
	}

	// is_demo is fixed at creation; activation_at null restores the default.
	_, m := s.do(request("POST", "/v1/businesses", demo, map[string]any{"legal_name": "Fixed", "activation_at": "2020-01-01"}), 201)
	fixed := data(m)
	path := "/v1/businesses/" + fixed["id"].(string)
	_, bad := s.do(request("PATCH", path, demo, map[string]any{"is_demo": true}), 400)
	if bad["type"] != "InvalidPayload" {
		t.Fatalf("patch is_demo = %v", bad)
	}
	_, reset := s.do(request("PATCH", path, demo, map[string]any{"activation_at": nil}), 200)
	checkShape(t, data(reset), false, fixed["created_at"].(string))
	_, bad = s.do(request("POST", "/v1/businesses", demo, map[string]any{"legal_name": "X", "activation_at": "tomorrow"}), 400)
	if bad["type"] != "InvalidPayload" {
		t.Fatalf("bad activation_at = %v", bad)
	}
}
