package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestPerKeyOrderUnderConcurrentWriters: transactions of the same business
// overlap, each enqueuing its event first and committing a few milliseconds
// later, so the order in which they enqueue is not the order in which they
// commit. Each business's events must still reach the consumer in commit
// order, recorded by a per-business counter the transaction increments after
// its Enqueue (its row lock makes the counter follow commit order).
//
// With RunInTx the events are written at the end of the transaction, after
// the counter: the key lock then spans only the insert and the commit, and
// the order must hold the same.
func TestPerKeyOrderUnderConcurrentWriters(t *testing.T) {
	for _, deferred := range []bool{false, true} {
		name := "Enqueue"
		if deferred {
			name = "RunInTx"
		}
		t.Run(name, func(t *testing.T) { testPerKeyOrder(t, deferred) })
	}
}

func testPerKeyOrder(t *testing.T, deferred bool) {
	const topic = "acct.ordertest.v1"
	writers, perWriter, keys := 16, 25, 4
	if testing.Short() {
		perWriter = 10
	}
	url := testkit.NewDatabase(t)
	broker := testkit.Broker(t, topic)
	producer := testkit.OpenSchema(t, url, "producer", outbox.Migrations)
	mustExec(t, producer, "CREATE TABLE counters (business uuid PRIMARY KEY, n int NOT NULL DEFAULT 0)")
	mustExec(t, producer, "CREATE TABLE commit_order (event_id uuid PRIMARY KEY, business uuid NOT NULL, n int NOT NULL)")
	sink := testkit.OpenSchema(t, url, "sink", consumer.Migrations)
	mustExec(t, sink, "CREATE TABLE applied (event_id uuid PRIMARY KEY, business text NOT NULL, applied_seq bigserial)")

	businesses := make([]uuid.UUID, keys)
	for i := range businesses {
		businesses[i] = uuid.Must(uuid.NewV7())
		mustExec(t, producer, "INSERT INTO counters (business) VALUES (?)", businesses[i])
	}

	ctx, cancel := context.WithCancel(context.Background())
	var bg sync.WaitGroup
	t.Cleanup(func() { cancel(); bg.Wait() })
	pub := outbox.NewKafkaPublisher(events.Plain(broker.Addrs()...))
	t.Cleanup(func() { _ = pub.Close() })
	relay := outbox.NewRelay(producer, pub, testLogger(t), outbox.RelayOptions{PollInterval: 20 * time.Millisecond})
	cons := consumer.New(sink, consumer.Config{
		Conn: events.Plain(broker.Addrs()...), GroupID: "sink", Topics: []string{topic}, Backoff: 20 * time.Millisecond,
		SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second,
	}, func(ctx context.Context, tx bun.Tx, e events.Event) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO applied (event_id, business) VALUES (?, ?)", e.ID, e.Key)
		return err
	}, testLogger(t))
	for _, run := range []func(context.Context) error{relay.Run, cons.Run} {
		bg.Add(1)
		go func() {
			defer bg.Done()
			if err := run(ctx); err != nil {
				t.Errorf("run: %v", err)
			}
		}()
	}

	pause := func() { time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond) }
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				business := businesses[(w+i)%keys]
				inTx := pgdb.InTx
				if deferred {
					inTx = outbox.RunInTx
				}
				err := inTx(ctx, producer, func(ctx context.Context, tx bun.Tx) error {
					e, err := events.New(topic, "test.step", "outbox-test", business, step{Business: business})
					if err != nil {
						return err
					}
					if err := outbox.Enqueue(ctx, tx, e); err != nil {
						return err
					}
					pause()
					if _, err := tx.ExecContext(ctx, `WITH c AS (UPDATE counters SET n = n + 1 WHERE business = ? RETURNING n)
						INSERT INTO commit_order (event_id, business, n) SELECT ?, ?, n FROM c`, business, e.ID, business); err != nil {
						return err
					}
					pause()
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("write: %v", err)
	}

	total := writers * perWriter
	waitFor(t, 45*time.Second, "all events applied", func() (bool, string) {
		n := count(t, sink, "SELECT count(*) FROM applied")
		return n == total, fmt.Sprintf("%d of %d applied", n, total)
	})
	if got := count(t, sink, `SELECT count(*) FROM (
		SELECT c.n, row_number() OVER (PARTITION BY c.business ORDER BY a.applied_seq) AS pos
		FROM applied a JOIN producer.commit_order c USING (event_id)) x
		WHERE n <> pos`); got != 0 {
		t.Errorf("%d of %d events applied out of their business's commit order", got, total)
	}
}

// TestRunInTxHoldsEventsBack: inside outbox.RunInTx, Enqueue takes no
// lock and writes nothing; the events are written when fn returns, so a
// writer of the same key that starts later is not held up and commits
// first (its event gets the lower seq). A failed fn, or a failed savepoint
// RunInTx inside it, drops its events; a too-large event still fails at
// its Enqueue.
func TestRunInTxHoldsEventsBack(t *testing.T) {
	const topic = "acct.defer.v1"
	ctx := context.Background()
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "deferred", outbox.Migrations)
	key := uuid.Must(uuid.NewV7())
	event := func(n int) events.Event {
		e, err := events.New(topic, "test.step", "outbox-test", key, map[string]int{"n": n})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	seqOf := func(id uuid.UUID) int {
		return count(t, db, "SELECT coalesce(max(seq), 0) FROM outbox WHERE id = ?", id)
	}

	first, second := event(1), event(2)
	enqueued, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- outbox.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
			if err := outbox.Enqueue(ctx, tx, first); err != nil {
				return err
			}
			close(enqueued)
			<-release
			return nil
		})
	}()
	<-enqueued
	if n := count(t, db, "SELECT count(*) FROM outbox"); n != 0 {
		t.Fatalf("%d rows visible while the deferred transaction is open", n)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := pgdb.InTx(wctx, db, func(ctx context.Context, tx bun.Tx) error { return outbox.Enqueue(ctx, tx, second) })
	cancel()
	if err != nil {
		t.Fatalf("a writer of the same key waited for the deferred transaction: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("RunInTx: %v", err)
	}
	if s1, s2 := seqOf(first.ID), seqOf(second.ID); s1 == 0 || s2 == 0 || s2 > s1 {
		t.Fatalf("seq of the deferred event %d, of the later writer's %d: want both stored, the later writer's first", s1, s2)
	}

	dropped, kept, inner := event(3), event(4), event(5)
	boom := errors.New("boom")
	err = outbox.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if err := outbox.Enqueue(ctx, tx, dropped); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("RunInTx = %v, want fn's error", err)
	}
	err = outbox.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if err := outbox.Enqueue(ctx, tx, kept); err != nil {
			return err
		}
		if err := outbox.RunInTx(ctx, tx, func(ctx context.Context, sp bun.Tx) error {
			if err := outbox.Enqueue(ctx, sp, inner); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			return fmt.Errorf("savepoint = %v, want boom", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("RunInTx with a failed savepoint: %v", err)
	}
	if seqOf(dropped.ID) != 0 || seqOf(inner.ID) != 0 || seqOf(kept.ID) == 0 {
		t.Fatalf("stored: failed tx %d, failed savepoint %d, kept %d; want only kept",
			seqOf(dropped.ID), seqOf(inner.ID), seqOf(kept.ID))
	}

	big := event(6)
	big.Data = []byte(`"` + strings.Repeat("x", outbox.MaxEventBytes) + `"`)
	err = outbox.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		err := outbox.Enqueue(ctx, tx, big)
		if !errors.Is(err, outbox.ErrEventTooLarge) {
			t.Errorf("Enqueue of a too-large event in RunInTx = %v, want ErrEventTooLarge", err)
		}
		return err
	})
	if !apperr.Is(err, apperr.PayloadTooLarge) {
		t.Fatalf("RunInTx = %v, want the 413", err)
	}
}

// TestEnqueueRefusesTooLargeEvents: an event whose Kafka record would exceed
// MaxEventBytes is refused with a typed error naming its size and the limit,
// and nothing is stored; an accepted event is stored byte for byte as sent
// (a json column), so the size checked is the size published.
func TestEnqueueRefusesTooLargeEvents(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", outbox.Migrations)
	ctx := context.Background()
	business := uuid.Must(uuid.NewV7())
	withData := func(data string) events.Event {
		e, err := events.New(testTopic, "test.big", "outbox-test", business, step{})
		if err != nil {
			t.Fatal(err)
		}
		e.Data = []byte(data)
		return e
	}
	pad := func(n int) string { return `{"pad":"` + strings.Repeat("x", n) + `"}` }
	// 450,000 elements: 0.9 MB as sent, 1.35 MB had it been re-rendered as
	// jsonb (a space after every comma); stored as sent, it fits.
	expanding := "[" + strings.TrimSuffix(strings.Repeat("1,", 450_000), ",") + "]"

	tests := []struct {
		name    string
		data    string
		tooBig  bool
		minSize int
	}{
		{"well under", pad(1000), false, 0},
		{"just under", pad(outbox.MaxEventBytes - 2000), false, 0},
		{"over", pad(outbox.MaxEventBytes), true, outbox.MaxEventBytes},
		{"far over", pad(3 << 20), true, 3 << 20},
		{"compact JSON stays compact", expanding, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, inTx := range []bool{false, true} {
				e := withData(tc.data)
				var err error
				if inTx {
					err = pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error { return outbox.Enqueue(ctx, tx, e) })
				} else {
					err = outbox.Enqueue(ctx, db, e)
				}
				stored := count(t, db, "SELECT count(*) FROM outbox WHERE id = ?", e.ID)
				if !tc.tooBig {
					if err != nil || stored != 1 {
						t.Fatalf("in tx %v: Enqueue = %v, %d rows stored; want accepted", inTx, err, stored)
					}
					var back string
					if err := db.NewRaw("SELECT data::text FROM outbox WHERE id = ?", e.ID).Scan(ctx, &back); err != nil || back != tc.data {
						t.Fatalf("in tx %v: stored data differs from the enqueued bytes (%d vs %d bytes, %v)", inTx, len(back), len(tc.data), err)
					}
					continue
				}
				if stored != 0 {
					t.Errorf("in tx %v: a refused event was stored", inTx)
				}
				if !errors.Is(err, outbox.ErrEventTooLarge) {
					t.Fatalf("in tx %v: Enqueue = %v, want ErrEventTooLarge", inTx, err)
				}
				var tooLarge *outbox.EventTooLargeError
				if !errors.As(err, &tooLarge) || tooLarge.Limit != outbox.MaxEventBytes || tooLarge.Size < tc.minSize ||
					tooLarge.ID != e.ID {
					t.Fatalf("in tx %v: error details = %+v", inTx, tooLarge)
				}
				for _, part := range []string{fmt.Sprint(tooLarge.Size), fmt.Sprint(outbox.MaxEventBytes), e.ID.String()} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q does not mention %s", err, part)
					}
				}
				var ae *apperr.Error
				if !errors.As(err, &ae) || ae.Status() != 413 {
					t.Errorf("in tx %v: error is not a 413 error object: %v", inTx, err)
				}
			}
		})
	}
}
