// Package http is the auth-tokens HTTP adapter: Fiber handlers that parse a
// request, call the use cases and render the response, one file per
// resource. Errors are returned to httpx's error handler, except on the
// OAuth token endpoint, which answers RFC 6749 error bodies itself.
package http

import (
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tenancy"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/gofiber/fiber/v2"
)

// Handlers serves the auth-tokens API.
type Handlers struct {
	app      *app.App
	verifier authn.TokenVerifier
	owners   tenancy.OwnerLookup
	codec    *page.Codec
	// idempotency guards creating POSTs; nil lets requests straight through.
	idempotency fiber.Handler
	// tokenIdempotency guards token minting without storing responses;
	// nil lets requests straight through.
	tokenIdempotency fiber.Handler
}

// Options are the collaborators of the handlers.
type Options struct {
	App         *app.App
	Verifier    authn.TokenVerifier // usually the key ring's own verifier
	Owners      tenancy.OwnerLookup
	Cursors     *page.Codec
	Idempotency fiber.Handler // Idempotency-Key middleware for creating POSTs
	// TokenIdempotency is the Idempotency-Key middleware of the token-minting
	// route: it must be built with idempotency.Options{NoStore: true}, since
	// a stored response would keep a bearer token in the database and hand
	// it out again. Nil: the route ignores Idempotency-Key (minting twice is
	// harmless). Idempotency is never used there.
	TokenIdempotency fiber.Handler
}

// New makes the handlers.
func New(o Options) *Handlers {
	return &Handlers{app: o.App, verifier: o.Verifier, owners: o.Owners, codec: o.Cursors,
		idempotency: o.Idempotency, tokenIdempotency: o.TokenIdempotency}
}

// Register mounts every route on r.
func (h *Handlers) Register(r fiber.Router) {
	auth := httpauth.Middleware(h.verifier)
	pass := func(c *fiber.Ctx) error { return c.Next() }
	idem, tokenIdem := h.idempotency, h.tokenIdempotency
	if idem == nil {
		idem = pass
	}
	if tokenIdem == nil {
		tokenIdem = pass
	}
	business := httpauth.RequireBusiness("businessId", h.owners)

	r.Post("/oauth2/token", h.token)
	r.Get("/.well-known/jwks.json", h.jwks)
	r.Get("/whoami", auth, h.whoami)

	r.Post("/v1/businesses", auth, httpauth.RequirePlatform(), idem, h.createBusiness)
	r.Get("/v1/businesses", auth, h.listBusinesses)
	r.Get("/v1/businesses/:businessId", auth, business, h.getBusiness)
	r.Get("/v1/businesses/:businessId/accounting-config", auth, business, h.accountingConfig)
	r.Patch("/v1/businesses/:businessId", auth, business, httpauth.RequirePlatform(), h.updateBusiness)
	r.Post("/v1/businesses/:businessId/auth-token", auth, business, httpauth.RequirePlatform(), tokenIdem, h.createBusinessToken)

	// Not routed by the gateway: its tenancy lookup, inside the cluster
	// network, answered only to a holder of a valid token (the gateway
	// presents its caller's).
	r.Get("/internal/v1/businesses/:businessId/owner", auth, h.owner)
}

// identity is the verified caller; the auth middleware always ran before.
func identity(c *fiber.Ctx) authn.Identity {
	id, _ := httpauth.IdentityFrom(c)
	return id
}
