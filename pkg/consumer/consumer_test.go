package consumer_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
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

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

const topic = "acct.consumertest.v1"

type payload struct {
	Poison bool   `json:"poison"`
	Name   string `json:"name"`
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  consumer.Config
		want []string
	}{
		{"valid", consumer.Config{Conn: events.Plain("b:9092"), GroupID: "g", Topics: []string{"t"}}, nil},
		{"empty", consumer.Config{}, []string{"no brokers", "no group id", "no topics"}},
		{"no topics", consumer.Config{Conn: events.Plain("b:9092"), GroupID: "g"}, []string{"no topics"}},
		{"inbox shorter than the topics", consumer.Config{Conn: events.Plain("b:9092"), GroupID: "g", Topics: []string{"t"},
			InboxRetention: 3 * 24 * time.Hour}, []string{"inbox retention 72h0m0s must exceed the topic retention 168h0m0s"}},
		{"inbox as long as a custom topic retention", consumer.Config{Conn: events.Plain("b:9092"), GroupID: "g", Topics: []string{"t"},
			TopicRetention: 30 * 24 * time.Hour, InboxRetention: 30 * 24 * time.Hour}, []string{"must exceed the topic retention"}},
		{"default inbox follows a custom topic retention", consumer.Config{Conn: events.Plain("b:9092"), GroupID: "g", Topics: []string{"t"},
			TopicRetention: 30 * 24 * time.Hour}, nil},
		{"batches", consumer.Config{Conn: events.Plain("b:9092"), GroupID: "g", Topics: []string{"t"}, BatchSize: 200}, nil},
		{"batch too large", consumer.Config{Conn: events.Plain("b:9092"), GroupID: "g", Topics: []string{"t"}, BatchSize: 10_000},
			[]string{"batch size must be between 0 and 5000"}},
		{"explicit longer inbox", consumer.Config{Conn: events.Plain("b:9092"), GroupID: "g", Topics: []string{"t"},
			InboxRetention: 8 * 24 * time.Hour}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if err := consumer.New(nil, consumer.Config{}, nil, nil).Run(context.Background()); err == nil {
		t.Error("Run with an invalid config must fail")
	}
}

// TestPoisonMessageGoesToDLQ: a message whose handler always fails is
// retried MaxAttempts times, published to the DLQ with the error and
// recorded, and the next message of the same partition is still processed.
// An undecodable message goes to the DLQ at once.
func TestPoisonMessageGoesToDLQ(t *testing.T) {
	const maxAttempts = 3
	broker := testkit.Broker(t, topic)
	ctx := context.Background()
	db := testkit.DB(t, "svc", consumer.Migrations)
	if _, err := db.ExecContext(ctx, "CREATE TABLE applied (event_id uuid PRIMARY KEY, name text NOT NULL)"); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	attempts := map[uuid.UUID]int{}
	handler := func(ctx context.Context, tx bun.Tx, e events.Event) error {
		mu.Lock()
		attempts[e.ID]++
		mu.Unlock()
		var p payload
		if err := e.Decode(&p); err != nil {
			return err
		}
		// Write first, then fail: the failure must roll the write back.
		if _, err := tx.ExecContext(ctx, "INSERT INTO applied VALUES (?, ?)", e.ID, p.Name); err != nil {
			return err
		}
		if p.Poison {
			return fmt.Errorf("cannot apply %s: ledger account missing", p.Name)
		}
		return nil
	}

	business := uuid.Must(uuid.NewV7())
	mk := func(p payload) events.Event {
		e, err := events.New(topic, "test.thing", "consumer-test", business, p)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	poison, good := mk(payload{Poison: true, Name: "poison"}), mk(payload{Name: "good"})
	garbage := kafka.Message{Topic: topic, Key: []byte(business.String()), Value: []byte("not an event"),
		Headers: []kafka.Header{{Key: "x-trace", Value: []byte("abc")}}}

	w := &kafka.Writer{Addr: kafka.TCP(broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond,
		RequiredAcks: kafka.RequireAll}
	defer w.Close()
	// Same key: all on one partition, poison first.
	if err := w.WriteMessages(ctx, events.ToMessage(poison), garbage, events.ToMessage(good)); err != nil {
		t.Fatal(err)
	}

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	c := consumer.New(db, consumer.Config{
		Conn: events.Plain(broker.Addrs()...), GroupID: "svc", Topics: []string{topic},
		MaxAttempts: maxAttempts, Backoff: 10 * time.Millisecond,
	}, handler, slog.New(slog.DiscardHandler))
	go func() { done <- c.Run(runCtx) }()

	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := db.NewRaw("SELECT count(*) FROM applied WHERE event_id = ?", good.ID).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the message after the poison one was never applied")
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}

	mu.Lock()
	if attempts[poison.ID] != maxAttempts {
		t.Errorf("poison attempts = %d, want %d", attempts[poison.ID], maxAttempts)
	}
	if attempts[good.ID] != 1 {
		t.Errorf("good attempts = %d, want 1", attempts[good.ID])
	}
	mu.Unlock()

	var n int
	if err := db.NewRaw("SELECT count(*) FROM applied WHERE event_id = ?", poison.ID).Scan(ctx, &n); err != nil || n != 0 {
		t.Errorf("the failed handler's write survived (%d rows, %v)", n, err)
	}
	if err := db.NewRaw("SELECT count(*) FROM inbox WHERE event_id = ?", poison.ID).Scan(ctx, &n); err != nil || n != 0 {
		t.Errorf("a dead-lettered event is in the inbox (%d rows, %v): a replay would be skipped", n, err)
	}

	type deadLetter struct {
		Topic     string     `bun:"topic"`
		Offset    int64      `bun:"offset"`
		EventID   *uuid.UUID `bun:"event_id"`
		EventType *string    `bun:"event_type"`
		Error     string     `bun:"error"`
		Attempts  int        `bun:"attempts"`
		Payload   []byte     `bun:"payload"`
	}
	var rows []deadLetter
	if err := db.NewRaw(`SELECT topic, "offset", event_id, event_type, error, attempts, payload
		FROM dead_letters ORDER BY "offset"`).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("dead_letters has %d rows, want 2: %+v", len(rows), rows)
	}
	if r := rows[0]; r.EventID == nil || *r.EventID != poison.ID || r.Attempts != maxAttempts ||
		!strings.Contains(r.Error, "ledger account missing") || *r.EventType != "test.thing" || r.Topic != topic {
		t.Errorf("poison dead letter = %+v", r)
	}
	if r := rows[1]; r.EventID != nil || r.Attempts != 0 || !strings.Contains(r.Error, "malformed") ||
		string(r.Payload) != "not an event" {
		t.Errorf("garbage dead letter = %+v", r)
	}

	// Both are on the DLQ topic with the error headers.
	got := readAll(t, broker.Addrs(), events.DLQ(topic), 2)
	want := []struct {
		value, attempts, errPart string
		offset                   int64
	}{
		{string(poison.Data), "3", "ledger account missing", rows[0].Offset},
		{"not an event", "0", "malformed", rows[1].Offset},
	}
	for i, m := range got {
		h := map[string]string{}
		for _, x := range m.Headers {
			h[x.Key] = string(x.Value)
		}
		w := want[i]
		if string(m.Value) != w.value || h[consumer.HeaderAttempts] != w.attempts ||
			!strings.Contains(h[consumer.HeaderError], w.errPart) || h[consumer.HeaderOriginalTopic] != topic ||
			h[consumer.HeaderOriginalOffset] != fmt.Sprint(w.offset) || h[consumer.HeaderOriginalPartition] == "" ||
			string(m.Key) != business.String() {
			t.Errorf("DLQ message %d: value %q headers %v", i, m.Value, h)
		}
	}
	if h := got[0].Headers; len(h) < 8 { // the CloudEvents headers travel along
		t.Errorf("poison DLQ message lost its original headers: %v", h)
	}

	// The offsets were committed: a restarted consumer of the group
	// processes nothing again.
	before := attempts[poison.ID] + attempts[good.ID]
	runCtx, cancel = context.WithCancel(ctx)
	go func() { done <- c.Run(runCtx) }()
	time.Sleep(2 * time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if after := attempts[poison.ID] + attempts[good.ID]; after != before {
		t.Errorf("restarted consumer reprocessed committed messages (%d handler calls, want %d)", after, before)
	}
}

func readAll(t *testing.T, brokers []string, topic string, n int) []kafka.Message {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, GroupID: "dlq-reader", Topic: topic,
		StartOffset: kafka.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []kafka.Message
	for len(out) < n {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("read %s: got %d of %d messages: %v", topic, len(out), n, err)
		}
		out = append(out, m)
	}
	return out
}
