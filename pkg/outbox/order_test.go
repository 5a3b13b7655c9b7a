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
func TestPerKeyOrderUnderConcurrentWriters(t *testing.T) {
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
	pub := outbox.NewKafkaPublisher(broker.Addrs())
	t.Cleanup(func() { _ = pub.Close() })
	relay := outbox.NewRelay(producer, pub, testLogger(t), outbox.RelayOptions{PollInterval: 20 * time.Millisecond})
	cons := consumer.New(sink, consumer.Config{
		Brokers: broker.Addrs(), GroupID: "sink", Topics: []string{topic}, Backoff: 20 * time.Millisecond,
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
				err := pgdb.InTx(ctx, producer, func(ctx context.Context, tx bun.Tx) error {
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

// TestEnqueueRefusesTooLargeEvents: an event whose Kafka record would exceed
// MaxEventBytes is refused with a typed error naming its size and the limit,
// including when it only grows past the limit as PostgreSQL renders its JSON
// back (jsonb adds a space after every comma), and nothing is stored.
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
	// 450,000 elements: 0.9 MB as sent, 1.35 MB as jsonb renders it.
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
		{"over once stored", expanding, true, 1_350_000},
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
