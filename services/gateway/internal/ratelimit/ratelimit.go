// Package ratelimit is the gateway's per-client token bucket limiter: one
// golang.org/x/time/rate limiter per key (client id, or remote IP for public
// routes) in a bounded LRU, so idle clients are evicted and memory stays
// bounded however many keys appear.
package ratelimit

import (
	"math"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// Limiter hands out per-key token buckets.
type Limiter struct {
	rps     rate.Limit
	burst   int
	buckets *lru.Cache[string, *rate.Limiter]
}

// New makes a limiter of rps tokens per second and the given burst per key,
// remembering at most maxKeys keys (least recently used evicted first; an
// evicted key simply starts again with a full bucket).
func New(rps float64, burst, maxKeys int) *Limiter {
	c, err := lru.New[string, *rate.Limiter](maxKeys)
	if err != nil {
		// Only a non-positive size errors; config validation forbids it.
		panic(err)
	}
	return &Limiter{rps: rate.Limit(rps), burst: burst, buckets: c}
}

// Allow takes one token for key. When none is left it returns false and how
// long until one is available.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	b, ok := l.buckets.Get(key)
	if !ok {
		b = rate.NewLimiter(l.rps, l.burst)
		// Two first requests of a key may race here; the loser's bucket
		// wins the slot and at most one extra token is granted.
		if prev, found, _ := l.buckets.PeekOrAdd(key, b); found {
			b = prev
		}
	}
	now := time.Now()
	if b.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - b.TokensAt(now)
	return false, time.Duration(missing / float64(l.rps) * float64(time.Second))
}

// RetryAfterSeconds renders a wait as the whole seconds of a Retry-After
// header, at least 1.
func RetryAfterSeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	if s < 1 {
		return 1
	}
	return s
}

// Len is the number of keys currently tracked.
func (l *Limiter) Len() int { return l.buckets.Len() }
