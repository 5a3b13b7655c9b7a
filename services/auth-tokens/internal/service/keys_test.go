package service

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/auth-tokens/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/acctsuite/acct/services/auth-tokens/internal/signing"
)

// TestKeyRotation runs key rings (replicas) against one real database.
func TestKeyRotation(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t, "auth", postgres.Migrations)
	encKey := make([]byte, 32)
	_, _ = rand.Read(encKey)
	cipher, err := signing.NewCipher(encKey)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	now := time.Now().UTC()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	ring := func() *app.KeyRing {
		return app.NewKeyRing(postgres.New(db), cipher, app.KeyRingConfig{
			Issuer: authn.DefaultIssuer, Rotation: 720 * time.Hour, MaxLifetime: 24 * time.Hour, Now: clock,
		}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}

	// Replicas starting together create exactly one key.
	rings := make([]*app.KeyRing, 4)
	var wg sync.WaitGroup
	for i := range rings {
		rings[i] = ring()
		wg.Add(1)
		go func(r *app.KeyRing) {
			defer wg.Done()
			if err := r.Sync(ctx); err != nil {
				t.Error(err)
			}
		}(rings[i])
	}
	wg.Wait()
	keys, err := postgres.New(db).ListSigningKeys(ctx)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys = %d, %v; want 1", len(keys), err)
	}
	first, _ := rings[0].Signer()
	for _, r := range rings[1:] {
		if s, _ := r.Signer(); s.KeyID() != first.KeyID() {
			t.Fatal("replicas sign with different keys")
		}
	}
	oldTok, _, err := first.Issue(authn.Identity{ClientID: "demo", Scope: authn.ScopePlatform}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	// Past the rotation age, a new key is made and published at once, but
	// the old one keeps signing for the publish lead; then the new one signs.
	advance(721 * time.Hour)
	r0 := rings[0]
	if err := r0.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	doc, _ := r0.JWKS()
	published, err := authn.ParseJWKS(doc)
	if err != nil || len(published) != 2 {
		t.Fatalf("published = %v, %v; want both keys", published, err)
	}
	if s, _ := r0.Signer(); s.KeyID() != first.KeyID() {
		t.Fatal("the new key signs before its publish lead is over")
	}
	advance(app.DefaultPublishLead)
	second, _ := r0.Signer()
	if second.KeyID() == first.KeyID() {
		t.Fatal("no rotation after the publish lead")
	}
	// Another replica that has not synced yet still verifies the new key's
	// tokens: an unknown kid reloads from the database.
	newTok, _, _ := second.WithClock(clock).Issue(authn.Identity{ClientID: "demo", Scope: authn.ScopePlatform}, time.Hour)
	v := authn.NewVerifier(rings[1], authn.VerifierOptions{Now: clock})
	if _, err := v.Verify(ctx, newTok); err != nil {
		t.Fatalf("new key on a stale replica: %v", err)
	}

	// After the max token lifetime the old key is retired and unpublished.
	advance(25 * time.Hour)
	if err := r0.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	doc, _ = r0.JWKS()
	published, _ = authn.ParseJWKS(doc)
	if _, still := published[first.KeyID()]; still || len(published) != 1 {
		t.Fatalf("old key still published: %v", published)
	}
	fresh := authn.NewVerifier(r0, authn.VerifierOptions{Now: time.Now})
	if _, err := fresh.Verify(ctx, oldTok); err == nil {
		t.Fatal("token of a retired key verified")
	}
}
