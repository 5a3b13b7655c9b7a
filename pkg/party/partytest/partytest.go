// Package partytest is the one conformance suite of the counterparties
// pkg/party serves (customers, vendors): a service that serves a kind of
// counterparty runs Run against itself, through its HTTP API validated
// against its OpenAPI document, and so proves the create, idempotency,
// concurrency, validation, get, patch, archive, filter, pagination and
// event rules every kind shares.
package partytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/tags"
)

// Kind is what tells one kind of counterparty's API and events apart.
type Kind struct {
	// Collection is the path segment under the business ("customers").
	Collection string
	// Type is the `type` of an answer ("CustomerData").
	Type string
	// ExtraKeys are the answer's keys beyond the common ones, null on a
	// minimal create ("merged_into_id").
	ExtraKeys []string
	// Table is the counterparties' table (counted with the outbox to prove
	// what a request wrote).
	Table string
	// The event: its topic, type, source, and the payload's id field
	// ("customer_id").
	Topic, EventType, Source, EventIDField string
	// EventMemo and EventArchivedAt: the payload carries memo and
	// archived_at.
	EventMemo, EventArchivedAt bool
	// The error enums of the kind.
	EnumInvalid, EnumNameRequired, EnumNotFound, EnumDuplicateExternalID string

	path string
}

// Event is the payload fields of a counterparty event the suite checks.
type Event struct {
	Version      int        `json:"version"`
	BusinessID   uuid.UUID  `json:"business_id"`
	ExternalID   *string    `json:"external_id"`
	DisplayName  string     `json:"display_name"`
	CompanyName  *string    `json:"company_name"`
	Email        *string    `json:"email"`
	Memo         *string    `json:"memo"`
	Status       string     `json:"status"`
	Tags         []tags.Tag `json:"tags"`
	ArchivedAt   *time.Time `json:"archived_at"`
	MergedIntoID *uuid.UUID `json:"merged_into_id"`
}

// suite runs the conformance tests of kind k on services start makes.
type suite[S any] struct {
	k     Kind
	start func(t *testing.T) *servicetest.Env[S]
}

// Run runs the suite: each test on a fresh service from start.
func Run[S any](t *testing.T, k Kind, start func(t *testing.T) *servicetest.Env[S]) {
	k.path = "/" + k.Collection
	s := suite[S]{k: k, start: start}
	for _, tt := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"create", s.testCreate}, {"idempotent create", s.testIdempotentCreate}, {"concurrent creates", s.testConcurrentCreates},
		{"create invalid", s.testCreateInvalid}, {"get", s.testGet}, {"patch", s.testPatch}, {"archive", s.testArchive},
		{"list filters", s.testListFilters}, {"list pagination", s.testListPagination}, {"outbox relay", s.testOutboxRelay},
	} {
		t.Run(tt.name, tt.run)
	}
}

// keys are the keys every answer has.
func (k Kind) keys() []string {
	return append([]string{"type", "id", "external_id", "individual_name", "company_name", "email", "mobile_phone",
		"office_phone", "address_string", "memo", "notes", "status", "transaction_tags", "created_at", "updated_at", "archived_at"},
		k.ExtraKeys...)
}

// CheckShape fails unless c, an answer's counterparty, has every key (and
// no other), the kind's type, notes equal to memo and archived_at set
// exactly when archived.
func (k Kind) CheckShape(t *testing.T, c map[string]any) {
	t.Helper()
	keys := k.keys()
	for _, k := range keys {
		if _, ok := c[k]; !ok {
			t.Errorf("counterparty lacks %q: %v", k, c)
		}
	}
	if len(c) != len(keys) {
		t.Errorf("counterparty has %d keys, want %d: %v", len(c), len(keys), c)
	}
	if c["type"] != k.Type || c["notes"] != c["memo"] {
		t.Errorf("type %v, notes %v, memo %v", c["type"], c["notes"], c["memo"])
	}
	if _, ok := c["transaction_tags"].([]any); !ok {
		t.Errorf("transaction_tags = %#v, want an array", c["transaction_tags"])
	}
	if (c["status"] == "ARCHIVED") != (c["archived_at"] != nil) {
		t.Errorf("status %v with archived_at %v", c["status"], c["archived_at"])
	}
}

// counts is the number of counterparties and outbox rows.
func (s suite[S]) counts(e *servicetest.Env[S]) [2]int {
	e.T.Helper()
	return [2]int(e.Rows(s.k.Table, "outbox"))
}

// events returns the payloads of counterparty id's events in the outbox,
// oldest first, checking their envelope on the way.
func (s suite[S]) events(e *servicetest.Env[S], bid uuid.UUID, id string) []Event {
	e.T.Helper()
	var rows []struct {
		Topic   string          `bun:"topic"`
		Key     string          `bun:"key"`
		Source  string          `bun:"source"`
		Subject string          `bun:"subject"`
		Data    json.RawMessage `bun:"data"`
	}
	err := e.DB.NewRaw("SELECT topic, key, source, subject, data FROM outbox WHERE type = ? AND data->>? = ? ORDER BY seq",
		s.k.EventType, s.k.EventIDField, id).Scan(context.Background(), &rows)
	if err != nil {
		e.T.Fatalf("outbox rows: %v", err)
	}
	out := make([]Event, len(rows))
	for i, r := range rows {
		if r.Topic != s.k.Topic || r.Key != bid.String() || r.Subject != bid.String() || r.Source != s.k.Source {
			e.T.Fatalf("event envelope: topic %s key %s subject %s source %s", r.Topic, r.Key, r.Subject, r.Source)
		}
		if err := json.Unmarshal(r.Data, &out[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return out
}

// create posts a counterparty and returns the answer's data.
func (s suite[S]) create(e *servicetest.Env[S], bid uuid.UUID, token string, body map[string]any, want int) map[string]any {
	e.T.Helper()
	return servicetest.Data(e.Do(servicetest.Req("POST", servicetest.Base(bid)+s.k.path, token, body), want))
}

// list gets one page with the query (without "?") and returns the whole
// answer.
func (s suite[S]) list(e *servicetest.Env[S], bid uuid.UUID, token, query string) map[string]any {
	e.T.Helper()
	path := servicetest.Base(bid) + s.k.path
	if query != "" {
		path += "?" + query
	}
	return e.Do(servicetest.Req("GET", path, token, nil), 200)
}

// ids returns the ids of a listing's counterparties, in order.
func ids(m map[string]any) []string {
	var out []string
	for _, c := range m["data"].([]any) {
		out = append(out, c.(map[string]any)["id"].(string))
	}
	return out
}

func (s suite[S]) testCreate(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")

	t.Run("every field", func(t *testing.T) {
		e := e.With(t)
		before := s.counts(e)
		c := s.create(e, bid, tok, map[string]any{
			"external_id": " crm-1 ", "individual_name": "Ann Lee", "company_name": "Acme Corp", "email": "ann@acme.example",
			"mobile_phone": "+1 415 555 0100", "office_phone": "(415) 555-0199 x12", "address_string": "1 Main St\nSpringfield",
			"memo": "Pays on the 1st",
			"tags": []any{map[string]any{"key": "region", "value": "west", "dimension_display_name": "Region", "value_display_name": "West"},
				map[string]any{"key": "tier", "value": "gold"}},
		}, 201)
		s.k.CheckShape(t, c)
		want := map[string]any{"external_id": "crm-1", "individual_name": "Ann Lee", "company_name": "Acme Corp",
			"email": "ann@acme.example", "mobile_phone": "+1 415 555 0100", "office_phone": "(415) 555-0199 x12",
			"address_string": "1 Main St\nSpringfield", "memo": "Pays on the 1st", "notes": "Pays on the 1st", "status": "ACTIVE"}
		for k, v := range want {
			if c[k] != v {
				t.Errorf("%s = %v, want %v", k, c[k], v)
			}
		}
		tg := c["transaction_tags"].([]any)
		if len(tg) != 2 {
			t.Fatalf("transaction_tags = %v", tg)
		}
		first := tg[0].(map[string]any)
		id := uuid.MustParse(c["id"].(string))
		if first["key"] != "region" || first["value"] != "west" || first["dimension_display_name"] != "Region" ||
			first["id"] != tags.TagID(tags.DefinitionID(bid, "region", "west"), id).String() ||
			first["dimension_id"] != tags.DimensionID(bid, "region").String() {
			t.Fatalf("tag = %v", first)
		}
		if id.Version() != 7 {
			t.Errorf("counterparty id %s is not a UUIDv7", id)
		}
		after := s.counts(e)
		if after[0] != before[0]+1 || after[1] != before[1]+1 {
			t.Fatalf("counts %v -> %v, want one counterparty and one event more", before, after)
		}
		evts := s.events(e, bid, c["id"].(string))
		if len(evts) != 1 {
			t.Fatalf("%d events, want 1", len(evts))
		}
		ev := evts[0]
		if ev.Version != 1 || ev.BusinessID != bid || ev.DisplayName != "Acme Corp" || *ev.ExternalID != "crm-1" ||
			*ev.Email != "ann@acme.example" || ev.Status != "ACTIVE" || len(ev.Tags) != 2 || ev.Tags[0].Key != "region" || ev.ArchivedAt != nil || ev.MergedIntoID != nil {
			t.Fatalf("event = %+v", ev)
		}
	})

	t.Run("minimal: every other key null", func(t *testing.T) {
		e := e.With(t)
		c := s.create(e, bid, tok, map[string]any{"individual_name": "Bob"}, 201)
		s.k.CheckShape(t, c)
		for _, k := range append([]string{"external_id", "company_name", "email", "mobile_phone", "office_phone", "address_string", "memo", "notes", "archived_at"}, s.k.ExtraKeys...) {
			if c[k] != nil {
				t.Errorf("%s = %v, want null", k, c[k])
			}
		}
		if len(c["transaction_tags"].([]any)) != 0 {
			t.Errorf("transaction_tags = %v", c["transaction_tags"])
		}
		if len(s.events(e, bid, c["id"].(string))) != 1 {
			t.Fatal("no event for the created counterparty")
		}
	})

	t.Run("notes is accepted for memo", func(t *testing.T) {
		e := e.With(t)
		c := s.create(e, bid, tok, map[string]any{"company_name": "Notes Inc", "notes": "call first"}, 201)
		if c["memo"] != "call first" || c["notes"] != "call first" {
			t.Fatalf("memo %v notes %v", c["memo"], c["notes"])
		}
	})

	t.Run("a business token creates in its business", func(t *testing.T) {
		e := e.With(t)
		c := s.create(e, bid, e.Svc.Tokens.Business(t, "client-a", bid), map[string]any{"company_name": "Via business token"}, 201)
		s.k.CheckShape(t, c)
	})
}

func (s suite[S]) testIdempotentCreate(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	other := e.Business("client-a")

	first := s.create(e, bid, tok, map[string]any{"external_id": "crm-7", "company_name": "First"}, 201)
	before := s.counts(e)
	// The same external id again, even with other fields: the existing
	// counterparty, unchanged, and nothing written.
	again := s.create(e, bid, tok, map[string]any{"external_id": "crm-7", "company_name": "Second", "email": "x@y.example"}, 200)
	if again["id"] != first["id"] || again["company_name"] != "First" || again["email"] != nil || again["updated_at"] != first["updated_at"] {
		t.Fatalf("second create = %v, want the first %v", again, first)
	}
	if s.counts(e) != before {
		t.Fatal("the repeated create wrote rows or events")
	}
	// External ids are per business.
	if o := s.create(e, other, tok, map[string]any{"external_id": "crm-7", "company_name": "Other"}, 201); o["id"] == first["id"] {
		t.Fatal("another business got the same counterparty")
	}
	// Without an external id every create is a new counterparty.
	a := s.create(e, bid, tok, map[string]any{"company_name": "Twin"}, 201)
	b := s.create(e, bid, tok, map[string]any{"company_name": "Twin"}, 201)
	if a["id"] == b["id"] {
		t.Fatal("two creates without external_id made one counterparty")
	}

	t.Run("Idempotency-Key replays the first answer", func(t *testing.T) {
		e := e.With(t)
		body := map[string]any{"company_name": "Keyed"}
		r1 := servicetest.Req("POST", servicetest.Base(bid)+s.k.path, tok, body)
		r1.Header.Set("Idempotency-Key", "key-1")
		c1 := servicetest.Data(e.Do(r1, 201))
		before := s.counts(e)
		r2 := servicetest.Req("POST", servicetest.Base(bid)+s.k.path, tok, body)
		r2.Header.Set("Idempotency-Key", "key-1")
		if c2 := servicetest.Data(e.Do(r2, 201)); c2["id"] != c1["id"] {
			t.Fatalf("replay = %v, want %v", c2["id"], c1["id"])
		}
		if s.counts(e) != before {
			t.Fatal("the replay wrote")
		}
		r3 := servicetest.Req("POST", servicetest.Base(bid)+s.k.path, tok, map[string]any{"company_name": "Other body"})
		r3.Header.Set("Idempotency-Key", "key-1")
		e.Do(r3, 409)
	})
}

// TestConcurrentCreatesOneCounterparty: many simultaneous creates of one
// external id make exactly one counterparty and one event; every answer names
// it.
func (s suite[S]) testConcurrentCreates(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	const n = 16
	body, _ := json.Marshal(map[string]any{"external_id": "race-1", "company_name": "Racer"})
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
		got      = map[string]bool{}
	)
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, _ := http.NewRequest("POST", e.Svc.URL+servicetest.Base(bid)+s.k.path, bytes.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+tok)
			r.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var out struct {
				Data struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&out)
			mu.Lock()
			statuses[resp.StatusCode]++
			got[out.Data.ID] = true
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if statuses[201] != 1 || statuses[200] != n-1 || len(got) != 1 {
		t.Fatalf("statuses %v, ids %v: want one 201, %d 200 and one id", statuses, got, n-1)
	}
	if c := s.counts(e); c[0] != 1 || c[1] != 1 {
		t.Fatalf("counterparties %d, events %d: want 1 and 1", c[0], c[1])
	}
}

func (s suite[S]) testCreateInvalid(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	path := servicetest.Base(bid) + s.k.path
	tests := []struct {
		name  string
		body  any
		enum  string
		field string
	}{
		{"not an object", `[1]`, s.k.EnumInvalid, "body"},
		{"malformed JSON", `{"company_name":`, s.k.EnumInvalid, "body"},
		{"no name", map[string]any{"email": "a@b.example"}, s.k.EnumNameRequired, "individual_name"},
		{"blank names", map[string]any{"individual_name": "  ", "company_name": ""}, s.k.EnumNameRequired, "company_name"},
		{"name not a string", map[string]any{"individual_name": 12}, s.k.EnumInvalid, "individual_name"},
		{"name too long", map[string]any{"company_name": strings.Repeat("n", 256)}, s.k.EnumInvalid, "company_name"},
		{"external id too long", map[string]any{"company_name": "A", "external_id": strings.Repeat("x", 256)}, s.k.EnumInvalid, "external_id"},
		{"bad email", map[string]any{"company_name": "A", "email": "not-an-email"}, s.k.EnumInvalid, "email"},
		{"bad phone", map[string]any{"company_name": "A", "mobile_phone": "call me"}, s.k.EnumInvalid, "mobile_phone"},
		{"address too long", map[string]any{"company_name": "A", "address_string": strings.Repeat("a", 1001)}, s.k.EnumInvalid, "address_string"},
		{"memo too long", map[string]any{"company_name": "A", "memo": strings.Repeat("m", 2001)}, s.k.EnumInvalid, "memo"},
		{"memo and notes differ", map[string]any{"company_name": "A", "memo": "x", "notes": "y"}, s.k.EnumInvalid, "notes"},
		{"unknown property", map[string]any{"company_name": "A", "fax": "555"}, s.k.EnumInvalid, "fax"},
		{"bad tag", map[string]any{"company_name": "A", "tags": []any{map[string]any{"key": "k", "value": " "}}}, tags.EnumInvalidTags, "tags[0].value"},
		{"tags not an array", map[string]any{"company_name": "A", "tags": "k=v"}, tags.EnumInvalidTags, "tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e.With(t)
			before := s.counts(e)
			m := e.DoInvalid(servicetest.Req("POST", path, tok, tt.body), 400, tt.enum)
			if m["type"] != "InvalidPayload" || servicetest.FieldsOf(m)[tt.field] == nil {
				t.Fatalf("error does not name %s: %v", tt.field, m)
			}
			if s.counts(e) != before {
				t.Fatal("a refused create wrote")
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		e := e.With(t)
		r := servicetest.Req("POST", path, tok, `{"company_name":"A"}`)
		r.Header.Set("Content-Type", "text/plain")
		e.DoInvalid(r, 415, "")
	})
	t.Run("too large", func(t *testing.T) {
		e := e.With(t)
		e.DoInvalid(servicetest.Req("POST", path, tok, `{"company_name":"A","memo":"`+strings.Repeat("m", 70_000)+`"}`), 413, "")
	})
	t.Run("no token", func(t *testing.T) {
		e := e.With(t)
		e.DoInvalid(servicetest.Req("POST", path, "", map[string]any{"company_name": "A"}), 401, "")
	})
}

func (s suite[S]) testGet(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	c := s.create(e, bid, tok, map[string]any{"company_name": "Getme", "tags": []any{map[string]any{"key": "k", "value": "v"}}}, 201)
	path := servicetest.Base(bid) + s.k.path + "/" + c["id"].(string)

	got := servicetest.Data(e.Do(servicetest.Req("GET", path, tok, nil), 200))
	s.k.CheckShape(t, got)
	if got["id"] != c["id"] || got["company_name"] != "Getme" || len(got["transaction_tags"].([]any)) != 1 {
		t.Fatalf("get = %v", got)
	}
	e.Do(servicetest.Req("POST", path+"/archive", tok, nil), 200)
	if got := servicetest.Data(e.Do(servicetest.Req("GET", path, tok, nil), 200)); got["status"] != "ARCHIVED" {
		t.Fatalf("archived counterparty = %v", got)
	}
	e.DoInvalid(servicetest.Req("GET", servicetest.Base(bid)+s.k.path+"/"+uuid.NewString(), tok, nil), 404, s.k.EnumNotFound)
	e.DoInvalid(servicetest.Req("GET", servicetest.Base(bid)+s.k.path+"/not-a-uuid", tok, nil), 400, "")
}

func (s suite[S]) testPatch(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	c := s.create(e, bid, tok, map[string]any{"external_id": "p-1", "individual_name": "Ann", "company_name": "Acme",
		"email": "ann@acme.example", "memo": "m1", "tags": []any{map[string]any{"key": "region", "value": "west"}}}, 201)
	id := c["id"].(string)
	path := servicetest.Base(bid) + s.k.path + "/" + id
	patch := func(t *testing.T, body any, want int) map[string]any {
		t.Helper()
		return e.With(t).Do(servicetest.Req("PATCH", path, tok, body), want)
	}

	t.Run("set, clear and keep", func(t *testing.T) {
		got := servicetest.Data(patch(t, map[string]any{"email": nil, "mobile_phone": "555-0100", "company_name": "Acme Corp", "office_phone": ""}, 200))
		s.k.CheckShape(t, got)
		if got["email"] != nil || got["mobile_phone"] != "555-0100" || got["company_name"] != "Acme Corp" ||
			got["individual_name"] != "Ann" || got["memo"] != "m1" || got["external_id"] != "p-1" || got["office_phone"] != nil {
			t.Fatalf("patched = %v", got)
		}
		if got["updated_at"] == c["updated_at"] || got["created_at"] != c["created_at"] {
			t.Fatalf("timestamps: created %v updated %v (before %v)", got["created_at"], got["updated_at"], c["updated_at"])
		}
		// The change is read back.
		if again := servicetest.Data(e.Do(servicetest.Req("GET", path, tok, nil), 200)); again["mobile_phone"] != "555-0100" || again["email"] != nil {
			t.Fatalf("read back = %v", again)
		}
	})

	t.Run("notes sets the memo", func(t *testing.T) {
		if got := servicetest.Data(patch(t, map[string]any{"notes": "m2"}, 200)); got["memo"] != "m2" || got["notes"] != "m2" {
			t.Fatalf("patched = %v", got)
		}
	})

	t.Run("tags replace the set", func(t *testing.T) {
		before := servicetest.Data(e.Do(servicetest.Req("GET", path, tok, nil), 200))["transaction_tags"].([]any)[0].(map[string]any)
		got := servicetest.Data(patch(t, map[string]any{"tags": []any{map[string]any{"key": "region", "value": "west"}, map[string]any{"key": "tier", "value": "gold"}}}, 200))
		tg := got["transaction_tags"].([]any)
		if len(tg) != 2 || tg[0].(map[string]any)["id"] != before["id"] || tg[0].(map[string]any)["created_at"] != before["created_at"] || tg[1].(map[string]any)["value"] != "gold" {
			t.Fatalf("tags = %v (kept tag was %v)", tg, before)
		}
		if got := servicetest.Data(patch(t, map[string]any{"tags": []any{}}, 200)); len(got["transaction_tags"].([]any)) != 0 {
			t.Fatalf("tags after [] = %v", got["transaction_tags"])
		}
	})

	t.Run("status archives and reactivates", func(t *testing.T) {
		got := servicetest.Data(patch(t, map[string]any{"status": "ARCHIVED", "company_name": "Archived Co"}, 200))
		if got["status"] != "ARCHIVED" || got["archived_at"] == nil || got["company_name"] != "Archived Co" {
			t.Fatalf("archived = %v", got)
		}
		got = servicetest.Data(patch(t, map[string]any{"status": "ACTIVE"}, 200))
		if got["status"] != "ACTIVE" || got["archived_at"] != nil {
			t.Fatalf("reactivated = %v", got)
		}
	})

	t.Run("every change is an event, a no-op is none", func(t *testing.T) {
		evts := s.events(e.With(t), bid, id)
		// create, set/clear, notes, tags twice, archive, reactivate
		if len(evts) != 7 {
			t.Fatalf("%d events, want 7", len(evts))
		}
		for i, ev := range evts {
			if ev.Version != i+1 {
				t.Fatalf("event %d has version %d", i, ev.Version)
			}
		}
		last := evts[len(evts)-1]
		if last.Status != "ACTIVE" || *last.CompanyName != "Archived Co" || last.Email != nil || s.k.EventMemo && (last.Memo == nil || *last.Memo != "m2") || len(last.Tags) != 0 {
			t.Fatalf("last event = %+v", last)
		}
		before := s.counts(e)
		cur := servicetest.Data(patch(t, map[string]any{}, 200))
		same := servicetest.Data(patch(t, map[string]any{"status": "ACTIVE", "company_name": "Archived Co", "memo": " m2 "}, 200))
		if s.counts(e) != before || cur["updated_at"] != same["updated_at"] {
			t.Fatal("a patch that changes nothing wrote")
		}
	})

	t.Run("external id", func(t *testing.T) {
		e := e.With(t)
		s.create(e, bid, tok, map[string]any{"external_id": "taken", "company_name": "Holder"}, 201)
		before := s.counts(e)
		m := e.Do(servicetest.Req("PATCH", path, tok, map[string]any{"external_id": "taken"}), 409)
		if m["error_enum"] != s.k.EnumDuplicateExternalID {
			t.Fatalf("error = %v", m)
		}
		if s.counts(e) != before {
			t.Fatal("a refused patch wrote")
		}
		if got := servicetest.Data(patch(t, map[string]any{"external_id": "p-2"}, 200)); got["external_id"] != "p-2" {
			t.Fatalf("patched = %v", got)
		}
		// The new external id is the one a create finds.
		if got := s.create(e, bid, tok, map[string]any{"external_id": "p-2", "company_name": "X"}, 200); got["id"] != id {
			t.Fatalf("create by the new external id found %v", got["id"])
		}
		if got := servicetest.Data(patch(t, map[string]any{"external_id": nil}, 200)); got["external_id"] != nil {
			t.Fatalf("patched = %v", got)
		}
	})

	t.Run("invalid", func(t *testing.T) {
		tests := []struct {
			name   string
			body   any
			status int
			enum   string
			field  string
		}{
			{"no name left", map[string]any{"individual_name": nil, "company_name": nil}, 400, s.k.EnumNameRequired, "company_name"},
			{"unknown status", map[string]any{"status": "DELETED"}, 400, s.k.EnumInvalid, "status"},
			{"null status", map[string]any{"status": nil}, 400, s.k.EnumInvalid, "status"},
			{"null tags", map[string]any{"tags": nil}, 400, tags.EnumInvalidTags, "tags"},
			{"bad email", map[string]any{"email": "@"}, 400, s.k.EnumInvalid, "email"},
			{"bad phone", map[string]any{"office_phone": "1"}, 400, s.k.EnumInvalid, "office_phone"},
			{"unknown property", map[string]any{"id": id}, 400, s.k.EnumInvalid, "id"},
			{"not an object", `"x"`, 400, s.k.EnumInvalid, "body"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := e.With(t)
				before := s.counts(e)
				m := e.DoInvalid(servicetest.Req("PATCH", path, tok, tt.body), tt.status, tt.enum)
				if servicetest.FieldsOf(m)[tt.field] == nil {
					t.Fatalf("error does not name %s: %v", tt.field, m)
				}
				if s.counts(e) != before {
					t.Fatal("a refused patch wrote")
				}
			})
		}
		e := e.With(t)
		e.DoInvalid(servicetest.Req("PATCH", servicetest.Base(bid)+s.k.path+"/"+uuid.NewString(), tok, map[string]any{"memo": "x"}), 404, s.k.EnumNotFound)
		e.DoInvalid(servicetest.Req("PATCH", servicetest.Base(bid)+s.k.path+"/123", tok, map[string]any{"memo": "x"}), 400, "")
		r := servicetest.Req("PATCH", path, tok, `{"memo":"x"}`)
		r.Header.Set("Content-Type", "text/plain")
		e.DoInvalid(r, 415, "")
	})
}

func (s suite[S]) testArchive(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	c := s.create(e, bid, tok, map[string]any{"company_name": "Old Co", "external_id": "old-1", "memo": "keep"}, 201)
	keep := s.create(e, bid, tok, map[string]any{"company_name": "Kept Co"}, 201)
	id := c["id"].(string)
	path := servicetest.Base(bid) + s.k.path + "/" + id + "/archive"

	got := servicetest.Data(e.Do(servicetest.Req("POST", path, tok, nil), 200))
	s.k.CheckShape(t, got)
	if got["status"] != "ARCHIVED" || got["archived_at"] == nil || got["notes"] != "keep" || got["external_id"] != "old-1" {
		t.Fatalf("archived = %v", got)
	}
	evts := s.events(e, bid, id)
	if len(evts) != 2 || evts[1].Status != "ARCHIVED" || s.k.EventArchivedAt && evts[1].ArchivedAt == nil || evts[1].MergedIntoID != nil || evts[1].Version != 2 {
		t.Fatalf("events = %+v", evts)
	}
	// Idempotent: the same answer, nothing written.
	before := s.counts(e)
	again := servicetest.Data(e.Do(servicetest.Req("POST", path, tok, nil), 200))
	if again["archived_at"] != got["archived_at"] || again["updated_at"] != got["updated_at"] || s.counts(e) != before {
		t.Fatalf("archiving again = %v (first %v), or it wrote", again, got)
	}
	// Hidden from the default listing, listed on request, readable by id.
	if l := ids(s.list(e, bid, tok, "")); len(l) != 1 || l[0] != keep["id"] {
		t.Fatalf("default listing = %v, want only %v", l, keep["id"])
	}
	if l := ids(s.list(e, bid, tok, "include_archived=true")); len(l) != 2 {
		t.Fatalf("listing with archived = %v", l)
	}
	e.Do(servicetest.Req("GET", servicetest.Base(bid)+s.k.path+"/"+id, tok, nil), 200)
	// A create by its external id still finds it (archived).
	if f := s.create(e, bid, tok, map[string]any{"external_id": "old-1", "company_name": "X"}, 200); f["id"] != id || f["status"] != "ARCHIVED" {
		t.Fatalf("create by external id = %v", f)
	}
	e.DoInvalid(servicetest.Req("POST", servicetest.Base(bid)+s.k.path+"/"+uuid.NewString()+"/archive", tok, nil), 404, s.k.EnumNotFound)
	e.DoInvalid(servicetest.Req("POST", servicetest.Base(bid)+s.k.path+"/nope/archive", tok, nil), 400, "")
}

// listFixture creates counterparties whose filters tell apart.
type listFixture struct {
	ann, bob, zeta, dora, acme string // dora is archived
}

func (s suite[S]) newListFixture(e *servicetest.Env[S], bid uuid.UUID, tok string) listFixture {
	e.T.Helper()
	id := func(body map[string]any) string { return s.create(e, bid, tok, body, 201)["id"].(string) }
	f := listFixture{
		ann:  id(map[string]any{"individual_name": "Ann Lee", "company_name": "Acme Corp", "email": "ann@acme.example", "external_id": "crm-001"}),
		bob:  id(map[string]any{"individual_name": "Bob Stone", "email": "bob@stone.example", "external_id": "crm-002"}),
		zeta: id(map[string]any{"company_name": "Zeta LLC", "email": "billing@zeta.example", "external_id": "ZETA-9"}),
		dora: id(map[string]any{"individual_name": "Dora", "external_id": "crm-004"}),
		acme: id(map[string]any{"company_name": "acme"}),
	}
	e.Do(servicetest.Req("POST", servicetest.Base(bid)+s.k.path+"/"+f.dora+"/archive", tok, nil), 200)
	return f
}

func (s suite[S]) testListFilters(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	f := s.newListFixture(e, bid, tok)
	// A counterparty of another business matching every filter.
	s.create(e, e.Business("client-a"), tok, map[string]any{"individual_name": "Ann Lee", "company_name": "acme", "external_id": "crm-001"}, 201)

	tests := []struct {
		query string
		want  []string // in sort_by=name order: acme, Acme Corp, Bob Stone, Dora, Zeta LLC
	}{
		{"", []string{f.acme, f.ann, f.bob, f.zeta}},
		{"include_archived=false", []string{f.acme, f.ann, f.bob, f.zeta}},
		{"include_archived=true", []string{f.acme, f.ann, f.bob, f.dora, f.zeta}},
		{"identity_status=IDENTIFIED", []string{f.acme, f.ann, f.bob, f.zeta}},
		{"external_id=crm-002", []string{f.bob}},
		{"external_id=CRM-002", nil},
		{"external_id=crm-004", nil},
		{"external_id=crm-004&include_archived=true", []string{f.dora}},
		{"external_id_contains=CRM", []string{f.ann, f.bob}},
		{"external_id_contains=crm&include_archived=true", []string{f.ann, f.bob, f.dora}},
		{"external_id_contains=_", nil},
		{"name=Ann+Lee", []string{f.ann}},
		{"name=Acme+Corp", []string{f.ann}},
		{"name=acme", []string{f.acme}},
		{"name=Acme", nil},
		{"name_contains=ACME", []string{f.acme, f.ann}},
		{"name_contains=st", []string{f.bob}},
		{"name_contains=zeta.example", nil},
		{"q=zeta.example", []string{f.zeta}},
		{"q=CRM-00", []string{f.ann, f.bob}},
		{"q=lee", []string{f.ann}},
		{"q=stone", []string{f.bob}},
		{"q=%25", nil},
		{"name_contains=acme&external_id_contains=crm", []string{f.ann}},
		{"q=a&include_archived=true&name_contains=d", []string{f.dora}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			e := e.With(t)
			got := ids(s.list(e, bid, tok, tt.query))
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("?%s listed %v, want %v", tt.query, got, tt.want)
			}
		})
	}

	t.Run("bad values", func(t *testing.T) {
		for _, tt := range []struct{ query, param string }{
			{"include_archived=maybe", "include_archived"},
			{"include_archived=true&include_archived=false", "include_archived"},
			{"external_id=a&external_id=b", "external_id"},
			{"q=" + strings.Repeat("q", 201), "q"},
			{"name=" + strings.Repeat("n", 256), "name"},
			{"limit=0", "limit"},
			{"limit=501", "limit"},
			{"limit=ten", "limit"},
			{"sort_by=email", "sort_by"},
			{"sort_order=SIDEWAYS", "sort_order"},
			{"show_total_count=perhaps", "show_total_count"},
			{"cursor=not-a-cursor", "cursor"},
		} {
			t.Run(tt.query[:min(len(tt.query), 40)], func(t *testing.T) {
				e := e.With(t)
				m := e.DoInvalid(servicetest.Req("GET", servicetest.Base(bid)+s.k.path+"?"+tt.query, tok, nil), 400, "")
				if m["type"] != "InvalidParameters" || servicetest.FieldsOf(m)[tt.param] == nil {
					t.Fatalf("error does not name %s: %v", tt.param, m)
				}
			})
		}
	})
}

func (s suite[S]) testListPagination(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	// Seven counterparties: two share a display name (the tie is broken by id),
	// one is archived (listed only with include_archived).
	names := []string{"delta", "Alpha", "charlie", "bravo", "Echo", "alpha", "foxtrot"}
	byName := map[string]string{}
	var created []string
	for i, n := range names {
		body := map[string]any{"company_name": n}
		if i%2 == 1 {
			body = map[string]any{"individual_name": n}
		}
		id := s.create(e, bid, tok, body, 201)["id"].(string)
		created = append(created, id)
		byName[id] = strings.ToLower(n)
		time.Sleep(2 * time.Millisecond) // distinct created_at
	}
	e.Do(servicetest.Req("POST", servicetest.Base(bid)+s.k.path+"/"+created[6]+"/archive", tok, nil), 200)
	// Touch one so updated_at order differs from created_at order.
	e.Do(servicetest.Req("PATCH", servicetest.Base(bid)+s.k.path+"/"+created[0], tok, map[string]any{"memo": "touched"}), 200)

	walk := func(t *testing.T, query string) ([]string, []map[string]any) {
		t.Helper()
		var got []string
		var metas []map[string]any
		cursor := ""
		for range 10 {
			q := query
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			page := s.list(e.With(t), bid, tok, q)
			meta := page["meta"].(map[string]any)
			if meta["type"] != "request_metadata" {
				t.Fatalf("meta = %v", meta)
			}
			p := meta["pagination"].(map[string]any)
			metas = append(metas, p)
			got = append(got, ids(page)...)
			if p["has_more"] != true {
				if p["cursor"] != nil {
					t.Fatalf("last page has a cursor: %v", p)
				}
				return got, metas
			}
			cursor = p["cursor"].(string)
		}
		t.Fatal("more than 10 pages")
		return nil, nil
	}
	sortedBy := func(less func(a, b string) bool, ids []string) []string {
		out := append([]string(nil), ids...)
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if less(out[j], out[i]) {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	}
	active := created[:6]
	byNameLess := func(a, b string) bool {
		if byName[a] != byName[b] {
			return byName[a] < byName[b]
		}
		return a < b
	}

	t.Run("name ascending, the default", func(t *testing.T) {
		got, metas := walk(t, "limit=2&show_total_count=true")
		want := sortedBy(byNameLess, active)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("walk = %v, want %v", got, want)
		}
		if len(metas) != 3 || metas[0]["sort_by"] != "name" || metas[0]["sort_order"] != "ASC" || metas[0]["total_count"] != float64(6) {
			t.Fatalf("metas = %v", metas)
		}
	})
	t.Run("name descending with archived", func(t *testing.T) {
		got, _ := walk(t, "limit=3&sort_by=name&sort_order=DESC&include_archived=true")
		want := sortedBy(func(a, b string) bool { return byNameLess(b, a) }, created)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("walk = %v, want %v", got, want)
		}
	})
	t.Run("created_at descending", func(t *testing.T) {
		got, _ := walk(t, "limit=4&sort_by=created_at&sort_order=DESC")
		want := []string{created[5], created[4], created[3], created[2], created[1], created[0]}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("walk = %v, want %v", got, want)
		}
	})
	t.Run("updated_at ascending", func(t *testing.T) {
		got, _ := walk(t, "limit=5&sort_by=updated_at")
		want := []string{created[1], created[2], created[3], created[4], created[5], created[0]}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("walk = %v, want %v", got, want)
		}
	})
	t.Run("one page", func(t *testing.T) {
		page := s.list(e.With(t), bid, tok, "")
		p := page["meta"].(map[string]any)["pagination"].(map[string]any)
		if len(ids(page)) != 6 || p["has_more"] != false || p["cursor"] != nil {
			t.Fatalf("page = %v", p)
		}
		if _, ok := p["total_count"]; ok {
			t.Fatalf("total_count without show_total_count: %v", p)
		}
	})
	t.Run("a cursor works only with its sort and filters", func(t *testing.T) {
		e := e.With(t)
		p := s.list(e, bid, tok, "limit=2")["meta"].(map[string]any)["pagination"].(map[string]any)
		cur := p["cursor"].(string)
		for _, q := range []string{"include_archived=true", "sort_by=created_at", "sort_order=DESC", "q=a"} {
			e.DoInvalid(servicetest.Req("GET", servicetest.Base(bid)+s.k.path+"?limit=2&cursor="+cur+"&"+q, tok, nil), 400, "")
		}
		other := e.Business("client-a")
		e.DoInvalid(servicetest.Req("GET", servicetest.Base(other)+s.k.path+"?limit=2&cursor="+cur, tok, nil), 400, "")
		// With the same filters (another limit is fine) it continues.
		if got := ids(s.list(e, bid, tok, "limit=10&cursor="+cur)); len(got) != 4 {
			t.Fatalf("rest = %v", got)
		}
	})
}

// TestEveryChangeOnTheOutbox: the events leave through the relay to the
// broker (the outbox rows get sent).
func (s suite[S]) testOutboxRelay(t *testing.T) {
	e := s.start(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	c := s.create(e, bid, tok, map[string]any{"company_name": "Relay Co"}, 201)
	e.Do(servicetest.Req("PATCH", servicetest.Base(bid)+s.k.path+"/"+c["id"].(string), tok, map[string]any{"email": "r@relay.example"}), 200)
	e.Do(servicetest.Req("POST", servicetest.Base(bid)+s.k.path+"/"+c["id"].(string)+"/archive", tok, nil), 200)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var pending int
		if err := e.DB.NewRaw("SELECT count(*) FROM outbox WHERE sent_at IS NULL").Scan(t.Context(), &pending); err != nil {
			t.Fatal(err)
		}
		if pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events still unsent", pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
	evts := s.events(e, bid, c["id"].(string))
	if len(evts) != 3 || evts[0].Version != 1 || evts[2].Version != 3 || evts[2].Status != "ARCHIVED" || *evts[1].Email != "r@relay.example" {
		t.Fatalf("events = %s", fmt.Sprint(evts))
	}
}
