// Package signing manages the Ed25519 keys that sign access tokens: their
// encryption at rest (AES-256-GCM under a key from the environment or a
// mounted secret) and the rotation plan that decides which key signs, which
// keys stay published in the JWKS, and when a new key is due.
package signing

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// EncryptionKeySize is the AES-256 key size.
const EncryptionKeySize = 32

// ParseEncryptionKey decodes a base64 (standard or URL, padded or not)
// 32-byte key.
func ParseEncryptionKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != EncryptionKeySize {
				return nil, fmt.Errorf("signing key encryption key has %d bytes, want %d", len(b), EncryptionKeySize)
			}
			return b, nil
		}
	}
	return nil, errors.New("signing key encryption key is not base64")
}

// Cipher encrypts private keys at rest.
type Cipher struct{ aead cipher.AEAD }

// NewCipher makes an AES-256-GCM cipher.
func NewCipher(key []byte) (*Cipher, error) {
	if len(key) != EncryptionKeySize {
		return nil, fmt.Errorf("signing: encryption key has %d bytes, want %d", len(key), EncryptionKeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	return &Cipher{aead: aead}, nil
}

// Seal encrypts a private key; the kid is authenticated data, so a
// ciphertext moved to another key row does not decrypt.
func (c *Cipher) Seal(kid string, priv ed25519.PrivateKey) ([]byte, error) {
	nonce := make([]byte, c.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("signing: nonce: %w", err)
	}
	return c.aead.Seal(nonce, nonce, priv.Seed(), []byte(kid)), nil
}

// Open decrypts what Seal produced for kid.
func (c *Cipher) Open(kid string, sealed []byte) (ed25519.PrivateKey, error) {
	ns := c.aead.NonceSize()
	if len(sealed) < ns+c.aead.Overhead() {
		return nil, errors.New("signing: sealed key too short")
	}
	seed, err := c.aead.Open(nil, sealed[:ns], sealed[ns:], []byte(kid))
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
	KID        string
	PublicKey  ed25519.PublicKey
	PrivateEnc []byte
	CreatedAt  time.Time
	RetiredAt  *time.Time
}

// NewKey generates a key pair and seals its private half.
func NewKey(c *Cipher, kid string, now time.Time) (StoredKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return StoredKey{}, fmt.Errorf("signing: generate: %w", err)
	}
	enc, err := c.Seal(kid, priv)
	if err != nil {
		return StoredKey{}, err
	}
	return StoredKey{KID: kid, PublicKey: pub, PrivateEnc: enc, CreatedAt: now}, nil
}

// Plan is what to do with the keys at one moment.
type Plan struct {
	Current   *StoredKey  // newest live key: the one that signs (nil when none)
	NeedNew   bool        // no key, or Current is older than the rotation age
	Published []StoredKey // keys the JWKS lists, newest first
	Retire    []string    // live keys that no longer need publishing
}

// MakePlan decides, at now, which key signs and which stay published. A key
// stays published until maxLifetime (the longest token lifetime) after its
// successor appeared, so every token it signed can still be verified.
func MakePlan(keys []StoredKey, now time.Time, rotation, maxLifetime time.Duration) Plan {
	live := make([]StoredKey, 0, len(keys))
	for _, k := range keys {
		if k.RetiredAt == nil {
			live = append(live, k)
		}
	}
	slices.SortFunc(live, func(a, b StoredKey) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.KID, a.KID)
	})
	var p Plan
	if len(live) == 0 {
		p.NeedNew = true
		return p
	}
	cur := live[0]
	p.Current = &cur
	p.NeedNew = now.Sub(cur.CreatedAt) >= rotation
	p.Published = append(p.Published, cur)
	for i := 1; i < len(live); i++ {
		successorAt := live[i-1].CreatedAt
		if now.Before(successorAt.Add(maxLifetime)) {
			p.Published = append(p.Published, live[i])
		} else {
			p.Retire = append(p.Retire, live[i].KID)
		}
	}
	return p
}
