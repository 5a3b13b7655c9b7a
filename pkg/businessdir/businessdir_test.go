package businessdir_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/acctsuite/acct/pkg/businessdir"
	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func ptr(s string) *string { return &s }

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func business(id uuid.UUID, name string, updated time.Time) events.Business {
	return events.Business{
		ID: id, ClientID: "client-a", ExternalID: ptr("ext-1"), LegalName: name, USState: ptr("NY"), Country: "US",
		EntityType: ptr("LLC"), DefaultReportingBasis: "ACCRUAL", CreatedAt: t0, UpdatedAt: updated,
	}
}

func event(t *testing.T, typ string, b events.Business) events.Event {
	t.Helper()
	e, err := events.New(events.TopicBusiness, typ, "auth-tokens", b.ID, b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestProjectionFromAnotherService plays two services on one database: auth-
// tokens (schema auth) publishes business events through its outbox, and a
// second service (schema reports) keeps the directory with a consumer.
func TestProjectionFromAnotherService(t *testing.T) {
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })

	url := testkit.NewDatabase(t)
	broker := testkit.Broker(t, events.TopicBusiness)
	auth := testkit.OpenSchema(t, url, "auth", outbox.Migrations)
	reports := testkit.OpenSchema(t, url, "reports", consumer.Migrations, businessdir.Migrations)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	pub := outbox.NewKafkaPublisher(events.Plain(broker.Addrs()...))
	t.Cleanup(func() { _ = pub.Close() })
	relay := outbox.NewRelay(auth, pub, testLogger(), outbox.RelayOptions{})

	var mu sync.Mutex
	traces := map[uuid.UUID]trace.TraceID{}
	handle := func(ctx context.Context, tx bun.Tx, e events.Event) error {
		mu.Lock()
		traces[e.ID] = trace.SpanContextFromContext(ctx).TraceID()
		mu.Unlock()
		return businessdir.Handle(ctx, tx, e)
	}
	cons := consumer.New(reports, consumer.Config{
		Conn: events.Plain(broker.Addrs()...), GroupID: "reports", Topics: []string{events.TopicBusiness},
	}, handle, testLogger())
	for _, run := range []func(context.Context) error{relay.Run, cons.Run} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := run(ctx); err != nil {
				t.Errorf("run: %v", err)
			}
		}()
	}

	// auth-tokens creates then renames a business, in its own transactions,
	// while handling a traced request.
	traceID, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	spanID, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	reqCtx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled, Remote: true}))
	id := uuid.Must(uuid.NewV7())
	created := event(t, events.TypeBusinessCreated, business(id, "Acme LLC", t0))
	updated := event(t, events.TypeBusinessUpdated, business(id, "Acme Holdings LLC", t0.Add(time.Hour)))
	for _, e := range []events.Event{created, updated} {
		if err := pgdb.InTx(reqCtx, auth, func(ctx context.Context, tx bun.Tx) error {
			return outbox.Enqueue(ctx, tx, e)
		}); err != nil {
			t.Fatal(err)
		}
	}

	dir := businessdir.New(reports)
	waitFor(t, "the rename to be projected", func() bool {
		b, found, err := dir.Find(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return found && b.LegalName == "Acme Holdings LLC"
	})
	owner, found, err := dir.OwnerOf(context.Background(), id)
	if err != nil || !found || owner != "client-a" {
		t.Errorf("OwnerOf = %q, %v, %v; want client-a", owner, found, err)
	}
	b, _, _ := dir.Find(context.Background(), id)
	if *b.USState != "NY" || *b.ExternalID != "ext-1" || !b.CreatedAt.Equal(t0) || !b.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("projected business = %+v", b)
	}
	mu.Lock()
	if traces[created.ID] != traceID || traces[updated.ID] != traceID {
		t.Errorf("handler trace ids = %v, want the producer's %s", traces, traceID)
	}
	mu.Unlock()

	// A late, older update (e.g. a replay) does not regress the projection.
	stale := event(t, events.TypeBusinessUpdated, business(id, "Stale Name", t0.Add(30*time.Minute)))
	if err := outbox.Enqueue(context.Background(), auth, stale); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stale update to be consumed", func() bool {
		var n int
		if err := reports.NewRaw("SELECT count(*) FROM inbox WHERE event_id = ?", stale.ID).Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	if b, _, _ := dir.Find(context.Background(), id); b.LegalName != "Acme Holdings LLC" {
		t.Errorf("older update applied: legal name %q", b.LegalName)
	}

	if _, found, err := dir.OwnerOf(context.Background(), uuid.Must(uuid.NewV7())); found || err != nil {
		t.Errorf("OwnerOf unknown business = found %v, err %v", found, err)
	}
}

func testLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.DiscardHandler)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestHandle(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", businessdir.Migrations)
	ctx := context.Background()
	dir := businessdir.New(db)
	id := uuid.Must(uuid.NewV7())

	apply := func(e events.Event) error {
		return pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error { return businessdir.Handle(ctx, tx, e) })
	}
	withTime := func(e events.Event, at time.Time) events.Event { e.Time = at; return e }
	raw := func(typ string, data string) events.Event {
		e := event(t, typ, business(id, "x", t0))
		e.Data = json.RawMessage(data)
		return e
	}
	mutate := func(f func(*events.Business)) events.Event {
		b := business(id, "x", t0)
		f(&b)
		e, err := events.New(events.TopicBusiness, events.TypeBusinessUpdated, "auth-tokens", id, b)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	subjectMismatch := event(t, events.TypeBusinessCreated, business(id, "x", t0))
	subjectMismatch.Subject = uuid.Must(uuid.NewV7()).String()

	steps := []struct {
		name     string
		e        events.Event
		wantErr  bool
		wantName string // legal name after the step; "" means no row
	}{
		{"other event types are ignored", raw("invoice.created", `{"id":"nonsense"}`), false, ""},
		{"payload not a business", raw(events.TypeBusinessCreated, `[1,2]`), true, ""},
		{"no id", mutate(func(b *events.Business) { b.ID = uuid.Nil }), true, ""},
		{"subject differs from id", subjectMismatch, true, ""},
		{"no client", mutate(func(b *events.Business) { b.ClientID = "" }), true, ""},
		{"no legal name", mutate(func(b *events.Business) { b.LegalName = "" }), true, ""},
		{"no updated_at", mutate(func(b *events.Business) { b.UpdatedAt = time.Time{} }), true, ""},
		{"created", withTime(event(t, events.TypeBusinessCreated, business(id, "One", t0)), t0), false, "One"},
		{"newer update applies", withTime(event(t, events.TypeBusinessUpdated, business(id, "Two", t0.Add(2*time.Hour))), t0.Add(2*time.Hour)), false, "Two"},
		{"older update is ignored", withTime(event(t, events.TypeBusinessUpdated, business(id, "Old", t0.Add(time.Hour))), t0.Add(3*time.Hour)), false, "Two"},
		{"replayed created is ignored", withTime(event(t, events.TypeBusinessCreated, business(id, "One", t0)), t0), false, "Two"},
		{"same updated_at, later event applies", withTime(event(t, events.TypeBusinessUpdated, business(id, "Three", t0.Add(2*time.Hour))), t0.Add(4*time.Hour)), false, "Three"},
		{"same updated_at, earlier event is ignored", withTime(event(t, events.TypeBusinessUpdated, business(id, "Nope", t0.Add(2*time.Hour))), t0.Add(3*time.Hour)), false, "Three"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			err := apply(s.e)
			if (err != nil) != s.wantErr {
				t.Fatalf("Handle error = %v, want error %v", err, s.wantErr)
			}
			b, found, err := dir.Find(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if s.wantName == "" {
				if found {
					t.Fatalf("row exists: %+v", b)
				}
				return
			}
			if !found || b.LegalName != s.wantName {
				t.Fatalf("legal name = %q (found %v), want %q", b.LegalName, found, s.wantName)
			}
		})
	}
}

// TestCachedDirectory: a cached directory answers a business it read from
// memory until the TTL passes (then the latest projection), never keeps an
// unknown business (a business is found as soon as it is projected), and
// OwnerOf answers from the same entries.
func TestCachedDirectory(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", businessdir.Migrations)
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	dir := businessdir.New(db).Cached(100, ttl)
	exact := businessdir.New(db)
	id := uuid.Must(uuid.NewV7())
	apply := func(e events.Event) {
		t.Helper()
		if err := pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error { return businessdir.Handle(ctx, tx, e) }); err != nil {
			t.Fatal(err)
		}
	}

	if _, found, err := dir.Find(ctx, id); err != nil || found {
		t.Fatalf("unknown business: found %v, %v", found, err)
	}
	apply(event(t, events.TypeBusinessCreated, business(id, "First", t0)))
	if b, found, err := dir.Find(ctx, id); err != nil || !found || b.LegalName != "First" {
		t.Fatalf("after creation: %+v %v %v (an unknown business must not be cached)", b, found, err)
	}
	renamed := business(id, "Second", t0.Add(time.Hour))
	renamed.Country = "CA"
	renamed.USState = nil
	apply(event(t, events.TypeBusinessUpdated, renamed))
	if b, _, _ := exact.Find(ctx, id); b.LegalName != "Second" {
		t.Fatalf("the uncached directory answers %q, want the update", b.LegalName)
	}
	if b, _, _ := dir.Find(ctx, id); b.LegalName != "First" {
		t.Fatalf("within the TTL the cached directory answers %q, want the cached First", b.LegalName)
	}
	if owner, found, err := dir.OwnerOf(ctx, id); err != nil || !found || owner != "client-a" {
		t.Fatalf("OwnerOf = %q %v %v", owner, found, err)
	}
	if _, found, _ := dir.OwnerOf(ctx, uuid.Must(uuid.NewV7())); found {
		t.Fatal("OwnerOf found an unknown business")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _, err := dir.Find(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if b.LegalName == "Second" && b.Country == "CA" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cached directory still answers %+v long after the TTL", b)
		}
		time.Sleep(ttl / 3)
	}
}

// TestFiscalYearProjected: the projection keeps the month a business's
// fiscal year starts in; an event without it (older auth-tokens) means
// January, and a later event moves it.
func TestFiscalYearProjected(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", businessdir.Migrations)
	ctx := context.Background()
	dir := businessdir.New(db)
	id := uuid.Must(uuid.NewV7())
	steps := []struct {
		name  string
		month int // of the event; 0: absent
		at    time.Time
		want  int
	}{
		{"older event without the month", 0, t0, 1},
		{"a fiscal year from July", 7, t0.Add(time.Hour), 7},
		{"an out-of-range month reads as January", 13, t0.Add(2 * time.Hour), 1},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			b := business(id, "x", s.at)
			b.FiscalYearStartMonth = s.month
			e := event(t, events.TypeBusinessUpdated, b)
			if err := pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error { return businessdir.Handle(ctx, tx, e) }); err != nil {
				t.Fatal(err)
			}
			got, ok, err := dir.Find(ctx, id)
			if err != nil || !ok || got.FiscalYearStart() != s.want || got.FiscalYearStartMonth != s.want {
				t.Fatalf("projected %+v (%v, %v), want fiscal year from month %d", got, ok, err, s.want)
			}
		})
	}
}
