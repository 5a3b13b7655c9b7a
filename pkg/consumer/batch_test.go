package consumer_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
)

// batchFixture is a database with an `applied` table that records every
// application (no key: an event applied twice shows as two rows) and a
// backlog of events published before the consumer starts, so batches form.
type batchFixture struct {
	broker *testkit.BrokerHandle
	db     *bun.DB
	evts   []events.Event

	mu      sync.Mutex
	batches []int // sizes of the batches the batch handler saw
	calls   map[uuid.UUID]int
}

func newBatchFixture(t *testing.T, n int, poison map[int]bool) *batchFixture {
	t.Helper()
	f := &batchFixture{broker: testkit.Broker(t, topic), db: testkit.DB(t, "svc", consumer.Migrations), calls: map[uuid.UUID]int{}}
	if _, err := f.db.Exec("CREATE TABLE applied (event_id uuid NOT NULL, name text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	// Two businesses: both keys' partitions get a backlog.
	biz := []uuid.UUID{uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())}
	for i := range n {
		f.evts = append(f.evts, newEvent(t, biz[i%2], payload{Name: fmt.Sprint("e", i), Poison: poison[i]}))
	}
	return f
}

// handler applies one event (and fails a poison one after writing).
func (f *batchFixture) handler(ctx context.Context, tx bun.Tx, e events.Event) error {
	var p payload
	if err := e.Decode(&p); err != nil {
		return err
	}
	f.mu.Lock()
	f.calls[e.ID]++
	f.mu.Unlock()
	if _, err := tx.ExecContext(ctx, "INSERT INTO applied VALUES (?, ?)", e.ID, p.Name); err != nil {
		return err
	}
	if p.Poison {
		return errors.New("poison " + p.Name)
	}
	return nil
}

// batchHandler applies a batch with one statement per batch, as a service
// merging a batch's rows would.
func (f *batchFixture) batchHandler(ctx context.Context, tx bun.Tx, es []events.Event) error {
	f.mu.Lock()
	f.batches = append(f.batches, len(es))
	f.mu.Unlock()
	ids, names := make([]string, len(es)), make([]string, len(es))
	for i, e := range es {
		var p payload
		if err := e.Decode(&p); err != nil {
			return err
		}
		if p.Poison {
			return errors.New("poison " + p.Name)
		}
		ids[i], names[i] = e.ID.String(), p.Name
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO applied SELECT unnest(?::uuid[]), unnest(?::text[])", pgArray(ids), pgArray(names))
	return err
}

func (f *batchFixture) consumer(group string, batchSize int, withBatchHandler bool, stats *consumer.Stats, inboxFree ...string) *consumer.Consumer {
	c := consumer.New(f.db, consumer.Config{
		Conn: events.Plain(f.broker.Addrs()...), GroupID: group, Topics: []string{topic},
		MaxAttempts: 2, Backoff: 5 * time.Millisecond, BatchSize: batchSize, Stats: stats,
		CommitInterval: 50 * time.Millisecond, InboxFree: inboxFree,
	}, f.handler, slog.New(slog.DiscardHandler))
	if withBatchHandler {
		c.WithBatchHandler(f.batchHandler)
	}
	return c
}

// exactlyOnce checks that every non-poison event was applied once and
// nothing else was.
func (f *batchFixture) exactlyOnce(t *testing.T, poison map[int]bool) {
	t.Helper()
	var rows []struct {
		EventID uuid.UUID `bun:"event_id"`
		N       int       `bun:"n"`
	}
	if err := f.db.NewRaw("SELECT event_id, count(*) AS n FROM applied GROUP BY event_id").Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	got := map[uuid.UUID]int{}
	for _, r := range rows {
		got[r.EventID] = r.N
	}
	for i, e := range f.evts {
		want := 1
		if poison[i] {
			want = 0
		}
		if got[e.ID] != want {
			t.Errorf("event %d applied %d times, want %d", i, got[e.ID], want)
		}
	}
	if len(got) > len(f.evts) {
		t.Errorf("%d distinct events applied, only %d published", len(got), len(f.evts))
	}
}

func pgArray(ss []string) string {
	out := "{"
	for i, s := range ss {
		if i > 0 {
			out += ","
		}
		out += `"` + s + `"`
	}
	return out + "}"
}

// TestBatchAppliesEveryEventOnce: a backlog of 600 messages (every tenth
// published twice) is applied in batches, each event exactly once, with
// the handler for each new event or the batch handler; the stats count
// every message (duplicates included), end with no lag and the newest
// event time. A redelivery of everything (a new group on the same
// database) changes nothing.
func TestBatchAppliesEveryEventOnce(t *testing.T) {
	for _, withBatchHandler := range []bool{false, true} {
		t.Run(fmt.Sprintf("batch handler %v", withBatchHandler), func(t *testing.T) {
			const n = 600
			f := newBatchFixture(t, n, nil)
			msgs := append([]events.Event{}, f.evts...)
			for i := 0; i < n; i += 10 {
				msgs = append(msgs, f.evts[i])
			}
			publish(t, f.broker.Addrs(), msgs...)
			stats := consumer.NewStats()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- f.consumer("svc", 100, withBatchHandler, stats).Run(ctx) }()
			eventually(t, 60*time.Second, "every message processed", func() (bool, string) {
				s := stats.Snapshot()
				return len(s) == 1 && s[0].Applied == int64(len(msgs)) && s[0].Lag == 0, fmt.Sprintf("%+v", s)
			})
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			f.exactlyOnce(t, nil)
			var newest time.Time
			for _, e := range f.evts {
				if e.Time.After(newest) {
					newest = e.Time
				}
			}
			if s := stats.Snapshot()[0]; !s.LastEventTime.Equal(newest) || s.DeadLettered != 0 {
				t.Errorf("stats %+v, want the newest event time %s and no dead letter", s, newest)
			}
			if withBatchHandler {
				f.mu.Lock()
				big := 0
				for _, b := range f.batches {
					big = max(big, b)
				}
				f.mu.Unlock()
				if big < 2 {
					t.Errorf("batches %v: no batch of more than one event", f.batches)
				}
			}
			if k := countRows(t, f.db, "SELECT count(*) FROM inbox"); k != n {
				t.Errorf("inbox has %d rows, want %d", k, n)
			}

			// Redelivered: every message again to a new group.
			stats2 := consumer.NewStats()
			ctx, cancel = context.WithCancel(context.Background())
			go func() { done <- f.consumer("svc-again", 100, withBatchHandler, stats2).Run(ctx) }()
			eventually(t, 60*time.Second, "every message processed again", func() (bool, string) {
				s := stats2.Snapshot()
				return len(s) == 1 && s[0].Applied == int64(len(msgs)) && s[0].Lag == 0, fmt.Sprintf("%+v", s)
			})
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			f.exactlyOnce(t, nil)
		})
	}
}

// TestInboxFreeTopic: a topic listed in InboxFree is applied without inbox
// rows, one event at a time or in batches: every event once, and an event
// published again reaches the handler again (the handlers of such a topic
// are idempotent by their own keys; this fixture's are not, which shows
// it).
func TestInboxFreeTopic(t *testing.T) {
	for _, batchSize := range []int{1, 100} {
		t.Run(fmt.Sprintf("batch size %d", batchSize), func(t *testing.T) {
			const n = 200
			f := newBatchFixture(t, n, nil)
			publish(t, f.broker.Addrs(), f.evts...)
			stats := consumer.NewStats()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- f.consumer("svc", batchSize, batchSize > 1, stats, topic).Run(ctx) }()
			applied := func(want int) {
				t.Helper()
				eventually(t, 60*time.Second, "every message processed", func() (bool, string) {
					s := stats.Snapshot()
					return len(s) == 1 && s[0].Applied == int64(want) && s[0].Lag == 0, fmt.Sprintf("%+v", s)
				})
			}
			applied(n)
			f.exactlyOnce(t, nil)
			// Every tenth event published again, after the first ones were
			// applied: each reaches the handler a second time.
			var again []events.Event
			for i := 0; i < n; i += 10 {
				again = append(again, f.evts[i])
			}
			publish(t, f.broker.Addrs(), again...)
			applied(n + len(again))
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			twice := countRows(t, f.db, "SELECT count(*) FROM (SELECT event_id FROM applied GROUP BY event_id HAVING count(*) = 2) x")
			if total := countRows(t, f.db, "SELECT count(*) FROM applied"); twice != len(again) || total != n+len(again) {
				t.Errorf("%d events applied twice and %d applications, want %d and %d", twice, total, len(again), n+len(again))
			}
			if k := countRows(t, f.db, "SELECT count(*) FROM inbox"); k != 0 {
				t.Errorf("inbox has %d rows, want none for an inbox-free topic", k)
			}
		})
	}
}

// TestBatchPoisonEventIsDeadLetteredAlone: a poison event in the middle of
// a backlog fails its batch; the batch is applied again message by
// message, so only the poison event is dead-lettered (after MaxAttempts)
// and every other event of the batch applies once.
func TestBatchPoisonEventIsDeadLetteredAlone(t *testing.T) {
	for _, withBatchHandler := range []bool{false, true} {
		t.Run(fmt.Sprintf("batch handler %v", withBatchHandler), func(t *testing.T) {
			const n = 300
			poison := map[int]bool{150: true}
			f := newBatchFixture(t, n, poison)
			publish(t, f.broker.Addrs(), f.evts...)
			stats := consumer.NewStats()
			run(t, f.consumer("svc", 200, withBatchHandler, stats))
			eventually(t, 60*time.Second, "every message processed", func() (bool, string) {
				s := stats.Snapshot()
				return len(s) == 1 && s[0].Applied+s[0].DeadLettered == n && s[0].Lag == 0, fmt.Sprintf("%+v", s)
			})
			f.exactlyOnce(t, poison)
			var dead []uuid.UUID
			if err := f.db.NewRaw("SELECT event_id FROM dead_letters").Scan(context.Background(), &dead); err != nil {
				t.Fatal(err)
			}
			if len(dead) != 1 || dead[0] != f.evts[150].ID {
				t.Fatalf("dead letters %v, want only the poison event %s", dead, f.evts[150].ID)
			}
			if s := stats.Snapshot()[0]; s.DeadLettered != 1 || s.Applied != n-1 {
				t.Errorf("stats %+v", s)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			// MaxAttempts one by one, after the failed batch's call
			// when the batch ran the handler for each event.
			want := 2
			if !withBatchHandler {
				want++
			}
			if c := f.calls[f.evts[150].ID]; c != want {
				t.Errorf("poison event handled %d times, want %d", c, want)
			}
			if a := countRows(t, f.db, "SELECT attempts FROM dead_letters"); a != 2 {
				t.Errorf("dead letter after %d attempts, want MaxAttempts = 2", a)
			}
		})
	}
}

// TestBatchCrashMidBatchLosesNothing: the consumer is stopped while a
// batch is being applied (its handler blocked in the middle of the batch);
// the batch's transaction rolls back, its offsets are not committed, and a
// restarted consumer of the group applies every event exactly once.
func TestBatchCrashMidBatchLosesNothing(t *testing.T) {
	const n = 400
	f := newBatchFixture(t, n, nil)
	publish(t, f.broker.Addrs(), f.evts...)
	stuck := make(chan struct{})
	var once sync.Once
	crashAt := f.evts[250].ID
	c := consumer.New(f.db, consumer.Config{
		Conn: events.Plain(f.broker.Addrs()...), GroupID: "svc", Topics: []string{topic}, BatchSize: 50,
		Backoff: 5 * time.Millisecond, CommitInterval: 20 * time.Millisecond,
	}, func(ctx context.Context, tx bun.Tx, e events.Event) error {
		if err := f.handler(ctx, tx, e); err != nil {
			return err
		}
		if e.ID == crashAt {
			once.Do(func() { close(stuck) })
			<-ctx.Done() // the process dies here, mid-batch
			return ctx.Err()
		}
		return nil
	}, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	select {
	case <-stuck:
	case <-time.After(60 * time.Second):
		t.Fatal("the crash point was never reached")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if k := countRows(t, f.db, "SELECT count(*) FROM applied WHERE event_id = ?", crashAt); k != 0 {
		t.Fatalf("the interrupted batch's writes survived (%d rows)", k)
	}
	before := countRows(t, f.db, "SELECT count(*) FROM applied")
	if before >= n-1 {
		t.Fatalf("%d events applied before the crash: the crash was not mid-backlog", before)
	}

	stats := consumer.NewStats()
	run(t, f.consumer("svc", 50, false, stats))
	eventually(t, 60*time.Second, "every event applied after the restart", func() (bool, string) {
		k := countRows(t, f.db, "SELECT count(DISTINCT event_id) FROM applied")
		return k == n, fmt.Sprintf("%d of %d", k, n)
	})
	f.exactlyOnce(t, nil)
}

// TestBatchSpansFetches: while a transaction is under way, the reader
// keeps fetching, and each fetch's messages carry the partition's end as
// it was then; the next batch takes everything the reader holds, not
// just up to the first fetch's end (a consumer behind a trickle of
// small fetches catches up in one transaction, not one per fetch).
func TestBatchSpansFetches(t *testing.T) {
	f := newBatchFixture(t, 0, nil)
	biz := uuid.Must(uuid.NewV7()) // one business: one partition
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	c := consumer.New(f.db, consumer.Config{
		Conn: events.Plain(f.broker.Addrs()...), GroupID: "svc", Topics: []string{topic},
		MaxAttempts: 2, Backoff: 5 * time.Millisecond, BatchSize: 100, CommitInterval: 50 * time.Millisecond,
	}, func(ctx context.Context, tx bun.Tx, e events.Event) error {
		once.Do(func() { close(started); <-release }) // the first transaction takes a while
		return f.handler(ctx, tx, e)
	}, slog.New(slog.DiscardHandler)).WithBatchHandler(f.batchHandler)
	first := newEvent(t, biz, payload{Name: "first"})
	publish(t, f.broker.Addrs(), first)
	f.evts = append(f.evts, first)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the first event was not taken")
	}
	// 20 events published one at a time while the first transaction
	// waits: the reader fetches them in several fetches.
	const later = 20
	for i := range later {
		e := newEvent(t, biz, payload{Name: fmt.Sprint("later", i)})
		publish(t, f.broker.Addrs(), e)
		f.evts = append(f.evts, e)
		time.Sleep(30 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	close(release)
	eventually(t, 30*time.Second, "every event applied", func() (bool, string) {
		n := countRows(t, f.db, "SELECT count(*) FROM applied")
		return n == later+1, fmt.Sprint(n, " applied")
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.exactlyOnce(t, nil)
	f.mu.Lock()
	defer f.mu.Unlock()
	// The events arrived in many fetches (one every 30 ms); a batch that
	// stopped at a fetch's end would hold one or two. Under load the
	// reader may still be fetching the last few when the batch starts, so
	// the first batch must hold most of them, not necessarily all.
	if len(f.batches) == 0 || f.batches[0] < later/2 {
		t.Fatalf("batches after the first event: %v, want a first one of most of the %d", f.batches, later)
	}
}

// Single hands a batch handler one event at a time, as a batch of one.
func TestBatchHandlerSingle(t *testing.T) {
	var got [][]events.Event
	bh := consumer.BatchHandler(func(_ context.Context, _ bun.Tx, es []events.Event) error {
		got = append(got, es)
		return nil
	})
	e := events.Event{ID: uuid.New(), Type: "x.y"}
	if err := bh.Single()(context.Background(), bun.Tx{}, e); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0]) != 1 || got[0][0].ID != e.ID {
		t.Fatalf("the batch handler got %v, want one batch of the one event", got)
	}
}
