package outbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

const testTopic = "acct.outboxtest.v1"

func testLogger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.DiscardHandler)
}

func mustExec(t *testing.T, db bun.IDB, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// step is the payload of the test events: the n-th event of a business.
type step struct {
	Business uuid.UUID `json:"business"`
	N        int       `json:"n"`
}

// applyStep is the consumer's handler: it counts applications per event and
// records the order in which each business's events were applied.
func applyStep(ctx context.Context, tx bun.Tx, e events.Event) error {
	var s step
	if err := e.Decode(&s); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO applied (event_id, business, n, applications)
		VALUES (?, ?, ?, 1)
		ON CONFLICT (event_id) DO UPDATE SET applications = applied.applications + 1`, e.ID, s.Business, s.N)
	return err
}

// writer commits domain changes with their events, one business after
// another, like a service handling requests.
type writer struct {
	db        *bun.DB
	mu        sync.Mutex
	next      map[uuid.UUID]int
	committed int
}

func (w *writer) write(ctx context.Context, business uuid.UUID) error {
	w.mu.Lock()
	w.next[business]++
	n := w.next[business]
	w.mu.Unlock()
	e, err := events.New(testTopic, "test.step", "outbox-test", business, step{Business: business, N: n})
	if err != nil {
		return err
	}
	err = pgdb.InTx(ctx, w.db, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO domain_writes (business, n) VALUES (?, ?)", business, n); err != nil {
			return err
		}
		return outbox.Enqueue(ctx, tx, e)
	})
	if err == nil {
		w.mu.Lock()
		w.committed++
		w.mu.Unlock()
	}
	return err
}

// writeConcurrently writes total events with one goroutine per business
// group, so each business's events are committed in sequence.
func (w *writer) writeConcurrently(t *testing.T, groups [][]uuid.UUID, total int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(groups))
	per := total / len(groups)
	for _, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				if err := w.write(context.Background(), g[i%len(g)]); err != nil {
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
}

func waitFor(t *testing.T, within time.Duration, what string, cond func() (bool, string)) {
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
		time.Sleep(100 * time.Millisecond)
	}
}

func count(t *testing.T, db bun.IDB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.NewRaw(query, args...).Scan(context.Background(), &n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestDeliveryExactlyOnceThroughBrokerOutage is the delivery guarantee of
// the suite: every committed event reaches the consumer's handler exactly
// once and in per-business order, although the broker goes away in the
// middle of the writes and events are published twice.
func TestDeliveryExactlyOnceThroughBrokerOutage(t *testing.T) {
	total, outage := 2000, 3*time.Second
	if testing.Short() {
		total, outage = 800, 2*time.Second
	}
	const writers, businessesPerWriter = 8, 5

	url := testkit.NewDatabase(t)
	broker := testkit.Broker(t, testTopic)
	producer := testkit.OpenSchema(t, url, "producer", outbox.Migrations)
	mustExec(t, producer, "CREATE TABLE domain_writes (business uuid NOT NULL, n int NOT NULL, PRIMARY KEY (business, n))")
	sink := testkit.OpenSchema(t, url, "sink", consumer.Migrations)
	mustExec(t, sink, `CREATE TABLE applied (
		event_id uuid PRIMARY KEY, business uuid NOT NULL, n int NOT NULL,
		applications int NOT NULL, applied_seq bigserial)`)

	ctx, cancel := context.WithCancel(context.Background())
	var bg sync.WaitGroup
	t.Cleanup(func() { cancel(); bg.Wait() })

	pub := outbox.NewKafkaPublisher(events.Plain(broker.Addrs()...))
	t.Cleanup(func() { _ = pub.Close() })
	relay := outbox.NewRelay(producer, pub, testLogger(t), outbox.RelayOptions{
		PollInterval: 100 * time.Millisecond, MaxBackoff: 500 * time.Millisecond, StandbyInterval: 200 * time.Millisecond,
	})
	// A second relay on the same schema (another replica) must stand by:
	// two publishers at once could interleave a business's events.
	standby := outbox.NewRelay(producer, pub, testLogger(t), outbox.RelayOptions{
		PollInterval: 100 * time.Millisecond, StandbyInterval: 200 * time.Millisecond,
	})
	cons := consumer.New(sink, consumer.Config{
		Conn: events.Plain(broker.Addrs()...), GroupID: "sink", Topics: []string{testTopic}, Backoff: 20 * time.Millisecond,
		SessionTimeout: 6 * time.Second, RebalanceTimeout: 6 * time.Second,
	}, applyStep, testLogger(t))
	for _, run := range []func(context.Context) error{relay.Run, standby.Run, cons.Run} {
		bg.Add(1)
		go func() {
			defer bg.Done()
			if err := run(ctx); err != nil {
				t.Errorf("run: %v", err)
			}
		}()
	}

	groups := make([][]uuid.UUID, writers)
	var businesses []uuid.UUID
	for i := range groups {
		for range businessesPerWriter {
			id := uuid.Must(uuid.NewV7())
			groups[i] = append(groups[i], id)
			businesses = append(businesses, id)
		}
	}
	w := &writer{db: producer, next: map[uuid.UUID]int{}}

	// First half with the broker up; wait until some of it is consumed so
	// the outage hits a pipeline in motion.
	start := time.Now()
	w.writeConcurrently(t, groups, total/2)
	t.Logf("%s: first half written", time.Since(start))
	waitFor(t, 30*time.Second, "first events consumed", func() (bool, string) {
		n := count(t, sink, "SELECT count(*) FROM applied")
		return n > 0, fmt.Sprintf("%d applied", n)
	})

	t.Logf("%s: first events consumed, stopping the broker", time.Since(start))
	broker.Stop()
	stopped := time.Now()
	w.writeConcurrently(t, groups, total/2)
	time.Sleep(outage - time.Since(stopped))
	pendingDuringOutage := count(t, producer, "SELECT count(*) FROM outbox WHERE sent_at IS NULL")
	broker.Restart()
	t.Logf("%s: broker restarted with %d events pending", time.Since(start), pendingDuringOutage)
	if pendingDuringOutage == 0 {
		t.Fatal("nothing was pending while the broker was down: the outage tested nothing")
	}

	waitFor(t, 45*time.Second, "all events applied", func() (bool, string) {
		n := count(t, sink, "SELECT count(*) FROM applied")
		p := count(t, producer, "SELECT count(*) FROM outbox WHERE sent_at IS NULL")
		return n == w.committed, fmt.Sprintf("%d of %d applied, %d unsent", n, w.committed, p)
	})

	t.Logf("%s: all %d events applied", time.Since(start), w.committed)
	// Duplicates: publish the first half again, then one more event per
	// business; once those are applied every duplicate before them on
	// their partitions has been consumed too.
	mustExec(t, producer, "UPDATE outbox SET sent_at = NULL WHERE seq <= (SELECT min(seq) + ? FROM outbox)", total/2)
	relay.Notify()
	for _, b := range businesses {
		if err := w.write(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 45*time.Second, "events after the republished batch applied", func() (bool, string) {
		n := count(t, sink, "SELECT count(*) FROM applied")
		return n == w.committed, fmt.Sprintf("%d of %d applied", n, w.committed)
	})

	t.Logf("%s: republished events absorbed", time.Since(start))
	// Exactly once: every committed event applied, each once.
	if got := count(t, sink, "SELECT count(*) FROM applied"); got != total+len(businesses) {
		t.Errorf("applied %d events, want %d", got, total+len(businesses))
	}
	if got := count(t, sink, "SELECT count(*) FROM applied WHERE applications <> 1"); got != 0 {
		t.Errorf("%d events applied more than once", got)
	}
	if got := count(t, sink, "SELECT count(*) FROM inbox"); got != total+len(businesses) {
		t.Errorf("inbox has %d rows, want %d", got, total+len(businesses))
	}
	// Every committed domain write has its event applied, and nothing else.
	if got := count(t, sink, `SELECT count(*) FROM applied a FULL JOIN producer.domain_writes d
		ON a.business = d.business AND a.n = d.n WHERE a.event_id IS NULL OR d.business IS NULL`); got != 0 {
		t.Errorf("%d events and domain writes do not match", got)
	}
	// Per-business order: each business's events were applied as 1, 2, 3...
	if got := count(t, sink, `SELECT count(*) FROM (
		SELECT n, row_number() OVER (PARTITION BY business ORDER BY applied_seq) AS pos FROM applied) x
		WHERE n <> pos`); got != 0 {
		t.Errorf("%d events applied out of their business's order", got)
	}
	// The broker really carried duplicates, and the inbox absorbed them.
	if published := topicMessages(t, broker.Addrs(), testTopic); published < total+len(businesses)+total/2 {
		t.Errorf("topic holds %d messages, want at least %d (originals + republished)", published, total+len(businesses)+total/2)
	}
	if got := count(t, producer, "SELECT count(*) FROM outbox WHERE sent_at IS NULL"); got != 0 {
		t.Errorf("%d outbox rows still unsent", got)
	}

	// Flush after the relays stop publishes what is left.
	cancel()
	bg.Wait()
	e, err := events.New(testTopic, "test.step", "outbox-test", businesses[0], step{Business: businesses[0], N: 9999})
	if err != nil {
		t.Fatal(err)
	}
	if err := outbox.Enqueue(context.Background(), producer, e); err != nil {
		t.Fatal(err)
	}
	fctx, fcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer fcancel()
	if err := relay.Flush(fctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if n, err := relay.Pending(fctx); err != nil || n != 0 {
		t.Errorf("pending after Flush = %d, %v", n, err)
	}
}

// topicMessages is the number of messages in the topic (sum of the end
// offsets of its partitions).
func topicMessages(t *testing.T, brokers []string, topic string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := &kafka.Client{Addr: kafka.TCP(brokers...)}
	meta, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil || len(meta.Topics) != 1 {
		t.Fatalf("metadata: %v", err)
	}
	var reqs []kafka.OffsetRequest
	for _, p := range meta.Topics[0].Partitions {
		reqs = append(reqs, kafka.LastOffsetOf(p.ID))
	}
	resp, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: reqs}})
	if err != nil {
		t.Fatalf("list offsets: %v", err)
	}
	total := 0
	for _, p := range resp.Topics[topic] {
		if p.Error != nil {
			t.Fatalf("list offsets partition %d: %v", p.Partition, p.Error)
		}
		total += int(p.LastOffset)
	}
	return total
}

func TestEnqueueValidatesAndRollsBack(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", outbox.Migrations)
	ctx := context.Background()
	good, err := events.New(testTopic, "test.step", "outbox-test", uuid.Must(uuid.NewV7()), step{N: 1})
	if err != nil {
		t.Fatal(err)
	}

	bad := []struct {
		name   string
		mutate func(*events.Event)
	}{
		{"no id", func(e *events.Event) { e.ID = uuid.Nil }},
		{"no topic", func(e *events.Event) { e.Topic = "" }},
		{"no type", func(e *events.Event) { e.Type = "" }},
		{"no source", func(e *events.Event) { e.Source = "" }},
		{"no time", func(e *events.Event) { e.Time = time.Time{} }},
		{"data not json", func(e *events.Event) { e.Data = json.RawMessage("{") }},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			e := good
			tc.mutate(&e)
			if err := outbox.Enqueue(ctx, db, e); err == nil {
				t.Fatal("want error")
			}
		})
	}

	// A rolled-back domain transaction leaves no event behind.
	err = pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if err := outbox.Enqueue(ctx, tx, good); err != nil {
			return err
		}
		return fmt.Errorf("domain rule failed")
	})
	if err == nil {
		t.Fatal("want the domain error")
	}
	if n := count(t, db, "SELECT count(*) FROM outbox"); n != 0 {
		t.Fatalf("rolled back enqueue left %d rows", n)
	}

	// A committed one is stored with all attributes.
	if err := outbox.Enqueue(ctx, db, good, events.Event{}); err == nil {
		t.Fatal("one invalid event must fail the whole call")
	}
	if err := outbox.Enqueue(ctx, db, good); err != nil {
		t.Fatal(err)
	}
	var row struct {
		ID      uuid.UUID         `bun:"id"`
		Key     string            `bun:"key"`
		Time    time.Time         `bun:"time"`
		Headers map[string]string `bun:"headers,type:json"`
		Kind    string            `bun:"kind"`
	}
	if err := db.NewRaw("SELECT id, key, time, headers, json_typeof(data) AS kind FROM outbox").Scan(ctx, &row); err != nil {
		t.Fatal(err)
	}
	if row.Kind != "object" {
		t.Errorf("data stored as a JSON %s, want the payload object", row.Kind)
	}
	if row.ID != good.ID || row.Key != good.Key || !row.Time.Equal(good.Time) {
		t.Errorf("stored %+v, want id %s key %s time %s", row, good.ID, good.Key, good.Time)
	}
	if err := outbox.Enqueue(ctx, db); err != nil {
		t.Errorf("enqueue of nothing: %v", err)
	}
}

// failingPublisher fails a number of times, then records what it publishes.
type failingPublisher struct {
	mu       sync.Mutex
	failures int
	calls    int
	got      []events.Event
}

func (p *failingPublisher) Publish(_ context.Context, evts []events.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.failures > 0 {
		p.failures--
		return fmt.Errorf("broker unavailable")
	}
	p.got = append(p.got, evts...)
	return nil
}

func TestRelayRetriesTheSameBatchInOrder(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", outbox.Migrations)
	ctx := context.Background()
	business := uuid.Must(uuid.NewV7())
	var want []uuid.UUID
	for i := range 25 {
		e, err := events.New(testTopic, "test.step", "outbox-test", business, step{Business: business, N: i + 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := outbox.Enqueue(ctx, db, e); err != nil {
			t.Fatal(err)
		}
		want = append(want, e.ID)
	}

	pub := &failingPublisher{failures: 3}
	relay := outbox.NewRelay(db, pub, testLogger(t), outbox.RelayOptions{
		BatchSize: 10, MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond,
	})
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := relay.Flush(fctx); err != nil {
		t.Fatal(err)
	}
	if pub.calls != 3+3 { // three failures of the first batch, then batches of 10, 10, 5
		t.Errorf("publish calls = %d, want 6", pub.calls)
	}
	if len(pub.got) != len(want) {
		t.Fatalf("published %d events, want %d", len(pub.got), len(want))
	}
	for i, e := range pub.got {
		if e.ID != want[i] {
			t.Fatalf("event %d is %s, want %s: order broken", i, e.ID, want[i])
		}
	}
	if n := count(t, db, "SELECT count(*) FROM outbox WHERE sent_at IS NULL"); n != 0 {
		t.Errorf("%d rows not marked sent", n)
	}

	// Purge: sent rows older than the retention go, recent ones stay.
	mustExec(t, db, "UPDATE outbox SET sent_at = now() - interval '2 hours' WHERE seq IN (SELECT seq FROM outbox ORDER BY seq LIMIT 5)")
	purger := outbox.NewRelay(db, pub, testLogger(t), outbox.RelayOptions{Retention: time.Hour, PollInterval: 20 * time.Millisecond})
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- purger.Run(rctx) }()
	waitFor(t, 10*time.Second, "purge", func() (bool, string) {
		n := count(t, db, "SELECT count(*) FROM outbox")
		return n == 20, fmt.Sprintf("%d rows", n)
	})
	rcancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
