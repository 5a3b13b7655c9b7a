package service

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
)

// TestLedgerEventsThroughTheBroker: the golden history published on
// acct.ledger.v1 (every event twice, plus an event type the service does
// not know) reaches the report through the kit's consumer, nothing is dead
// lettered, and the rebuild command recomputes the same figures.
func TestLedgerEventsThroughTheBroker(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	w := &kafka.Writer{Addr: kafka.TCP(e.Svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
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
	if err := e.DB.NewRaw("SELECT count(*) FROM dead_letters").Scan(ctx, &dead); err != nil || dead != 0 {
		t.Fatalf("dead letters: %d %v", dead, err)
	}

	var out bytes.Buffer
	if err := e.S.rebuild(ctx, e.Svc.Kit, []string{"--all"}, &out); err != nil || !strings.Contains(out.String(), "rebuilt "+bid.String()+" from 10 entries") {
		t.Fatalf("rebuild --all: %v: %s", err, out.String())
	}
	out.Reset()
	if err := e.S.rebuild(ctx, e.Svc.Kit, []string{"--business", bid.String()}, &out); err != nil {
		t.Fatalf("rebuild --business: %v: %s", err, out.String())
	}
	if got := figuresOf(e.pnl(tok, bid, q)); got != want {
		t.Fatalf("after rebuild: %+v, want %+v", got, want)
	}
	for _, args := range [][]string{{}, {"--all", "--business", bid.String()}, {"--business", "nope"}} {
		if err := e.S.rebuild(ctx, e.Svc.Kit, args, &out); err == nil {
			t.Errorf("rebuild %v: no error", args)
		}
	}
}

// TestRebuildReplaysTheTopics: the cash-basis history of two businesses
// goes through the broker (entries, bank transactions and invoice
// payments); once the read model has it, every trace of it is deleted from
// the service's tables (as if never received): a plain rebuild has
// nothing to recompute from, `rebuild --replay --business` recovers that
// business alone from the topics, `--replay --all` the other, and
// replaying again changes nothing.
func TestRebuildReplaysTheTopics(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tok := e.Svc.Tokens.Platform(t, "client-a")
	a, b := e.Svc.SeedBusiness(t, "client-a"), e.Svc.SeedBusiness(t, "client-a")
	w := &kafka.Writer{Addr: kafka.TCP(e.Svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	var expect []cashExpect
	for _, bid := range []uuid.UUID{a, b} {
		ledger, payments, x := loadCashHistory(t, bid)
		expect = x
		var msgs []kafka.Message
		for _, evt := range slices.Concat(ledger, payments, goldenTxEvents(t, bid)) {
			msgs = append(msgs, events.ToMessage(evt))
		}
		if err := w.WriteMessages(ctx, msgs...); err != nil {
			t.Fatal(err)
		}
	}
	march := period("2026-03-01", "2026-03-31", "reporting_basis", "CASH")
	april := period("2026-04-01", "2026-04-30") // an uncategorized bank transaction on 04-03
	deadline := time.Now().Add(60 * time.Second)
	for _, bid := range []uuid.UUID{a, b} {
		for e.pnl(tok, bid, march).Data.NetProfit != 8500 || e.pnl(tok, bid, april).Data.FullyCategorized {
			if time.Now().After(deadline) {
				t.Fatalf("the history did not arrive: %+v", e.pnl(tok, bid, march).Data)
			}
			time.Sleep(50 * time.Millisecond)
		}
		e.checkCash(t, tok, bid, expect, "through the broker")
	}

	lose := func(bid uuid.UUID) {
		for _, table := range []string{"entries", "bank_transactions", "cash_payments", "cash_allocations"} {
			if _, err := e.DB.NewRaw("DELETE FROM ? WHERE business_id = ?", bun.Ident(table), bid).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	lose(a)
	lose(b)
	var out bytes.Buffer
	if err := e.S.rebuild(ctx, e.Svc.Kit, []string{"--business", a.String()}, &out); err != nil {
		t.Fatalf("rebuild: %v: %s", err, out.String())
	}
	if got := e.pnl(tok, a, march).Data; got.NetProfit != 0 || !e.pnl(tok, a, april).Data.FullyCategorized {
		t.Fatalf("after a plain rebuild of lost data: %+v", got)
	}

	out.Reset()
	if err := e.S.rebuild(ctx, e.Svc.Kit, []string{"--replay", "--business", a.String()}, &out); err != nil {
		t.Fatalf("rebuild --replay: %v: %s", err, out.String())
	}
	for _, want := range []string{"replayed acct.ledger.v1:", "replayed acct.transactions.v1:", "replayed acct.invoicing.v1:", "replayed acct.bills.v1:", "0 failed", "rebuilt " + a.String() + " from 12 entries"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("rebuild --replay output lacks %q:\n%s", want, out.String())
		}
	}
	e.checkCash(t, tok, a, expect, "after --replay --business")
	if got := e.pnl(tok, a, april).Data; got.FullyCategorized {
		t.Fatalf("bank transactions not replayed: %+v", got)
	}
	var bEntries int
	if err := e.DB.NewRaw("SELECT count(*) FROM entries WHERE business_id = ?", b).Scan(ctx, &bEntries); err != nil || bEntries != 0 {
		t.Fatalf("--business %s replayed another business: %d entries, %v", a, bEntries, err)
	}
	out.Reset()
	if err := e.S.rebuild(ctx, e.Svc.Kit, []string{"--replay", "--all"}, &out); err != nil {
		t.Fatalf("rebuild --replay --all: %v: %s", err, out.String())
	}
	for _, bid := range []uuid.UUID{a, b} {
		e.checkCash(t, tok, bid, expect, "after --replay --all")
	}
	if err := e.S.rebuild(ctx, e.Svc.Kit, []string{"--replay", "--all"}, &out); err != nil {
		t.Fatal(err)
	}
	e.checkCash(t, tok, a, expect, "replayed twice")
}
