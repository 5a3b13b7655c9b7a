package httpguard_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpguard"
)

func TestIdem(t *testing.T) {
	refuse := func(c *fiber.Ctx) error { return c.SendStatus(409) }
	tests := []struct {
		name string
		g    httpguard.Guards
		want int
	}{
		{"no idempotency guard passes through", httpguard.Guards{}, 200},
		{"the guard runs", httpguard.Guards{Idempotency: refuse}, 409},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := fiber.New()
			app.Post("/x", tt.g.Idem(), func(c *fiber.Ctx) error { return c.SendStatus(200) })
			resp, err := app.Test(httptest.NewRequest("POST", "/x", nil))
			if err != nil || resp.StatusCode != tt.want {
				t.Fatalf("status %v, %v; want %d", resp.StatusCode, err, tt.want)
			}
		})
	}
}
