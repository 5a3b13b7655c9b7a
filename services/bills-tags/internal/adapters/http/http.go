// Package http is the bills-tags service's HTTP adapter: Fiber handlers
// that parse a request, call the use cases and render the answer in the
// spec's shapes (and the client SDK's, see client-shapes.md), one file per
// resource. Errors go to httpx's error handler unchanged.
package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
)

// Options are the collaborators of the handlers.
type Options struct {
	Auth        fiber.Handler // bearer-token verification
	Business    fiber.Handler // tenancy check of :businessId
	Idempotency fiber.Handler // Idempotency-Key on creating POSTs
	Cursors     *page.Codec
}

type handlers struct {
	codec *page.Codec
}

// Register mounts every route of the service on r.
func Register(r fiber.Router, o Options) {
	h := &handlers{codec: o.Cursors}
	_ = h
}

// businessID is the business RequireBusiness authorised.
func businessID(c *fiber.Ctx) uuid.UUID {
	id, _ := httpauth.BusinessIDFrom(c)
	return id
}

// jsonBody is httpx.JSONBody (415 unless JSON, 413 beyond limit).
func jsonBody(c *fiber.Ctx, limit int) ([]byte, error) { return httpx.JSONBody(c, limit) }
