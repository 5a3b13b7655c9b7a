package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/tools/internal/stack"
)

// The outbox benchmark: the relay every service runs (pkg/outbox) drains
// a backlog written after the table's statistics were taken (as after a
// burst: autovacuum off, the statistics those of an empty table) into the
// stack's broker, against the same Kafka writer publishing the same events
// with nothing read from or marked in PostgreSQL, in the same run.
const (
	outboxSchema     = "bench_outbox"
	outboxTopic      = "bench.outbox.v1"
	outboxBusinesses = 200 // keys: a business's events keep their order
	outboxPayload    = 900 // bytes of padding: an event of about 1 KB, a ledger entry's size
	outboxBatch      = 500 // the relay's default batch, the baseline's too
)

// printOutbox runs the outbox benchmark and prints its summary.
func printOutbox(ctx context.Context, st *stack.Stack, n int) ([]result, error) {
	sum, res, err := runOutbox(ctx, st, n)
	if err != nil {
		return res, fmt.Errorf("outbox: %w", err)
	}
	fmt.Printf("\noutbox summary (load average now: %s):\n%s", loadAverage(), sum)
	return res, nil
}

func runOutbox(ctx context.Context, st *stack.Stack, n int) (string, []result, error) {
	fmt.Printf("outbox: a backlog of %d events (about 1 KB each, %d keys) queued with stale statistics, drained by the relay into the broker; "+
		"baseline: the same Kafka writer publishing the same events from memory, %d at a time\n", n, outboxBusinesses, outboxBatch)
	db, err := pgdb.Open(ctx, pgdb.Config{URL: st.DatabaseURL, Schema: outboxSchema, MaxConns: 4})
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+outboxSchema+" CASCADE; CREATE SCHEMA "+outboxSchema); err != nil {
		return "", nil, fmt.Errorf("fresh schema: %w", err)
	}
	defer func() {
		_, _ = db.ExecContext(context.WithoutCancel(ctx), "DROP SCHEMA IF EXISTS "+outboxSchema+" CASCADE")
	}()
	if err := pgdb.Migrate(ctx, db, outbox.Migrations); err != nil {
		return "", nil, err
	}
	conn := events.Plain(st.BrokerAddr)
	if err := events.EnsureTopics(ctx, conn, 3, outboxTopic); err != nil { // the services' KAFKA_TOPIC_PARTITIONS default
		return "", nil, err
	}
	t0 := time.Now()
	qs := []string{"ALTER TABLE outbox SET (autovacuum_enabled = false)", "ANALYZE outbox"}
	// In chunks: each statement well within the pool's timeouts.
	for from := 1; from <= n; from += 50_000 {
		qs = append(qs, fmt.Sprintf(`INSERT INTO outbox (id, topic, key, type, source, subject, time, data)
			SELECT gen_random_uuid(), '%s', 'biz-' || (i %% %d), 'ledger.entry.posted', 'bench', 'biz-' || (i %% %d), now(),
			       jsonb_build_object('i', i, 'pad', repeat('x', %d))
			  FROM generate_series(%d, %d) AS i ORDER BY i`, outboxTopic, outboxBusinesses, outboxBusinesses, outboxPayload, from, min(from+49_999, n)))
	}
	for _, q := range qs {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return "", nil, fmt.Errorf("%s: %w", firstLine(q, 60), err)
		}
	}
	fmt.Printf("  queued %d events in %s\n", n, time.Since(t0).Round(time.Millisecond))

	pub := outbox.NewKafkaPublisher(conn)
	defer pub.Close()
	relay := outbox.NewRelay(db, pub, nil, outbox.RelayOptions{})
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- relay.Run(rctx) }()
	drained, err := waitDrained(ctx, relay, n, done)
	stop()
	<-done
	if err != nil {
		return "", nil, err
	}
	rate := float64(n) / drained.Seconds()
	fmt.Printf("  relay: %d events in %s = %.0f events/s\n", n, drained.Round(time.Millisecond), rate)

	// The baseline: the same events (same topic, keys, sizes) from memory.
	evts := make([]events.Event, n)
	pad := strings.Repeat("x", outboxPayload)
	for i := range evts {
		data, _ := json.Marshal(map[string]any{"i": i + 1, "pad": pad})
		key := fmt.Sprintf("biz-%d", (i+1)%outboxBusinesses)
		evts[i] = events.Event{ID: uuid.New(), Type: "ledger.entry.posted", Source: "bench", Subject: key, Time: time.Now().UTC(),
			Topic: outboxTopic, Key: key, Data: data}
	}
	start = time.Now()
	for i := 0; i < n; i += outboxBatch {
		if err := pub.Publish(ctx, evts[i:min(i+outboxBatch, n)]); err != nil {
			return "", nil, fmt.Errorf("baseline publish: %w", err)
		}
	}
	base := float64(n) / time.Since(start).Seconds()
	fmt.Printf("  writer alone: %d events in %s = %.0f events/s\n", n, time.Since(start).Round(time.Millisecond), base)

	res := []result{{Part: "outbox", Section: "relay",
		Name: fmt.Sprintf("outbox relay draining a backlog of %s events queued with stale statistics", formatNumber(float64(n))),
		Unit: "events/s", Value: rate,
		Note:          fmt.Sprintf("%s to drain; events of about 1 KB over %d keys, batches of %d read, published and marked sent", drained.Round(time.Millisecond), outboxBusinesses, outboxBatch),
		Baseline:      fmt.Sprintf("the same Kafka writer publishing the same events from memory, %d at a time", outboxBatch),
		BaselineValue: base, Target: []bound{absolute(atLeast, 5000)}}}
	sum := fmt.Sprintf("  outbox relay: %.0f events/s (target >= 5,000) %s; writer alone %.0f events/s (ratio %.2f)\n",
		rate, verdict(rate >= 5000), base, rate/base)
	fmt.Print(sum)
	return sum, res, nil
}

// waitDrained waits until the relay has published all n events (or
// failed) and answers how long that took from now.
func waitDrained(ctx context.Context, r *outbox.Relay, n int, done <-chan error) (time.Duration, error) {
	start := time.Now()
	for {
		select {
		case err := <-done:
			return 0, fmt.Errorf("the relay stopped: %v", err)
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Since(start) > 15*time.Minute {
			return 0, fmt.Errorf("%d of %d events published in 15 minutes", r.Stats().Published, n)
		}
		if r.Stats().Published < int64(n) {
			continue
		}
		// Published counts what the broker acknowledged; the batch is
		// marked sent right after.
		pending, err := r.Pending(ctx)
		if err != nil {
			return 0, err
		}
		if pending > 0 {
			continue
		}
		d := time.Since(start)
		return d, nil
	}
}
