package outbox

import (
	"context"
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
