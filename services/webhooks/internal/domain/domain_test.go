package domain

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestDecide(t *testing.T) {
	st := func(v int64, archived bool) *EntityState { return &EntityState{Version: v, Archived: archived} }
	c := func(v int64, initial, archived bool) Change {
		return Change{Entity: EntityInvoice, EntityID: "i", Version: v, Initial: initial, Archived: archived}
	}
	for _, tc := range []struct {
		name     string
		prev     *EntityState
		change   Change
		wantType string
		wantSend bool
		want     EntityState
	}{
		{"first version 1 is a creation", nil, c(1, true, false), "Invoice.created", true, EntityState{1, false}},
		{"first seen later is an update", nil, c(3, false, false), "Invoice.updated", true, EntityState{3, false}},
		{"first seen archived is an archive", nil, c(2, false, true), "Invoice.archived", true, EntityState{2, true}},
		{"newer version is an update", st(1, false), c(2, false, false), "Invoice.updated", true, EntityState{2, false}},
		{"same version again sends nothing", st(2, false), c(2, false, false), "", false, EntityState{2, false}},
		{"older version late sends nothing", st(5, false), c(3, false, true), "", false, EntityState{5, false}},
		{"archiving", st(2, false), c(3, false, true), "Invoice.archived", true, EntityState{3, true}},
		{"reactivation is an update", st(3, true), c(4, false, false), "Invoice.updated", true, EntityState{4, false}},
		{"a change while archived is an update", st(3, true), c(4, false, true), "Invoice.updated", true, EntityState{4, true}},
		{"deleting what is active archives it", st(3, false), c(0, false, true), "Invoice.archived", true, EntityState{3, true}},
		{"deleting what is archived sends nothing", st(3, true), c(0, false, true), "", false, EntityState{3, true}},
		{"deleting what was never seen archives it", nil, c(0, false, true), "Invoice.archived", true, EntityState{0, true}},
		{"fixed types always send", st(9, false), Change{Fixed: TypeJournalEntryPosted, EntityID: "e"}, "JournalEntry.posted", true, EntityState{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ, send, next := Decide(tc.prev, tc.change)
			if typ != tc.wantType || send != tc.wantSend || next != tc.want {
				t.Fatalf("Decide = %q %v %+v, want %q %v %+v", typ, send, next, tc.wantType, tc.wantSend, tc.want)
			}
		})
	}
}

func TestEventIDIsStablePerSourceAndKey(t *testing.T) {
	src := uuid.New()
	a, b := EventID(src, "Invoice/1"), EventID(src, "Invoice/1")
	if a != b {
		t.Fatal("the same source and key gave two ids")
	}
	if EventID(src, "Invoice/2") == a || EventID(uuid.New(), "Invoice/1") == a {
		t.Fatal("different changes share an id")
	}
}

func TestRetrySchedule(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	if len(RetryDelays) != 7 {
		t.Fatalf("%d retries, want 7 (8 attempts)", len(RetryDelays))
	}
	for i, d := range want {
		next, ok := RetryDelays.Next(i+1, t0)
		if !ok || !next.Equal(t0.Add(d)) {
			t.Fatalf("after attempt %d: %v %v, want %v", i+1, next, ok, t0.Add(d))
		}
	}
	if _, ok := RetryDelays.Next(8, t0); ok {
		t.Fatal("an 8th failed attempt still schedules a retry")
	}
	if _, ok := RetryDelays.Next(0, t0); ok {
		t.Fatal("attempt 0 schedules a retry")
	}
	for _, tc := range []struct {
		attempt   int
		status    *int
		delivered bool
		retry     bool
	}{
		{1, ptr(200), true, false}, {1, ptr(204), true, false}, {1, ptr(299), true, false},
		{1, ptr(301), false, true}, {1, ptr(410), false, true}, {1, ptr(500), false, true}, {1, nil, false, true},
		{7, ptr(500), false, true}, {8, ptr(500), false, false}, {8, ptr(200), true, false},
	} {
		delivered, next := RetryDelays.Outcome(tc.attempt, tc.status, t0)
		if delivered != tc.delivered || (next != nil) != tc.retry {
			t.Errorf("Outcome(%d, %v) = %v %v", tc.attempt, tc.status, delivered, next)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestEndpointInputNormalize(t *testing.T) {
	bid := uuid.New()
	for _, tc := range []struct {
		name   string
		in     EndpointInput
		fields []string
	}{
		{"ok", EndpointInput{URL: "https://example.com/hook", EventTypes: []string{"Invoice.created", "Invoice.created"}, BusinessIDs: []uuid.UUID{bid, bid}}, nil},
		{"no url", EndpointInput{}, []string{"url"}},
		{"url with spaces", EndpointInput{URL: "https://a b"}, []string{"url"}},
		{"url too long", EndpointInput{URL: "https://x/" + strings.Repeat("a", MaxURLLength)}, []string{"url"}},
		{"unknown type", EndpointInput{URL: "https://x", EventTypes: []string{"Invoice.exploded"}}, []string{"event_types"}},
		{"test type is not subscribable", EndpointInput{URL: "https://x", EventTypes: []string{TypeWebhookTest}}, []string{"event_types"}},
		{"nil business", EndpointInput{URL: "https://x", BusinessIDs: []uuid.UUID{uuid.Nil}}, []string{"business_ids"}},
		{"description too long", EndpointInput{URL: "https://x", Description: strings.Repeat("é", MaxDescriptionLength+1)}, []string{"description"}},
		{"bad ordering", EndpointInput{URL: "https://x", Ordering: "fifo"}, []string{"ordering"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, vs := tc.in.Normalize()
			var got []string
			for _, v := range vs {
				got = append(got, v.Field)
			}
			if strings.Join(got, ",") != strings.Join(tc.fields, ",") {
				t.Fatalf("violations %v, want %v", vs, tc.fields)
			}
			if len(vs) == 0 {
				if out.Ordering != OrderingBusiness || len(out.EventTypes) != 1 || len(out.BusinessIDs) != 1 {
					t.Fatalf("not normalized: %+v", out)
				}
			}
		})
	}
}

func TestEndpointPatchAndHealth(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	e := Endpoint{ID: uuid.New(), URL: "https://a", Ordering: OrderingBusiness, EventTypes: []string{}, BusinessIDs: []uuid.UUID{}, Secret: "whsec_AAAA"}
	off := true
	d, vs := EndpointPatch{Disabled: &off}.Apply(e, now)
	if len(vs) > 0 || !d.Disabled || d.DisabledReason == nil || *d.DisabledReason != DisabledByPlatform {
		t.Fatalf("disable: %+v %v", d, vs)
	}
	since := now.Add(-time.Hour)
	d.FailingSince = &since
	on := false
	d, _ = EndpointPatch{Disabled: &on}.Apply(d, now)
	if d.Disabled || d.DisabledReason != nil || d.FailingSince != nil {
		t.Fatalf("enable: %+v", d)
	}
	empty := ""
	if _, vs := (EndpointPatch{Ordering: &empty}).Apply(e, now); len(vs) != 1 {
		t.Fatal("an empty ordering was accepted")
	}

	f, disable := e.Failed(now)
	if disable || f.FailingSince == nil || !f.FailingSince.Equal(now) {
		t.Fatalf("first failure: %+v %v", f, disable)
	}
	if g, disable := f.Failed(now.Add(DisableAfter - time.Second)); disable || g.Disabled {
		t.Fatal("disabled before 5 days")
	}
	g, disable := f.Failed(now.Add(DisableAfter))
	if !disable || !g.Disabled || *g.DisabledReason != DisabledFailing {
		t.Fatalf("not disabled after 5 days: %+v", g)
	}

	r := e.Rotate("whsec_BBBB", now)
	if got := r.SigningSecrets(now.Add(time.Hour)); len(got) != 2 || got[0] != "whsec_BBBB" || got[1] != "whsec_AAAA" {
		t.Fatalf("during the overlap: %v", got)
	}
	if got := r.SigningSecrets(now.Add(SecretOverlap)); len(got) != 1 || got[0] != "whsec_BBBB" {
		t.Fatalf("after the overlap: %v", got)
	}
}

func TestSubscribes(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	e := Endpoint{EventTypes: []string{"Invoice.created"}, BusinessIDs: []uuid.UUID{a}}
	switch {
	case !e.Subscribes("Invoice.created", &a):
		t.Fatal("subscribed type and business refused")
	case e.Subscribes("Invoice.updated", &a):
		t.Fatal("other type taken")
	case e.Subscribes("Invoice.created", &b):
		t.Fatal("other business taken")
	case !(Endpoint{}).Subscribes("Bill.created", &b):
		t.Fatal("empty lists take everything")
	}
	e.Disabled = true
	if e.Subscribes("Invoice.created", &a) {
		t.Fatal("a disabled endpoint takes events")
	}
}

func TestCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, et := range Catalog() {
		if seen[et.Name] {
			t.Fatalf("%s twice", et.Name)
		}
		seen[et.Name] = true
		if et.Description == "" {
			t.Fatalf("%s has no description", et.Name)
		}
		ex := Example(et.Name)
		b, err := json.Marshal(ex)
		if err != nil || ex.Type != et.Name || ex.Data.EntityID == "" {
			t.Fatalf("%s example: %s %v", et.Name, b, err)
		}
	}
	for _, e := range entityDescriptions {
		for _, op := range []string{OpCreated, OpUpdated, OpArchived} {
			if !seen[e.entity+"."+op] {
				t.Fatalf("%s.%s missing", e.entity, op)
			}
		}
	}
	for _, n := range []string{TypeReceiptParsed, TypeJournalEntryPosted, TypeWebhookTest, TypeEndpointDisabled} {
		if !seen[n] {
			t.Fatalf("%s missing", n)
		}
	}
	if len(entityDescriptions) != 13 {
		t.Fatalf("%d entities, the real product has 13", len(entityDescriptions))
	}
}

func TestParseSchedule(t *testing.T) {
	s, err := ParseSchedule("5s, 5m,30m,2h,5h,10h,10h")
	if err != nil || s.String() != RetryDelays.String() {
		t.Fatalf("%v %v", s, err)
	}
	for _, bad := range []string{"", "5s,,1m", "0s", "-1s", "soon", strings.Repeat("1s,", 20) + "1s"} {
		if _, err := ParseSchedule(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	short := Schedule{time.Second}
	t0 := time.Unix(0, 0)
	if next, ok := short.Next(1, t0); !ok || !next.Equal(t0.Add(time.Second)) {
		t.Fatal("first retry")
	}
	if _, ok := short.Next(2, t0); ok {
		t.Fatal("a second retry on a one-retry schedule")
	}
}

// FuzzParseSchedule: a schedule parses to positive waits (at most 20) or
// is refused, and prints back to itself.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"5s,5m,30m,2h,5h,10h,10h", "1s", "", ",", "0s", "1h,-1s", "1.5s, 2m", "9999999999h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sch, err := ParseSchedule(s)
		if err != nil {
			return
		}
		if len(sch) == 0 || len(sch) > 20 {
			t.Fatalf("%q: %d waits", s, len(sch))
		}
		for _, d := range sch {
			if d <= 0 {
				t.Fatalf("%q: wait %s", s, d)
			}
		}
		again, err := ParseSchedule(sch.String())
		if err != nil || again.String() != sch.String() {
			t.Fatalf("%q: %s does not parse back (%v)", s, sch, err)
		}
	})
}
