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
	k, err := NewKey(c, "kid-1", now, now)
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
	pending := func(kid string, created, activates time.Time) StoredKey {
		return StoredKey{KID: kid, CreatedAt: created, ActivatesAt: activates}
	}
	retired := key("r", t0.Add(-100*24*time.Hour))
	retiredAt := t0
	retired.RetiredAt = &retiredAt
	rotation, life, lead := 720*time.Hour, 24*time.Hour, 10*time.Minute
	instant := Policy{Rotation: rotation, MaxLifetime: life}
	led := Policy{Rotation: rotation, MaxLifetime: life, PublishLead: lead}
	due := t0.Add(rotation - lead) // when a successor of a key active at t0 is created
	a := pending("a", t0, t0)
	b := pending("b", due, t0.Add(rotation))

	tests := []struct {
		name          string
		keys          []StoredKey
		now           time.Time
		pol           Policy
		wantCurrent   string
		wantNeedNew   bool
		wantPublished []string
		wantPending   []string
		wantRetire    []string
		wantNewAt     time.Time // checked when not zero
	}{
		{"no keys", nil, t0, instant, "", true, nil, nil, nil, t0},
		{"no keys: the first key signs at once, lead or not", nil, t0, led, "", true, nil, nil, nil, t0},
		{"only retired keys", []StoredKey{retired}, t0, instant, "", true, nil, nil, nil, time.Time{}},
		{"one fresh key", []StoredKey{key("a", t0)}, t0.Add(time.Hour), instant, "a", false, []string{"a"}, nil, nil, time.Time{}},
		{"one key past rotation", []StoredKey{key("a", t0)}, t0.Add(rotation), instant, "a", true, []string{"a"}, nil, nil, time.Time{}},
		{"successor just made: both published", []StoredKey{key("a", t0), key("b", t0.Add(rotation))}, t0.Add(rotation + time.Minute), instant, "b", false, []string{"b", "a"}, nil, nil, time.Time{}},
		{"old key kept until max lifetime after successor", []StoredKey{key("b", t0.Add(rotation)), key("a", t0)}, t0.Add(rotation + life - time.Second), instant, "b", false, []string{"b", "a"}, nil, nil, time.Time{}},
		{"old key retired after max lifetime", []StoredKey{key("a", t0), key("b", t0.Add(rotation))}, t0.Add(rotation + life), instant, "b", false, []string{"b"}, nil, []string{"a"}, time.Time{}},
		{"three generations", []StoredKey{key("a", t0), key("b", t0.Add(10*time.Hour)), key("c", t0.Add(30*time.Hour))}, t0.Add(35 * time.Hour), instant, "c", false, []string{"c", "b"}, nil, []string{"a"}, time.Time{}},
		{"retired keys ignored", []StoredKey{retired, key("a", t0)}, t0.Add(time.Hour), instant, "a", false, []string{"a"}, nil, nil, time.Time{}},
		{"same created_at: kid breaks tie", []StoredKey{key("a", t0), key("b", t0)}, t0, instant, "b", false, []string{"b", "a"}, nil, nil, time.Time{}},

		{"lead: not due yet", []StoredKey{a}, due.Add(-time.Second), led, "a", false, []string{"a"}, nil, nil, time.Time{}},
		{"lead: successor due a lead before rotation, to sign at rotation", []StoredKey{a}, due, led, "a", true, []string{"a"}, nil, nil, t0.Add(rotation)},
		{"lead: pending key published, not signing", []StoredKey{a, b}, due.Add(time.Minute), led, "a", false, []string{"b", "a"}, []string{"b"}, nil, time.Time{}},
		{"lead: pending key signs from its activation", []StoredKey{b, a}, t0.Add(rotation), led, "b", false, []string{"b", "a"}, nil, nil, time.Time{}},
		{"lead: replaced key kept until max lifetime after activation", []StoredKey{a, b}, t0.Add(rotation + life - time.Second), led, "b", false, []string{"b", "a"}, nil, nil, time.Time{}},
		{"lead: replaced key retired max lifetime after activation", []StoredKey{a, b}, t0.Add(rotation + life), led, "b", false, []string{"b"}, nil, []string{"a"}, time.Time{}},
		{"lead: only pending keys (clock set back): the soonest signs", []StoredKey{pending("c", t0, t0.Add(2*time.Hour)), pending("b", t0, t0.Add(time.Hour))}, t0, led, "b", false, []string{"c", "b"}, []string{"c"}, nil, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := MakePlan(tt.keys, tt.now, tt.pol)
			cur := ""
			if p.Current != nil {
				cur = p.Current.KID
			}
			if cur != tt.wantCurrent || p.NeedNew != tt.wantNeedNew {
				t.Fatalf("current %q needNew %v; want %q %v", cur, p.NeedNew, tt.wantCurrent, tt.wantNeedNew)
			}
			if pub, pend := kids(p.Published), kids(p.Pending); !equal(pub, tt.wantPublished) || !equal(pend, tt.wantPending) || !equal(p.Retire, tt.wantRetire) {
				t.Fatalf("published %v pending %v retire %v; want %v %v %v", pub, pend, p.Retire, tt.wantPublished, tt.wantPending, tt.wantRetire)
			}
			if !tt.wantNewAt.IsZero() && !p.NewActivatesAt.Equal(tt.wantNewAt) {
				t.Fatalf("new key activates at %s, want %s", p.NewActivatesAt, tt.wantNewAt)
			}
		})
	}
}

func kids(keys []StoredKey) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.KID)
	}
	return out
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
