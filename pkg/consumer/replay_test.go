package consumer_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestReplayDeadLetters is the dead-letter loop: a handler bug sends an
// event to the DLQ; once the handler is fixed, a replay applies it exactly
// once, and replaying again sends nothing.
func TestReplayDeadLetters(t *testing.T) {
	broker := testkit.Broker(t, topic)
	db := testkit.DB(t, "svc", consumer.Migrations)
	ctx := context.Background()
	if _, err := db.Exec("CREATE TABLE applied (event_id uuid PRIMARY KEY, applications int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	var broken atomic.Bool
	broken.Store(true)
	handler := func(ctx context.Context, tx bun.Tx, e events.Event) error {
		var p payload
		if err := e.Decode(&p); err != nil {
			return err
		}
		if p.Poison && broken.Load() {
			return errors.New("ledger account missing")
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO applied VALUES (?, 1)
			ON CONFLICT (event_id) DO UPDATE SET applications = applied.applications + 1`, e.ID)
		return err
	}
	business := uuid.Must(uuid.NewV7())
	poison, good := newEvent(t, business, payload{Poison: true, Name: "poison"}), newEvent(t, business, payload{Name: "good"})
	publish(t, broker.Addrs(), poison, good)
	run(t, consumer.New(db, consumer.Config{
		Conn: events.Plain(broker.Addrs()...), GroupID: "svc", Topics: []string{topic}, MaxAttempts: 2, Backoff: 5 * time.Millisecond,
	}, handler, slog.New(slog.DiscardHandler)))
	eventually(t, 20*time.Second, "poison dead-lettered and the next event applied", func() (bool, string) {
		d := countRows(t, db, "SELECT count(*) FROM dead_letters")
		a := countRows(t, db, "SELECT count(*) FROM applied")
		return d == 1 && a == 1, fmt.Sprintf("%d dead letters, %d applied", d, a)
	})

	replay := func(f consumer.DeadLetterFilter) int {
		t.Helper()
		n, err := consumer.ReplayDeadLetters(ctx, db, events.Plain(broker.Addrs()...), f)
		if err != nil {
			t.Fatalf("ReplayDeadLetters(%+v): %v", f, err)
		}
		return n
	}
	// Filters that match no unreplayed dead letter send nothing.
	for _, f := range []consumer.DeadLetterFilter{
		{Topic: "acct.other.v1"},
		{EventIDs: []uuid.UUID{good.ID}},
		{IDs: []int64{-1}},
	} {
		if n := replay(f); n != 0 {
			t.Errorf("replay with %+v sent %d, want 0", f, n)
		}
	}

	broken.Store(false)
	if n := replay(consumer.DeadLetterFilter{Topic: topic, EventIDs: []uuid.UUID{poison.ID}}); n != 1 {
		t.Fatalf("replay sent %d, want 1", n)
	}
	eventually(t, 20*time.Second, "replayed event applied", func() (bool, string) {
		n := countRows(t, db, "SELECT count(*) FROM applied WHERE event_id = ?", poison.ID)
		return n == 1, fmt.Sprintf("%d rows", n)
	})
	if n := replay(consumer.DeadLetterFilter{}); n != 0 {
		t.Errorf("second replay sent %d, want 0", n)
	}
	// Once a later event of the business is applied, everything before it
	// on the partition (any second copy of the replay) was consumed too.
	sentinel := newEvent(t, business, payload{Name: "sentinel"})
	publish(t, broker.Addrs(), sentinel)
	eventually(t, 20*time.Second, "sentinel applied", func() (bool, string) {
		n := countRows(t, db, "SELECT count(*) FROM applied WHERE event_id = ?", sentinel.ID)
		return n == 1, fmt.Sprintf("%d rows", n)
	})

	if n := countRows(t, db, "SELECT applications FROM applied WHERE event_id = ?", poison.ID); n != 1 {
		t.Errorf("replayed event applied %d times, want once", n)
	}
	if n := countRows(t, db, "SELECT count(*) FROM dead_letters WHERE replayed_at IS NOT NULL AND event_id = ?", poison.ID); n != 1 {
		t.Errorf("dead letter not marked replayed")
	}
	if n := countRows(t, db, "SELECT count(*) FROM dead_letters"); n != 1 {
		t.Errorf("%d dead letters, want 1: the replay failed again", n)
	}
	// The topic holds the two originals, one replay and the sentinel.
	var deadLetterID int64
	if err := db.NewRaw("SELECT id FROM dead_letters").Scan(ctx, &deadLetterID); err != nil {
		t.Fatal(err)
	}
	msgs := readAll(t, broker.Addrs(), topic, 4)
	replays := 0
	for _, m := range msgs {
		for _, h := range m.Headers {
			if h.Key == consumer.HeaderReplayOf {
				replays++
				if string(h.Value) != strconv.FormatInt(deadLetterID, 10) || string(m.Value) != string(poison.Data) ||
					string(m.Key) != business.String() {
					t.Errorf("replayed message key %q value %q replay-of %q", m.Key, m.Value, h.Value)
				}
			}
		}
	}
	if replays != 1 {
		t.Errorf("topic holds %d replayed messages, want 1", replays)
	}

	if _, err := consumer.ReplayDeadLetters(ctx, db, events.Conn{}, consumer.DeadLetterFilter{}); err == nil {
		t.Error("replay without brokers: want error")
	}
}
