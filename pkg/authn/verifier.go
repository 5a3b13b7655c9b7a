package authn

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
)

// MaxLeeway bounds the clock skew tolerated on exp/nbf/iat.
const MaxLeeway = 30 * time.Second

// ErrUnknownKey is returned by a KeySource that does not know a kid.
var ErrUnknownKey = errors.New("authn: unknown signing key")

// ErrKeysUnavailable is returned by a KeySource that cannot obtain any key
// (e.g. the JWKS endpoint was never reachable). It is a 503, not a 401: the
// token may well be valid.
var ErrKeysUnavailable = errors.New("authn: signing keys unavailable")

// KeySource finds the Ed25519 public key for a `kid`.
type KeySource interface {
	PublicKey(ctx context.Context, kid string) (ed25519.PublicKey, error)
}

// StaticKeys is a fixed KeySource.
type StaticKeys map[string]ed25519.PublicKey

// PublicKey implements KeySource.
func (s StaticKeys) PublicKey(_ context.Context, kid string) (ed25519.PublicKey, error) {
	if k, ok := s[kid]; ok {
		return k, nil
	}
	return nil, ErrUnknownKey
}

// VerifierOptions tunes a Verifier. Zero values take the defaults.
type VerifierOptions struct {
	Issuer   string        // expected iss; default DefaultIssuer
	Audience string        // expected aud; default Audience
	Leeway   time.Duration // clock skew on exp/nbf/iat; default 5s, capped at MaxLeeway, negative means none
	// CacheSize bounds the cache of verified tokens (each kept until its
	// exp) that lets the hot path skip the signature check; default 65536,
	// negative disables it.
	CacheSize int
	Now       func() time.Time // clock; default time.Now

	// JWKS only.
	HTTPClient         Doer          // default: an http.Client with a 5s timeout
	RefreshInterval    time.Duration // background refresh of a known key set; default 5m
	MinRefetchInterval time.Duration // at most one fetch per interval for unknown kids; default 5s
}

func (o VerifierOptions) withDefaults() VerifierOptions {
	if o.Issuer == "" {
		o.Issuer = DefaultIssuer
	}
	if o.Audience == "" {
		o.Audience = Audience
	}
	switch {
	case o.Leeway == 0:
		o.Leeway = 5 * time.Second
	case o.Leeway < 0:
		o.Leeway = 0
	case o.Leeway > MaxLeeway:
		o.Leeway = MaxLeeway
	}
	if o.CacheSize == 0 {
		o.CacheSize = 1 << 16
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RefreshInterval <= 0 {
		o.RefreshInterval = 5 * time.Minute
	}
	if o.MinRefetchInterval <= 0 {
		o.MinRefetchInterval = 5 * time.Second
	}
	return o
}

// Verifier checks access tokens against a KeySource.
type Verifier struct {
	keys   KeySource
	parser *jwt.Parser
	cache  *lru.Cache[string, Identity]
	now    func() time.Time
}

// NewVerifier makes a verifier whose keys come from keys.
func NewVerifier(keys KeySource, opts VerifierOptions) *Verifier {
	opts = opts.withDefaults()
	v := &Verifier{
		keys: keys,
		now:  opts.Now,
		parser: jwt.NewParser(
			// Only EdDSA: this is what defeats alg=none and HS256-with-the-public-key.
			jwt.WithValidMethods([]string{Algorithm}),
			jwt.WithIssuer(opts.Issuer),
			jwt.WithAudience(opts.Audience),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(opts.Leeway),
			jwt.WithTimeFunc(opts.Now),
		),
	}
	if opts.CacheSize > 0 {
		c, err := lru.New[string, Identity](opts.CacheSize)
		if err == nil { // only fails for size <= 0
			v.cache = c
		}
	}
	return v
}

const (
	errInvalidToken = "invalid token"
	errExpiredToken = "token expired"
)

func invalidToken(cause error) error {
	return apperr.Wrap(apperr.Unauthenticated, cause, errInvalidToken).WithEnum("InvalidToken")
}

// Verify checks token and returns the identity it carries. Errors are
// *apperr.Error: Unauthenticated for any token problem (description only
// "invalid token" or "token expired"), Unavailable when no key could be had.
func (v *Verifier) Verify(ctx context.Context, token string) (Identity, error) {
	if token == "" {
		return Identity{}, invalidToken(errors.New("empty token"))
	}
	if v.cache != nil {
		if id, ok := v.cache.Get(token); ok {
			if v.now().Before(id.ExpiresAt) {
				return id, nil
			}
			v.cache.Remove(token)
		}
	}
	var claims Claims
	_, err := v.parser.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("token has no kid")
		}
		return v.keys.PublicKey(ctx, kid)
	})
	if err != nil {
		switch {
		case errors.Is(err, ErrKeysUnavailable):
			return Identity{}, apperr.Wrap(apperr.Unavailable, err, "token verification keys unavailable")
		case errors.Is(err, jwt.ErrTokenExpired):
			return Identity{}, apperr.Wrap(apperr.Unauthenticated, err, errExpiredToken).WithEnum("TokenExpired")
		default:
			return Identity{}, invalidToken(err)
		}
	}
	id, err := identityFromClaims(&claims)
	if err != nil {
		return Identity{}, invalidToken(err)
	}
	if v.cache != nil && v.now().Before(id.ExpiresAt) {
		// The token string may alias a request buffer (fasthttp): copy it
		// before it outlives the request as a cache key.
		v.cache.Add(strings.Clone(token), id)
	}
	return id, nil
}

func identityFromClaims(c *Claims) (Identity, error) {
	if c.Subject == "" {
		return Identity{}, errors.New("token has no sub")
	}
	if c.ID == "" {
		return Identity{}, errors.New("token has no jti")
	}
	id := Identity{
		ClientID:   c.Subject,
		ClientName: c.ClientName,
		Scope:      c.Scope,
		TokenID:    c.ID,
		ExpiresAt:  c.ExpiresAt.UTC(),
	}
	switch c.Scope {
	case ScopePlatform:
		if c.BusinessID != "" {
			return Identity{}, errors.New("platform token carries bid")
		}
	case ScopeBusiness:
		bid, err := uuid.Parse(c.BusinessID)
		if err != nil || bid == uuid.Nil {
			return Identity{}, fmt.Errorf("business token with invalid bid %q", c.BusinessID)
		}
		id.BusinessID = bid
	default:
		return Identity{}, fmt.Errorf("unknown scope %q", c.Scope)
	}
	return id, nil
}
