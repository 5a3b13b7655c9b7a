// Package httpauth is the HTTP side of authentication and tenancy, for
// Fiber apps: the bearer-token middleware that puts the verified identity in
// the request, the internal identity headers between gateway and services,
// and the tenancy guards (RequirePlatform, RequireBusiness). The rules
// themselves live in the framework-free packages authn and tenancy, which
// use cases import.
package httpauth

import (
	"bytes"
	"strings"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/tenancy"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"
)

// Internal identity headers: set by the gateway from the verified token,
// stripped from anything a client sends.
const (
	HeaderClientID   = "X-Acct-Client-Id"
	HeaderClientName = "X-Acct-Client-Name"
	HeaderScope      = "X-Acct-Scope"
	HeaderBusinessID = "X-Acct-Business-Id"
)

// identityHeaderPrefix is how every internal identity header starts.
const identityHeaderPrefix = "x-acct-"

// LocalClientID is the fiber local holding the caller's client id as a
// string, for access logs and idempotency keys.
const LocalClientID = "client_id"

type identityKey struct{}

// Middleware authenticates every request with a bearer token: a missing or
// invalid token is 401 with WWW-Authenticate: Bearer; internal identity
// headers that disagree with the token are rejected the same way. The
// authn.Identity is put in the locals (IdentityFrom).
func Middleware(v authn.TokenVerifier) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if _, err := Authenticate(c, v); err != nil {
			return err
		}
		return c.Next()
	}
}

// Authenticate is Middleware's check without calling the next handler, for
// callers that must tell a failed authentication from a failure further
// down the chain (the gateway charges the former to the client's IP).
func Authenticate(c *fiber.Ctx, v authn.TokenVerifier) (authn.Identity, error) {
	token, ok := authn.BearerToken(c.Get(fiber.HeaderAuthorization))
	if !ok {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="acct"`)
		return authn.Identity{}, apperr.New(apperr.Unauthenticated, "missing bearer token").WithEnum("MissingToken")
	}
	id, err := v.Verify(c.UserContext(), token)
	if err != nil {
		if apperr.Is(err, apperr.Unauthenticated) {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="acct", error="invalid_token"`)
		}
		return authn.Identity{}, err
	}
	if !HeadersAgree(&c.Request().Header, id) {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="acct", error="invalid_token"`)
		return authn.Identity{}, apperr.New(apperr.Unauthenticated, "identity headers disagree with the token").WithEnum("IdentityMismatch")
	}
	SetIdentity(c, id)
	return id, nil
}

// SetIdentity stores id in the request locals (for callers that authenticate
// by other means, and tests).
func SetIdentity(c *fiber.Ctx, id authn.Identity) {
	c.Locals(identityKey{}, id)
	c.Locals(LocalClientID, id.ClientID)
}

// IdentityFrom returns the identity Middleware stored for this request.
func IdentityFrom(c *fiber.Ctx) (authn.Identity, bool) {
	id, ok := c.Locals(identityKey{}).(authn.Identity)
	return id, ok
}

// HeadersAgree reports whether the internal identity headers present in h
// (absent ones are fine) describe id.
func HeadersAgree(h *fasthttp.RequestHeader, id authn.Identity) bool {
	if v := h.Peek(HeaderClientID); v != nil && string(v) != id.ClientID {
		return false
	}
	if v := h.Peek(HeaderClientName); v != nil && string(v) != id.ClientName {
		return false
	}
	if v := h.Peek(HeaderScope); v != nil && string(v) != string(id.Scope) {
		return false
	}
	if v := h.Peek(HeaderBusinessID); v != nil {
		if !id.IsBusiness() || !strings.EqualFold(string(v), id.BusinessID.String()) {
			return false
		}
	}
	return true
}

// SetIdentityHeaders writes id as internal identity headers (gateway → service),
// replacing whatever was there.
func SetIdentityHeaders(h *fasthttp.RequestHeader, id authn.Identity) {
	h.Set(HeaderClientID, id.ClientID)
	if id.ClientName != "" {
		h.Set(HeaderClientName, id.ClientName)
	} else {
		h.Del(HeaderClientName)
	}
	h.Set(HeaderScope, string(id.Scope))
	if id.IsBusiness() {
		h.Set(HeaderBusinessID, id.BusinessID.String())
	} else {
		h.Del(HeaderBusinessID)
	}
}

// StripIdentityHeaders removes every X-Acct-* header (any case): clients can
// never set them themselves.
func StripIdentityHeaders(h *fasthttp.RequestHeader) {
	var found []string
	h.VisitAll(func(key, _ []byte) {
		if len(key) >= len(identityHeaderPrefix) && bytes.EqualFold(key[:len(identityHeaderPrefix)], []byte(identityHeaderPrefix)) {
			found = append(found, string(key))
		}
	})
	for _, k := range found {
		h.Del(k)
	}
}

// LocalBusinessID is the fiber local holding the authorised business id (uuid.UUID).
const LocalBusinessID = "business_id"

func unauthenticated() error {
	return apperr.New(apperr.Unauthenticated, "missing bearer token").WithEnum("MissingToken")
}

// RequirePlatform lets only platform tokens through (403 otherwise). It
// must run after Middleware.
func RequirePlatform() fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, ok := IdentityFrom(c)
		if !ok {
			return unauthenticated()
		}
		if !id.IsPlatform() {
			return apperr.New(apperr.Forbidden, "this operation needs a platform token").WithEnum("PlatformTokenRequired")
		}
		return c.Next()
	}
}

// RequireBusiness checks the business named by the path parameter param:
// 400 when it is not a UUID, 404 when the caller may not see it. On success
// the id is in the locals (BusinessIDFrom). It must run after Middleware.
func RequireBusiness(param string, lookup tenancy.OwnerLookup) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, ok := IdentityFrom(c)
		if !ok {
			return unauthenticated()
		}
		bid, err := uuid.Parse(c.Params(param))
		if err != nil {
			return apperr.Field(param, "must be a UUID")
		}
		if err := tenancy.Authorize(c.UserContext(), id, bid, lookup); err != nil {
			return err
		}
		c.Locals(LocalBusinessID, bid)
		return c.Next()
	}
}

// BusinessIDFrom returns the business id RequireBusiness authorised.
func BusinessIDFrom(c *fiber.Ctx) (uuid.UUID, bool) {
	bid, ok := c.Locals(LocalBusinessID).(uuid.UUID)
	return bid, ok
}
