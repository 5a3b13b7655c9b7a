package service

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/webhooks/internal/app"
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

	first, _, err := store.Claim(ctx, now, now.Add(lease), 10, 2, 1)
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
	if again, _, err := store.Claim(ctx, now.Add(time.Minute), now.Add(time.Minute+lease), 10, 2, 1); err != nil || len(again) != 0 {
		t.Fatalf("claimed %d leased lanes again (%v)", len(again), err)
	}
	// The replica that held them died: after the lease they are claimable
	// again, the same deliveries (with the others).
	later := now.Add(lease + time.Second)
	again, _, err := store.Claim(ctx, later, later.Add(lease), 10, 10, 1)
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
		if err := store.RecordAll(ctx, []app.Recorded{{Work: w, Attempt: a, Status: domain.StatusDelivered}}, later); err != nil {
			t.Fatal(err)
		}
	}
	later = later.Add(lease + time.Second)
	rest, _, err := store.Claim(ctx, later, later.Add(lease), 10, 2, 1)
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
// without its lane, and neither the record nor a claim waits for that
// transaction: the lane is kept (not dropped) and looked at again until
// the delivery is there.
func TestEnqueueWhileALaneMovesOn(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_DISPATCH": "false"}})
	rcv := newReceiver(t)
	ep := e.endpoint("plat-a", rcv.URL, nil)
	id := ep["id"].(string)
	tok := e.Token("plat-a")
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	store, ctx := e.S.Store, t.Context()
	now := e.clock.Now().Add(time.Second)
	works, _, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 1)
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
	defer func() { _ = tx.Rollback() }()
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
		a := domain.Attempt{ID: uuid.New(), DeliveryID: w.Delivery.ID, Number: 1, AttemptedAt: now, StatusCode: &code}
		recorded <- store.RecordAll(ctx, []app.Recorded{{Work: w, Attempt: a, Status: domain.StatusDelivered}}, now)
	}()
	select {
	case err := <-recorded:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the record waited for the open enqueue")
	}
	lanes := func() int {
		var n int
		if err := e.DB.NewRaw("SELECT count(*) FROM lanes WHERE lease_until IS NULL").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := lanes(); n != 1 {
		t.Fatalf("the lane was dropped under the open enqueue (%d unleased lanes)", n)
	}
	// A claim meanwhile sees no head: the lane is kept, due again soon.
	none, recheck, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 1)
	if err != nil || len(none) != 0 || !recheck || lanes() != 1 {
		t.Fatalf("claim under the open enqueue: %d works, recheck %v (%v), %d lanes", len(none), recheck, err, lanes())
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if early, _, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 1); err != nil || len(early) != 0 {
		t.Fatalf("claimed before the recheck: %d %v", len(early), err)
	}
	then := now.Add(app.RecheckDelay)
	next, _, err := store.Claim(ctx, then, then.Add(time.Minute), 10, 8, 1)
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
	if ws, _, err := e.S.Store.Claim(t.Context(), now, now.Add(time.Minute), 10, 8, 1); err != nil || len(ws) != 1 {
		t.Fatalf("claimable after the repair: %d %v", len(ws), err)
	}
}

// TestRecordAll: outcomes recorded together, of lanes of two endpoints,
// each take effect as on their own: the ordered lane's next delivery is
// due at once, a retried one's lane when its retry is, a delivered or
// failed one's lane is gone, and every attempt is kept.
func TestRecordAll(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_DISPATCH": "false"}})
	rcv := newReceiver(t)
	ordered := e.endpoint("plat-a", rcv.URL+"/ordered", nil)
	unordered := e.endpoint("plat-a", rcv.URL+"/unordered", map[string]any{"ordering": "none"})
	tok := e.Token("plat-a")
	for range 2 {
		e.Do(req("POST", "/v1/webhooks/endpoints/"+ordered["id"].(string)+"/test", tok, nil), 202)
	}
	for range 3 {
		e.Do(req("POST", "/v1/webhooks/endpoints/"+unordered["id"].(string)+"/test", tok, nil), 202)
	}
	store, ctx := e.S.Store, t.Context()
	now := e.clock.Now().Add(time.Second)
	works, _, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 1)
	if err != nil || len(works) != 4 {
		t.Fatalf("claimed %d (%v)", len(works), err)
	}
	ok, unavailable := 204, 503
	retryAt := now.Add(5 * time.Second)
	var recs []app.Recorded
	want := map[uuid.UUID]string{}
	var orderedHead uuid.UUID
	outcomes := []string{domain.StatusDelivered, domain.StatusPending, domain.StatusFailed}
	for _, w := range works {
		a := domain.Attempt{ID: uuid.New(), DeliveryID: w.Delivery.ID, Number: 1, AttemptedAt: now, StatusCode: &ok, Response: "fine"}
		status := domain.StatusDelivered
		if w.Endpoint.ID.String() == unordered["id"].(string) {
			status, outcomes = outcomes[0], outcomes[1:]
		} else {
			orderedHead = w.Delivery.ID
		}
		if status != domain.StatusDelivered {
			a.StatusCode = &unavailable
		}
		if status == domain.StatusPending {
			a.NextRetryAt = &retryAt
		}
		recs = append(recs, app.Recorded{Work: w, Attempt: a, Status: status})
		want[w.Delivery.ID] = status
	}
	if err := store.RecordAll(ctx, recs, now); err != nil {
		t.Fatal(err)
	}
	for id, status := range want {
		var got struct {
			Status   string `bun:"status"`
			Attempts int    `bun:"attempts"`
			Kept     int    `bun:"kept"`
		}
		// The first attempt is kept in the delivery's row.
		if err := e.DB.NewRaw(`SELECT status, attempts, (SELECT count(*) FROM attempts a WHERE a.delivery_id = d.id)
				+ (first_attempt_id IS NOT NULL)::int AS kept
			FROM deliveries d WHERE id = ?`, id).Scan(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if got.Status != status || got.Attempts != 1 || got.Kept != 1 {
			t.Fatalf("delivery %s: %+v, want %s with its attempt", id, got, status)
		}
	}
	var lanes int
	if err := e.DB.NewRaw("SELECT count(*) FROM lanes WHERE lease_until IS NULL").Scan(ctx, &lanes); err != nil || lanes != 2 {
		t.Fatalf("unleased lanes: %d (%v), want the ordered one and the retried one", lanes, err)
	}
	next, _, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 1)
	if err != nil || len(next) != 1 || next[0].Endpoint.ID.String() != ordered["id"].(string) || next[0].Delivery.ID == orderedHead {
		t.Fatalf("claimable now: %d (%v), want the ordered lane's second delivery", len(next), err)
	}
	if retried, _, err := store.Claim(ctx, retryAt, retryAt.Add(time.Minute), 10, 8, 1); err != nil || len(retried) != 1 ||
		want[retried[0].Delivery.ID] != domain.StatusPending {
		t.Fatalf("claimable at the retry: %d (%v), want the retried delivery", len(retried), err)
	}
}

// TestRuns: a claim takes an ordered lane's due deliveries in order (a
// run), up to the run's bound and up to the first one not due; a record
// that holds the lane leaves it leased, and the run's last record moves
// it on to the first delivery not delivered.
func TestRuns(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_DISPATCH": "false"}})
	rcv := newReceiver(t)
	ep := e.endpoint("plat-a", rcv.URL, nil)
	tok := e.Token("plat-a")
	for range 5 {
		e.Do(req("POST", "/v1/webhooks/endpoints/"+ep["id"].(string)+"/test", tok, nil), 202)
	}
	store, ctx := e.S.Store, t.Context()
	var seqs []uuid.UUID
	if err := e.DB.NewRaw("SELECT id FROM deliveries ORDER BY seq").Scan(ctx, &seqs); err != nil || len(seqs) != 5 {
		t.Fatalf("deliveries: %d (%v)", len(seqs), err)
	}
	now := e.clock.Now().Add(time.Second)
	run, _, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 4)
	if err != nil || len(run) != 4 {
		t.Fatalf("claimed %d (%v), want a run of 4", len(run), err)
	}
	for i, w := range run {
		if w.Delivery.ID != seqs[i] || w.Lane != run[0].Lane {
			t.Fatalf("run[%d] is %s of lane %v, want %s in order", i, w.Delivery.ID, w.Lane, seqs[i])
		}
	}
	ok, unavailable := 204, 503
	attempt := func(w app.Work, code int, next *time.Time) domain.Attempt {
		return domain.Attempt{ID: uuid.New(), DeliveryID: w.Delivery.ID, Number: 1, AttemptedAt: now, StatusCode: &code, NextRetryAt: next}
	}
	// The head delivered, holding the lane: still leased, nothing to claim.
	if err := store.RecordAll(ctx, []app.Recorded{{Work: run[0], Attempt: attempt(run[0], ok, nil), Status: domain.StatusDelivered, Holds: true}}, now); err != nil {
		t.Fatal(err)
	}
	if more, _, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 4); err != nil || len(more) != 0 {
		t.Fatalf("a held lane was claimed again: %d (%v)", len(more), err)
	}
	// The second answered 503: the run ends there, the lane is due at
	// its retry, the third and fourth untouched.
	retryAt := now.Add(5 * time.Second)
	if err := store.RecordAll(ctx, []app.Recorded{{Work: run[1], Attempt: attempt(run[1], unavailable, &retryAt), Status: domain.StatusPending}}, now); err != nil {
		t.Fatal(err)
	}
	if early, _, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 4); err != nil || len(early) != 0 {
		t.Fatalf("claimed before the retry: %d (%v)", len(early), err)
	}
	// The fifth made not due (as a delivery resent later would be): the
	// run at the retry stops before it.
	later := retryAt.Add(time.Hour)
	if _, err := e.DB.NewRaw("UPDATE deliveries SET next_attempt_at = ? WHERE id = ?", later, seqs[4]).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	again, _, err := store.Claim(ctx, retryAt, retryAt.Add(time.Minute), 10, 8, 10)
	if err != nil || len(again) != 3 || again[0].Delivery.ID != seqs[1] || again[1].Delivery.ID != seqs[2] || again[2].Delivery.ID != seqs[3] {
		t.Fatalf("the run at the retry: %d (%v), want the second, third and fourth", len(again), err)
	}
	var states []string
	if err := e.DB.NewRaw("SELECT status FROM deliveries ORDER BY seq").Scan(ctx, &states); err != nil {
		t.Fatal(err)
	}
	if want := []string{"delivered", "pending", "pending", "pending", "pending"}; !slices.Equal(states, want) {
		t.Fatalf("states %v, want %v", states, want)
	}
}

// TestStaleAttemptAfterResend: an attempt under way when its delivery is
// failed (the endpoint disabled) and then resent is not recorded onto the
// new series: the resent delivery stays due at once, with no attempts,
// and is claimed again.
func TestStaleAttemptAfterResend(t *testing.T) {
	e := newEnv(t, envOptions{env: map[string]string{"WEBHOOKS_DISPATCH": "false"}})
	rcv := newReceiver(t)
	ep := e.endpoint("plat-a", rcv.URL, map[string]any{"ordering": "none"})
	epID := uuid.MustParse(ep["id"].(string))
	e.Do(req("POST", "/v1/webhooks/endpoints/"+ep["id"].(string)+"/test", e.Token("plat-a"), nil), 202)
	store, ctx := e.S.Store, t.Context()
	now := e.clock.Now().Add(time.Second)
	works, _, err := store.Claim(ctx, now, now.Add(time.Minute), 10, 8, 1)
	if err != nil || len(works) != 1 {
		t.Fatalf("claimed %d (%v)", len(works), err)
	}
	unavailable := 503
	retryAt := now.Add(5 * time.Second)
	first := domain.Attempt{ID: uuid.New(), DeliveryID: works[0].Delivery.ID, Number: 1, AttemptedAt: now, StatusCode: &unavailable, NextRetryAt: &retryAt}
	if err := store.RecordAll(ctx, []app.Recorded{{Work: works[0], Attempt: first, Status: domain.StatusPending}}, now); err != nil {
		t.Fatal(err)
	}
	retry, _, err := store.Claim(ctx, retryAt, retryAt.Add(time.Minute), 10, 8, 1)
	if err != nil || len(retry) != 1 || retry[0].Delivery.Attempts != 1 {
		t.Fatalf("claimed at the retry: %d (%v)", len(retry), err)
	}
	// While the second attempt is under way the endpoint is disabled (its
	// pending deliveries fail), enabled again and the delivery resent.
	if n, err := store.FailPending(ctx, epID, "disabled", retryAt); err != nil || n != 1 {
		t.Fatalf("failed %d (%v)", n, err)
	}
	resentAt := retryAt.Add(time.Second)
	if n, err := store.Resend(ctx, epID, []uuid.UUID{retry[0].Delivery.ID}, resentAt); err != nil || n != 1 {
		t.Fatalf("resent %d (%v)", n, err)
	}
	later := resentAt.Add(5 * time.Minute)
	stale := domain.Attempt{ID: uuid.New(), DeliveryID: retry[0].Delivery.ID, Number: 2, AttemptedAt: retryAt, StatusCode: &unavailable, NextRetryAt: &later}
	if err := store.RecordAll(ctx, []app.Recorded{{Work: retry[0], Attempt: stale, Status: domain.StatusPending}}, resentAt); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status   string `bun:"status"`
		Attempts int    `bun:"attempts"`
	}
	if err := e.DB.NewRaw("SELECT status, attempts FROM deliveries WHERE id = ?", retry[0].Delivery.ID).Scan(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.StatusPending || got.Attempts != 0 {
		t.Fatalf("after the stale attempt: %+v, want pending with no attempts", got)
	}
	again, _, err := store.Claim(ctx, resentAt, resentAt.Add(time.Minute), 10, 8, 1)
	if err != nil || len(again) != 1 || again[0].Delivery.ID != retry[0].Delivery.ID || again[0].Delivery.Attempts != 0 {
		t.Fatalf("claimable after the resend: %d (%v), want the resent delivery at once", len(again), err)
	}
}
