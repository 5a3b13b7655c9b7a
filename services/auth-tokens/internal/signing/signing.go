// Package signing manages the Ed25519 keys that sign access tokens: their
// encryption at rest (AES-256-GCM under a key from the environment or a
// mounted secret) and the rotation plan that decides which key signs, which
// keys stay published in the JWKS, and when a new key is due.
//
// A new key is published before it signs: it is created pending, listed in
// the JWKS at once and used only from its ActivatesAt, PublishLead later.
// Verifiers that cache the JWKS (the gateway refreshes it every few minutes)
// thus know a key before the first token it signs reaches them.
package signing

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/secretbox"
)

// EncryptionKeySize is the AES-256 key size.
const EncryptionKeySize = secretbox.KeySize

// ParseEncryptionKey decodes a base64 (standard or URL, padded or not)
// 32-byte key.
func ParseEncryptionKey(s string) ([]byte, error) {
	return secretbox.ParseKey("signing key encryption key", s)
}

// Cipher encrypts private keys at rest (pkg/secretbox: AES-256-GCM, the
// nonce then the ciphertext).
type Cipher struct{ box *secretbox.Box }

// NewCipher makes an AES-256-GCM cipher.
func NewCipher(key []byte) (*Cipher, error) {
	box, err := secretbox.New(key)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	return &Cipher{box: box}, nil
}

// Seal encrypts a private key; the kid is authenticated data, so a
// ciphertext moved to another key row does not decrypt.
func (c *Cipher) Seal(kid string, priv ed25519.PrivateKey) ([]byte, error) {
	sealed, err := c.box.Seal(priv.Seed(), []byte(kid))
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	return sealed, nil
}

// Open decrypts what Seal produced for kid.
func (c *Cipher) Open(kid string, sealed []byte) (ed25519.PrivateKey, error) {
	seed, err := c.box.Open(sealed, []byte(kid))
	if errors.Is(err, secretbox.ErrMalformed) {
		return nil, errors.New("signing: sealed key too short")
	}
	if err != nil {
		return nil, fmt.Errorf("signing: decrypt key %s: %w", kid, err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signing: key %s: bad seed length", kid)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// StoredKey is a signing key as persisted.
type StoredKey struct {
	KID         string
	PublicKey   ed25519.PublicKey
	PrivateEnc  []byte
	CreatedAt   time.Time
	ActivatesAt time.Time // from then on it signs; until then it is only published
	RetiredAt   *time.Time
}

// NewKey generates a key pair that signs from activatesAt and seals its
// private half.
func NewKey(c *Cipher, kid string, now, activatesAt time.Time) (StoredKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return StoredKey{}, fmt.Errorf("signing: generate: %w", err)
	}
	enc, err := c.Seal(kid, priv)
	if err != nil {
		return StoredKey{}, err
	}
	return StoredKey{KID: kid, PublicKey: pub, PrivateEnc: enc, CreatedAt: now, ActivatesAt: activatesAt}, nil
}

// Policy is how keys rotate.
type Policy struct {
	Rotation    time.Duration // how long a key signs before its successor takes over
	MaxLifetime time.Duration // longest token lifetime: how long a replaced key stays published
	// PublishLead is how long a new key is published before it signs; it
	// must exceed the time every verifier takes to refresh its JWKS.
	PublishLead time.Duration
}

// Plan is what to do with the keys at one moment.
type Plan struct {
	// Current is the key that signs now: the newest active one (nil when
	// there is no live key). Were every live key still pending (a clock set
	// back), the soonest pending key signs rather than none.
	Current *StoredKey
	// Pending are published keys that sign later, soonest first.
	Pending []StoredKey
	// NeedNew says a key must be created: there is none, or Current is due
	// for a successor and none is pending.
	NeedNew bool
	// NewActivatesAt is when a key created now starts signing: at once when
	// there is no key (nobody can hold a token to verify yet), else after
	// the publish lead.
	NewActivatesAt time.Time
	Published      []StoredKey // keys the JWKS lists, latest activation first
	Retire         []string    // live keys that no longer need publishing
}

// MakePlan decides, at now, which key signs and which stay published. A
// replaced key stays published until MaxLifetime after its successor began
// signing, so every token it signed can still be verified.
func MakePlan(keys []StoredKey, now time.Time, pol Policy) Plan {
	live := make([]StoredKey, 0, len(keys))
	for _, k := range keys {
		if k.RetiredAt == nil {
			if k.ActivatesAt.IsZero() {
				k.ActivatesAt = k.CreatedAt
			}
			live = append(live, k)
		}
	}
	slices.SortFunc(live, func(a, b StoredKey) int {
		if c := b.ActivatesAt.Compare(a.ActivatesAt); c != 0 {
			return c
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.KID, a.KID)
	})
	var p Plan
	if len(live) == 0 {
		p.NeedNew, p.NewActivatesAt = true, now
		return p
	}
	// live[:cur] are pending; live[cur] signs; live[cur+1:] were replaced.
	cur := slices.IndexFunc(live, func(k StoredKey) bool { return !k.ActivatesAt.After(now) })
	if cur < 0 {
		cur = len(live) - 1
	}
	current := live[cur]
	p.Current = &current
	for i := cur - 1; i >= 0; i-- {
		p.Pending = append(p.Pending, live[i])
	}
	p.Published = append(p.Published, live[:cur+1]...)
	for i := cur + 1; i < len(live); i++ {
		successorAt := live[i-1].ActivatesAt
		if now.Before(successorAt.Add(pol.MaxLifetime)) {
			p.Published = append(p.Published, live[i])
		} else {
			p.Retire = append(p.Retire, live[i].KID)
		}
	}
	p.NeedNew = len(p.Pending) == 0 && !now.Before(current.ActivatesAt.Add(pol.Rotation-pol.PublishLead))
	p.NewActivatesAt = now.Add(pol.PublishLead)
	return p
}
