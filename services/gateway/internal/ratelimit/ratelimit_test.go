package ratelimit

import (
	"fmt"
	"sync"
	"sync/atomic"
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

func TestLargeTableIsShardedAndBounded(t *testing.T) {
	const maxKeys = 5000
	l := New(1, 1, maxKeys)
	if len(l.shards) < 2 {
		t.Fatalf("%d shards for %d keys, want several", len(l.shards), maxKeys)
	}
	for i := range 3 * maxKeys {
		l.Allow(fmt.Sprint("k", i))
	}
	if n := l.Len(); n > maxKeys || n < maxKeys/2 {
		t.Fatalf("Len = %d, want at most %d and most of it used", n, maxKeys)
	}
}

// TestIdleBucketsAreDropped: a bucket untouched for longer than it takes to
// refill is full again, so a new key removes it from the table.
func TestIdleBucketsAreDropped(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(1, 2, 100) // refills from empty in 2 s
	l.now = func() time.Time { return now }
	l.epoch = now
	for i := range 5 {
		l.Allow(fmt.Sprint("old", i))
	}
	now = now.Add(time.Second) // not idle long enough yet
	l.Allow("fresh")
	if l.Len() != 6 {
		t.Fatalf("Len = %d after 1 s, want 6 (nothing idle yet)", l.Len())
	}
	now = now.Add(1500 * time.Millisecond) // the old ones are full again; "fresh" is not
	l.Allow("newer")
	if l.Len() != 2 {
		t.Fatalf("Len = %d, want 2 (idle buckets dropped)", l.Len())
	}
	// A dropped key starts with a full bucket, as it would have had.
	for i := range 2 {
		if ok, _ := l.Allow("old0"); !ok {
			t.Fatalf("old0 call %d denied after refill", i)
		}
	}
	if ok, _ := l.Allow("old0"); ok {
		t.Fatal("old0 got more than its burst")
	}
}

// TestConcurrentAllowGrantsExactlyTheBurst runs many goroutines against few
// keys: the sharded locking must neither lose nor invent tokens.
func TestConcurrentAllowGrantsExactlyTheBurst(t *testing.T) {
	const burst, keys, workers, calls = 50, 4, 8, 100
	l := New(0.001, burst, 1000)
	var granted [keys]atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				k := (w + i) % keys
				if ok, _ := l.Allow(fmt.Sprint("key", k)); ok {
					granted[k].Add(1)
				}
			}
		})
	}
	wg.Wait()
	for k := range keys {
		if got := granted[k].Load(); got != burst {
			t.Errorf("key%d granted %d, want exactly %d", k, got, burst)
		}
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
