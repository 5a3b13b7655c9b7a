package idempotency_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/idempotency"
	"github.com/acctsuite/acct/pkg/pgdb"
)

// atomicFixture: routes whose handlers write through units of work
// (pgdb.InTx) before answering.
type atomicFixture struct {
	*fixture
	inside  chan int // rows the handler saw in its own transaction
	proceed chan struct{}
}

func newAtomicFixture(t *testing.T) *atomicFixture {
	t.Helper()
	f := &atomicFixture{fixture: newFixture(t), inside: make(chan int, 1), proceed: make(chan struct{})}
	ctx := context.Background()
	if _, err := f.db.ExecContext(ctx, `CREATE TABLE things (name text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	store := idempotency.Middleware(f.db, idempotency.Options{Now: func() time.Time { return *f.now.Load() }})
	insert := func(c *fiber.Ctx) error {
		// The handler's own context, cancelled as it returns: it must not
		// take the request's transaction with it.
		ctx, cancel := context.WithCancel(c.UserContext())
		defer cancel()
		return pgdb.InTx(ctx, f.db, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.NewRaw("INSERT INTO things VALUES (?)", string(c.Body())).Exec(ctx)
			return err
		})
	}
	f.app.Post("/atomic", store, func(c *fiber.Ctx) error {
		if err := insert(c); err != nil {
			return err
		}
		var n int
		if err := pgdb.Conn(c.UserContext(), f.db).NewRaw("SELECT count(*) FROM things").Scan(c.UserContext(), &n); err != nil {
			return err
		}
		f.inside <- n
		<-f.proceed
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"rows": n})
	})
	f.app.Post("/atomic-panic", store, func(c *fiber.Ctx) error {
		if err := insert(c); err != nil {
			return err
		}
		panic("after the unit of work")
	})
	f.app.Post("/atomic-5xx", store, func(c *fiber.Ctx) error {
		if err := insert(c); err != nil {
			return err
		}
		return apperr.New(apperr.Unavailable, "a later step failed")
	})
	f.app.Post("/atomic-plain", store, func(c *fiber.Ctx) error {
		if err := insert(c); err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"name": string(c.Body())})
	})
	return f
}

func (f *atomicFixture) rows(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.db.QueryRowContext(context.Background(), "SELECT count(*) FROM things").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (f *atomicFixture) keyState(t *testing.T, key string) string {
	t.Helper()
	var state string
	err := f.db.QueryRowContext(context.Background(), "SELECT state FROM idempotency_keys WHERE key = ?", key).Scan(&state)
	if err != nil {
		return fmt.Sprintf("absent (%v)", err)
	}
	return state
}

// TestChangesCommitWithTheStoredResponse: what a keyed request changes
// becomes visible in the same commit as its stored response, never
// before: a process killed while the key is still in progress leaves
// nothing applied, so the retry that takes the key over later applies it
// once.
func TestChangesCommitWithTheStoredResponse(t *testing.T) {
	f := newAtomicFixture(t)

	done := make(chan result, 1)
	go func() { done <- f.post(t, "/atomic", "k-atomic", "a") }()
	if n := <-f.inside; n != 1 {
		t.Fatalf("the handler saw %d rows in its own transaction, want its insert", n)
	}
	// The handler has finished its unit of work; the response is not
	// stored yet. Had the process died here, nothing would be applied.
	if n := f.rows(t); n != 0 {
		t.Fatalf("%d rows visible while the key is in progress", n)
	}
	if s := f.keyState(t, "k-atomic"); s != "in_progress" {
		t.Fatalf("key state %s, want in_progress", s)
	}
	close(f.proceed)
	r := <-done
	if r.status != fiber.StatusCreated {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if n := f.rows(t); n != 1 {
		t.Fatalf("%d rows after the answer, want 1", n)
	}
	if s := f.keyState(t, "k-atomic"); s != "done" {
		t.Fatalf("key state %s, want done", s)
	}
	again := f.post(t, "/atomic", "k-atomic", "a")
	if again.status != fiber.StatusCreated || again.replayed != "true" || again.body != r.body {
		t.Fatalf("retry: %d replayed=%q %s, want the first answer replayed", again.status, again.replayed, again.body)
	}
	if n := f.rows(t); n != 1 {
		t.Fatalf("%d rows after the retry, want 1", n)
	}
}

// TestFailedRequestsLeaveNothing: a panic or a server error after a unit
// of work rolls it back with the released key, so the retry runs again.
func TestFailedRequestsLeaveNothing(t *testing.T) {
	f := newAtomicFixture(t)
	for _, path := range []string{"/atomic-panic", "/atomic-5xx"} {
		r := f.post(t, path, "k"+path, "x"+path)
		if r.status < 500 {
			t.Fatalf("%s: status %d, want a server error", path, r.status)
		}
		if n := f.rows(t); n != 0 {
			t.Fatalf("%s left %d rows", path, n)
		}
		if s := f.keyState(t, "k"+path); !strings.HasPrefix(s, "absent") {
			t.Fatalf("%s: key %s, want released", path, s)
		}
	}
}

// TestResponseStoreFailureRollsBack: when the response cannot be stored,
// the request's changes go back with it and the answer is a 500 (not a
// success that a retry would apply again).
func TestResponseStoreFailureRollsBack(t *testing.T) {
	f := newAtomicFixture(t)
	ctx := context.Background()
	if _, err := f.db.ExecContext(ctx, `
CREATE FUNCTION refuse_done() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state = 'done' AND NEW.key = 'k-refused' THEN RAISE EXCEPTION 'store refused'; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER refuse_done BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION refuse_done();`); err != nil {
		t.Fatal(err)
	}
	r := f.post(t, "/atomic-plain", "k-refused", "b")
	if r.status != fiber.StatusInternalServerError {
		t.Fatalf("status %d %s, want 500", r.status, r.body)
	}
	if r.header.Get(fiber.HeaderLocation) != "" {
		t.Fatalf("a failed answer kept Location %q", r.header.Get(fiber.HeaderLocation))
	}
	if n := f.rows(t); n != 0 {
		t.Fatalf("%d rows after the store failed, want 0", n)
	}
	if s := f.keyState(t, "k-refused"); !strings.HasPrefix(s, "absent") {
		t.Fatalf("key %s, want released", s)
	}
	if _, err := f.db.ExecContext(ctx, `DROP TRIGGER refuse_done ON idempotency_keys`); err != nil {
		t.Fatal(err)
	}
	r = f.post(t, "/atomic-plain", "k-refused", "b")
	if r.status != fiber.StatusCreated || r.replayed != "" {
		t.Fatalf("retry: %d replayed=%q %s, want a fresh 201", r.status, r.replayed, r.body)
	}
	if n := f.rows(t); n != 1 {
		t.Fatalf("%d rows after the retry, want 1", n)
	}
}
