package acctsync

import (
	"errors"
	"fmt"

	"github.com/acctsuite/acct/pkg/secretbox"
)

// EncryptionKeySize is the size of the token encryption key (AES-256).
const EncryptionKeySize = secretbox.KeySize

// sealVersion prefixes every sealed value, so a later format or key
// rotation can tell old ciphertexts apart.
const sealVersion byte = 1

// ParseEncryptionKey decodes ACCTSYNC_TOKEN_ENCRYPTION_KEY: 32 bytes in
// base64 (standard or URL alphabet, padded or not).
func ParseEncryptionKey(s string) ([]byte, error) {
	return secretbox.ParseKey("token encryption key", s)
}

// TokenCipher encrypts provider tokens at rest with AES-256-GCM
// (pkg/secretbox). The associated data names the business and the token's
// role, so a ciphertext copied into another row or column does not
// decrypt.
type TokenCipher struct{ box *secretbox.Box }

// NewTokenCipher makes a cipher from a 32-byte key.
func NewTokenCipher(key []byte) (*TokenCipher, error) {
	box, err := secretbox.New(key)
	if err != nil {
		return nil, fmt.Errorf("acctsync: token cipher: %w", err)
	}
	return &TokenCipher{box: box}, nil
}

// Seal encrypts plaintext bound to aad: the version byte, then the sealed
// value (random nonce, ciphertext and tag).
func (c *TokenCipher) Seal(plaintext, aad string) ([]byte, error) {
	sealed, err := c.box.Seal([]byte(plaintext), []byte(aad))
	if err != nil {
		return nil, fmt.Errorf("acctsync: %w", err)
	}
	return append([]byte{sealVersion}, sealed...), nil
}

// Open decrypts what Seal produced with the same aad.
func (c *TokenCipher) Open(sealed []byte, aad string) (string, error) {
	if len(sealed) == 0 || sealed[0] != sealVersion {
		return "", errors.New("acctsync: sealed token malformed")
	}
	plain, err := c.box.Open(sealed[1:], []byte(aad))
	if errors.Is(err, secretbox.ErrMalformed) {
		return "", errors.New("acctsync: sealed token malformed")
	}
	if err != nil {
		return "", fmt.Errorf("acctsync: decrypt token: %w", err)
	}
	return string(plain), nil
}
