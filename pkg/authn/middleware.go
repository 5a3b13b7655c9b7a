package authn

import (
	"bytes"
	"strings"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/gofiber/fiber/v2"
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
// Identity is put in the locals (IdentityFrom).
func Middleware(v TokenVerifier) fiber.Handler {
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
func Authenticate(c *fiber.Ctx, v TokenVerifier) (Identity, error) {
	token, ok := BearerToken(c.Get(fiber.HeaderAuthorization))
	if !ok {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="acct"`)
		return Identity{}, apperr.New(apperr.Unauthenticated, "missing bearer token").WithEnum("MissingToken")
	}
	id, err := v.Verify(c.UserContext(), token)
	if err != nil {
		if apperr.Is(err, apperr.Unauthenticated) {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="acct", error="invalid_token"`)
		}
		return Identity{}, err
	}
	if !HeadersAgree(&c.Request().Header, id) {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="acct", error="invalid_token"`)
		return Identity{}, apperr.New(apperr.Unauthenticated, "identity headers disagree with the token").WithEnum("IdentityMismatch")
	}
	SetIdentity(c, id)
	return id, nil
}

// SetIdentity stores id in the request locals (for callers that authenticate
// by other means, and tests).
func SetIdentity(c *fiber.Ctx, id Identity) {
	c.Locals(identityKey{}, id)
	c.Locals(LocalClientID, id.ClientID)
}

// IdentityFrom returns the identity Middleware stored for this request.
func IdentityFrom(c *fiber.Ctx) (Identity, bool) {
	id, ok := c.Locals(identityKey{}).(Identity)
	return id, ok
}

// BearerToken extracts the token of an `Authorization: Bearer <token>` value
// (scheme case-insensitive, RFC 7235).
func BearerToken(header string) (string, bool) {
	const scheme = "bearer "
	if len(header) <= len(scheme) || !strings.EqualFold(header[:len(scheme)], scheme) {
		return "", false
	}
	token := strings.TrimSpace(header[len(scheme):])
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// HeadersAgree reports whether the internal identity headers present in h
// (absent ones are fine) describe id.
func HeadersAgree(h *fasthttp.RequestHeader, id Identity) bool {
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
func SetIdentityHeaders(h *fasthttp.RequestHeader, id Identity) {
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
