// Package credentials hashes and checks client secrets with argon2id
// (RFC 9106) in the PHC string format, and generates new secrets. Checker
// is what the token endpoint uses: it bounds how many argon2id computations
// (each holding Params.Memory of RAM) run at once, and remembers recently
// verified secrets so a flood of wrong ones cannot starve valid clients.
package credentials

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id cost parameters.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
	SaltLen int
	KeyLen  uint32
}

// DefaultParams follow the OWASP recommendation (19 MiB, 2 passes, 1 lane):
// strong enough for high-entropy generated secrets, cheap enough that the
// token endpoint stays responsive on small machines.
var DefaultParams = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// ErrMalformedHash is returned for a stored hash that is not argon2id PHC.
var ErrMalformedHash = errors.New("credentials: malformed hash")

var b64 = base64.RawStdEncoding

// Hash returns the PHC encoding of secret under p with a fresh random salt.
func Hash(secret string, p Params) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("credentials: salt: %w", err)
	}
	key := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether secret matches the PHC hash encoded, comparing in
// constant time. The parameters come from the hash, so old hashes keep
// working when DefaultParams change.
func Verify(secret, encoded string) (bool, error) {
	p, salt, want, err := decode(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

func decode(encoded string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, ErrMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, ErrMalformedHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Memory == 0 || p.Time == 0 || p.Threads == 0 || p.Memory > 1<<21 || p.Time > 100 {
		return p, nil, nil, ErrMalformedHash
	}
	if salt, err = b64.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, ErrMalformedHash
	}
	if key, err = b64.DecodeString(parts[5]); err != nil || len(key) < 16 {
		return p, nil, nil, ErrMalformedHash
	}
	return p, salt, key, nil
}

// NewSecret returns 32 random bytes, base64url without padding.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("credentials: secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// ErrBusy means every argon2id slot stayed taken for the whole wait: the
// caller should answer 503 with Retry-After rather than queue without bound.
var ErrBusy = errors.New("credentials: too many secret checks in progress")

// Defaults of CheckerOptions.
const (
	DefaultMaxWait   = 250 * time.Millisecond
	DefaultCacheTTL  = 5 * time.Minute
	DefaultCacheSize = 10000
)

// CheckerOptions bound the cost of checking secrets. Zero values take the
// defaults.
type CheckerOptions struct {
	// MaxConcurrent bounds the argon2id computations running at once; each
	// holds its hash's memory cost (19 MiB with DefaultParams) while it
	// runs, so this also bounds their memory. Default runtime.NumCPU():
	// more would not finish sooner.
	MaxConcurrent int
	// MaxWait is how long a check waits for a free slot before ErrBusy.
	MaxWait time.Duration
	// CacheTTL is how long a verified secret is remembered, so the client's
	// next requests need no argon2id slot. Negative disables the cache.
	CacheTTL time.Duration
	// CacheSize bounds how many clients are remembered.
	CacheSize int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

func (o CheckerOptions) withDefaults() CheckerOptions {
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = runtime.NumCPU()
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Checker verifies client secrets. It spends the same work for unknown
// clients, so response time does not reveal whether a client id exists.
type Checker struct {
	dummy string
	opts  CheckerOptions
	slots chan struct{}

	// macKey keys the HMAC under which verified secrets are remembered: it
	// never leaves the process, so the cache holds nothing an attacker
	// could test guesses against offline.
	macKey []byte
	mu     sync.Mutex
	good   map[string]verified // by client id
}

// verified is a secret that matched a client's hash, as an HMAC.
type verified struct {
	mac     []byte
	hash    string // the stored hash it matched: a new secret invalidates it
	expires time.Time
}

// NewChecker prepares a checker (hashing a random dummy secret once).
func NewChecker(p Params, o CheckerOptions) (*Checker, error) {
	s, err := NewSecret()
	if err != nil {
		return nil, err
	}
	h, err := Hash(s, p)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("credentials: cache key: %w", err)
	}
	o = o.withDefaults()
	return &Checker{
		dummy: h, opts: o, slots: make(chan struct{}, o.MaxConcurrent),
		macKey: key, good: map[string]verified{},
	}, nil
}

// Check reports whether secret is the secret of clientID, whose stored hash
// is encoded; found false means the client is unknown and a dummy hash is
// checked instead (always false). A secret verified within CacheTTL against
// the same stored hash is accepted without argon2id; wrong secrets are never
// remembered. ErrBusy means no argon2id slot freed up within MaxWait (or ctx
// ended first).
func (c *Checker) Check(ctx context.Context, clientID, secret, encoded string, found bool) (bool, error) {
	mac := c.mac(clientID, secret)
	if found && c.remembered(clientID, encoded, mac) {
		return true, nil
	}
	if err := c.acquire(ctx); err != nil {
		return false, err
	}
	defer func() { <-c.slots }()
	if !found {
		_, _ = Verify(secret, c.dummy)
		return false, nil
	}
	ok, err := Verify(secret, encoded)
	if err != nil || !ok {
		return false, nil
	}
	c.remember(clientID, encoded, mac)
	return true, nil
}

// acquire takes an argon2id slot, waiting at most MaxWait.
func (c *Checker) acquire(ctx context.Context) error {
	select {
	case c.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(c.opts.MaxWait)
	defer t.Stop()
	select {
	case c.slots <- struct{}{}:
		return nil
	case <-t.C:
		return ErrBusy
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	}
}

func (c *Checker) mac(clientID, secret string) []byte {
	m := hmac.New(sha256.New, c.macKey)
	m.Write([]byte(clientID))
	m.Write([]byte{0})
	m.Write([]byte(secret))
	return m.Sum(nil)
}

func (c *Checker) remembered(clientID, encoded string, mac []byte) bool {
	if c.opts.CacheTTL < 0 {
		return false
	}
	c.mu.Lock()
	v, ok := c.good[clientID]
	if ok && (v.hash != encoded || !c.opts.Now().Before(v.expires)) {
		// The secret changed or the entry is stale: forget it.
		delete(c.good, clientID)
		ok = false
	}
	c.mu.Unlock()
	return ok && hmac.Equal(v.mac, mac)
}

func (c *Checker) remember(clientID, encoded string, mac []byte) {
	if c.opts.CacheTTL < 0 {
		return
	}
	now := c.opts.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.good[clientID]; !ok && len(c.good) >= c.opts.CacheSize {
		for id, v := range c.good {
			if !now.Before(v.expires) {
				delete(c.good, id)
			}
		}
		for id := range c.good {
			if len(c.good) < c.opts.CacheSize {
				break
			}
			delete(c.good, id) // full of live entries: drop any one
		}
	}
	c.good[clientID] = verified{mac: mac, hash: encoded, expires: now.Add(c.opts.CacheTTL)}
}
