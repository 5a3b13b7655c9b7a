// Package httpguard is what every service's HTTP adapter puts in front of
// its business routes, handed over by the kit in one value: bearer-token
// verification, the tenancy check of :businessId, Idempotency-Key on
// creating POSTs, and the codec that signs pagination cursors.
package httpguard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/page"
)

// Guards are the route guards of a service (servicekit.Kit.Guards).
type Guards struct {
	Auth        fiber.Handler // bearer-token verification
	Business    fiber.Handler // tenancy check of :businessId
	Idempotency fiber.Handler // Idempotency-Key on creating POSTs; nil: none
	Cursors     *page.Codec   // signs and checks pagination cursors
}

// Idem is the Idempotency-Key guard, or a pass-through when there is none.
func (g Guards) Idem() fiber.Handler {
	if g.Idempotency == nil {
		return func(c *fiber.Ctx) error { return c.Next() }
	}
	return g.Idempotency
}
