package service

import (
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/webhooks/internal/app"
)

// TestDeliveriesFromTheDomainTopics: a customer's snapshots become
// Customer.created, .updated and .archived, signed, thin, with the
// business's external id; a stale snapshot sends nothing; an endpoint
// gets only what it subscribes to.
func TestDeliveriesFromTheDomainTopics(t *testing.T) {
	e := newEnv(t, envOptions{})
	all, onlyInvoices := newReceiver(t), newReceiver(t)
	ep := e.endpoint("plat-a", all.URL+"/all", nil)
	e.endpoint("plat-a", onlyInvoices.URL, map[string]any{"event_types": []string{"Invoice.created"}})
	strangers := newReceiver(t)
	e.endpoint("plat-b", strangers.URL, nil)
	secret := ep["secret"].(string)

	bid := e.business("plat-a", strp("biz-ext-1"))
	got := all.waitFor(t, 1, 20*time.Second)
	if got[0].Event.Type != "Business.created" || got[0].Event.Data.EntityID != bid.String() || *got[0].Event.BusinessExternalID != "biz-ext-1" {
		t.Fatalf("business event: %s", got[0].Body)
	}

	cid := uuid.New()
	e.customer(bid, cid, 1, "ACTIVE", strp("cust-9"))
	e.customer(bid, cid, 2, "ACTIVE", strp("cust-9"))
	e.customer(bid, cid, 3, "ARCHIVED", strp("cust-9"))
	e.customer(bid, cid, 2, "ACTIVE", strp("cust-9")) // late: nothing
	got = all.waitFor(t, 4, 20*time.Second)
	want := []string{"Business.created", "Customer.created", "Customer.updated", "Customer.archived"}
	for i, d := range got[:4] {
		if d.Event.Type != want[i] {
			t.Fatalf("delivery %d is %s, want %s", i, d.Event.Type, want[i])
		}
		verify(t, d, secret)
		if d.ID != d.Event.ID.String() {
			t.Fatalf("webhook-id %s is not the event id %s", d.ID, d.Event.ID)
		}
		if i > 0 {
			if d.Event.Data.EntityID != cid.String() || d.Event.Data.EntityExternalID == nil || *d.Event.Data.EntityExternalID != "cust-9" ||
				*d.Event.BusinessID != bid || *d.Event.BusinessExternalID != "biz-ext-1" {
				t.Fatalf("thin payload: %s", d.Body)
			}
		}
		for _, k := range []string{`"id"`, `"type"`, `"business_id"`, `"business_external_id"`, `"created_at"`, `"data"`, `"entity_id"`, `"entity_external_id"`} {
			if !strings.Contains(string(d.Body), k) {
				t.Fatalf("payload without %s: %s", k, d.Body)
			}
		}
	}
	all.quiet(t, 4, 300*time.Millisecond)
	onlyInvoices.quiet(t, 0, 0)
	strangers.quiet(t, 0, 0)

	// The deliveries API shows them, with their attempts.
	list := e.Do(req("GET", "/v1/webhooks/endpoints/"+ep["id"].(string)+"/deliveries?status=delivered", e.Token("plat-a"), nil), 200)["data"].([]any)
	if len(list) != 4 {
		t.Fatalf("%d deliveries listed", len(list))
	}
	first := list[0].(map[string]any) // newest first
	atts := first["attempts"].([]any)
	if first["event_type"] != "Customer.archived" || first["status"] != "delivered" || len(atts) != 1 ||
		atts[0].(map[string]any)["status_code"] != 200.0 || atts[0].(map[string]any)["response"] != `{"ok":"answer body"}` {
		t.Fatalf("delivery: %v", first)
	}

	// The attempts are counted and timed on /metrics.
	resp, err := http.Get(e.Svc.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`webhooks_attempts_total{outcome="delivered"} 4`, "webhooks_attempt_seconds_count 4", "webhooks_due_lag_seconds 0"} {
		if !strings.Contains(string(metrics), want) {
			t.Fatalf("/metrics lacks %q", want)
		}
	}
}

// TestRetryScheduleAndFailure: a failing receiver gets the first attempt
// at once and the retries at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
// (the service's clock moved by the test), always with the same
// webhook-id; then the delivery fails, and recover sends it again.
func TestRetryScheduleAndFailure(t *testing.T) {
	e := newEnv(t, envOptions{})
	rcv := newReceiver(t)
	rcv.setAnswer(func(delivery) int { return 503 })
	ep := e.endpoint("plat-a", rcv.URL, nil)
	id := ep["id"].(string)
	tok := e.Token("plat-a")
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	start := e.clock.Now()
	rcv.waitFor(t, 1, 10*time.Second)
	for i, d := range []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour} {
		// Not a moment before it is due.
		e.settled()
		e.clock.Advance(d - time.Second)
		rcv.quiet(t, i+1, 150*time.Millisecond)
		e.clock.Advance(time.Second)
		rcv.waitFor(t, i+2, 10*time.Second)
	}
	got := rcv.deliveries()
	for _, d := range got {
		if d.ID != got[0].ID || d.Event.Type != "Webhook.test" {
			t.Fatalf("retries differ: %s vs %s", d.ID, got[0].ID)
		}
	}
	e.settled()
	e.clock.Advance(24 * time.Hour)
	rcv.quiet(t, 8, 200*time.Millisecond)
	list := e.Do(req("GET", "/v1/webhooks/endpoints/"+id+"/deliveries", tok, nil), 200)["data"].([]any)
	d := list[0].(map[string]any)
	if d["status"] != "failed" || d["attempt_count"] != 8.0 || d["next_attempt_at"] != nil || len(d["attempts"].([]any)) != 8 {
		t.Fatalf("after 8 attempts: %v", d)
	}
	last := d["attempts"].([]any)[0].(map[string]any)
	if last["status_code"] != 503.0 || last["next_retry_at"] != nil || !strings.Contains(last["error"].(string), "503") {
		t.Fatalf("last attempt: %v", last)
	}
	// The endpoint has been failing since the first attempt.
	got2 := data(e.Do(req("GET", "/v1/webhooks/endpoints/"+id, tok, nil), 200))
	if got2["failing_since"] == nil {
		t.Fatalf("failing_since not set: %v", got2)
	}
	_ = start

	rcv.setAnswer(func(delivery) int { return 200 })
	n := data(e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/recover?since="+start.Add(-time.Minute).Format(time.RFC3339), tok, nil), 202))
	if n["resent"] != 1.0 {
		t.Fatalf("recover: %v", n)
	}
	rcv.waitFor(t, 9, 10*time.Second)
	if got := rcv.deliveries()[8]; got.ID != got2["id"] && got.ID != rcv.deliveries()[0].ID {
		t.Fatalf("recovered delivery has another id: %s", got.ID)
	}
	e.waitRow("SELECT count(*) FROM deliveries WHERE status = 'delivered'")
	// Both series are listed, newest first: the recovered success (the
	// first attempt of its series), then the eight failures down to the
	// very first one.
	after := e.Do(req("GET", "/v1/webhooks/endpoints/"+id+"/deliveries", tok, nil), 200)["data"].([]any)[0].(map[string]any)
	attempts := after["attempts"].([]any)
	if after["status"] != "delivered" || len(attempts) != 9 {
		t.Fatalf("after the recovery: %v", after)
	}
	seen := map[any]bool{}
	for i, a := range attempts {
		a := a.(map[string]any)
		wantCode := 503.0
		if i == 0 {
			wantCode = 200.0
		}
		if a["status_code"] != wantCode || seen[a["id"]] {
			t.Fatalf("attempt %d of the listing: %v (want status %v, a new id)", i, a, wantCode)
		}
		seen[a["id"]] = true
	}
	if a := attempts[8].(map[string]any); a["number"] != 1.0 || a["next_retry_at"] == nil {
		t.Fatalf("the oldest attempt: %v, want the very first (number 1, retried)", a)
	}
	if got := data(e.Do(req("GET", "/v1/webhooks/endpoints/"+id, tok, nil), 200)); got["failing_since"] != nil {
		t.Fatalf("a success did not clear failing_since: %v", got)
	}
	// Resend of a delivered one sends it once more.
	did := d["id"].(string)
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/deliveries/"+did+"/resend", tok, nil), 202)
	rcv.waitFor(t, 10, 10*time.Second)
	e.DoInvalid(req("POST", "/v1/webhooks/endpoints/"+id+"/deliveries/"+uuid.NewString()+"/resend", tok, nil), 404, "DeliveryNotFound")
}

// TestOrderPerBusiness: while a business's first event is retried, its
// later ones wait and another business's go; then they follow in order.
// An endpoint with ordering none does not wait.
func TestOrderPerBusiness(t *testing.T) {
	e := newEnv(t, envOptions{})
	ordered, unordered := newReceiver(t), newReceiver(t)
	e.endpoint("plat-a", ordered.URL, map[string]any{"event_types": []string{"Customer.created"}})
	e.endpoint("plat-a", unordered.URL, map[string]any{"event_types": []string{"Customer.created"}, "ordering": "none"})
	a, b := e.Svc.SeedBusiness(t, "plat-a"), e.Svc.SeedBusiness(t, "plat-a")
	first := uuid.New()
	fail := func(d delivery) int {
		if d.Event.Data.EntityID == first.String() {
			return 500
		}
		return 204
	}
	ordered.setAnswer(fail)
	unordered.setAnswer(fail)
	e.customer(a, first, 1, "ACTIVE", nil)
	ordered.waitFor(t, 1, 20*time.Second)
	later := []uuid.UUID{uuid.New(), uuid.New()}
	for _, id := range later {
		e.customer(a, id, 1, "ACTIVE", nil)
	}
	other := uuid.New()
	e.customer(b, other, 1, "ACTIVE", nil)
	got := ordered.waitFor(t, 2, 20*time.Second)
	if got[1].Event.Data.EntityID != other.String() {
		t.Fatalf("business b's event did not pass: %s", got[1].Body)
	}
	ordered.quiet(t, 2, 300*time.Millisecond) // a's later events wait
	if got := unordered.waitFor(t, 4, 20*time.Second); len(got) != 4 {
		t.Fatalf("unordered endpoint: %d", len(got))
	}

	ordered.setAnswer(func(delivery) int { return 204 })
	e.settled()
	e.clock.Advance(5 * time.Second)
	got = ordered.waitFor(t, 5, 20*time.Second)
	order := []string{got[2].Event.Data.EntityID, got[3].Event.Data.EntityID, got[4].Event.Data.EntityID}
	if order[0] != first.String() || order[1] != later[0].String() || order[2] != later[1].String() {
		t.Fatalf("order after the retry: %v, want %s %s %s", order, first, later[0], later[1])
	}
}

// TestUnorderedLanes: an endpoint with ordering none spreads its
// deliveries over as many lanes as may be sent to it at once; one that
// fails leaves its lane for one of its own, so the deliveries after it in
// the lane go at once, and it is retried on schedule with its webhook-id.
func TestUnorderedLanes(t *testing.T) {
	lanesOf := func(e *env, endpoint string) []string {
		var lanes []string
		if err := e.DB.NewRaw("SELECT lane FROM deliveries WHERE endpoint_id = ? ORDER BY seq", endpoint).Scan(t.Context(), &lanes); err != nil {
			t.Fatal(err)
		}
		return lanes
	}

	t.Run("spread", func(t *testing.T) {
		e := newEnv(t, envOptions{dispatch: app.DispatchOptions{Concurrency: 8, PerEndpoint: 4}})
		rcv := newReceiver(t)
		ep := e.endpoint("plat-a", rcv.URL, map[string]any{"ordering": "none", "event_types": []string{"Customer.created"}})
		bid := e.Svc.SeedBusiness(t, "plat-a")
		for range 40 {
			e.customer(bid, uuid.New(), 1, "ACTIVE", nil)
		}
		rcv.waitFor(t, 40, 20*time.Second)
		// In turn: ten each.
		seen := map[string]int{}
		for _, l := range lanesOf(e, ep["id"].(string)) {
			seen[l]++
		}
		if want := map[string]int{"n:0": 10, "n:1": 10, "n:2": 10, "n:3": 10}; !maps.Equal(seen, want) {
			t.Fatalf("40 deliveries in lanes %v, want %v", seen, want)
		}
	})

	t.Run("a retry holds up no one", func(t *testing.T) {
		e := newEnv(t, envOptions{dispatch: app.DispatchOptions{Concurrency: 4, PerEndpoint: 1}})
		rcv := newReceiver(t)
		ep := e.endpoint("plat-a", rcv.URL, map[string]any{"ordering": "none", "event_types": []string{"Customer.created"}})
		bid := e.Svc.SeedBusiness(t, "plat-a")
		first := uuid.New()
		rcv.setAnswer(func(d delivery) int {
			if d.Event.Data.EntityID == first.String() {
				return 503
			}
			return 204
		})
		e.customer(bid, first, 1, "ACTIVE", nil)
		failed := rcv.waitFor(t, 1, 20*time.Second)[0]
		later := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
		for _, id := range later {
			e.customer(bid, id, 1, "ACTIVE", nil)
		}
		// One lane (one at a time): the later ones pass the one retrying.
		got := rcv.waitFor(t, 4, 20*time.Second)
		for i, id := range later {
			if got[i+1].Event.Data.EntityID != id.String() {
				t.Fatalf("delivery %d: %s, want %s", i+1, got[i+1].Event.Data.EntityID, id)
			}
		}
		e.settled()
		lanes := lanesOf(e, ep["id"].(string))
		var own string
		if err := e.DB.NewRaw("SELECT 'd:' || id::text FROM deliveries WHERE message_id = ?", uuid.MustParse(failed.ID)).Scan(t.Context(), &own); err != nil {
			t.Fatal(err)
		}
		if lanes[0] != own || own == "" {
			t.Fatalf("the failed delivery's lane is %q, want its own %q (lanes %v)", lanes[0], own, lanes)
		}
		for _, l := range lanes[1:] {
			if l != "n:0" {
				t.Fatalf("lanes %v: the others stay in n:0", lanes)
			}
		}
		e.waitRow("SELECT count(*) FROM lanes WHERE lane = ?", own)

		rcv.setAnswer(func(delivery) int { return 204 })
		e.clock.Advance(5 * time.Second)
		got = rcv.waitFor(t, 5, 20*time.Second)
		if got[4].ID != failed.ID {
			t.Fatalf("the retry has webhook-id %s, want %s", got[4].ID, failed.ID)
		}
		e.waitRow("SELECT (count(*) = 0)::int FROM lanes")
		e.waitRow("SELECT (count(*) = 0)::int FROM deliveries WHERE status <> 'delivered'")
	})
}

// TestSlowEndpointDoesNotDelayOthers: an endpoint answering after 3 s
// holds only its own share of the dispatcher.
func TestSlowEndpointDoesNotDelayOthers(t *testing.T) {
	e := newEnv(t, envOptions{dispatch: app.DispatchOptions{Concurrency: 4, PerEndpoint: 2}})
	slow, fast := newReceiver(t), newReceiver(t)
	slow.setAnswer(func(delivery) int { time.Sleep(3 * time.Second); return 204 })
	e.endpoint("plat-a", slow.URL, map[string]any{"ordering": "none"})
	e.endpoint("plat-a", fast.URL, map[string]any{"ordering": "none"})
	bid := e.Svc.SeedBusiness(t, "plat-a")
	start := time.Now()
	for i := 0; i < 6; i++ {
		e.customer(bid, uuid.New(), 1, "ACTIVE", nil)
	}
	fast.waitFor(t, 6, 20*time.Second)
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Fatalf("the fast endpoint waited %s behind the slow one", took)
	}
	if n := slow.calls.Load(); n > 2 {
		t.Fatalf("the slow endpoint had %d requests at once (limit 2)", n)
	}
}

// TestDisabledAfterFiveDaysOfFailures: an endpoint without a success for
// 5 days is disabled, its pending deliveries fail, and the platform's
// other endpoints get Endpoint.disabled.
func TestDisabledAfterFiveDaysOfFailures(t *testing.T) {
	e := newEnv(t, envOptions{})
	bad, watcher := newReceiver(t), newReceiver(t)
	bad.setAnswer(func(delivery) int { return 500 })
	ep := e.endpoint("plat-a", bad.URL, map[string]any{"ordering": "none"})
	e.endpoint("plat-a", watcher.URL, map[string]any{"event_types": []string{"Endpoint.disabled"}})
	tok := e.Token("plat-a")
	id := ep["id"].(string)
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	bad.waitFor(t, 1, 10*time.Second)
	// Day 3: another test, failing too; not disabled yet.
	e.settled()
	e.clock.Advance(3 * 24 * time.Hour)
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	bad.waitFor(t, 3, 10*time.Second) // the new one and the first's retry
	if got := data(e.Do(req("GET", "/v1/webhooks/endpoints/"+id, tok, nil), 200)); got["disabled"] != false {
		t.Fatalf("disabled after 3 days: %v", got)
	}
	e.settled()
	e.clock.Advance(2*24*time.Hour + time.Minute)
	watch := watcher.waitFor(t, 1, 20*time.Second)
	if watch[0].Event.Type != "Endpoint.disabled" || watch[0].Event.Data.EntityID != id || watch[0].Event.BusinessID != nil {
		t.Fatalf("watcher got %s", watch[0].Body)
	}
	got := data(e.Do(req("GET", "/v1/webhooks/endpoints/"+id, tok, nil), 200))
	if got["disabled"] != true || got["disabled_reason"] != "no successful delivery for 5 days" {
		t.Fatalf("not disabled: %v", got)
	}
	e.waitRow("SELECT count(*) FROM deliveries WHERE endpoint_id = ? AND status = 'failed'", id)
	var pending int
	if err := e.DB.NewRaw("SELECT count(*) FROM deliveries WHERE endpoint_id = ? AND status = 'pending'", id).Scan(t.Context(), &pending); err != nil || pending != 0 {
		t.Fatalf("%d pending deliveries on a disabled endpoint (%v)", pending, err)
	}
	e.DoInvalid(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 409, "EndpointDisabled")
	// Enabled again, it may recover what failed.
	e.Do(req("PATCH", "/v1/webhooks/endpoints/"+id, tok, map[string]any{"disabled": false}), 200)
	bad.setAnswer(func(delivery) int { return 200 })
	n := data(e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/recover?since=2000-01-01T00:00:00Z", tok, nil), 202))
	if n["resent"] != 2.0 {
		t.Fatalf("recover: %v", n)
	}
	e.waitRow("SELECT (count(*) = 2)::int FROM deliveries WHERE endpoint_id = ? AND status = 'delivered'", id)
}

// TestEventsWaitForTheirBusiness: a change of a business the service has
// not heard of yet is delivered once its business.created arrives.
func TestEventsWaitForTheirBusiness(t *testing.T) {
	e := newEnv(t, envOptions{})
	rcv := newReceiver(t)
	e.endpoint("plat-a", rcv.URL, nil)
	bid := uuid.Must(uuid.NewV7())
	cid := uuid.New()
	e.customer(bid, cid, 1, "ACTIVE", nil)
	e.waitRow("SELECT count(*) FROM parked_events WHERE business_id = ?", bid)
	rcv.quiet(t, 0, 100*time.Millisecond)
	now := time.Now().UTC()
	e.publish(events.TopicBusiness, events.TypeBusinessCreated, bid, events.Business{ID: bid, ClientID: "plat-a", ExternalID: strp("late"),
		LegalName: "Late", Country: "US", DefaultReportingBasis: "ACCRUAL", CreatedAt: now, UpdatedAt: now})
	got := rcv.waitFor(t, 2, 20*time.Second)
	if got[0].Event.Type != "Business.created" || got[1].Event.Type != "Customer.created" || *got[1].Event.BusinessExternalID != "late" {
		t.Fatalf("got %s then %s", got[0].Body, got[1].Body)
	}
	if n := e.Rows("parked_events")[0]; n != 0 {
		t.Fatalf("%d events still parked", n)
	}
}

// TestRotationSignsWithBothSecrets: for 24 hours after a rotation every
// delivery carries a signature under each secret.
func TestRotationSignsWithBothSecrets(t *testing.T) {
	e := newEnv(t, envOptions{})
	rcv := newReceiver(t)
	ep := e.endpoint("plat-a", rcv.URL, nil)
	id, old := ep["id"].(string), ep["secret"].(string)
	tok := e.Token("plat-a")
	rot := data(e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/rotate-secret", tok, nil), 200))
	fresh := rot["secret"].(string)
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	d := rcv.waitFor(t, 1, 10*time.Second)[0]
	if len(strings.Fields(d.Signature)) != 2 {
		t.Fatalf("signatures: %q", d.Signature)
	}
	verify(t, d, old)
	verify(t, d, fresh)
	e.settled()
	e.clock.Advance(24*time.Hour + time.Second)
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	d = rcv.waitFor(t, 2, 10*time.Second)[1]
	if len(strings.Fields(d.Signature)) != 1 {
		t.Fatalf("after the overlap: %q", d.Signature)
	}
	verify(t, d, fresh)
}

// TestEndpointChangesReachTheDispatcher: a delivery goes to the endpoint
// as it is when it is sent: after its URL changes, to the new URL, and
// after a rotation's overlap, signed with the new secret alone.
func TestEndpointChangesReachTheDispatcher(t *testing.T) {
	e := newEnv(t, envOptions{})
	before, after := newReceiver(t), newReceiver(t)
	ep := e.endpoint("plat-a", before.URL, nil)
	id := ep["id"].(string)
	tok := e.Token("plat-a")
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	verify(t, before.waitFor(t, 1, 10*time.Second)[0], ep["secret"].(string))
	e.Do(req("PATCH", "/v1/webhooks/endpoints/"+id, tok, map[string]any{"url": after.URL}), 200)
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	after.waitFor(t, 1, 10*time.Second)
	before.quiet(t, 1, 200*time.Millisecond)
	fresh := data(e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/rotate-secret", tok, nil), 200))["secret"].(string)
	e.settled()
	e.clock.Advance(24*time.Hour + time.Second)
	e.Do(req("POST", "/v1/webhooks/endpoints/"+id+"/test", tok, nil), 202)
	d := after.waitFor(t, 2, 10*time.Second)[1]
	if len(strings.Fields(d.Signature)) != 1 {
		t.Fatalf("after the overlap: %q", d.Signature)
	}
	verify(t, d, fresh)
}
