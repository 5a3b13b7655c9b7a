package signing

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"testing"
	"time"
)

func testCipher(t *testing.T) *Cipher {
	t.Helper()
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	c, err := NewCipher(k)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSealOpenRoundTrip(t *testing.T) {
	c := testCipher(t)
	now := time.Now()
	k, err := NewKey(c, "kid-1", now)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := c.Open("kid-1", k.PrivateEnc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(priv.Public().(ed25519.PublicKey), k.PublicKey) {
		t.Fatal("decrypted key does not match the public key")
	}
	if bytes.Contains(k.PrivateEnc, priv.Seed()) {
		t.Fatal("seed stored in clear")
	}

	tampered := bytes.Clone(k.PrivateEnc)
	tampered[len(tampered)-1] ^= 1
	tests := []struct {
		name   string
		cipher *Cipher
		kid    string
		sealed []byte
	}{
		{"other kid (row swap)", c, "kid-2", k.PrivateEnc},
		{"tampered", c, "kid-1", tampered},
		{"truncated", c, "kid-1", k.PrivateEnc[:5]},
		{"other encryption key", testCipher(t), "kid-1", k.PrivateEnc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.cipher.Open(tt.kid, tt.sealed); err == nil {
				t.Fatal("Open succeeded")
			}
		})
	}
}

func TestParseEncryptionKey(t *testing.T) {
	raw := bytes.Repeat([]byte{0xfb}, 32)
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"std", base64.StdEncoding.EncodeToString(raw), true},
		{"url raw", base64.RawURLEncoding.EncodeToString(raw), true},
		{"with newline (file)", base64.StdEncoding.EncodeToString(raw) + "\n", true},
		{"short", base64.StdEncoding.EncodeToString(raw[:16]), false},
		{"not base64", "!!!", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseEncryptionKey(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v", err)
			}
			if tt.ok && !bytes.Equal(k, raw) {
				t.Fatal("wrong key")
			}
		})
	}
	if _, err := NewCipher(raw[:31]); err == nil {
		t.Fatal("NewCipher accepted 31 bytes")
	}
}

func TestMakePlan(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	key := func(kid string, created time.Time) StoredKey { return StoredKey{KID: kid, CreatedAt: created} }
	retired := key("r", t0.Add(-100*24*time.Hour))
	retiredAt := t0
	retired.RetiredAt = &retiredAt
	rotation, life := 720*time.Hour, 24*time.Hour

	tests := []struct {
		name          string
		keys          []StoredKey
		now           time.Time
		wantCurrent   string
		wantNeedNew   bool
		wantPublished []string
		wantRetire    []string
	}{
		{"no keys", nil, t0, "", true, nil, nil},
		{"only retired keys", []StoredKey{retired}, t0, "", true, nil, nil},
		{"one fresh key", []StoredKey{key("a", t0)}, t0.Add(time.Hour), "a", false, []string{"a"}, nil},
		{"one key past rotation", []StoredKey{key("a", t0)}, t0.Add(rotation), "a", true, []string{"a"}, nil},
		{"successor just made: both published", []StoredKey{key("a", t0), key("b", t0.Add(rotation))}, t0.Add(rotation + time.Minute), "b", false, []string{"b", "a"}, nil},
		{"old key kept until max lifetime after successor", []StoredKey{key("b", t0.Add(rotation)), key("a", t0)}, t0.Add(rotation + life - time.Second), "b", false, []string{"b", "a"}, nil},
		{"old key retired after max lifetime", []StoredKey{key("a", t0), key("b", t0.Add(rotation))}, t0.Add(rotation + life), "b", false, []string{"b"}, []string{"a"}},
		{"three generations", []StoredKey{key("a", t0), key("b", t0.Add(10*time.Hour)), key("c", t0.Add(30*time.Hour))}, t0.Add(35 * time.Hour), "c", false, []string{"c", "b"}, []string{"a"}},
		{"retired keys ignored", []StoredKey{retired, key("a", t0)}, t0.Add(time.Hour), "a", false, []string{"a"}, nil},
		{"same created_at: kid breaks tie", []StoredKey{key("a", t0), key("b", t0)}, t0, "b", false, []string{"b", "a"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := MakePlan(tt.keys, tt.now, rotation, life)
			cur := ""
			if p.Current != nil {
				cur = p.Current.KID
			}
			if cur != tt.wantCurrent || p.NeedNew != tt.wantNeedNew {
				t.Fatalf("current %q needNew %v; want %q %v", cur, p.NeedNew, tt.wantCurrent, tt.wantNeedNew)
			}
			var pub []string
			for _, k := range p.Published {
				pub = append(pub, k.KID)
			}
			if !equal(pub, tt.wantPublished) || !equal(p.Retire, tt.wantRetire) {
				t.Fatalf("published %v retire %v; want %v %v", pub, p.Retire, tt.wantPublished, tt.wantRetire)
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
