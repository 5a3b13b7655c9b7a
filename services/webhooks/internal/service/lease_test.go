package service

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/pgdb"

	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// TestLeases: a claimed lane is no one else's until its lease runs out;
// then it is claimed again with the same delivery (the same webhook-id):
// a replica killed mid-delivery loses nothing. At most perEndpoint lanes
// of one endpoint are leased at once, and another endpoint's are not held
// back by it.
func TestLeases(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_DISPATCH": "false"}})
	rcv := newReceiver(t)
	busy := e.endpoint("plat-a", rcv.URL+"/busy", map[string]any{"ordering": "none"})
	calm := e.endpoint("plat-a", rcv.URL+"/calm", map[string]any{"ordering": "none"})
	tok := e.Token("plat-a")
	for range 5 {
		e.Do(req("POST", "/v1/webhooks/endpoints/"+busy["id"].(string)+"/test", tok, nil), 202)
	}
	e.Do(req("POST", "/v1/webhooks/endpoints/"+calm["id"].(string)+"/test", tok, nil), 202)
	store, ctx := e.S.Store, t.Context()
	now := e.clock.Now().Add(time.Second)
	lease := 2 * time.Minute

	first, err := store.Claim(ctx, now, now.Add(lease), 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	per := map[uuid.UUID]int{}
	for _, w := range first {
		per[w.Endpoint.ID]++
	}
	if len(first) != 3 || per[uuid.MustParse(busy["id"].(string))] != 2 || per[uuid.MustParse(calm["id"].(string))] != 1 {
		t.Fatalf("claimed %d: %v", len(first), per)
	}
	if again, err := store.Claim(ctx, now.Add(time.Minute), now.Add(time.Minute+lease), 10, 2); err != nil || len(again) != 0 {
		t.Fatalf("claimed %d leased lanes again (%v)", len(again), err)
	}
	// The replica that held them died: after the lease they are claimable
	// again, the same deliveries (with the others).
	later := now.Add(lease + time.Second)
	again, err := store.Claim(ctx, later, later.Add(lease), 10, 10)
	if err != nil || len(again) != 6 {
		t.Fatalf("after the lease: %d (%v)", len(again), err)
	}
	claimed := map[uuid.UUID]bool{}
	for _, w := range again {
		claimed[w.Delivery.ID] = true
	}
	ids := map[uuid.UUID]bool{}
	for _, w := range first {
		ids[w.Delivery.ID] = true
		if !claimed[w.Delivery.ID] {
			t.Fatalf("delivery %s lost with its lease", w.Delivery.ID)
		}
	}
	// Recording the first three frees their share; the other three are
	// released by their lease running out.
	for _, w := range again {
		if !ids[w.Delivery.ID] {
			continue
		}
		code := 200
		a := domain.Attempt{ID: uuid.New(), DeliveryID: w.Delivery.ID, Number: 1, AttemptedAt: later, StatusCode: &code}
		if err := store.Record(ctx, w, a, domain.StatusDelivered, later); err != nil {
			t.Fatal(err)
		}
	}
	later = later.Add(lease + time.Second)
	rest, err := store.Claim(ctx, later, later.Add(lease), 10, 2)
	if err != nil || len(rest) != 2 {
		t.Fatalf("the busy endpoint's next two: %d (%v)", len(rest), err)
	}
	for _, w := range rest {
		if ids[w.Delivery.ID] {
			t.Fatalf("a delivered delivery claimed again")
		}
	}
}

// TestEnqueueWhileALaneMovesOn: a delivery added to a lane by a
// transaction still open while the lane's head is recorded is not left
// without its lane (the lane lock makes the record wait for the commit).
func TestEnqueueWhileALaneMovesOn(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_DISPATCH": "false"}})
	rcv := newReceiver(t)
	ep := e.endpoint("plat-a", rcv.URL, nil)
	id := ep["id"].(string)
	tok := e.Token("plat-a")
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	store, ctx := e.S.Store, t.Context()
	now := e.clock.Now().Add(time.Second)
	works, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8)
	if err != nil || len(works) != 1 {
		t.Fatalf("claim: %d %v", len(works), err)
	}
	w := works[0]

	// A second test event of the same lane (no business: the platform
	// lane), enqueued in a transaction left open.
	tx, err := e.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := domain.Message{ID: uuid.New(), ClientID: "plat-a", Type: domain.TypeWebhookTest, Body: []byte(`{}`), CreatedAt: now}
	txCtx := pgdb.WithTx(ctx, tx)
	if _, err := store.InsertMessage(txCtx, m); err != nil {
		t.Fatal(err)
	}
	if err := store.Enqueue(txCtx, m, []domain.Endpoint{w.Endpoint}, now); err != nil {
		t.Fatal(err)
	}
	recorded := make(chan error, 1)
	go func() {
		code := 200
		recorded <- store.Record(ctx, w, domain.Attempt{ID: uuid.New(), DeliveryID: w.Delivery.ID, Number: 1, AttemptedAt: now, StatusCode: &code},
			domain.StatusDelivered, now)
	}()
	select {
	case err := <-recorded:
		t.Fatalf("the record did not wait for the open enqueue: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-recorded; err != nil {
		t.Fatal(err)
	}
	next, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8)
	if err != nil || len(next) != 1 || next[0].Delivery.MessageID != m.ID {
		t.Fatalf("the enqueued delivery is not claimable: %d %v", len(next), err)
	}
	if n, err := store.RepairLanes(ctx, now); err != nil || n != 0 {
		t.Fatalf("lanes repaired: %d %v", n, err)
	}
}

// TestRepairLanes: a pending delivery whose lane is gone gets it back.
func TestRepairLanes(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_DISPATCH": "false"}})
	rcv := newReceiver(t)
	ep := e.endpoint("plat-a", rcv.URL, nil)
	e.Do(req("POST", "/v1/webhooks/endpoints/"+ep["id"].(string)+"/test", e.Token("plat-a"), nil), 202)
	if _, err := e.DB.NewRaw("DELETE FROM lanes").Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	if n, err := e.S.Store.RepairLanes(t.Context(), now); err != nil || n != 1 {
		t.Fatalf("repaired %d (%v)", n, err)
	}
	if ws, err := e.S.Store.Claim(t.Context(), now, now.Add(time.Minute), 10, 8); err != nil || len(ws) != 1 {
		t.Fatalf("claimable after the repair: %d %v", len(ws), err)
	}
}
