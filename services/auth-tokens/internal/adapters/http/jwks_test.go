package http_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/idempotency"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/testkit"
	httpadapter "github.com/acctsuite/acct/services/auth-tokens/internal/adapters/http"
	"github.com/acctsuite/acct/services/auth-tokens/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
)

// fakeClock is a clock the test moves; every replica and the verifier read it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// TestRotationUnderLoad: two replicas share one database and each syncs its
// keys once a minute (at different moments, as in production); the JWKS is
// served over HTTP by one of them; a verifier caching that JWKS the way the
// gateway does (authn.NewJWKSVerifier, 5 min refresh, refetch on unknown kid
// at most every 5 s) checks a stream of tokens minted by both replicas
// across a key rotation. Not one may fail: the new key is published a lead
// before either replica signs with it.
func TestRotationUnderLoad(t *testing.T) {
	const (
		rotation    = time.Hour
		publishLead = 10 * time.Minute
		step        = 15 * time.Second
		perStep     = 8 // tokens minted and verified concurrently per step
	)
	ctx := context.Background()
	clock := &fakeClock{now: time.Now().UTC().Truncate(time.Second)}
	start := clock.Now()
	db := testkit.DB(t, "auth", outbox.Migrations, idempotency.Migrations, postgres.Migrations)
	store := postgres.New(db)
	cipher := testCipher(t)
	ring := func() *app.KeyRing {
		return app.NewKeyRing(store, cipher, app.KeyRingConfig{
			Issuer: authn.DefaultIssuer, Rotation: rotation, MaxLifetime: time.Hour, PublishLead: publishLead,
			Now: clock.Now,
		}, logger())
	}
	replicas := []*app.KeyRing{ring(), ring()}
	for _, r := range replicas {
		if err := r.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	first, err := replicas[0].Signer()
	if err != nil {
		t.Fatal(err)
	}

	// Replica 1 serves the JWKS.
	served, err := app.New(app.Config{Issuer: authn.DefaultIssuer, BusinessTokenMaxSeconds: 3600, HashParams: cheapHash}, store, store, replicas[1], logger())
	if err != nil {
		t.Fatal(err)
	}
	h := httpx.New(httpx.Options{Service: "auth-tokens", Logger: logger()})
	httpadapter.New(httpadapter.Options{App: served, Verifier: authn.NewVerifier(replicas[1], authn.VerifierOptions{}), Owners: store}).Register(h)
	httpx.Finish(h)
	base := testkit.Serve(t, h)
	verifier := authn.NewJWKSVerifier(base+"/.well-known/jwks.json", authn.VerifierOptions{Now: clock.Now, CacheSize: -1})
	if err := verifier.Refresh(ctx); err != nil {
		t.Fatal(err)
	}

	// Each replica syncs every minute, half a minute apart.
	nextSync := []time.Time{start.Add(time.Minute), start.Add(90 * time.Second)}
	var (
		verified, failed int
		failures         []string
		kids             = map[string]time.Time{} // kid -> first time it signed
	)
	end := start.Add(rotation + 20*time.Minute)
	for clock.Now().Before(end) {
		clock.Advance(step)
		now := clock.Now()
		for i, r := range replicas {
			if !now.Before(nextSync[i]) {
				if err := r.Sync(ctx); err != nil {
					t.Fatal(err)
				}
				nextSync[i] = nextSync[i].Add(time.Minute)
			}
		}
		type result struct {
			kid string
			err error
		}
		results := make(chan result, perStep)
		var wg sync.WaitGroup
		for i := range perStep {
			wg.Add(1)
			go func() {
				defer wg.Done()
				signer, err := replicas[i%2].Signer()
				if err != nil {
					results <- result{err: err}
					return
				}
				tok, _, err := signer.Issue(authn.Identity{ClientID: "demo", Scope: authn.ScopePlatform}, time.Hour)
				if err == nil {
					_, err = verifier.Verify(ctx, tok)
				}
				results <- result{kid: signer.KeyID(), err: err}
			}()
		}
		wg.Wait()
		close(results)
		for r := range results {
			if _, seen := kids[r.kid]; !seen && r.kid != "" {
				kids[r.kid] = now
			}
			if r.err != nil {
				failed++
				failures = append(failures, fmt.Sprintf("%s (kid %s): %v", now.Sub(start), r.kid, r.err))
				continue
			}
			verified++
		}
	}
	t.Logf("verified %d tokens, %d failed; kids first used at %v", verified, failed, kids)
	if failed > 0 {
		t.Fatalf("%d of %d tokens failed verification across the rotation, e.g. %v", failed, failed+verified, failures[:min(3, len(failures))])
	}
	if len(kids) != 2 {
		t.Fatalf("signing keys used: %v; want the first key and its successor", kids)
	}
	for kid, at := range kids {
		if kid == first.KeyID() {
			continue
		}
		// The successor signs from rotation (created a lead before), not earlier.
		if at.Before(start.Add(rotation)) {
			t.Fatalf("successor %s signed at %s, before the end of the publish lead", kid, at.Sub(start))
		}
	}
}
