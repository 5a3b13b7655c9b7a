package idempotency_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/idempotency"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

type fixture struct {
	db      *bun.DB
	app     *fiber.App
	calls   atomic.Int64
	now     atomic.Pointer[time.Time]
	fail    atomic.Int64 // remaining 500s of /fail
	started chan struct{}
	release chan struct{}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := pgdb.Open(ctx, pgdb.Config{URL: testkit.NewDatabase(t), Schema: "svc", MaxConns: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// Twice: the set is idempotent.
	for i := 0; i < 2; i++ {
		if err := pgdb.Migrate(ctx, db, idempotency.Migrations); err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}
	f := &fixture{db: db, started: make(chan struct{}, 10), release: make(chan struct{})}
	start := time.Now()
	f.now.Store(&start)

	f.app = fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
		ae := apperr.From(err)
		return c.Status(ae.Status()).JSON(ae.Body())
	}})
	f.app.Use(recover.New())
	f.app.Use(func(c *fiber.Ctx) error {
		c.Locals(idempotency.LocalsClientID, c.Get("X-Test-Client", "client-a"))
		return c.Next()
	})
	clock := func() time.Time { return *f.now.Load() }
	store := idempotency.Middleware(db, idempotency.Options{Now: clock})
	noStore := idempotency.Middleware(db, idempotency.Options{Now: clock, NoStore: true})
	create := func(c *fiber.Ctx) error {
		n := f.calls.Add(1)
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"call": n, "body": string(c.Body())})
	}
	f.app.Post("/things", store, create)
	f.app.Post("/other", store, create)
	f.app.Get("/things", store, create)
	f.app.Post("/invalid", store, func(c *fiber.Ctx) error {
		f.calls.Add(1)
		return apperr.PayloadField("name", "is required")
	})
	f.app.Post("/fail", store, func(c *fiber.Ctx) error {
		if f.fail.Add(-1) >= 0 {
			f.calls.Add(1)
			return apperr.New(apperr.Unavailable, "try again")
		}
		return create(c)
	})
	f.app.Post("/panic", store, func(c *fiber.Ctx) error {
		f.calls.Add(1)
		panic("boom")
	})
	f.app.Post("/slow", store, func(c *fiber.Ctx) error {
		f.started <- struct{}{}
		<-f.release
		return create(c)
	})
	// A created resource whose response must not be cached by anyone.
	f.app.Post("/private", store, func(c *fiber.Ctx) error {
		n := f.calls.Add(1)
		c.Set(fiber.HeaderCacheControl, "no-store")
		c.Set(fiber.HeaderPragma, "no-cache")
		c.Set(fiber.HeaderLocation, fmt.Sprintf("/private/%d", n))
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"call": n})
	})
	// A token-minting route: its body is a secret and must never be stored.
	f.app.Post("/tokens", noStore, func(c *fiber.Ctx) error {
		n := f.calls.Add(1)
		c.Set(fiber.HeaderCacheControl, "no-store")
		return c.JSON(fiber.Map{"access_token": fmt.Sprintf("secret-token-%d-%s", n, uuid.NewString())})
	})
	f.app.Post("/slow-tokens", noStore, func(c *fiber.Ctx) error {
		f.started <- struct{}{}
		<-f.release
		return c.JSON(fiber.Map{"access_token": "secret-token-slow"})
	})
	return f
}

type result struct {
	status   int
	body     string
	replayed string
	ctype    string
	header   http.Header
}

func (f *fixture) post(t *testing.T, path, key, body string, hdr ...string) result {
	t.Helper()
	return f.do(t, "POST", path, key, body, hdr...)
}

func (f *fixture) do(t *testing.T, method, path, key, body string, hdr ...string) result {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set(idempotency.HeaderKey, key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := f.app.Test(req, 20_000)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return result{resp.StatusCode, string(b), resp.Header.Get(idempotency.HeaderReplayed), resp.Header.Get("Content-Type"), resp.Header}
}

func enumOf(t *testing.T, r result) string {
	t.Helper()
	var body apperr.Body
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Fatalf("error body %q: %v", r.body, err)
	}
	return body.ErrorEnum
}

func TestMiddleware(t *testing.T) {
	f := newFixture(t)
	key := func() string { return uuid.NewString() }

	t.Run("no key runs every time", func(t *testing.T) {
		before := f.calls.Load()
		f.post(t, "/things", "", `{"a":1}`)
		f.post(t, "/things", "", `{"a":1}`)
		if got := f.calls.Load() - before; got != 2 {
			t.Fatalf("handler ran %d times, want 2", got)
		}
	})

	t.Run("same key and body replays", func(t *testing.T) {
		k := key()
		before := f.calls.Load()
		first := f.post(t, "/things", k, `{"a":1}`)
		second := f.post(t, "/things", k, `{"a":1}`)
		if first.status != 201 || first.replayed != "" {
			t.Fatalf("first = %+v", first)
		}
		if second.status != 201 || second.body != first.body || second.replayed != "true" || second.ctype != first.ctype {
			t.Fatalf("replay = %+v, want %+v replayed", second, first)
		}
		if got := f.calls.Load() - before; got != 1 {
			t.Fatalf("handler ran %d times, want 1", got)
		}
	})

	t.Run("reuse with other request is a conflict", func(t *testing.T) {
		k := key()
		f.post(t, "/things", k, `{"a":1}`)
		tests := []struct{ name, path, body string }{
			{"other body", "/things", `{"a":2}`},
			{"other path", "/other", `{"a":1}`},
		}
		for _, tt := range tests {
			r := f.post(t, tt.path, k, tt.body)
			if r.status != 409 || enumOf(t, r) != idempotency.EnumKeyReused {
				t.Fatalf("%s: %+v, want 409 %s", tt.name, r, idempotency.EnumKeyReused)
			}
		}
	})

	t.Run("keys are per client", func(t *testing.T) {
		k := key()
		a := f.post(t, "/things", k, `{}`)
		b := f.post(t, "/things", k, `{}`, "X-Test-Client", "client-b")
		if b.replayed != "" || a.body == b.body {
			t.Fatalf("client b got client a's response: %+v", b)
		}
	})

	t.Run("bad and ignored keys", func(t *testing.T) {
		r := f.post(t, "/things", strings.Repeat("k", idempotency.MaxKeyLength+1), `{}`)
		if r.status != 400 || !strings.Contains(r.body, idempotency.HeaderKey) {
			t.Fatalf("long key: %+v", r)
		}
		if r := f.post(t, "/things", strings.Repeat("k", idempotency.MaxKeyLength), `{}`); r.status != 201 {
			t.Fatalf("max-length key: %+v", r)
		}
		// Found by FuzzParseKey: PostgreSQL text holds neither NUL nor
		// invalid UTF-8, so such keys were a database error (500).
		for _, bad := range []string{"a\x00b", "\xff\xfe"} {
			if r := f.post(t, "/things", bad, `{}`); r.status != 400 || !strings.Contains(r.body, idempotency.HeaderKey) {
				t.Fatalf("key %q: %+v", bad, r)
			}
		}
		k := key()
		before := f.calls.Load()
		f.do(t, "GET", "/things", k, "")
		f.do(t, "GET", "/things", k, "")
		if got := f.calls.Load() - before; got != 2 {
			t.Fatalf("GET with key ran %d times, want 2 (only POST is idempotent-keyed)", got)
		}
	})

	t.Run("4xx responses are stored", func(t *testing.T) {
		k := key()
		before := f.calls.Load()
		first := f.post(t, "/invalid", k, `{}`)
		second := f.post(t, "/invalid", k, `{}`)
		if first.status != 400 || second.status != 400 || second.replayed != "true" || second.body != first.body {
			t.Fatalf("first %+v second %+v", first, second)
		}
		if got := f.calls.Load() - before; got != 1 {
			t.Fatalf("handler ran %d times, want 1", got)
		}
	})

	t.Run("5xx releases the key", func(t *testing.T) {
		k := key()
		f.fail.Store(1)
		if r := f.post(t, "/fail", k, `{}`); r.status != 503 {
			t.Fatalf("first: %+v", r)
		}
		second := f.post(t, "/fail", k, `{}`)
		if second.status != 201 || second.replayed != "" {
			t.Fatalf("retry after 5xx: %+v, want a fresh 201", second)
		}
		if third := f.post(t, "/fail", k, `{}`); third.replayed != "true" || third.body != second.body {
			t.Fatalf("after success: %+v", third)
		}
	})

	t.Run("panic releases the key", func(t *testing.T) {
		k := key()
		before := f.calls.Load()
		for i := 0; i < 2; i++ {
			if r := f.post(t, "/panic", k, `{}`); r.status != 500 || r.replayed != "" {
				t.Fatalf("panic %d: %+v", i, r)
			}
		}
		if got := f.calls.Load() - before; got != 2 {
			t.Fatalf("handler ran %d times, want 2", got)
		}
	})

	t.Run("expired keys are replaced", func(t *testing.T) {
		k := key()
		first := f.post(t, "/things", k, `{"v":1}`)
		later := f.now.Load().Add(idempotency.DefaultTTL + time.Minute)
		f.now.Store(&later)
		// Even another body is fine once the key expired.
		second := f.post(t, "/things", k, `{"v":2}`)
		if second.status != 201 || second.replayed != "" || second.body == first.body {
			t.Fatalf("after expiry: %+v", second)
		}
		n, err := idempotency.DeleteExpired(context.Background(), f.db, later.Add(idempotency.DefaultTTL+time.Second))
		if err != nil || n == 0 {
			t.Fatalf("DeleteExpired = %d, %v; want some rows", n, err)
		}
	})

	t.Run("abandoned reservation is taken over", func(t *testing.T) {
		k := key()
		body := `{"x":1}`
		// Plant the row a crashed process leaves: in progress, long ago.
		now := *f.now.Load()
		if _, err := f.db.ExecContext(context.Background(), `INSERT INTO idempotency_keys
			(scope, key, method, path, request_hash, state, created_at, expires_at)
			VALUES ('client-a', ?, 'POST', '/things', '\x00', 'in_progress', ?, ?)`,
			k, now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if r := f.post(t, "/things", k, body); r.status != 201 || r.replayed != "" {
			t.Fatalf("takeover: %+v", r)
		}
	})
}

func TestConcurrentSameKeyRunsOnce(t *testing.T) {
	f := newFixture(t)
	k := uuid.NewString()
	const n = 6
	// All requests start together; exactly one may reserve the key.
	results := make(chan result, n)
	gate := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			<-gate
			results <- f.post(t, "/slow", k, `{"same":true}`)
		}()
	}
	close(gate)
	deadline := time.After(15 * time.Second)
	select {
	case <-f.started:
	case <-deadline:
		t.Fatal("no handler started")
	}
	// The losers answer while the winner is still running.
	for i := 1; i < n; i++ {
		select {
		case r := <-results:
			if r.status != http.StatusConflict || enumOf(t, r) != idempotency.EnumKeyInProgress {
				t.Fatalf("concurrent request = %+v, want 409 %s", r, idempotency.EnumKeyInProgress)
			}
		case <-f.started:
			t.Fatal("a second handler started for the same key")
		case <-deadline:
			t.Fatal("concurrent requests did not answer while the first ran")
		}
	}
	close(f.release)
	first := <-results
	if first.status != http.StatusCreated || first.replayed != "" {
		t.Fatalf("winner = %+v", first)
	}
	if got := f.calls.Load(); got != 1 {
		t.Fatalf("handler ran %d times, want 1", got)
	}
	if r := f.post(t, "/slow", k, `{"same":true}`); r.replayed != "true" || r.body != first.body {
		t.Fatalf("after completion: %+v", r)
	}
}

func TestReplayKeepsHeaders(t *testing.T) {
	f := newFixture(t)
	k := uuid.NewString()
	first := f.post(t, "/private", k, `{}`)
	replay := f.post(t, "/private", k, `{}`)
	if first.status != 201 || replay.replayed != "true" || replay.body != first.body {
		t.Fatalf("first %+v replay %+v", first, replay)
	}
	for _, h := range []string{"Cache-Control", "Pragma", "Location"} {
		if got, want := replay.header.Get(h), first.header.Get(h); want == "" || got != want {
			t.Errorf("replayed %s = %q, want %q", h, got, want)
		}
	}
	if got := replay.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("replayed Cache-Control = %q, want no-store", got)
	}
}

func TestNoStore(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	storedBody := func(t *testing.T, k string) (status *int, body []byte, state string) {
		t.Helper()
		err := f.db.NewSelect().TableExpr("idempotency_keys").Column("status", "response_body", "state").
			Where("scope = 'client-a' AND key = ?", k).Scan(ctx, &status, &body, &state)
		if err != nil {
			t.Fatal(err)
		}
		return status, body, state
	}

	t.Run("a retry runs again and nothing is stored", func(t *testing.T) {
		k := uuid.NewString()
		before := f.calls.Load()
		first := f.post(t, "/tokens", k, `{"s":1}`)
		second := f.post(t, "/tokens", k, `{"s":1}`)
		if first.status != 200 || second.status != 200 {
			t.Fatalf("first %+v second %+v", first, second)
		}
		if second.replayed != "" || second.body == first.body {
			t.Fatalf("the token was replayed: %+v", second)
		}
		if got := f.calls.Load() - before; got != 2 {
			t.Fatalf("handler ran %d times, want 2", got)
		}
		status, body, state := storedBody(t, k)
		if status != nil || body != nil || state != "done" {
			t.Fatalf("stored status %v body %q state %s; want nothing stored, state done", status, body, state)
		}
		n, err := f.db.NewSelect().TableExpr("idempotency_keys").
			Where("position('secret-token' in convert_from(response_body, 'UTF8')) > 0").Count(ctx)
		if err != nil || n != 0 {
			t.Fatalf("rows holding a token = %d, %v", n, err)
		}
	})

	t.Run("reuse with another body is still a conflict", func(t *testing.T) {
		k := uuid.NewString()
		f.post(t, "/tokens", k, `{"s":1}`)
		if r := f.post(t, "/tokens", k, `{"s":2}`); r.status != 409 || enumOf(t, r) != idempotency.EnumKeyReused {
			t.Fatalf("reuse = %+v", r)
		}
	})

	t.Run("a duplicate in progress is still a conflict", func(t *testing.T) {
		k := uuid.NewString()
		done := make(chan result, 1)
		go func() { done <- f.post(t, "/slow-tokens", k, `{}`) }()
		select {
		case <-f.started:
		case <-time.After(15 * time.Second):
			t.Fatal("handler did not start")
		}
		dup := f.post(t, "/slow-tokens", k, `{}`)
		close(f.release)
		if dup.status != 409 || enumOf(t, dup) != idempotency.EnumKeyInProgress {
			t.Fatalf("duplicate = %+v, want 409 %s", dup, idempotency.EnumKeyInProgress)
		}
		if first := <-done; first.status != 200 {
			t.Fatalf("first = %+v", first)
		}
	})
}
