package service

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestEndpointsAPI(t *testing.T) {
	e := newEnv(t, envOptions{})
	rcv := newReceiver(t)
	bid := e.Svc.SeedBusiness(t, "plat-a")
	other := e.Svc.SeedBusiness(t, "plat-b")
	tok := e.Token("plat-a")

	created := e.endpoint("plat-a", rcv.URL+"/hook", map[string]any{"description": "books", "event_types": []string{"Invoice.created", "Customer.created"},
		"business_ids": []string{bid.String()}})
	secret, _ := created["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || created["secret_hint"] != "whsec_…"+secret[len(secret)-4:] || created["ordering"] != "business" {
		t.Fatalf("created: %v", created)
	}
	id := created["id"].(string)
	path := "/v1/webhooks/endpoints/" + id

	t.Run("the secret is shown only on create and rotation", func(t *testing.T) {
		got := data(e.Do(req("GET", path, tok, nil), 200))
		if _, ok := got["secret"]; ok {
			t.Fatalf("GET shows the secret: %v", got)
		}
		list := e.Do(req("GET", "/v1/webhooks/endpoints", tok, nil), 200)["data"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["secret"] != nil {
			t.Fatalf("list: %v", list)
		}
		var stored []byte
		if err := e.DB.NewRaw("SELECT secret FROM endpoints WHERE id = ?", id).Scan(t.Context(), &stored); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(stored), secret[6:]) || len(stored) < 28 {
			t.Fatal("the secret is stored in clear")
		}
	})
	t.Run("business tokens are refused", func(t *testing.T) {
		btok := e.Svc.Tokens.Business(t, "plat-a", bid)
		for _, r := range [][2]string{{"GET", "/v1/webhooks/endpoints"}, {"POST", "/v1/webhooks/endpoints"}, {"GET", path}, {"DELETE", path},
			{"POST", path + "/rotate-secret"}, {"GET", path + "/deliveries"}} {
			var body any
			if r[0] == "POST" {
				body = map[string]any{"url": "https://example.com"}
			}
			e.DoInvalid(req(r[0], r[1], btok, body), 403, "PlatformTokenRequired")
		}
		// The catalog is readable with any token.
		e.Do(req("GET", "/v1/webhooks/event-types", btok, nil), 200)
	})
	t.Run("another platform sees nothing", func(t *testing.T) {
		otok := e.Token("plat-b")
		for _, r := range [][2]string{{"GET", path}, {"DELETE", path}, {"POST", path + "/rotate-secret"}, {"POST", path + "/test"},
			{"GET", path + "/deliveries"}, {"POST", path + "/recover?since=2026-01-01T00:00:00Z"},
			{"POST", path + "/deliveries/" + uuid.NewString() + "/resend"}} {
			e.DoInvalid(req(r[0], r[1], otok, nil), 404, "EndpointNotFound")
		}
		e.DoInvalid(req("PATCH", path, otok, map[string]any{"description": "x"}), 404, "EndpointNotFound")
		if l := e.Do(req("GET", "/v1/webhooks/endpoints", otok, nil), 200)["data"].([]any); len(l) != 0 {
			t.Fatalf("plat-b lists %v", l)
		}
		// Nor can it subscribe to plat-a's business, nor plat-a to plat-b's.
		e.DoInvalid(req("POST", "/v1/webhooks/endpoints", otok, map[string]any{"url": rcv.URL, "business_ids": []string{bid.String()}}), 400, "InvalidEndpoint")
		e.DoInvalid(req("PATCH", path, tok, map[string]any{"business_ids": []string{other.String()}}), 400, "InvalidEndpoint")
		e.DoInvalid(req("PATCH", path, tok, map[string]any{"business_ids": []string{uuid.NewString()}}), 400, "InvalidEndpoint")
	})
	t.Run("bad input is a 400 naming the field", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"no url":          {"description": "x"},
			"ftp":             {"url": "ftp://example.com/x"},
			"no host":         {"url": "https:///x"},
			"metadata":        {"url": "http://169.254.169.254/latest"},
			"metadata ipv6":   {"url": "http://[fd00:ec2::254]/"},
			"metadata name":   {"url": "http://metadata.google.internal/"},
			"unknown type":    {"url": rcv.URL, "event_types": []string{"Nope.created"}},
			"test type":       {"url": rcv.URL, "event_types": []string{"Webhook.test"}},
			"bad ordering":    {"url": rcv.URL, "ordering": "random"},
			"unknown field":   {"url": rcv.URL, "secret": "whsec_mine"},
			"wrong type":      {"url": rcv.URL, "disabled": "yes"},
			"long desc":       {"url": rcv.URL, "description": strings.Repeat("d", 513)},
			"bad business id": {"url": rcv.URL, "business_ids": []string{"nope"}},
		} {
			t.Run(name, func(t *testing.T) {
				got := e.DoInvalid(req("POST", "/v1/webhooks/endpoints", tok, body), 400, "")
				if got["type"] != "InvalidPayload" {
					t.Fatalf("%v", got)
				}
			})
		}
		e.DoInvalid(req("PATCH", path, tok, map[string]any{"url": "gopher://x"}), 400, "URLRefused")
		e.DoInvalid(req("GET", path+"/deliveries?status=lost", tok, nil), 400, "")
		e.DoInvalid(req("POST", path+"/recover", tok, nil), 400, "")
		e.DoInvalid(req("POST", path+"/recover?since=yesterday", tok, nil), 400, "InvalidParameters")
		e.DoInvalid(req("GET", "/v1/webhooks/endpoints/not-a-uuid", tok, nil), 400, "")
	})
	t.Run("patch and rotate", func(t *testing.T) {
		got := data(e.Do(req("PATCH", path, tok, map[string]any{"description": "renamed", "event_types": []string{}, "ordering": "none"}), 200))
		if got["description"] != "renamed" || len(got["event_types"].([]any)) != 0 || got["ordering"] != "none" ||
			len(got["business_ids"].([]any)) != 1 {
			t.Fatalf("patched: %v", got)
		}
		rot := data(e.Do(req("POST", path+"/rotate-secret", tok, nil), 200))
		if rot["secret"] == secret || !strings.HasPrefix(rot["secret"].(string), "whsec_") || rot["previous_secret_expires_at"] == nil {
			t.Fatalf("rotated: %v", rot)
		}
	})
	t.Run("at most 50 endpoints", func(t *testing.T) {
		for i := 1; i < 50; i++ {
			e.endpoint("plat-a", fmt.Sprintf("%s/%d", rcv.URL, i), nil)
		}
		e.DoInvalid(req("POST", "/v1/webhooks/endpoints", tok, map[string]any{"url": rcv.URL}), 409, "EndpointLimitReached")
		list := e.Do(req("GET", "/v1/webhooks/endpoints?limit=100", tok, nil), 200)["data"].([]any)
		if len(list) != 50 {
			t.Fatalf("%d endpoints listed", len(list))
		}
	})
	t.Run("delete", func(t *testing.T) {
		e.NoContent(req("DELETE", path, tok, nil))
		e.DoInvalid(req("GET", path, tok, nil), 404, "EndpointNotFound")
	})
}

// TestPrivateAddressesRefusedByDefault: without WEBHOOKS_ALLOW_PRIVATE a
// loopback or private URL is a 400 at create time.
func TestPrivateAddressesRefusedByDefault(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_ALLOW_PRIVATE": "false"}})
	tok := e.Token("plat-a")
	for _, u := range []string{"http://127.0.0.1:9/x", "http://10.0.0.1/", "http://[::1]/", "http://localhost/", "http://192.168.0.10/",
		"http://[::ffff:127.0.0.1]/"} {
		got := e.Do(req("POST", "/v1/webhooks/endpoints", tok, map[string]any{"url": u}), 400)
		if got["error_enum"] != "URLRefused" {
			t.Fatalf("%s: %v", u, got)
		}
	}
	if n := e.Rows("endpoints")[0]; n != 0 {
		t.Fatalf("%d endpoints stored", n)
	}
}

// TestHTTPSOnlyByDefault: without WEBHOOKS_ALLOW_HTTP an http URL is a 400.
func TestHTTPSOnlyByDefault(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_ALLOW_HTTP": "false"}})
	got := e.Do(req("POST", "/v1/webhooks/endpoints", e.Token("plat-a"), map[string]any{"url": "http://127.0.0.1:9/x"}), 400)
	if got["error_enum"] != "URLRefused" || !strings.Contains(fmt.Sprint(got["meta"]), "https") {
		t.Fatalf("%v", got)
	}
}
