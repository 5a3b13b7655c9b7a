package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/testkit"
)

// recordingPublisher accepts everything except the events it is told to
// refuse for good (as a broker refuses a too-large record) or to fail once
// transiently when published on their own; it records what it accepted.
type recordingPublisher struct {
	mu        sync.Mutex
	refuse    map[uuid.UUID]bool
	failAlone map[uuid.UUID]bool
	calls     int
	got       []uuid.UUID
}

func (p *recordingPublisher) Publish(_ context.Context, evts []events.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	for _, e := range evts {
		if p.refuse[e.ID] {
			return outbox.Rejected(fmt.Errorf("[10] Message Size Too Large: event %s", e.ID))
		}
	}
	if len(evts) == 1 && p.failAlone[evts[0].ID] {
		delete(p.failAlone, evts[0].ID)
		return errors.New("broker connection reset")
	}
	for _, e := range evts {
		p.got = append(p.got, e.ID)
	}
	return nil
}

func (p *recordingPublisher) published() []uuid.UUID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]uuid.UUID(nil), p.got...)
}

// TestRelayParksRefusedEvents: one event the broker refuses for good is
// parked, the events of other businesses keep flowing (before and after it),
// the later events of its own business wait behind it in order, and once
// the cause is fixed and the event unparked everything goes out in order.
func TestRelayParksRefusedEvents(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", outbox.Migrations)
	ctx := context.Background()
	x, y, z := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	enqueue := func(business uuid.UUID, n int) uuid.UUID {
		t.Helper()
		e, err := events.New(testTopic, "test.step", "outbox-test", business, step{Business: business, N: n})
		if err != nil {
			t.Fatal(err)
		}
		if err := outbox.Enqueue(ctx, db, e); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	x1, y1, x2, y2, z1, x3, y3 := enqueue(x, 1), enqueue(y, 1), enqueue(x, 2), enqueue(y, 2), enqueue(z, 1), enqueue(x, 3), enqueue(y, 3)

	pub := &recordingPublisher{refuse: map[uuid.UUID]bool{x2: true}, failAlone: map[uuid.UUID]bool{y3: true}}
	relay := outbox.NewRelay(db, pub, testLogger(t), outbox.RelayOptions{MinBackoff: 10 * time.Millisecond})
	flush := func() {
		t.Helper()
		fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := relay.Flush(fctx); err != nil {
			t.Fatalf("Flush: %v (published %v)", err, pub.published())
		}
	}
	expect := func(what string, want ...uuid.UUID) {
		t.Helper()
		got := pub.published()
		if len(got) != len(want) {
			t.Fatalf("%s: published %v, want %v", what, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: published %v, want %v", what, got, want)
			}
		}
	}
	counts := func(wantPending, wantParked int) {
		t.Helper()
		pending, err := relay.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		parked, err := relay.Parked(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if pending != wantPending || parked != wantParked {
			t.Errorf("pending %d, parked %d; want %d, %d", pending, parked, wantPending, wantParked)
		}
	}

	// x2 is parked, x3 waits behind it, the rest goes out in order (y3
	// after a transient failure and a retry).
	flush()
	expect("first flush", x1, y1, y2, z1, y3)
	counts(1, 1)
	var parked struct {
		ID        uuid.UUID `bun:"id"`
		Attempts  int       `bun:"attempts"`
		LastError string    `bun:"last_error"`
	}
	if err := db.NewRaw("SELECT id, attempts, last_error FROM outbox WHERE failed_at IS NOT NULL").Scan(ctx, &parked); err != nil {
		t.Fatal(err)
	}
	if parked.ID != x2 || parked.Attempts != 1 || !strings.Contains(parked.LastError, "Message Size Too Large") {
		t.Errorf("parked row = %+v, want %s with one attempt and the broker's error", parked, x2)
	}
	if s := relay.Stats(); s.Parked != 1 || s.Published != 5 {
		t.Errorf("stats = %+v, want 1 parked and 5 published", s)
	}

	// Later events of other businesses still flow; x's keep waiting.
	y4, x4 := enqueue(y, 4), enqueue(x, 4)
	flush()
	expect("second flush", x1, y1, y2, z1, y3, y4)
	counts(2, 1)

	// The cause is fixed: unparked, x's events go out in their order.
	pub.mu.Lock()
	pub.refuse = nil
	pub.mu.Unlock()
	if n, err := relay.Unpark(ctx); err != nil || n != 1 {
		t.Fatalf("Unpark = %d, %v; want 1", n, err)
	}
	flush()
	expect("after unpark", x1, y1, y2, z1, y3, y4, x2, x3, x4)
	counts(0, 0)
}

// TestKafkaPublisherClassifiesRefusals: the broker refusing a record for
// its size is a permanent refusal (ErrRejected); a broker that is down is
// not. An event of exactly MaxEventBytes fits the broker's default limit
// (checked in the internal test).
func TestKafkaPublisherClassifiesRefusals(t *testing.T) {
	const small = "acct.smalltopic.v1"
	broker := testkit.Broker(t, testTopic)
	if err := broker.Cluster().CreateTopic(small, 1, map[string]string{"max.message.bytes": "2000"}); err != nil {
		t.Fatal(err)
	}
	pub := outbox.NewKafkaPublisher(events.Plain(broker.Addrs()...))
	t.Cleanup(func() { _ = pub.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	business := uuid.Must(uuid.NewV7())
	event := func(topic string, padding int) events.Event {
		e, err := events.New(topic, "test.pad", "outbox-test", business, map[string]string{"pad": strings.Repeat("x", padding)})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}

	tests := []struct {
		name     string
		evts     []events.Event
		rejected bool
	}{
		{"fits", []events.Event{event(small, 100)}, false},
		{"over the topic's limit", []events.Event{event(small, 5000)}, true},
		{"one over the limit among small ones", []events.Event{event(small, 10), event(small, 5000), event(small, 10)}, true},
		{"over the client's batch limit", []events.Event{event(testTopic, 2<<20)}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := pub.Publish(ctx, tc.evts)
			if tc.rejected != errors.Is(err, outbox.ErrRejected) || (!tc.rejected && err != nil) {
				t.Fatalf("Publish = %v, want rejected %v", err, tc.rejected)
			}
		})
	}

	broker.Stop()
	sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
	defer scancel()
	if err := pub.Publish(sctx, []events.Event{event(testTopic, 10)}); err == nil || errors.Is(err, outbox.ErrRejected) {
		t.Errorf("Publish with the broker down = %v, want a transient error", err)
	}
}

// TestStandbyIgnoresNotifications: while a leader publishes a stream of
// events, a standby relay in the same process (so woken by every local
// Enqueue and every NOTIFY) tries the lock only once per StandbyInterval.
func TestStandbyIgnoresNotifications(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", outbox.Migrations)
	pub := &recordingPublisher{}
	const standbyInterval = 500 * time.Millisecond
	leader := outbox.NewRelay(db, pub, testLogger(t), outbox.RelayOptions{PollInterval: 50 * time.Millisecond})
	standby := outbox.NewRelay(db, pub, testLogger(t), outbox.RelayOptions{StandbyInterval: standbyInterval})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	start := func(r *outbox.Relay) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Run(ctx); err != nil {
				t.Errorf("Run: %v", err)
			}
		}()
	}
	start(leader)
	waitFor(t, 5*time.Second, "leader", func() (bool, string) { return leader.Stats().Leading, "" })
	start(standby)
	waitFor(t, 5*time.Second, "standby's first try", func() (bool, string) {
		return standby.Stats().LockAttempts == 1, fmt.Sprint(standby.Stats())
	})

	began := time.Now()
	business := uuid.Must(uuid.NewV7())
	const total = 150
	for i := range total {
		e, err := events.New(testTopic, "test.step", "outbox-test", business, step{Business: business, N: i})
		if err != nil {
			t.Fatal(err)
		}
		if err := outbox.Enqueue(ctx, db, e); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	waitFor(t, 10*time.Second, "all published", func() (bool, string) {
		n := len(pub.published())
		return n == total, fmt.Sprintf("%d of %d", n, total)
	})
	elapsed := time.Since(began)
	attempts := standby.Stats().LockAttempts - 1
	if limit := int64(elapsed/standbyInterval) + 2; attempts > limit {
		t.Errorf("standby tried the lock %d times in %s, want at most %d (once per %s)", attempts, elapsed, limit, standbyInterval)
	}
	if standby.Stats().Leading || standby.Stats().Published != 0 {
		t.Errorf("standby stats %+v: it led or published", standby.Stats())
	}
}

// TestRelayFailover: the leader's database session is killed; a standby
// takes the lock within a few seconds and delivery continues.
func TestRelayFailover(t *testing.T) {
	url := testkit.NewDatabase(t)
	db := testkit.OpenSchema(t, url, "svc", outbox.Migrations)
	pub := &recordingPublisher{}
	// The first leader, once it lost its session, would only try again
	// after a minute: the standby must be the one taking over.
	first := outbox.NewRelay(db, pub, testLogger(t), outbox.RelayOptions{PollInterval: 50 * time.Millisecond, StandbyInterval: time.Minute})
	second := outbox.NewRelay(db, pub, testLogger(t), outbox.RelayOptions{PollInterval: 50 * time.Millisecond, StandbyInterval: 200 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	start := func(r *outbox.Relay) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Run(ctx); err != nil {
				t.Errorf("Run: %v", err)
			}
		}()
	}
	start(first)
	waitFor(t, 5*time.Second, "first leader", func() (bool, string) { return first.Stats().Leading, "" })
	start(second)

	business := uuid.Must(uuid.NewV7())
	var want []uuid.UUID
	enqueue := func(n int) {
		for i := range n {
			e, err := events.New(testTopic, "test.step", "outbox-test", business, step{Business: business, N: len(want) + i})
			if err != nil {
				t.Fatal(err)
			}
			if err := outbox.Enqueue(ctx, db, e); err != nil {
				t.Fatal(err)
			}
			want = append(want, e.ID)
		}
	}
	allPublished := func() (bool, string) {
		seen := map[uuid.UUID]bool{}
		for _, id := range pub.published() {
			seen[id] = true
		}
		for _, id := range want {
			if !seen[id] {
				return false, fmt.Sprintf("%d of %d published", len(seen), len(want))
			}
		}
		return true, ""
	}
	enqueue(20)
	waitFor(t, 10*time.Second, "events published by the first leader", allPublished)

	leaderPID := func() int {
		return count(t, db, "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()",
			outbox.LeaderApplicationName)
	}
	pid := leaderPID()
	if pid == 0 {
		t.Fatal("no session of the leader in pg_stat_activity")
	}
	killed := time.Now()
	mustExec(t, db, "SELECT pg_terminate_backend(?)", pid)
	waitFor(t, 5*time.Second, "the standby leading", func() (bool, string) {
		return second.Stats().Leading && !first.Stats().Leading, fmt.Sprintf("first %+v, second %+v", first.Stats(), second.Stats())
	})
	t.Logf("standby took over %s after the kill", time.Since(killed))
	if now := leaderPID(); now == pid || now == 0 {
		t.Errorf("leader session pid %d after failover, was %d", now, pid)
	}

	enqueue(20)
	waitFor(t, 10*time.Second, "events published by the new leader", allPublished)
	if n := count(t, db, "SELECT count(*) FROM outbox WHERE sent_at IS NULL"); n != 0 {
		t.Errorf("%d rows unsent after failover", n)
	}
	// Flush on the replica that no longer leads finds nothing left to wait for.
	fctx, fcancel := context.WithTimeout(ctx, 5*time.Second)
	defer fcancel()
	if err := first.Flush(fctx); err != nil {
		t.Errorf("Flush on the standby: %v", err)
	}
}
