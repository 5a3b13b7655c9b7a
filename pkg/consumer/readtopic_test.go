package consumer_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestReadTopic: every message published before the call is read once, in
// each business's order, across partitions; a malformed one goes to the
// malformed callback; messages published later are not waited for; an
// error of fn stops the read; an unknown topic is an error.
func TestReadTopic(t *testing.T) {
	const rt = "acct.readtopic.v1"
	broker := testkit.Broker(t, rt)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w := &kafka.Writer{Addr: kafka.TCP(broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	businesses := []uuid.UUID{uuid.New(), uuid.New(), uuid.New(), uuid.New()}
	var msgs []kafka.Message
	want := map[string][]int{}
	for i := range 200 {
		b := businesses[i%len(businesses)]
		e, err := events.New(rt, "test.thing", "consumer-test", b, payload{Name: "n"})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, events.ToMessage(e))
		want[b.String()] = append(want[b.String()], i)
	}
	msgs = append(msgs, kafka.Message{Topic: rt, Key: []byte(businesses[0].String()), Value: []byte("garbage")})
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	ids := map[uuid.UUID]int{}
	for i, m := range msgs[:200] {
		e, err := events.FromMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		ids[e.ID] = i
	}
	got := map[string][]int{}
	bad := 0
	n, err := consumer.ReadTopic(ctx, events.Plain(broker.Addrs()...), rt, func(e events.Event) error {
		i, ok := ids[e.ID]
		if !ok {
			t.Fatalf("unknown event %s", e.ID)
		}
		got[e.Key] = append(got[e.Key], i)
		return nil
	}, func(kafka.Message, error) { bad++ })
	if err != nil || n != 201 || bad != 1 {
		t.Fatalf("read %d (malformed %d): %v", n, bad, err)
	}
	for b, seq := range want {
		if !slices.Equal(got[b], seq) {
			t.Fatalf("business %s: read %v, want %v", b, got[b], seq)
		}
	}
	// A second read sees the same messages (no group, nothing committed).
	n2, err := consumer.ReadTopic(ctx, events.Plain(broker.Addrs()...), rt, func(events.Event) error { return nil }, nil)
	if err != nil || n2 != 201 {
		t.Fatalf("second read: %d %v", n2, err)
	}
	// fn's error stops the read.
	stop := context.DeadlineExceeded
	if _, err := consumer.ReadTopic(ctx, events.Plain(broker.Addrs()...), rt, func(events.Event) error { return stop }, nil); err != stop {
		t.Fatalf("fn error: %v", err)
	}
	if _, err := consumer.ReadTopic(ctx, events.Plain(broker.Addrs()...), "acct.nope.v1", func(events.Event) error { return nil }, nil); err == nil {
		t.Fatal("unknown topic: no error")
	}
}
