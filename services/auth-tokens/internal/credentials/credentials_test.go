package credentials

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
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
	c, err := NewChecker(fast, CheckerOptions{})
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
		{"known, right again (remembered)", "pw", h, true, true},
		{"known, wrong", "nope", h, true, false},
		{"unknown client", "pw", "", false, false},
		{"unknown client with a hash passed anyway", "pw", h, false, false},
		{"corrupt stored hash", "pw", "garbage", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Check(context.Background(), "client", tt.secret, tt.hash, tt.found)
			if err != nil || got != tt.want {
				t.Fatalf("Check = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestCheckerSlots takes every argon2id slot and shows that checks needing
// one give up with ErrBusy after MaxWait, while a remembered secret passes.
func TestCheckerSlots(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c, err := NewChecker(fast, CheckerOptions{MaxConcurrent: 2, MaxWait: 20 * time.Millisecond, CacheTTL: time.Minute, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Hash("pw", fast)
	ctx := context.Background()
	if ok, err := c.Check(ctx, "a", "pw", h, true); !ok || err != nil {
		t.Fatalf("first check = %v, %v", ok, err)
	}
	// Wrong secrets are never remembered: "nope" keeps needing a slot.
	if ok, err := c.Check(ctx, "a", "nope", h, true); ok || err != nil {
		t.Fatalf("wrong secret = %v, %v", ok, err)
	}

	c.slots <- struct{}{}
	c.slots <- struct{}{}
	rotated, _ := Hash("pw2", fast)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		client   string
		secret   string
		hash     string
		found    bool
		advance  time.Duration
		want     bool
		wantBusy bool
	}{
		{"remembered secret needs no slot", ctx, "a", "pw", h, true, 0, true, false},
		{"wrong secret waits, then busy", ctx, "a", "nope", h, true, 0, false, true},
		{"other client's secret is not shared", ctx, "b", "pw", h, true, 0, false, true},
		{"unknown client spends a slot too", ctx, "ghost", "pw", "", false, 0, false, true},
		{"cancelled request does not wait", cancelled, "a", "nope", h, true, 0, false, true},
		{"secret changed: forgotten", ctx, "a", "pw", rotated, true, 0, false, true},
		{"old hash again: entry is gone", ctx, "a", "pw", h, true, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, err := c.Check(tt.ctx, tt.client, tt.secret, tt.hash, tt.found)
			if got != tt.want || errors.Is(err, ErrBusy) != tt.wantBusy {
				t.Fatalf("Check = %v, %v; want %v, busy %v", got, err, tt.want, tt.wantBusy)
			}
			if waited := time.Since(start); waited > 5*time.Second {
				t.Fatalf("waited %s for a slot", waited)
			}
		})
	}
	<-c.slots
	<-c.slots

	// Expiry: after the TTL the secret needs argon2id again.
	if ok, err := c.Check(ctx, "a", "pw", h, true); !ok || err != nil {
		t.Fatalf("re-verify = %v, %v", ok, err)
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	c.slots <- struct{}{}
	c.slots <- struct{}{}
	if ok, err := c.Check(ctx, "a", "pw", h, true); ok || !errors.Is(err, ErrBusy) {
		t.Fatalf("after TTL = %v, %v; want ErrBusy (needs argon2id again)", ok, err)
	}
}

func TestCheckerCacheBounded(t *testing.T) {
	c, err := NewChecker(fast, CheckerOptions{CacheSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Hash("pw", fast)
	for i := range 10 {
		if ok, err := c.Check(context.Background(), fmt.Sprint("client-", i), "pw", h, true); !ok || err != nil {
			t.Fatalf("check %d = %v, %v", i, ok, err)
		}
	}
	if n := len(c.good); n > 3 {
		t.Fatalf("cache holds %d clients, want at most 3", n)
	}
}
