package service

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/events"
)

// TestLedgerEventsThroughTheBroker: the golden history published on
// acct.ledger.v1 (every event twice, plus an event type the service does
// not know) reaches the report through the kit's consumer, nothing is dead
// lettered, and the rebuild command recomputes the same figures.
func TestLedgerEventsThroughTheBroker(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	bid := e.svc.SeedBusiness(t, "client-a")
	tok := e.svc.Tokens.Platform(t, "client-a")
	w := &kafka.Writer{Addr: kafka.TCP(e.svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	var msgs []kafka.Message
	for _, p := range goldenHistory(bid) {
		m := events.ToMessage(event(t, p))
		msgs = append(msgs, m, m)
	}
	for _, evt := range goldenTxEvents(t, bid) {
		m := events.ToMessage(evt)
		msgs = append(msgs, m, m)
	}
	other, err := events.New(events.TopicLedger, "ledger.something.else", "acct/transactions", bid, map[string]any{"x": 1})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, events.ToMessage(other))
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	want := figures{24499, 3000, 21499, 2100, 19399, 1000, 18399, false}
	q := period("2026-03-01", "2026-04-30")
	deadline := time.Now().Add(60 * time.Second)
	for figuresOf(e.pnl(tok, bid, q)) != want {
		if time.Now().After(deadline) {
			t.Fatalf("figures %+v, want %+v", figuresOf(e.pnl(tok, bid, q)), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var dead int
	if err := e.db.NewRaw("SELECT count(*) FROM dead_letters").Scan(ctx, &dead); err != nil || dead != 0 {
		t.Fatalf("dead letters: %d %v", dead, err)
	}

	var out bytes.Buffer
	if err := e.s.rebuild(ctx, e.svc.Kit, []string{"--all"}, &out); err != nil || !strings.Contains(out.String(), "rebuilt "+bid.String()+" from 10 entries") {
		t.Fatalf("rebuild --all: %v: %s", err, out.String())
	}
	out.Reset()
	if err := e.s.rebuild(ctx, e.svc.Kit, []string{"--business", bid.String()}, &out); err != nil {
		t.Fatalf("rebuild --business: %v: %s", err, out.String())
	}
	if got := figuresOf(e.pnl(tok, bid, q)); got != want {
		t.Fatalf("after rebuild: %+v, want %+v", got, want)
	}
	for _, args := range [][]string{{}, {"--all", "--business", bid.String()}, {"--business", "nope"}} {
		if err := e.s.rebuild(ctx, e.svc.Kit, args, &out); err == nil {
			t.Errorf("rebuild %v: no error", args)
		}
	}
}
