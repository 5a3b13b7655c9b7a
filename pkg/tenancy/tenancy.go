// Package tenancy enforces who may touch which business: a platform token
// reaches only the businesses its client created, a business token only its
// own business. Every other business id answers 404 so existence is never
// revealed; operations a business token may never perform answer 403.
package tenancy

import (
	"context"
	"fmt"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
)

// OwnerLookup tells which platform client owns a business.
type OwnerLookup interface {
	OwnerOf(ctx context.Context, businessID uuid.UUID) (clientID string, found bool, err error)
}

// OwnerLookupFunc adapts a function to OwnerLookup.
type OwnerLookupFunc func(ctx context.Context, businessID uuid.UUID) (string, bool, error)

// OwnerOf implements OwnerLookup.
func (f OwnerLookupFunc) OwnerOf(ctx context.Context, id uuid.UUID) (string, bool, error) {
	return f(ctx, id)
}

// LocalBusinessID is the fiber local holding the authorised business id (uuid.UUID).
const LocalBusinessID = "business_id"

func unauthenticated() error {
	return apperr.New(apperr.Unauthenticated, "missing bearer token").WithEnum("MissingToken")
}

// NotFound is the answer for a business the caller may not see.
func NotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "business not found").WithEnum("BusinessNotFound")
}

// RequirePlatform lets only platform tokens through (403 otherwise). It
// must run after authn.Middleware.
func RequirePlatform() fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, ok := authn.IdentityFrom(c)
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
// the id is in the locals (BusinessIDFrom). It must run after authn.Middleware.
func RequireBusiness(param string, lookup OwnerLookup) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, ok := authn.IdentityFrom(c)
		if !ok {
			return unauthenticated()
		}
		bid, err := uuid.Parse(c.Params(param))
		if err != nil {
			return apperr.Field(param, "must be a UUID")
		}
		if err := Authorize(c.UserContext(), id, bid, lookup); err != nil {
			return err
		}
		c.Locals(LocalBusinessID, bid)
		return c.Next()
	}
}

// Authorize decides whether id may act on business bid: nil, a 404
// *apperr.Error, or an error of the lookup.
func Authorize(ctx context.Context, id authn.Identity, bid uuid.UUID, lookup OwnerLookup) error {
	switch id.Scope {
	case authn.ScopeBusiness:
		if id.BusinessID != bid {
			return NotFound()
		}
		return nil
	case authn.ScopePlatform:
		owner, found, err := lookup.OwnerOf(ctx, bid)
		if err != nil {
			return fmt.Errorf("tenancy: owner of business %s: %w", bid, err)
		}
		if !found || owner != id.ClientID {
			return NotFound()
		}
		return nil
	default:
		return NotFound()
	}
}

// BusinessIDFrom returns the business id RequireBusiness authorised.
func BusinessIDFrom(c *fiber.Ctx) (uuid.UUID, bool) {
	bid, ok := c.Locals(LocalBusinessID).(uuid.UUID)
	return bid, ok
}
