package service

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	kafkaadapter "github.com/acctsuite/acct/services/reports/internal/adapters/kafka"
)

// Snapshots of bank transactions applied in the consumer's batches leave
// the read model exactly as the same snapshots applied one at a time:
// whatever their order, their duplicates and versions delivered late,
// each transaction keeps its newest version (the first of two of one
// version), and the business's freshness is its latest event.
func TestBankTransactionBatchesMatchOneByOne(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	batch := kafkaadapter.TransactionsBatchHandler(e.S.Reports)
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 7))
		one, many := uuid.New(), uuid.New() // the same history in two businesses
		ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
		var hist [][2]events.Event // [one's event, many's event]
		for range 40 {
			id := ids[r.IntN(len(ids))]
			status := []string{"READY_FOR_INPUT", "CATEGORIZED"}[r.IntN(2)]
			stable := ""
			if status == "CATEGORIZED" {
				stable = "RENT"
			}
			day := fmt.Sprintf("2026-0%d-1%d", 1+r.IntN(9), r.IntN(10))
			amount, version := int64(1+r.IntN(90_000)), 1+r.IntN(4)
			var pair [2]events.Event
			for i, bid := range []uuid.UUID{one, many} {
				p := bankTx(bid, day, status, stable, amount)
				p.TransactionID, p.Version = id, version
				pair[i] = txEvent(t, p)
				pair[i].Time = time.Date(2026, 11, 1, 0, 0, r.IntN(3600), 0, time.UTC)
			}
			pair[1].Time = pair[0].Time
			hist = append(hist, pair)
			if r.IntN(5) == 0 { // delivered twice
				hist = append(hist, pair)
			}
		}
		var singles, batched []events.Event
		for _, p := range hist {
			singles, batched = append(singles, p[0]), append(batched, p[1])
		}
		e.deliver(singles...)
		for len(batched) > 0 {
			n := min(len(batched), 1+r.IntN(15))
			if err := e.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return batch(ctx, tx, batched[:n]) }); err != nil {
				t.Fatalf("seed %d: a batch of %d: %v", seed, n, err)
			}
			batched = batched[n:]
		}
		rows := func(bid uuid.UUID) []string {
			var out []string
			if err := e.DB.NewRaw(`SELECT concat_ws('|', transaction_id, version, day, amount, categorized, categorization_status,
					category_stable_names::text, event_time, archived) FROM bank_transactions WHERE business_id = ? ORDER BY transaction_id`, bid).
				Scan(ctx, &out); err != nil {
				t.Fatal(err)
			}
			var fresh time.Time
			if err := e.DB.NewRaw("SELECT last_event_at FROM freshness WHERE business_id = ?", bid).Scan(ctx, &fresh); err != nil {
				t.Fatal(err)
			}
			return append(out, "freshness "+fresh.UTC().String())
		}
		a, b := rows(one), rows(many)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("seed %d: one by one:\n%v\nin batches:\n%v", seed, a, b)
		}
		if len(a) != len(ids)+1 {
			t.Fatalf("seed %d: %d rows, want %d transactions and the freshness: %v", seed, len(a), len(ids), a)
		}
	}
}
