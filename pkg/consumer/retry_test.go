package consumer_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
)

// run starts c in the background and stops it at cleanup.
func run(t *testing.T, c *consumer.Consumer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

func publish(t *testing.T, brokers []string, evts ...events.Event) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond,
		RequiredAcks: kafka.RequireAll}
	defer w.Close()
	msgs := make([]kafka.Message, len(evts))
	for i, e := range evts {
		msgs[i] = events.ToMessage(e)
	}
	if err := w.WriteMessages(context.Background(), msgs...); err != nil {
		t.Fatal(err)
	}
}

func newEvent(t *testing.T, business uuid.UUID, p payload) events.Event {
	t.Helper()
	e, err := events.New(topic, "test.thing", "consumer-test", business, p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func eventually(t *testing.T, within time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s (%s)", within, what, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func countRows(t *testing.T, db bun.IDB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.NewRaw(query, args...).Scan(context.Background(), &n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestTransientDatabaseErrorsAreNotDeadLettered: a handler failing with a
// transient database error (real server errors of each retryable SQLSTATE,
// a real statement timeout, a lost connection) is retried until it
// succeeds, although MaxAttempts is 1; a domain error, for comparison, is
// dead-lettered after that single attempt.
func TestTransientDatabaseErrorsAreNotDeadLettered(t *testing.T) {
	const failures = 3
	broker := testkit.Broker(t, topic)
	db := testkit.DB(t, "svc", consumer.Migrations)
	if _, err := db.Exec("CREATE TABLE applied (event_id uuid PRIMARY KEY, name text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	raise := func(code string) func(context.Context, bun.Tx) error {
		return func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.ExecContext(ctx, "DO $$ BEGIN RAISE EXCEPTION 'transient' USING ERRCODE = '"+code+"'; END $$")
			return fmt.Errorf("apply: %w", err)
		}
	}
	kinds := map[string]func(context.Context, bun.Tx) error{
		"serialization failure": raise("40001"),
		"deadlock":              raise("40P01"),
		"lock not available":    raise("55P03"),
		"query canceled":        raise("57014"),
		"connection failure":    raise("08006"),
		"statement timeout": func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = '20ms'"); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "SELECT pg_sleep(1)")
			return err
		},
		"bad connection": func(context.Context, bun.Tx) error { return driver.ErrBadConn },
		"EOF":            func(context.Context, bun.Tx) error { return fmt.Errorf("read reply: %w", io.EOF) },
		"domain error":   func(context.Context, bun.Tx) error { return errors.New("ledger account missing") },
	}

	var mu sync.Mutex
	attempts := map[string]int{}
	handler := func(ctx context.Context, tx bun.Tx, e events.Event) error {
		var p payload
		if err := e.Decode(&p); err != nil {
			return err
		}
		mu.Lock()
		attempts[p.Name]++
		n := attempts[p.Name]
		mu.Unlock()
		if n <= failures || p.Name == "domain error" {
			return kinds[p.Name](ctx, tx)
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO applied VALUES (?, ?)", e.ID, p.Name)
		return err
	}
	var evts []events.Event
	for name := range kinds {
		evts = append(evts, newEvent(t, uuid.Must(uuid.NewV7()), payload{Name: name}))
	}
	publish(t, broker.Addrs(), evts...)
	run(t, consumer.New(db, consumer.Config{
		Conn: events.Plain(broker.Addrs()...), GroupID: "svc", Topics: []string{topic}, MaxAttempts: 1, Backoff: 5 * time.Millisecond,
	}, handler, slog.New(slog.DiscardHandler)))

	eventually(t, 30*time.Second, "every event applied or dead-lettered", func() (bool, string) {
		a := countRows(t, db, "SELECT count(*) FROM applied")
		d := countRows(t, db, "SELECT count(*) FROM dead_letters")
		return a+d == len(kinds), fmt.Sprintf("%d applied, %d dead letters", a, d)
	})
	mu.Lock()
	defer mu.Unlock()
	for name := range kinds {
		if name == "domain error" {
			continue
		}
		if attempts[name] != failures+1 {
			t.Errorf("%s: %d attempts, want %d", name, attempts[name], failures+1)
		}
		if n := countRows(t, db, "SELECT count(*) FROM applied WHERE name = ?", name); n != 1 {
			t.Errorf("%s: applied %d times, want once", name, n)
		}
	}
	if attempts["domain error"] != 1 {
		t.Errorf("domain error: %d attempts, want 1 (MaxAttempts)", attempts["domain error"])
	}
	var dead []string
	if err := db.NewRaw("SELECT error FROM dead_letters").Scan(context.Background(), &dead); err != nil {
		t.Fatal(err)
	}
	if len(dead) != 1 || dead[0] != "ledger account missing" {
		t.Errorf("dead letters = %q, want only the domain error", dead)
	}
}

// TestNotYetIsWaitedOutWithinItsWindow: a handler answering ErrNotYet
// (the event came before what it depends on) is retried without counting
// attempts while the window lasts, so the event applies once the
// prerequisite arrives although MaxAttempts is 1; past the window the
// answer counts as a failure and the event is dead-lettered.
func TestNotYetIsWaitedOutWithinItsWindow(t *testing.T) {
	broker := testkit.Broker(t, topic)
	db := testkit.DB(t, "svc", consumer.Migrations)
	if _, err := db.Exec("CREATE TABLE applied (event_id uuid PRIMARY KEY, name text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	attempts := map[string]int{}
	handler := func(ctx context.Context, tx bun.Tx, e events.Event) error {
		var p payload
		if err := e.Decode(&p); err != nil {
			return err
		}
		mu.Lock()
		attempts[p.Name]++
		n := attempts[p.Name]
		mu.Unlock()
		// "arrives" gets its prerequisite at the fourth try; "never" never does.
		if p.Name == "never" || n < 4 {
			return fmt.Errorf("chart of the business missing: %w", consumer.ErrNotYet)
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO applied VALUES (?, ?)", e.ID, p.Name)
		return err
	}
	publish(t, broker.Addrs(), newEvent(t, uuid.Must(uuid.NewV7()), payload{Name: "arrives"}),
		newEvent(t, uuid.Must(uuid.NewV7()), payload{Name: "never"}))
	run(t, consumer.New(db, consumer.Config{
		Conn: events.Plain(broker.Addrs()...), GroupID: "svc", Topics: []string{topic}, MaxAttempts: 1, Backoff: 5 * time.Millisecond,
		// Generous against the 5 ms backoff: four tries fit even on a loaded
		// machine under -race (300 ms did not, once).
		NotYetWindow: 5 * time.Second,
	}, handler, slog.New(slog.DiscardHandler)))

	eventually(t, 30*time.Second, "one applied, one dead-lettered", func() (bool, string) {
		a := countRows(t, db, "SELECT count(*) FROM applied WHERE name = 'arrives'")
		d := countRows(t, db, "SELECT count(*) FROM dead_letters")
		return a == 1 && d == 1, fmt.Sprintf("%d applied, %d dead letters", a, d)
	})
	mu.Lock()
	defer mu.Unlock()
	if attempts["arrives"] != 4 {
		t.Errorf("arrives: %d attempts, want 4", attempts["arrives"])
	}
	if attempts["never"] < 3 {
		t.Errorf("never: dead-lettered after %d attempts, want retries during the window first", attempts["never"])
	}
}

// TestPartitionsAreConsumedIndependently: while the handler is stuck on
// business X's event, the events of business Y, on another partition, are
// applied; X's events then follow in order.
func TestPartitionsAreConsumedIndependently(t *testing.T) {
	broker := testkit.Broker(t, topic)
	db := testkit.DB(t, "svc", consumer.Migrations)
	if _, err := db.Exec("CREATE TABLE applied (event_id uuid PRIMARY KEY, key text NOT NULL, seq bigserial)"); err != nil {
		t.Fatal(err)
	}
	partitions := make([]int, testkit.DefaultPartitions)
	for i := range partitions {
		partitions[i] = i
	}
	partitionOf := func(id uuid.UUID) int {
		return (&kafka.Hash{}).Balance(kafka.Message{Key: []byte(id.String())}, partitions...)
	}
	x, y := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	for partitionOf(y) == partitionOf(x) {
		y = uuid.Must(uuid.NewV7())
	}

	release := make(chan struct{})
	handler := func(ctx context.Context, tx bun.Tx, e events.Event) error {
		if e.Key == x.String() {
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO applied (event_id, key) VALUES (?, ?)", e.ID, e.Key)
		return err
	}
	x1 := newEvent(t, x, payload{Name: "x1"})
	publish(t, broker.Addrs(), x1)
	var ys []events.Event
	for i := range 5 {
		ys = append(ys, newEvent(t, y, payload{Name: fmt.Sprint("y", i)}))
	}
	publish(t, broker.Addrs(), ys...)
	run(t, consumer.New(db, consumer.Config{
		Conn: events.Plain(broker.Addrs()...), GroupID: "svc", Topics: []string{topic}, Backoff: 5 * time.Millisecond,
	}, handler, slog.New(slog.DiscardHandler)))

	eventually(t, 20*time.Second, "business Y's events applied while X's is stuck", func() (bool, string) {
		n := countRows(t, db, "SELECT count(*) FROM applied WHERE key = ?", y.String())
		return n == len(ys), fmt.Sprintf("%d of %d", n, len(ys))
	})
	if n := countRows(t, db, "SELECT count(*) FROM applied WHERE key = ?", x.String()); n != 0 {
		t.Fatalf("X's event applied while its handler was stuck (%d rows)", n)
	}

	close(release)
	x2 := newEvent(t, x, payload{Name: "x2"})
	publish(t, broker.Addrs(), x2)
	eventually(t, 20*time.Second, "business X's events applied", func() (bool, string) {
		n := countRows(t, db, "SELECT count(*) FROM applied WHERE key = ?", x.String())
		return n == 2, fmt.Sprintf("%d of 2", n)
	})
	var order []uuid.UUID
	if err := db.NewRaw("SELECT event_id FROM applied WHERE key = ? ORDER BY seq", x.String()).
		Scan(context.Background(), &order); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != x1.ID || order[1] != x2.ID {
		t.Errorf("X's events applied as %v, want %s then %s", order, x1.ID, x2.ID)
	}
}
