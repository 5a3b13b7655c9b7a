// Package authn is the suite's bearer-token authentication: the JWT claims
// every token carries, a Signer (used by auth-tokens) and a Verifier that
// checks EdDSA tokens against a JWKS fetched over HTTP and cached. It knows
// no HTTP framework (use cases import it); package httpauth holds the Fiber
// middleware and the internal identity headers.
package authn

import (
	"context"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Scope says what a token may act on.
type Scope string

const (
	// ScopePlatform tokens act for a platform client on the businesses it created.
	ScopePlatform Scope = "platform"
	// ScopeBusiness tokens act on exactly one business (claim bid).
	ScopeBusiness Scope = "business"
)

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return s == ScopePlatform || s == ScopeBusiness }

// Audience is the `aud` claim of every access token of the suite.
const Audience = "acct-api"

// DefaultIssuer is the `iss` auth-tokens uses unless TOKEN_ISSUER says otherwise.
const DefaultIssuer = "acct-auth-tokens"

// Algorithm is the only JWS algorithm the suite signs and accepts.
const Algorithm = "EdDSA"

// Identity is who a verified token speaks for.
type Identity struct {
	ClientID   string
	ClientName string
	Scope      Scope
	BusinessID uuid.UUID // uuid.Nil for platform tokens
	TokenID    string    // jti
	ExpiresAt  time.Time
}

// IsPlatform reports whether the identity is a platform client's token.
func (id Identity) IsPlatform() bool { return id.Scope == ScopePlatform }

// IsBusiness reports whether the identity is a business-scoped token.
func (id Identity) IsBusiness() bool { return id.Scope == ScopeBusiness }

// TokenVerifier turns a bearer token into an Identity. Errors are
// *apperr.Error (Unauthenticated for any token problem).
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (Identity, error)
}

// Claims is the JWT payload of an access token.
type Claims struct {
	jwt.RegisteredClaims
	Scope      Scope  `json:"scope"`
	BusinessID string `json:"bid,omitempty"`
	ClientName string `json:"cname,omitempty"`
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
