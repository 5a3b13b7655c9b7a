package httpauth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/tenancy"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
)

var (
	ownedBiz   = uuid.MustParse("0190a0b1-0000-7000-8000-000000000001")
	foreignBiz = uuid.MustParse("0190a0b1-0000-7000-8000-000000000002")
	missingBiz = uuid.MustParse("0190a0b1-0000-7000-8000-000000000003")
	brokenBiz  = uuid.MustParse("0190a0b1-0000-7000-8000-000000000004")
)

var owners = tenancy.OwnerLookupFunc(func(_ context.Context, id uuid.UUID) (string, bool, error) {
	switch id {
	case ownedBiz:
		return "client-a", true, nil
	case foreignBiz:
		return "client-b", true, nil
	case brokenBiz:
		return "", false, errors.New("database down")
	}
	return "", false, nil
})

// app wires a fake authentication (identity from the test) then the tenancy guards.
func app(id *authn.Identity) *fiber.App {
	a := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
		ae := apperr.From(err)
		return c.Status(ae.Status()).JSON(ae.Body())
	}})
	a.Use(func(c *fiber.Ctx) error {
		if id != nil {
			SetIdentity(c, *id)
		}
		return c.Next()
	})
	a.Get("/v1/businesses/:businessId", RequireBusiness("businessId", owners), func(c *fiber.Ctx) error {
		bid, ok := BusinessIDFrom(c)
		if !ok {
			return errors.New("no business id in locals")
		}
		return c.JSON(fiber.Map{"id": bid})
	})
	a.Post("/v1/businesses", RequirePlatform(), func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"ok": true}) })
	return a
}

func TestRequireBusiness(t *testing.T) {
	platformA := &authn.Identity{ClientID: "client-a", Scope: authn.ScopePlatform}
	businessOwned := &authn.Identity{ClientID: "client-a", Scope: authn.ScopeBusiness, BusinessID: ownedBiz}
	tests := []struct {
		name     string
		id       *authn.Identity
		path     string
		wantCode int
		wantType string
	}{
		{"platform owns", platformA, "/v1/businesses/" + ownedBiz.String(), 200, ""},
		{"platform, other client's business", platformA, "/v1/businesses/" + foreignBiz.String(), 404, "NotFound"},
		{"platform, missing business", platformA, "/v1/businesses/" + missingBiz.String(), 404, "NotFound"},
		{"platform, lookup fails", platformA, "/v1/businesses/" + brokenBiz.String(), 500, "Internal"},
		{"business token, its business", businessOwned, "/v1/businesses/" + ownedBiz.String(), 200, ""},
		{"business token, sibling business of same client", businessOwned, "/v1/businesses/" + foreignBiz.String(), 404, "NotFound"},
		{"business token, missing business", businessOwned, "/v1/businesses/" + missingBiz.String(), 404, "NotFound"},
		{"unknown scope", &authn.Identity{ClientID: "client-a", Scope: "admin"}, "/v1/businesses/" + ownedBiz.String(), 404, "NotFound"},
		{"invalid uuid", platformA, "/v1/businesses/not-a-uuid", 400, "InvalidParameters"},
		{"no identity", nil, "/v1/businesses/" + ownedBiz.String(), 401, "Unauthenticated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := do(t, app(tt.id), "GET", tt.path)
			if code != tt.wantCode {
				t.Fatalf("status = %d, want %d (%v)", code, tt.wantCode, body)
			}
			if tt.wantType != "" && body["type"] != tt.wantType {
				t.Fatalf("type = %v, want %s", body["type"], tt.wantType)
			}
			if tt.wantCode == 200 && body["id"] != ownedBiz.String() {
				t.Fatalf("body = %v", body)
			}
		})
	}
}

func TestRequirePlatform(t *testing.T) {
	tests := []struct {
		name     string
		id       *authn.Identity
		wantCode int
	}{
		{"platform", &authn.Identity{ClientID: "c", Scope: authn.ScopePlatform}, 200},
		{"business", &authn.Identity{ClientID: "c", Scope: authn.ScopeBusiness, BusinessID: ownedBiz}, 403},
		{"none", nil, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := do(t, app(tt.id), "POST", "/v1/businesses")
			if code != tt.wantCode {
				t.Fatalf("status = %d, want %d (%v)", code, tt.wantCode, body)
			}
			if code == 403 && body["type"] != "Forbidden" {
				t.Fatalf("body = %v", body)
			}
		})
	}
}

func do(t *testing.T, a *fiber.App, method, path string) (int, map[string]any) {
	t.Helper()
	resp, err := a.Test(httptest.NewRequest(method, path, nil))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("body %q: %v", raw, err)
	}
	return resp.StatusCode, m
}
