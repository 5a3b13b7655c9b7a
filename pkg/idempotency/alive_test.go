package idempotency_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/idempotency"
)

// shortTimeout is the InProgressTimeout of these tests, on the real clock.
const shortTimeout = 300 * time.Millisecond

// TestLongRequestKeepsItsKey: a request running far longer than
// InProgressTimeout shows it is alive, so a retry meanwhile gets 409, never
// a second run; once it answers, the retry gets its answer replayed.
func TestLongRequestKeepsItsKey(t *testing.T) {
	f := newFixture(t)
	store := idempotency.Middleware(f.db, idempotency.Options{InProgressTimeout: shortTimeout})
	f.app.Post("/long", store, func(c *fiber.Ctx) error {
		f.started <- struct{}{}
		<-f.release
		n := f.calls.Add(1)
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"call": n})
	})
	k := uuid.NewString()
	first := make(chan result, 1)
	go func() { first <- f.post(t, "/long", k, `{}`) }()
	<-f.started
	for range 3 {
		time.Sleep(shortTimeout)
		if r := f.post(t, "/long", k, `{}`); r.status != http.StatusConflict || enumOf(t, r) != idempotency.EnumKeyInProgress {
			t.Fatalf("retry while the first runs: %+v, want 409 %s", r, idempotency.EnumKeyInProgress)
		}
	}
	close(f.release)
	r := <-first
	if r.status != fiber.StatusCreated || f.calls.Load() != 1 {
		t.Fatalf("first: %+v after %d runs", r, f.calls.Load())
	}
	if again := f.post(t, "/long", k, `{}`); again.replayed != "true" || again.body != r.body {
		t.Fatalf("after the answer: %+v, want it replayed", again)
	}
}

// TestSilentReservationIsTakenOver: a reservation whose request stopped
// showing signs of life (its process was killed) is taken over by a retry
// after InProgressTimeout, not minutes later; one alive a moment ago is not.
func TestSilentReservationIsTakenOver(t *testing.T) {
	f := newFixture(t)
	store := idempotency.Middleware(f.db, idempotency.Options{InProgressTimeout: shortTimeout})
	f.app.Post("/quick", store, func(c *fiber.Ctx) error {
		n := f.calls.Add(1)
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"call": n})
	})
	plant := func(key string, aliveAt time.Time) {
		t.Helper()
		if _, err := f.db.ExecContext(context.Background(), `INSERT INTO idempotency_keys
			(scope, key, method, path, request_hash, state, created_at, expires_at, owner, alive_at)
			VALUES ('client-a', ?, 'POST', '/quick', '\x00', 'in_progress', ?, ?, ?, ?)`,
			key, aliveAt, aliveAt.Add(time.Hour), uuid.New(), aliveAt); err != nil {
			t.Fatal(err)
		}
	}
	alive, silent := uuid.NewString(), uuid.NewString()
	now := time.Now()
	plant(alive, now)
	plant(silent, now.Add(-2*shortTimeout))
	if r := f.post(t, "/quick", alive, `{}`); r.status != http.StatusConflict {
		t.Fatalf("a reservation alive a moment ago: %+v, want 409", r)
	}
	if r := f.post(t, "/quick", silent, `{}`); r.status != fiber.StatusCreated || r.replayed != "" {
		t.Fatalf("a silent reservation: %+v, want it taken over and run", r)
	}
}

// TestTakenOverRequestStoresNothing: a request whose key was taken over
// while it ran (it showed no sign of life long enough) neither stores its
// response nor commits what it changed: the request that took the key over
// answers for it.
func TestTakenOverRequestStoresNothing(t *testing.T) {
	f := newAtomicFixture(t)
	done := make(chan result, 1)
	go func() { done <- f.post(t, "/atomic", "k-taken", "a") }()
	if n := <-f.inside; n != 1 {
		t.Fatalf("the handler saw %d rows in its own transaction, want its insert", n)
	}
	// Another request takes the key over (as a retry would after
	// InProgressTimeout without a sign of life).
	other := uuid.New()
	if _, err := f.db.ExecContext(context.Background(),
		"UPDATE idempotency_keys SET owner = ?, alive_at = now() WHERE key = 'k-taken'", other); err != nil {
		t.Fatal(err)
	}
	close(f.proceed)
	r := <-done
	if r.status != http.StatusConflict || enumOf(t, r) != idempotency.EnumKeyInProgress {
		t.Fatalf("the overtaken request answered %d %s, want 409 %s", r.status, r.body, idempotency.EnumKeyInProgress)
	}
	if n := f.rows(t); n != 0 {
		t.Fatalf("%d rows committed by the overtaken request, want none", n)
	}
	var owner uuid.UUID
	var state string
	if err := f.db.NewRaw("SELECT owner, state FROM idempotency_keys WHERE key = 'k-taken'").Scan(context.Background(), &owner, &state); err != nil {
		t.Fatal(err)
	}
	if owner != other || state != "in_progress" {
		t.Fatalf("key owner %s state %s, want the other request's reservation left as it was", owner, state)
	}
}
