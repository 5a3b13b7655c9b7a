// Package credentials hashes and checks client secrets with argon2id
// (RFC 9106) in the PHC string format, and generates new secrets.
package credentials

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id cost parameters.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
	SaltLen int
	KeyLen  uint32
}

// DefaultParams follow the OWASP recommendation (19 MiB, 2 passes, 1 lane):
// strong enough for high-entropy generated secrets, cheap enough that the
// token endpoint stays responsive on small machines.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// ErrMalformedHash is returned for a stored hash that is not argon2id PHC.
var ErrMalformedHash = errors.New("credentials: malformed hash")

var b64 = base64.RawStdEncoding

// Hash returns the PHC encoding of secret under p with a fresh random salt.
func Hash(secret string, p Params) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("credentials: salt: %w", err)
	}
	key := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether secret matches the PHC hash encoded, comparing in
// constant time. The parameters come from the hash, so old hashes keep
// working when DefaultParams change.
func Verify(secret, encoded string) (bool, error) {
	p, salt, want, err := decode(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

func decode(encoded string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, ErrMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, ErrMalformedHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Memory == 0 || p.Time == 0 || p.Threads == 0 || p.Memory > 1<<21 || p.Time > 100 {
		return p, nil, nil, ErrMalformedHash
	}
	if salt, err = b64.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, ErrMalformedHash
	}
	if key, err = b64.DecodeString(parts[5]); err != nil || len(key) < 16 {
		return p, nil, nil, ErrMalformedHash
	}
	return p, salt, key, nil
}

// NewSecret returns 32 random bytes, base64url without padding.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("credentials: secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Checker verifies client secrets and spends the same work for unknown
// clients, so response time does not reveal whether a client id exists.
type Checker struct {
	dummy string
}

// NewChecker prepares a checker (hashing a random dummy secret once).
func NewChecker(p Params) (*Checker, error) {
	s, err := NewSecret()
	if err != nil {
		return nil, err
	}
	h, err := Hash(s, p)
	if err != nil {
		return nil, err
	}
	return &Checker{dummy: h}, nil
}

// Check reports whether secret matches encoded; found false means the client
// is unknown and a dummy hash is checked instead (always false).
func (c *Checker) Check(secret, encoded string, found bool) bool {
	if !found {
		_, _ = Verify(secret, c.dummy)
		return false
	}
	ok, err := Verify(secret, encoded)
	return err == nil && ok
}
