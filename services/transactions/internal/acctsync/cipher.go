package acctsync

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// EncryptionKeySize is the size of the token encryption key (AES-256).
const EncryptionKeySize = 32

// sealVersion prefixes every sealed value, so a later format or key
// rotation can tell old ciphertexts apart.
const sealVersion byte = 1

// ParseEncryptionKey decodes ACCTSYNC_TOKEN_ENCRYPTION_KEY: 32 bytes in
// base64 (standard or URL alphabet, padded or not).
func ParseEncryptionKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		if len(b) != EncryptionKeySize {
			return nil, fmt.Errorf("token encryption key has %d bytes, want %d", len(b), EncryptionKeySize)
		}
		return b, nil
	}
	return nil, errors.New("token encryption key is not base64")
}

// TokenCipher encrypts provider tokens at rest with AES-256-GCM. The
// associated data names the business and the token's role, so a ciphertext
// copied into another row or column does not decrypt.
type TokenCipher struct{ aead cipher.AEAD }

// NewTokenCipher makes a cipher from a 32-byte key.
func NewTokenCipher(key []byte) (*TokenCipher, error) {
	if len(key) != EncryptionKeySize {
		return nil, fmt.Errorf("acctsync: token encryption key has %d bytes, want %d", len(key), EncryptionKeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("acctsync: token cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("acctsync: token cipher: %w", err)
	}
	return &TokenCipher{aead: aead}, nil
}

// Seal encrypts plaintext bound to aad: version byte, random nonce, then
// the ciphertext with its tag.
func (c *TokenCipher) Seal(plaintext, aad string) ([]byte, error) {
	out := make([]byte, 1+c.aead.NonceSize(), 1+c.aead.NonceSize()+len(plaintext)+c.aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("acctsync: nonce: %w", err)
	}
	return c.aead.Seal(out, out[1:], []byte(plaintext), []byte(aad)), nil
}

// Open decrypts what Seal produced with the same aad.
func (c *TokenCipher) Open(sealed []byte, aad string) (string, error) {
	ns := c.aead.NonceSize()
	if len(sealed) < 1+ns+c.aead.Overhead() || sealed[0] != sealVersion {
		return "", errors.New("acctsync: sealed token malformed")
	}
	plain, err := c.aead.Open(nil, sealed[1:1+ns], sealed[1+ns:], []byte(aad))
	if err != nil {
		return "", fmt.Errorf("acctsync: decrypt token: %w", err)
	}
	return string(plain), nil
}
