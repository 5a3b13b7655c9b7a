package acctsync

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"testing"
)

func testCipher(t *testing.T) *TokenCipher {
	t.Helper()
	key := make([]byte, EncryptionKeySize)
	_, _ = rand.Read(key)
	c, err := NewTokenCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTokenCipher(t *testing.T) {
	c := testCipher(t)
	const secret = "eyJhbGciOiJkaXIiLCJlbmMiOiJBMTI4Q0JDLUhTMjU2In0.secret-access-token"
	sealed, err := c.Seal(secret, "acctsync/b/1/access")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte(secret)) || bytes.Contains(sealed, []byte("secret-access-token")) {
		t.Fatal("sealed value contains the plaintext")
	}
	got, err := c.Open(sealed, "acctsync/b/1/access")
	if err != nil || got != secret {
		t.Fatalf("Open = %q, %v", got, err)
	}
	again, _ := c.Seal(secret, "acctsync/b/1/access")
	if bytes.Equal(again, sealed) {
		t.Fatal("two seals of one value are equal (nonce reuse)")
	}
	tests := map[string]struct {
		sealed []byte
		aad    string
		cipher *TokenCipher
	}{
		"other role":     {sealed, "acctsync/b/1/refresh", c},
		"other business": {sealed, "acctsync/x/1/access", c},
		"other key":      {sealed, "acctsync/b/1/access", testCipher(t)},
		"tampered":       {append(append([]byte{}, sealed[:len(sealed)-1]...), sealed[len(sealed)-1]^1), "acctsync/b/1/access", c},
		"truncated":      {sealed[:10], "acctsync/b/1/access", c},
		"bad version":    {append([]byte{9}, sealed[1:]...), "acctsync/b/1/access", c},
	}
	for name, tt := range tests {
		if _, err := tt.cipher.Open(tt.sealed, tt.aad); err == nil {
			t.Errorf("%s: Open succeeded", name)
		}
	}
}

func TestParseEncryptionKey(t *testing.T) {
	key := bytes.Repeat([]byte{0xfb}, 32)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		got, err := ParseEncryptionKey(" " + enc.EncodeToString(key) + "\n")
		if err != nil || !bytes.Equal(got, key) {
			t.Errorf("ParseEncryptionKey(%v) = %x, %v", enc, got, err)
		}
	}
	for _, bad := range []string{"", "not base64!", base64.StdEncoding.EncodeToString(key[:16])} {
		if _, err := ParseEncryptionKey(bad); err == nil {
			t.Errorf("ParseEncryptionKey(%q) accepted", bad)
		}
	}
	if _, err := NewTokenCipher(key[:31]); err == nil {
		t.Error("NewTokenCipher accepted a 31-byte key")
	}
}
