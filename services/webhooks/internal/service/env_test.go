package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/pkg/webhooksig"
	"github.com/acctsuite/acct/services/webhooks"
	"github.com/acctsuite/acct/services/webhooks/internal/app"
	"github.com/acctsuite/acct/services/webhooks/internal/config"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// testKey is a WEBHOOKS_SECRET_KEY for tests (32 bytes, base64).
const testKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// env is a running webhooks service that may deliver to loopback
// receivers over http, with a clock the test moves.
type env struct {
	*servicetest.Env[Service]
	clock *fakeClock
}

type envOptions struct {
	env      map[string]string
	dispatch app.DispatchOptions
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	clk := &fakeClock{now: time.Now().UTC().Truncate(time.Microsecond), anchor: time.Now()}
	vars := map[string]string{"WEBHOOKS_SECRET_KEY": testKey, "WEBHOOKS_ALLOW_PRIVATE": "true", "WEBHOOKS_ALLOW_HTTP": "true"}
	for k, v := range o.env {
		vars[k] = v
	}
	d := o.dispatch
	if d.Poll == 0 {
		d.Poll = 20 * time.Millisecond
	}
	build := func(cfg config.Config) (*Service, servicekit.Definition) {
		return NewWith(cfg, Options{Dispatch: d, Clock: clock.Fixed(clk.Now)})
	}
	e := &env{Env: servicetest.Start(t, config.LoadFrom, build, webhooks.OpenAPI, servicetest.ServiceOptions{Env: vars}), clock: clk}
	t.Cleanup(func() { e.checkQueue(t) })
	return e
}

// checkQueue checks, after every test, that the pending table (the
// dispatchers' queue, kept by trigger) holds exactly the pending
// deliveries, as they are, and that every failed delivery is in failures.
func (e *env) checkQueue(t *testing.T) {
	t.Helper()
	var bad []string
	if err := e.DB.NewRaw(`SELECT 'delivery ' || d.id || ' pending, queued as ' || coalesce(row(p.*)::text, 'nothing') FROM deliveries d
			LEFT JOIN pending p ON p.delivery_id = d.id
			WHERE d.status = 'pending' AND (p.delivery_id IS NULL OR
				(p.endpoint_id, p.lane, p.seq, p.message_id, p.event_type, p.business_id, p.attempts, p.next_attempt_at, p.created_at)
				IS DISTINCT FROM (d.endpoint_id, d.lane, d.seq, d.message_id, d.event_type, d.business_id, d.attempts, d.next_attempt_at, d.created_at))
		UNION ALL
		SELECT 'queued ' || p.delivery_id || ', delivery ' || coalesce(d.status, 'missing') FROM pending p
			LEFT JOIN deliveries d ON d.id = p.delivery_id WHERE d.status IS DISTINCT FROM 'pending'
		UNION ALL
		SELECT 'failed ' || d.id || ' not in failures' FROM deliveries d
			WHERE d.status = 'failed' AND NOT EXISTS (SELECT 1 FROM failures f WHERE f.delivery_id = d.id)`).Scan(context.Background(), &bad); err != nil {
		t.Errorf("check the queue: %v", err)
		return
	}
	if len(bad) > 0 {
		t.Errorf("the pending table does not follow the deliveries: %v", bad)
	}
}

var (
	req  = servicetest.Req
	data = servicetest.Data
)

// fakeClock is a clock the test moves forward, which also creeps on at a
// tenth of real time: the service's own short delays (a lane looked at
// again 25 ms later while a delivery is being enqueued to it) come due as
// they would, while the retry schedule's seconds and hours pass only when
// the test moves the clock (a test's waits between moves add a few
// hundred milliseconds at most, under every schedule step's margin).
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time // the time at anchor
	anchor time.Time // the real time of the last move
}

// creepRate is how much faster real time runs than the clock's creep.
const creepRate = 10

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *fakeClock) nowLocked() time.Time {
	return c.now.Add(time.Since(c.anchor) / creepRate).Truncate(time.Microsecond)
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now, c.anchor = c.nowLocked().Add(d), time.Now()
	c.mu.Unlock()
}

// delivery is one request a receiver got.
type delivery struct {
	ID, Timestamp, Signature string
	Body                     []byte
	Event                    domain.Event
	At                       time.Time
}

// receiver is a loopback webhook receiver whose answer the test sets.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []delivery
	answer func(d delivery) int
	calls  atomic.Int64
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{answer: func(delivery) int { return 200 }}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		body, _ := io.ReadAll(q.Body)
		d := delivery{ID: q.Header.Get("webhook-id"), Timestamp: q.Header.Get("webhook-timestamp"),
			Signature: q.Header.Get("webhook-signature"), Body: body, At: time.Now()}
		_ = json.Unmarshal(body, &d.Event)
		r.calls.Add(1)
		r.mu.Lock()
		answer := r.answer
		r.mu.Unlock()
		code := answer(d)
		r.mu.Lock()
		r.got = append(r.got, d)
		r.mu.Unlock()
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"ok":"answer body"}`))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) setAnswer(f func(d delivery) int) {
	r.mu.Lock()
	r.answer = f
	r.mu.Unlock()
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// waitFor waits until the receiver has n deliveries (or fails).
func (r *receiver) waitFor(t *testing.T, n int, within time.Duration) []delivery {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := r.deliveries()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("receiver got %d deliveries within %s, want %d: %+v", len(got), within, n, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// quiet checks that the receiver gets nothing more than n within d.
func (r *receiver) quiet(t *testing.T, n int, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	if got := r.deliveries(); len(got) != n {
		t.Fatalf("receiver got %d deliveries, want %d: %+v", len(got), n, got)
	}
}

// endpoint creates an endpoint of client to url; the answer's data.
func (e *env) endpoint(client, url string, extra map[string]any) map[string]any {
	e.T.Helper()
	body := map[string]any{"url": url}
	for k, v := range extra {
		body[k] = v
	}
	return data(e.Do(req("POST", "/v1/webhooks/endpoints", e.Token(client), body), 201))
}

// business records a business of client through the broker (its
// business.created goes through the service's consumers).
func (e *env) business(client string, external *string) uuid.UUID {
	e.T.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := events.Business{ID: uuid.Must(uuid.NewV7()), ClientID: client, ExternalID: external, LegalName: "Biz " + client,
		Country: "US", DefaultReportingBasis: "ACCRUAL", CreatedAt: now, UpdatedAt: now}
	e.publish(events.TopicBusiness, events.TypeBusinessCreated, b.ID, b)
	e.waitRow("SELECT count(*) FROM businesses WHERE id = ?", b.ID)
	return b.ID
}

// publish writes one domain event to the broker.
func (e *env) publish(topic, typ string, bid uuid.UUID, payload any) events.Event {
	e.T.Helper()
	ev, err := events.New(topic, typ, "test", bid, payload)
	if err != nil {
		e.T.Fatal(err)
	}
	w := &kafka.Writer{Addr: kafka.TCP(e.Svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond,
		AllowAutoTopicCreation: true}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.WriteMessages(ctx, events.ToMessage(ev)); err != nil {
		e.T.Fatalf("publish %s: %v", typ, err)
	}
	return ev
}

// settled waits until no lane is leased: every attempt made is
// recorded. A test that moves the clock waits for it first, or a jump
// past the lease would send a delivery whose outcome is still on its way
// to the database again.
func (e *env) settled() {
	e.T.Helper()
	e.waitRow("SELECT (count(*) = 0)::int FROM lanes WHERE lease_until IS NOT NULL")
}

// waitRow waits until query (a count) is positive.
func (e *env) waitRow(query string, args ...any) {
	e.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := e.DB.NewRaw(query, args...).Scan(context.Background(), &n); err != nil {
			e.T.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("nothing for %s", query)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// customer publishes customer.upserted version v of customer id.
func (e *env) customer(bid, id uuid.UUID, v int, status string, ext *string) events.Event {
	e.T.Helper()
	now := time.Now().UTC()
	return e.publish(events.TopicInvoicing, events.TypeCustomerUpserted, bid, events.CustomerUpserted{CustomerID: id, BusinessID: bid,
		Version: v, ExternalID: ext, DisplayName: "C", Status: status, Tags: []events.LedgerTag{}, CreatedAt: now, UpdatedAt: now})
}

// verify checks d's signature under secret at the receiver's time.
func verify(t *testing.T, d delivery, secret string) {
	t.Helper()
	ts, err := strconv.ParseInt(d.Timestamp, 10, 64)
	if err != nil {
		t.Fatalf("webhook-timestamp %q: %v", d.Timestamp, err)
	}
	// The service's clock is the test's: verify at the time it signed.
	if err := webhooksig.VerifyValues(secret, d.ID, d.Timestamp, d.Signature, d.Body, time.Unix(ts, 0), 0); err != nil {
		t.Fatalf("delivery %s does not verify: %v (signature %q)", d.ID, err, d.Signature)
	}
}

func strp(s string) *string { return &s }
