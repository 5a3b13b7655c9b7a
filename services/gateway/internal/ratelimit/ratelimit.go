// Package ratelimit is the gateway's token-bucket limiter: one bucket per key
// (a client id, or a client IP) in a bounded table. The table is sharded so
// concurrent requests of different keys rarely share a lock, each shard is a
// least-recently-used list of a fixed size (memory stays bounded however many
// keys appear), and buckets idle long enough to have refilled completely are
// dropped as new keys arrive: such a bucket behaves exactly like a new one,
// so forgetting it changes nothing but the memory it held.
package ratelimit

import (
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// maxShards bounds the number of shards; minPerShard keeps small tables in
// few shards so their bound is not split into slivers.
const (
	maxShards   = 32
	minPerShard = 256
	// sweepPerInsert bounds how many idle buckets one new key removes, so
	// an insert never walks the whole shard.
	sweepPerInsert = 8
)

// Limiter hands out per-key token buckets.
type Limiter struct {
	rps   float64
	burst float64
	// idle is how long an untouched bucket takes to refill from empty to
	// full; after that it is indistinguishable from a new bucket.
	idle   time.Duration
	seed   maphash.Seed
	mask   uint64
	shards []shard
	epoch  time.Time
	now    func() time.Time
}

type shard struct {
	mu      sync.Mutex
	buckets *simplelru.LRU[string, *bucket]
	// Padding keeps neighbouring shards' locks off one cache line.
	_ [40]byte
}

// bucket is a token bucket: tokens available at time last.
type bucket struct {
	tokens float64
	last   time.Duration // since Limiter.epoch (monotonic)
}

// New makes a limiter of rps tokens per second and the given burst per key,
// remembering at most maxKeys keys (the least recently used is evicted
// first; an evicted key simply starts again with a full bucket).
func New(rps float64, burst, maxKeys int) *Limiter {
	if maxKeys < 1 {
		maxKeys = 1
	}
	n := 1
	for n*2 <= maxShards && maxKeys/(n*2) >= minPerShard {
		n *= 2
	}
	l := &Limiter{
		rps:    rps,
		burst:  float64(burst),
		idle:   time.Duration(float64(burst) / rps * float64(time.Second)),
		seed:   maphash.MakeSeed(),
		mask:   uint64(n - 1),
		shards: make([]shard, n),
		epoch:  time.Now(),
		now:    time.Now,
	}
	per := maxKeys / n
	for i := range l.shards {
		c, err := simplelru.NewLRU[string, *bucket](per, nil)
		if err != nil {
			// Only a non-positive size errors, and per >= 1 here.
			panic(err)
		}
		l.shards[i].buckets = c
	}
	return l
}

// Allow takes one token for key. When none is left it returns false and how
// long until one is available. key may alias a reused request buffer: it is
// copied before the table keeps it.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	now := l.now().Sub(l.epoch)
	s := &l.shards[maphash.String(l.seed, key)&l.mask]
	s.mu.Lock()
	b, ok := s.buckets.Get(key)
	if !ok {
		l.sweep(s, now)
		b = &bucket{tokens: l.burst, last: now}
		s.buckets.Add(strings.Clone(key), b)
	}
	if elapsed := now - b.last; elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed.Seconds()*l.rps)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		s.mu.Unlock()
		return true, 0
	}
	missing := 1 - b.tokens
	s.mu.Unlock()
	return false, time.Duration(missing / l.rps * float64(time.Second))
}

// sweep drops up to sweepPerInsert of the shard's least recently used
// buckets that have been idle long enough to be full again. The caller holds
// s.mu.
func (l *Limiter) sweep(s *shard, now time.Duration) {
	for range sweepPerInsert {
		_, b, ok := s.buckets.GetOldest()
		if !ok || now-b.last < l.idle {
			return
		}
		s.buckets.RemoveOldest()
	}
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
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += s.buckets.Len()
		s.mu.Unlock()
	}
	return n
}
