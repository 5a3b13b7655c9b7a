package authn

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

// Doer is the part of *http.Client the JWKS fetcher uses.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// maxJWKSBytes bounds the JWKS document read from the network.
const maxJWKSBytes = 1 << 20

// fetchTimeout bounds one JWKS fetch, whoever's request triggered it.
const fetchTimeout = 5 * time.Second

// JWKSVerifier is a Verifier whose keys come from a JWKS URL: fetched on
// first use, cached, refreshed in the background every RefreshInterval,
// refetched (rate limited) when a token names an unknown kid, and kept in
// use while the endpoint is down.
type JWKSVerifier struct {
	*Verifier
	src *jwksSource
}

// NewJWKSVerifier makes a verifier for tokens signed by the keys at jwksURL.
func NewJWKSVerifier(jwksURL string, opts VerifierOptions) *JWKSVerifier {
	opts = opts.withDefaults()
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	src := &jwksSource{
		url:        jwksURL,
		client:     client,
		refresh:    opts.RefreshInterval,
		minRefetch: opts.MinRefetchInterval,
		now:        opts.Now,
	}
	return &JWKSVerifier{Verifier: NewVerifier(src, opts), src: src}
}

// Refresh fetches the JWKS now (e.g. to warm up at start or in a readiness
// check). On failure the previously fetched keys stay in use.
func (v *JWKSVerifier) Refresh(ctx context.Context) error { return v.src.fetch(ctx) }

// KeyIDs lists the kids currently cached (diagnostics and tests).
func (v *JWKSVerifier) KeyIDs() []string {
	v.src.mu.RLock()
	defer v.src.mu.RUnlock()
	ids := make([]string, 0, len(v.src.keys))
	for kid := range v.src.keys {
		ids = append(ids, kid)
	}
	return ids
}

type jwksSource struct {
	url        string
	client     Doer
	refresh    time.Duration
	minRefetch time.Duration
	now        func() time.Time

	mu          sync.RWMutex
	keys        map[string]ed25519.PublicKey
	fetchedAt   time.Time // last successful fetch
	attemptedAt time.Time // last attempt, successful or not

	group      singleflight.Group
	refreshing atomic.Bool
}

func (s *jwksSource) PublicKey(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	now := s.now()
	s.mu.RLock()
	key, ok := s.keys[kid]
	known := s.keys != nil
	fetchedAt, attemptedAt := s.fetchedAt, s.attemptedAt
	s.mu.RUnlock()

	if ok {
		if now.Sub(fetchedAt) > s.refresh && now.Sub(attemptedAt) >= s.minRefetch {
			s.backgroundRefresh()
		}
		return key, nil
	}
	if known && !attemptedAt.IsZero() && now.Sub(attemptedAt) < s.minRefetch {
		// Rate limit: a stream of tokens with made-up kids must not turn
		// into a stream of JWKS fetches.
		return nil, ErrUnknownKey
	}
	// No key set yet (start-up, or the JWKS endpoint has been down since):
	// join the fetch in flight, or start one, rather than failing a valid
	// token while the first download is still running. Concurrent callers
	// share one download.
	if err := s.fetch(ctx); err != nil && !known {
		return nil, fmt.Errorf("%w: %v", ErrKeysUnavailable, err)
	}
	s.mu.RLock()
	key, ok = s.keys[kid]
	s.mu.RUnlock()
	if !ok {
		return nil, ErrUnknownKey
	}
	return key, nil
}

func (s *jwksSource) backgroundRefresh() {
	if !s.refreshing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.refreshing.Store(false)
		_ = s.fetch(context.Background()) // failure keeps the cached keys
	}()
}

// fetch downloads the JWKS once for all concurrent callers. The download
// runs detached from the caller's context so one cancelled request does not
// fail the others waiting on it.
func (s *jwksSource) fetch(ctx context.Context) error {
	ch := s.group.DoChan("jwks", func() (any, error) {
		s.mu.Lock()
		s.attemptedAt = s.now()
		s.mu.Unlock()

		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
		defer cancel()
		keys, err := s.download(fctx)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.keys = keys
		s.fetchedAt = s.now()
		s.mu.Unlock()
		return nil, nil
	})
	select {
	case res := <-ch:
		return res.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *jwksSource) download(ctx context.Context) (map[string]ed25519.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("authn: jwks request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authn: fetch jwks: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxJWKSBytes))
		return nil, fmt.Errorf("authn: fetch jwks: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("authn: read jwks: %w", err)
	}
	if len(body) > maxJWKSBytes {
		return nil, errors.New("authn: jwks document too large")
	}
	return ParseJWKS(body)
}
