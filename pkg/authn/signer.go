package authn

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Signer issues access tokens with one Ed25519 key.
type Signer struct {
	issuer string
	kid    string
	key    ed25519.PrivateKey
	now    func() time.Time
}

// NewSigner makes a signer for tokens of issuer, signed by key and labelled kid.
func NewSigner(issuer, kid string, key ed25519.PrivateKey) (*Signer, error) {
	if issuer == "" || kid == "" {
		return nil, errors.New("authn: signer needs an issuer and a kid")
	}
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("authn: ed25519 private key has %d bytes, want %d", len(key), ed25519.PrivateKeySize)
	}
	return &Signer{issuer: issuer, kid: kid, key: key, now: time.Now}, nil
}

// WithClock returns a copy of the signer that reads time from now (tests).
func (s *Signer) WithClock(now func() time.Time) *Signer {
	c := *s
	c.now = now
	return &c
}

// KeyID is the `kid` the signer puts in the header.
func (s *Signer) KeyID() string { return s.kid }

// PublicKey is the verifying half of the signer's key.
func (s *Signer) PublicKey() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// Issue signs a token for id valid for ttl. The returned Identity carries the
// generated token id (jti) and expiry.
func (s *Signer) Issue(id Identity, ttl time.Duration) (string, Identity, error) {
	if id.ClientID == "" {
		return "", Identity{}, errors.New("authn: token needs a client id")
	}
	if !id.Scope.Valid() {
		return "", Identity{}, fmt.Errorf("authn: invalid scope %q", id.Scope)
	}
	if id.Scope == ScopeBusiness && id.BusinessID == uuid.Nil {
		return "", Identity{}, errors.New("authn: business token needs a business id")
	}
	if ttl <= 0 {
		return "", Identity{}, errors.New("authn: token lifetime must be positive")
	}
	jti, err := uuid.NewV7()
	if err != nil {
		return "", Identity{}, fmt.Errorf("authn: token id: %w", err)
	}
	// Whole seconds: NumericDate is serialised in seconds, so the Identity
	// returned here matches what a verifier will read back.
	now := s.now().UTC().Truncate(time.Second)
	exp := now.Add(ttl)
	claims := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.issuer,
			Subject:   id.ClientID,
			Audience:  jwt.ClaimStrings{Audience},
			ExpiresAt: jwt.NewNumericDate(exp),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        jti.String(),
		},
		Scope:      id.Scope,
		ClientName: id.ClientName,
	}
	if id.Scope == ScopeBusiness {
		claims.BusinessID = id.BusinessID.String()
	} else {
		id.BusinessID = uuid.Nil
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["kid"] = s.kid
	signed, err := tok.SignedString(s.key)
	if err != nil {
		return "", Identity{}, fmt.Errorf("authn: sign token: %w", err)
	}
	id.TokenID = jti.String()
	id.ExpiresAt = exp
	return signed, id, nil
}
