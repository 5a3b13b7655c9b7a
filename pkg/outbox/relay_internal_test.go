package outbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestLeaderSessionSettings: the session holding the leader lock has the
// keepalive and timeout settings that let PostgreSQL end a vanished
// leader's session (and so release the lock) within about 30 s.
func TestLeaderSessionSettings(t *testing.T) {
	db := testkit.DB(t, "svc", Migrations)
	ctx := context.Background()
	r := NewRelay(db, nil, nil, RelayOptions{})
	leading, err := r.lead(ctx)
	if err != nil || !leading {
		t.Fatalf("lead = %v, %v", leading, err)
	}
	t.Cleanup(func() { r.mu.Lock(); r.resignLocked(); r.mu.Unlock() })
	want := map[string]string{
		"tcp_keepalives_idle":                 "10",
		"tcp_keepalives_interval":             "5",
		"tcp_keepalives_count":                "3",
		"statement_timeout":                   "30s",
		"idle_in_transaction_session_timeout": "30s",
		"enable_seqscan":                      "off",
		"enable_bitmapscan":                   "off",
		"enable_sort":                         "off",
		"application_name":                    LeaderApplicationName,
	}
	for name, value := range want {
		var got string
		if err := r.conn.QueryRowContext(ctx, "SELECT current_setting(?)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != value {
			t.Errorf("%s = %q on the leader session, want %q", name, got, value)
		}
	}

	// A relay that did not get the lock leaves no settings behind in the
	// pool (its connection went back untouched).
	other := NewRelay(db, nil, nil, RelayOptions{})
	if leading, err := other.lead(ctx); err != nil || leading {
		t.Fatalf("second lead = %v, %v; want false", leading, err)
	}
	var timeout string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('statement_timeout')").Scan(&timeout); err != nil || timeout != "0" {
		t.Errorf("pooled session statement_timeout = %q, %v; want 0", timeout, err)
	}
}

// TestLargestEventFitsTheBroker: an event whose record is exactly
// MaxEventBytes is accepted by a broker with Kafka's default
// message.max.bytes, so the framing margin is enough.
func TestLargestEventFitsTheBroker(t *testing.T) {
	const topic = "acct.bigevents.v1"
	broker := testkit.Broker(t, topic)
	pub := NewKafkaPublisher(events.Plain(broker.Addrs()...))
	t.Cleanup(func() { _ = pub.Close() })
	e, err := events.New(topic, "test.pad", "outbox-test", uuid.Must(uuid.NewV7()), map[string]string{"pad": ""})
	if err != nil {
		t.Fatal(err)
	}
	e.Headers["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	base := recordSize(events.ToMessage(e))
	e.Data = []byte(`{"pad":"` + strings.Repeat("x", MaxEventBytes-base) + `"}`)
	if got := recordSize(events.ToMessage(e)); got != MaxEventBytes {
		t.Fatalf("test event is %d bytes, want %d", got, MaxEventBytes)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pub.Publish(ctx, []events.Event{e}); err != nil {
		t.Fatalf("publish an event of MaxEventBytes: %v", err)
	}
}

// TestPendingReadWithStaleStatistics: a backlog of 500,000 rows that came
// after the table's statistics were taken (autovacuum off: they stay
// stale), with one key parked. The pending read touches about a batch's
// worth of buffers, whatever the backlog, and the drain publishes every
// row in seq order except those waiting behind the parked one.
func TestPendingReadWithStaleStatistics(t *testing.T) {
	db := testkit.DB(t, "svc", Migrations)
	ctx := context.Background()
	for _, q := range []string{
		"ALTER TABLE outbox SET (autovacuum_enabled = false)",
		"ANALYZE outbox", // empty: what a service had before a burst
		`INSERT INTO outbox (id, topic, key, type, source, time, data, failed_at)
		 VALUES (gen_random_uuid(), 't', 'parked-key', 'x', 's', now(), '{}', now())`,
		`INSERT INTO outbox (id, topic, key, type, source, time, data)
		 SELECT gen_random_uuid(), 't', CASE WHEN i % 1000 = 0 THEN 'parked-key' ELSE 'k' || (i % 997) END, 'x', 's', now(),
		        jsonb_build_object('i', i)
		   FROM generate_series(1, 500000) AS i`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const batch = 500
	pub := &countingPublisher{}
	r := NewRelay(db, pub, nil, RelayOptions{BatchSize: batch})
	if leading, err := r.lead(ctx); err != nil || !leading {
		t.Fatalf("lead = %v, %v", leading, err)
	}
	t.Cleanup(func() { r.mu.Lock(); r.resignLocked(); r.mu.Unlock() })
	// The read as the leader runs it, on its session.
	var rows []row
	q, err := publishable(ctx, r.conn, r.conn.NewSelect().Model(&rows))
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := r.conn.NewRaw("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ?", q.OrderExpr("seq").Limit(batch)).Scan(ctx, &raw); err != nil {
		t.Fatal(err)
	}
	var plan []map[string]any
	if err := json.Unmarshal([]byte(raw), &plan); err != nil {
		t.Fatal(err)
	}
	top := plan[0]["Plan"].(map[string]any)
	touched := top["Shared Hit Blocks"].(float64) + top["Shared Read Blocks"].(float64)
	// 500 narrow rows fit in about 10 pages; the index and the rows of the
	// parked key the read steps over add a few dozen. A read of the whole
	// backlog touches thousands, an anti-join over it millions.
	t.Logf("the pending read touched %v buffers for a batch of %d", touched, batch)
	if touched > 300 {
		t.Fatalf("the pending read touched %v buffers for a batch of %d (a scan of the backlog?): %v", touched, batch, plan)
	}

	if err := r.drain(ctx); err != nil {
		t.Fatal(err)
	}
	if want := 500000 - 500; pub.n != want || !pub.ordered {
		t.Fatalf("published %d events (in seq order: %v), want %d: all but the parked key's", pub.n, pub.ordered, want)
	}
}

// countingPublisher counts what it is given and checks that it comes in
// the order the rows were written (their data's "i").
type countingPublisher struct {
	n       int
	ordered bool
	last    int
}

func (p *countingPublisher) Publish(_ context.Context, evts []events.Event) error {
	if p.n == 0 {
		p.ordered = true
	}
	for _, e := range evts {
		var d struct{ I int }
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		if d.I <= p.last {
			p.ordered = false
		}
		p.last = d.I
	}
	p.n += len(evts)
	return nil
}
