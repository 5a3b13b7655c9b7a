// Package http is the mileage service's HTTP adapter: Fiber handlers that
// parse a request, call the use cases and render the answer in the spec's
// shapes (and the client SDK's, see client-shapes.md), one file per
// resource. Errors go to httpx's error handler unchanged.
package http

import (
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/page"
)

// Options are the collaborators of the handlers.
type Options struct {
	Auth        fiber.Handler // bearer-token verification
	Business    fiber.Handler // tenancy check of :businessId
	Idempotency fiber.Handler // Idempotency-Key on creating POSTs
	Cursors     *page.Codec
}

// Register mounts every route of the service on r.
func Register(r fiber.Router, o Options) {}
