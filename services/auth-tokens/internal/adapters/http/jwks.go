package http

import (
	"github.com/gofiber/fiber/v2"
)

// jwks is GET /.well-known/jwks.json. The short max-age lets caches help
// while verifiers still see a new key quickly (they also refetch on an
// unknown kid).
func (h *Handlers) jwks(c *fiber.Ctx) error {
	doc, err := h.app.Keys().JWKS()
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Set(fiber.HeaderCacheControl, "public, max-age=60")
	return c.Send(doc)
}
