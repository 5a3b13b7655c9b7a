package ratelimit

import (
	"fmt"
	"testing"
	"time"
)

func TestAllow(t *testing.T) {
	tests := []struct {
		name      string
		rps       float64
		burst     int
		calls     int
		wantAllow int
		maxWait   time.Duration
	}{
		{"within burst", 1, 5, 5, 5, 0},
		{"beyond burst", 1, 3, 5, 3, time.Second},
		{"fast refill", 100, 2, 4, 2, 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(tt.rps, tt.burst, 10)
			allowed := 0
			var lastWait time.Duration
			for range tt.calls {
				ok, wait := l.Allow("client")
				if ok {
					allowed++
				} else {
					lastWait = wait
				}
			}
			if allowed != tt.wantAllow {
				t.Fatalf("allowed %d of %d, want %d", allowed, tt.calls, tt.wantAllow)
			}
			if allowed < tt.calls && (lastWait <= 0 || lastWait > tt.maxWait) {
				t.Fatalf("wait = %v, want in (0, %v]", lastWait, tt.maxWait)
			}
		})
	}
}

func TestKeysAreIndependentAndBounded(t *testing.T) {
	l := New(1, 1, 3)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("a first call denied")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("a second call allowed")
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("b denied because of a")
	}
	for i := range 10 {
		l.Allow(fmt.Sprint("k", i))
	}
	if l.Len() != 3 {
		t.Fatalf("Len = %d, want bounded at 3", l.Len())
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want int
	}{{0, 1}, {10 * time.Millisecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {3 * time.Second, 3}}
	for _, tt := range tests {
		if got := RetryAfterSeconds(tt.in); got != tt.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
