package servicekit

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

// TestBatchesLockBusinessesInOneOrder: two batches of a topic applied one
// event at a time, holding the same two businesses in opposite orders,
// with handlers that each lock their event's business (as reports' do).
// Without Definition.LockBusiness one of them deadlocks; with it both
// lock the businesses in one order first and both commit.
func TestBatchesLockBusinessesInOneOrder(t *testing.T) {
	db, err := pgdb.Open(context.Background(), pgdb.Config{URL: testkit.NewDatabase(t), MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock := func(ctx context.Context, tx bun.Tx, bid uuid.UUID) error {
		_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "test:"+bid.String())
		return err
	}
	// Each batch's first handler waits (up to 2 s) until both batches
	// hold their first business, so they cross whatever the scheduling.
	var mu sync.Mutex
	var holding int
	both := make(chan struct{})
	handler := func(ctx context.Context, tx bun.Tx, e events.Event) error {
		if err := lock(ctx, tx, uuid.MustParse(e.Subject)); err != nil {
			return err
		}
		mu.Lock()
		holding++
		if holding == 2 {
			close(both)
		}
		first := holding <= 2
		mu.Unlock()
		if first {
			select {
			case <-both:
			case <-time.After(2 * time.Second):
			}
		}
		return nil
	}
	a, b := uuid.New(), uuid.New()
	batch := func(ids ...uuid.UUID) []events.Event {
		es := make([]events.Event, len(ids))
		for i, id := range ids {
			es[i] = events.Event{ID: uuid.New(), Topic: "t", Subject: id.String()}
		}
		return es
	}
	run := func(k *Kit) []error {
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, es := range [][]events.Event{batch(a, b), batch(b, a)} {
			wg.Go(func() {
				errs[i] = db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
					return k.dispatchBatch(ctx, tx, es)
				})
			})
		}
		wg.Wait()
		return errs
	}
	handlers := map[string][]topicHandler{"t": {{one: handler}}}

	reset := func() { holding, both = 0, make(chan struct{}) }
	errs := run(&Kit{handlers: handlers})
	deadlocked := 0
	for _, err := range errs {
		if err != nil && pgdb.SQLState(err) == "40P01" {
			deadlocked++
		} else if err != nil {
			t.Fatalf("without LockBusiness: %v", err)
		}
	}
	if deadlocked != 1 {
		t.Fatalf("without LockBusiness: %v, want one deadlock (the test's batches must cross)", errs)
	}

	reset()
	if err := errors.Join(run(&Kit{handlers: handlers, def: Definition{LockBusiness: lock}})...); err != nil {
		t.Fatalf("with LockBusiness: %v", err)
	}
}
