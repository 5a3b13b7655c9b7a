package consumer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestReplayTopics: the topics are replayed in order; the events Keep
// selects are applied once each, BatchSize per transaction; a batch with a
// failing event is applied again event by event, so only that event is
// left out (and counted); a malformed message is counted; the events Keep
// rejects are read, not applied; a read error stops the replay at its
// topic, with the counts of the topics before it.
func TestReplayTopics(t *testing.T) {
	const ta, tb = "acct.replaytopics.a.v1", "acct.replaytopics.b.v1"
	broker := testkit.Broker(t, ta, tb)
	db := testkit.DB(t, "svc")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE TABLE applied (event_id uuid NOT NULL, name text NOT NULL, txid bigint NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	kept, other := uuid.New(), uuid.New()
	event := func(topic string, business uuid.UUID, p payload) events.Event {
		e, err := events.New(topic, "test.thing", "consumer-test", business, p)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	// Topic a: ten events of the kept business (the fourth a poison one)
	// among four of another, and a message that does not decode; topic b:
	// three events of the kept business.
	var msgs []kafka.Message
	var want []string // the names the replay must apply, in order
	for i := range 14 {
		b, name := kept, fmt.Sprint("a", i)
		if i%7 == 3 || i%7 == 6 {
			b = other
		}
		poison := name == "a4"
		msgs = append(msgs, events.ToMessage(event(ta, b, payload{Name: name, Poison: poison})))
		if b == kept && !poison {
			want = append(want, name)
		}
	}
	msgs = append(msgs, kafka.Message{Topic: ta, Key: []byte(kept.String()), Value: []byte("garbage")})
	for i := range 3 {
		name := fmt.Sprint("b", i)
		msgs = append(msgs, events.ToMessage(event(tb, kept, payload{Name: name})))
		want = append(want, name)
	}
	w := &kafka.Writer{Addr: kafka.TCP(broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond, RequiredAcks: kafka.RequireAll}
	defer w.Close()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}

	// The handler writes, then fails on a poison event: its transaction
	// must roll the write back.
	handler := func(ctx context.Context, tx bun.Tx, e events.Event) error {
		var p payload
		if err := e.Decode(&p); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO applied VALUES (?, ?, txid_current())", e.ID, p.Name); err != nil {
			return err
		}
		if p.Poison {
			return errors.New("poison " + p.Name)
		}
		return nil
	}
	sources := []consumer.ReplaySource{{Topic: ta, Handler: handler}, {Topic: tb, Handler: handler}}
	var reported []consumer.ReplayStats
	keep := func(e events.Event) bool { return e.Key == kept.String() }
	got, err := consumer.ReplayTopics(ctx, db, events.Plain(broker.Addrs()...), sources, consumer.ReplayOptions{BatchSize: 4, Keep: keep,
		Replayed: func(s consumer.ReplayStats) { reported = append(reported, s) }})
	if err != nil {
		t.Fatal(err)
	}
	wantStats := []consumer.ReplayStats{
		{Topic: ta, Read: 15, Applied: 9, Failed: 1, Malformed: 1},
		{Topic: tb, Read: 3, Applied: 3},
	}
	if !slices.Equal(got, wantStats) || !slices.Equal(reported, wantStats) {
		t.Fatalf("stats %+v, reported %+v, want %+v", got, reported, wantStats)
	}

	var rows []struct {
		Name string `bun:"name"`
		Txid int64  `bun:"txid"`
	}
	if err := db.NewRaw("SELECT name, txid FROM applied ORDER BY txid, name").Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	var names []string
	perTx := map[int64][]string{}
	var txs []int64
	for _, r := range rows {
		names = append(names, r.Name)
		if _, ok := perTx[r.Txid]; !ok {
			txs = append(txs, r.Txid)
		}
		perTx[r.Txid] = append(perTx[r.Txid], r.Name)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("applied %v, want each of %v once", names, want)
	}
	// Topic a's kept events in batches of four: a0 a1 a2 a4 (poison: the
	// three others alone), a5 a7 a8 a9, then a11 a12; topic b's in one.
	var batches []string
	for _, id := range txs {
		batches = append(batches, strings.Join(perTx[id], " "))
	}
	wantBatches := []string{"a0", "a1", "a2", "a5 a7 a8 a9", "a11 a12", "b0 b1 b2"}
	if !slices.Equal(batches, wantBatches) {
		t.Fatalf("transactions %q, want %q", batches, wantBatches)
	}

	// A topic that cannot be read stops the replay there, with the counts
	// of the topics before it.
	reported = nil
	none := func(events.Event) bool { return false }
	got, err = consumer.ReplayTopics(ctx, db, events.Plain(broker.Addrs()...), []consumer.ReplaySource{{Topic: tb, Handler: handler},
		{Topic: "acct.nope.v1", Handler: handler}, {Topic: ta, Handler: handler}}, consumer.ReplayOptions{Keep: none,
		Replayed: func(s consumer.ReplayStats) { reported = append(reported, s) }})
	if err == nil || !strings.Contains(err.Error(), "replay acct.nope.v1") {
		t.Fatalf("unknown topic: err = %v", err)
	}
	if wantStats := []consumer.ReplayStats{{Topic: tb, Read: 3}}; !slices.Equal(got, wantStats) || !slices.Equal(reported, wantStats) {
		t.Fatalf("after a read error: stats %+v, reported %+v, want %+v", got, reported, wantStats)
	}
}
