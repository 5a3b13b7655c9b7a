// Package secretbox encrypts small secrets at rest (provider tokens,
// signing keys) with AES-256-GCM under a key from the environment. A
// sealed value is the random nonce followed by the ciphertext and its tag;
// the associated data binds it to its row and role, so a value copied to
// another row does not open.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the key size (AES-256).
const KeySize = 32

// ParseKey decodes a KeySize-byte key given in base64 (standard or URL
// alphabet, padded or not); what names the variable in errors.
func ParseKey(what, s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != KeySize {
				return nil, fmt.Errorf("%s has %d bytes, want %d", what, len(b), KeySize)
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("%s is not base64", what)
}

// Box seals and opens values under one key.
type Box struct{ aead cipher.AEAD }

// New makes a box from a KeySize-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secretbox: key has %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	return &Box{aead: aead}, nil
}

// ErrMalformed is matched (errors.Is) by Open's error for a value too
// short to have been sealed.
var ErrMalformed = errors.New("secretbox: sealed value malformed")

// Seal encrypts plaintext bound to aad: a fresh random nonce, then the
// ciphertext with its tag.
func (b *Box) Seal(plaintext, aad []byte) ([]byte, error) {
	ns := b.aead.NonceSize()
	out := make([]byte, ns, ns+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(out); err != nil {
		return nil, fmt.Errorf("secretbox: nonce: %w", err)
	}
	return b.aead.Seal(out, out, plaintext, aad), nil
}

// Open decrypts what Seal produced with the same aad; a wrong key, a
// different aad or any changed byte fails.
func (b *Box) Open(sealed, aad []byte) ([]byte, error) {
	ns := b.aead.NonceSize()
	if len(sealed) < ns+b.aead.Overhead() {
		return nil, ErrMalformed
	}
	plain, err := b.aead.Open(nil, sealed[:ns], sealed[ns:], aad)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	return plain, nil
}
