package credentials

import (
	"encoding/base64"
	"strings"
	"testing"
)

// fast keeps the tests quick; the format and logic are the same.
var fast = Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashVerify(t *testing.T) {
	h, err := Hash("s3cret", fast)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash = %s", h)
	}
	h2, _ := Hash("s3cret", fast)
	if h == h2 {
		t.Fatal("two hashes of one secret are equal: salt not random")
	}
	tests := []struct {
		name    string
		secret  string
		hash    string
		want    bool
		wantErr bool
	}{
		{"right secret", "s3cret", h, true, false},
		{"right secret, other salt", "s3cret", h2, true, false},
		{"wrong secret", "s3cret!", h, false, false},
		{"empty secret", "", h, false, false},
		{"bcrypt hash", "s3cret", "$2a$10$abcdefghijklmnopqrstuv", false, true},
		{"not PHC", "s3cret", "plain", false, true},
		{"wrong version", "s3cret", strings.Replace(h, "v=19", "v=16", 1), false, true},
		{"bad params", "s3cret", strings.Replace(h, "m=64,t=1,p=1", "m=x", 1), false, true},
		{"absurd memory", "s3cret", strings.Replace(h, "m=64", "m=99999999", 1), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Verify(tt.secret, tt.hash)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("Verify = %v, %v; want %v, err %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestDefaultParamsRoundTrip(t *testing.T) {
	h, err := Hash("x", DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := Verify("x", h); !ok || err != nil {
		t.Fatalf("Verify = %v, %v", ok, err)
	}
}

func TestNewSecret(t *testing.T) {
	a, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSecret()
	raw, err := base64.RawURLEncoding.DecodeString(a)
	if err != nil || len(raw) != 32 || a == b {
		t.Fatalf("secret %q: %v (len %d)", a, err, len(raw))
	}
}

func TestChecker(t *testing.T) {
	c, err := NewChecker(fast)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Hash("pw", fast)
	tests := []struct {
		name   string
		secret string
		hash   string
		found  bool
		want   bool
	}{
		{"known, right", "pw", h, true, true},
		{"known, wrong", "nope", h, true, false},
		{"unknown client", "pw", "", false, false},
		{"unknown client with a hash passed anyway", "pw", h, false, false},
		{"corrupt stored hash", "pw", "garbage", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Check(tt.secret, tt.hash, tt.found); got != tt.want {
				t.Fatalf("Check = %v, want %v", got, tt.want)
			}
		})
	}
}
