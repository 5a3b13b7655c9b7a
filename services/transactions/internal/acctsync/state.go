package acctsync

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// stateSecretSize is the number of random bytes in a CSRF state.
const stateSecretSize = 32

// stateTokenLen is the length of a state token: base64url (no padding) of
// the 16-byte business id followed by the secret.
var stateTokenLen = base64.RawURLEncoding.EncodedLen(16 + stateSecretSize)

// errBadState is every reason a callback's state is refused; the caller
// learns no more than "invalid state".
var errBadState = errors.New("acctsync: invalid state")

// State is a pending authorization: the server-kept half of the CSRF
// state. Only the hash of the secret is stored, so a database reader cannot
// complete someone else's authorization.
type State struct {
	Hash       []byte
	BusinessID uuid.UUID
	ClientID   string // the platform client that started the authorization
	CreatedAt  time.Time
	ExpiresAt  time.Time
}

// newStateToken makes the state handed to the provider (and echoed back to
// the callback) for businessID, and the hash the server keeps. The token
// carries the business id in clear so that a state replayed under another
// business's name is caught by comparing it with the stored one.
func newStateToken(businessID uuid.UUID) (token string, hash []byte, err error) {
	raw := make([]byte, 16+stateSecretSize)
	copy(raw, businessID[:])
	if _, err := rand.Read(raw[16:]); err != nil {
		return "", nil, fmt.Errorf("acctsync: state secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(raw), hashStateSecret(raw[16:]), nil
}

// parseStateToken splits a state token into the business id it names and
// the hash of its secret.
func parseStateToken(token string) (uuid.UUID, []byte, error) {
	if len(token) != stateTokenLen {
		return uuid.Nil, nil, errBadState
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != 16+stateSecretSize {
		return uuid.Nil, nil, errBadState
	}
	var bid uuid.UUID
	copy(bid[:], raw[:16])
	return bid, hashStateSecret(raw[16:]), nil
}

// hashStateSecret is SHA-256 of the secret under a purpose label. The
// secret has 256 bits of entropy, so a fast hash is enough.
func hashStateSecret(secret []byte) []byte {
	h := sha256.New()
	h.Write([]byte("acct/acctsync/oauth-state\x00"))
	h.Write(secret)
	return h.Sum(nil)
}

// checkState decides whether a consumed state completes the authorization
// the token names at now. The comparisons run in constant time.
func checkState(s State, tokenBusiness uuid.UUID, tokenHash []byte, now time.Time) error {
	hashOK := subtle.ConstantTimeCompare(s.Hash, tokenHash)
	businessOK := subtle.ConstantTimeCompare(s.BusinessID[:], tokenBusiness[:])
	if hashOK&businessOK != 1 {
		return errBadState
	}
	if !now.Before(s.ExpiresAt) {
		return errBadState
	}
	return nil
}
