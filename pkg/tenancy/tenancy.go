// Package tenancy enforces who may touch which business: a platform token
// reaches only the businesses its client created, a business token only its
// own business, and either only while the business exists. Every other business id answers 404 so existence is never
// revealed; operations a business token may never perform answer 403. It
// knows no HTTP framework (use cases call Authorize); package httpauth has
// the Fiber guards.
package tenancy

import (
	"context"
	"fmt"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
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

// NotFound is the answer for a business the caller may not see.
func NotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "business not found").WithEnum("BusinessNotFound")
}

// Authorize decides whether id may act on business bid: nil, a 404
// *apperr.Error, or an error of the lookup.
func Authorize(ctx context.Context, id authn.Identity, bid uuid.UUID, lookup OwnerLookup) error {
	switch id.Scope {
	case authn.ScopeBusiness:
		if id.BusinessID != bid {
			return NotFound()
		}
	case authn.ScopePlatform:
	default:
		return NotFound()
	}
	// A business token names its business, but that business must still
	// exist and belong to the token's client, as for a platform token: a
	// token outlives a business that is gone (or was never created here).
	owner, found, err := lookup.OwnerOf(ctx, bid)
	if err != nil {
		return fmt.Errorf("tenancy: owner of business %s: %w", bid, err)
	}
	if !found || owner != id.ClientID {
		return NotFound()
	}
	return nil
}
