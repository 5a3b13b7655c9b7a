package secretbox_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/secretbox"
)

func TestParseKey(t *testing.T) {
	key := bytes.Repeat([]byte{0xfb}, secretbox.KeySize)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		got, err := secretbox.ParseKey("K", " "+enc.EncodeToString(key)+"\n")
		if err != nil || !bytes.Equal(got, key) {
			t.Fatalf("ParseKey(%v) = %x, %v", enc, got, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{base64.StdEncoding.EncodeToString(key[:16]), "K has 16 bytes, want 32"},
		{"not base64!", "K is not base64"},
		{"", "K has 0 bytes"},
	} {
		if _, err := secretbox.ParseKey("K", tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseKey(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestSealOpen(t *testing.T) {
	box, err := secretbox.New(bytes.Repeat([]byte{1}, secretbox.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := secretbox.New(bytes.Repeat([]byte{2}, secretbox.KeySize))
	secret, aad := []byte("refresh-token-123"), []byte("business-1:refresh")
	a, err := box.Seal(secret, aad)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := box.Seal(secret, aad)
	if bytes.Equal(a, b) || bytes.Contains(a, secret) {
		t.Fatal("sealing twice gave the same bytes, or the plaintext shows")
	}
	if got, err := box.Open(a, aad); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	tampered := bytes.Clone(a)
	tampered[len(tampered)-1] ^= 1
	for name, open := range map[string]func() ([]byte, error){
		"other aad": func() ([]byte, error) { return box.Open(a, []byte("business-2:refresh")) },
		"other key": func() ([]byte, error) { return other.Open(a, aad) },
		"tampered":  func() ([]byte, error) { return box.Open(tampered, aad) },
	} {
		if got, err := open(); err == nil {
			t.Errorf("%s opened: %q", name, got)
		}
	}
	if _, err := box.Open(a[:10], aad); !errors.Is(err, secretbox.ErrMalformed) {
		t.Errorf("short value: %v, want ErrMalformed", err)
	}
	if _, err := secretbox.New(make([]byte, 16)); err == nil {
		t.Error("a 16-byte key was accepted")
	}
}

// TestFormat pins the stored format (the values already at rest must keep
// opening): a 12-byte nonce, then AES-256-GCM's ciphertext and tag.
func TestFormat(t *testing.T) {
	key := bytes.Repeat([]byte{7}, secretbox.KeySize)
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	nonce := bytes.Repeat([]byte{9}, aead.NonceSize())
	sealed := aead.Seal(append([]byte(nil), nonce...), nonce, []byte("seed"), []byte("kid-1"))
	box, _ := secretbox.New(key)
	if got, err := box.Open(sealed, []byte("kid-1")); err != nil || string(got) != "seed" {
		t.Fatalf("Open of a value in the stored format = %q, %v", got, err)
	}
	mine, _ := box.Seal([]byte("seed"), []byte("kid-1"))
	if got, err := aead.Open(nil, mine[:aead.NonceSize()], mine[aead.NonceSize():], []byte("kid-1")); err != nil || string(got) != "seed" {
		t.Fatalf("Seal's output is not nonce || AES-GCM ciphertext: %q, %v", got, err)
	}
}
