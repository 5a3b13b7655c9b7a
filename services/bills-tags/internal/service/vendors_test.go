package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

// vendorKeys are the keys every vendor body has (client-shapes.md's
// Vendor plus the spec's VendorData).
var vendorKeys = []string{"type", "id", "external_id", "individual_name", "company_name", "email", "mobile_phone",
	"office_phone", "address_string", "memo", "notes", "status", "transaction_tags", "created_at", "updated_at", "archived_at", "merged_into_id"}

// checkShape fails unless c has every key (and no other), type
// VendorData, notes equal to memo and archived_at set exactly when
// archived.
func checkShape(t *testing.T, c map[string]any) {
	t.Helper()
	for _, k := range vendorKeys {
		if _, ok := c[k]; !ok {
			t.Errorf("vendor lacks %q: %v", k, c)
		}
	}
	if len(c) != len(vendorKeys) {
		t.Errorf("vendor has %d keys, want %d: %v", len(c), len(vendorKeys), c)
	}
	if c["type"] != "VendorData" || c["notes"] != c["memo"] {
		t.Errorf("type %v, notes %v, memo %v", c["type"], c["notes"], c["memo"])
	}
	if _, ok := c["transaction_tags"].([]any); !ok {
		t.Errorf("transaction_tags = %#v, want an array", c["transaction_tags"])
	}
	if (c["status"] == "ARCHIVED") != (c["archived_at"] != nil) {
		t.Errorf("status %v with archived_at %v", c["status"], c["archived_at"])
	}
}

func TestCreateVendor(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")

	t.Run("every field", func(t *testing.T) {
		e := e.with(t)
		before := e.counts()
		c := e.create(bid, tok, map[string]any{
			"external_id": " crm-1 ", "individual_name": "Ann Lee", "company_name": "Acme Corp", "email": "ann@acme.example",
			"mobile_phone": "+1 415 555 0100", "office_phone": "(415) 555-0199 x12", "address_string": "1 Main St\nSpringfield",
			"memo": "Pays on the 1st",
			"tags": []any{map[string]any{"key": "region", "value": "west", "dimension_display_name": "Region", "value_display_name": "West"},
				map[string]any{"key": "tier", "value": "gold"}},
		}, 201)
		checkShape(t, c)
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
			t.Errorf("vendor id %s is not a UUIDv7", id)
		}
		after := e.counts()
		if after[0] != before[0]+1 || after[1] != before[1]+1 {
			t.Fatalf("counts %v -> %v, want one vendor and one event more", before, after)
		}
		evts := e.events(bid, c["id"].(string))
		if len(evts) != 1 {
			t.Fatalf("%d events, want 1", len(evts))
		}
		ev := evts[0]
		if ev.Version != 1 || ev.BusinessID != bid || ev.DisplayName != "Acme Corp" || *ev.ExternalID != "crm-1" ||
			*ev.Email != "ann@acme.example" || ev.Status != "ACTIVE" || len(ev.Tags) != 2 || ev.Tags[0].Key != "region" || ev.MergedIntoID != nil {
			t.Fatalf("event = %+v", ev)
		}
	})

	t.Run("minimal: every other key null", func(t *testing.T) {
		e := e.with(t)
		c := e.create(bid, tok, map[string]any{"individual_name": "Bob"}, 201)
		checkShape(t, c)
		for _, k := range []string{"external_id", "company_name", "email", "mobile_phone", "office_phone", "address_string", "memo", "notes", "archived_at", "merged_into_id"} {
			if c[k] != nil {
				t.Errorf("%s = %v, want null", k, c[k])
			}
		}
		if len(c["transaction_tags"].([]any)) != 0 {
			t.Errorf("transaction_tags = %v", c["transaction_tags"])
		}
		if len(e.events(bid, c["id"].(string))) != 1 {
			t.Fatal("no event for the created vendor")
		}
	})

	t.Run("notes is accepted for memo", func(t *testing.T) {
		e := e.with(t)
		c := e.create(bid, tok, map[string]any{"company_name": "Notes Inc", "notes": "call first"}, 201)
		if c["memo"] != "call first" || c["notes"] != "call first" {
			t.Fatalf("memo %v notes %v", c["memo"], c["notes"])
		}
	})

	t.Run("a business token creates in its business", func(t *testing.T) {
		e := e.with(t)
		c := e.create(bid, e.svc.Tokens.Business(t, "client-a", bid), map[string]any{"company_name": "Via business token"}, 201)
		checkShape(t, c)
	})
}

func TestCreateIsIdempotentOnExternalID(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
	other := e.business("client-a")

	first := e.create(bid, tok, map[string]any{"external_id": "crm-7", "company_name": "First"}, 201)
	before := e.counts()
	// The same external id again, even with other fields: the existing
	// vendor, unchanged, and nothing written.
	again := e.create(bid, tok, map[string]any{"external_id": "crm-7", "company_name": "Second", "email": "x@y.example"}, 200)
	if again["id"] != first["id"] || again["company_name"] != "First" || again["email"] != nil || again["updated_at"] != first["updated_at"] {
		t.Fatalf("second create = %v, want the first %v", again, first)
	}
	if e.counts() != before {
		t.Fatal("the repeated create wrote rows or events")
	}
	// External ids are per business.
	if o := e.create(other, tok, map[string]any{"external_id": "crm-7", "company_name": "Other"}, 201); o["id"] == first["id"] {
		t.Fatal("another business got the same vendor")
	}
	// Without an external id every create is a new vendor.
	a := e.create(bid, tok, map[string]any{"company_name": "Twin"}, 201)
	b := e.create(bid, tok, map[string]any{"company_name": "Twin"}, 201)
	if a["id"] == b["id"] {
		t.Fatal("two creates without external_id made one vendor")
	}

	t.Run("Idempotency-Key replays the first answer", func(t *testing.T) {
		e := e.with(t)
		body := map[string]any{"company_name": "Keyed"}
		r1 := req("POST", base(bid)+"/vendors", tok, body)
		r1.Header.Set("Idempotency-Key", "key-1")
		c1 := data(e.do(r1, 201))
		before := e.counts()
		r2 := req("POST", base(bid)+"/vendors", tok, body)
		r2.Header.Set("Idempotency-Key", "key-1")
		if c2 := data(e.do(r2, 201)); c2["id"] != c1["id"] {
			t.Fatalf("replay = %v, want %v", c2["id"], c1["id"])
		}
		if e.counts() != before {
			t.Fatal("the replay wrote")
		}
		r3 := req("POST", base(bid)+"/vendors", tok, map[string]any{"company_name": "Other body"})
		r3.Header.Set("Idempotency-Key", "key-1")
		e.do(r3, 409)
	})
}

// TestConcurrentCreatesOneVendor: many simultaneous creates of one
// external id make exactly one vendor and one event; every answer names
// it.
func TestConcurrentCreatesOneVendor(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
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
			r, _ := http.NewRequest("POST", e.svc.URL+base(bid)+"/vendors", bytes.NewReader(body))
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
	if c := e.counts(); c[0] != 1 || c[1] != 1 {
		t.Fatalf("vendors %d, events %d: want 1 and 1", c[0], c[1])
	}
}

func TestCreateVendorInvalid(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
	path := base(bid) + "/vendors"
	tests := []struct {
		name  string
		body  any
		enum  string
		field string
	}{
		{"not an object", `[1]`, domain.EnumInvalidVendor, "body"},
		{"malformed JSON", `{"company_name":`, domain.EnumInvalidVendor, "body"},
		{"no name", map[string]any{"email": "a@b.example"}, domain.EnumVendorNameRequired, "individual_name"},
		{"blank names", map[string]any{"individual_name": "  ", "company_name": ""}, domain.EnumVendorNameRequired, "company_name"},
		{"name not a string", map[string]any{"individual_name": 12}, domain.EnumInvalidVendor, "individual_name"},
		{"name too long", map[string]any{"company_name": strings.Repeat("n", 256)}, domain.EnumInvalidVendor, "company_name"},
		{"external id too long", map[string]any{"company_name": "A", "external_id": strings.Repeat("x", 256)}, domain.EnumInvalidVendor, "external_id"},
		{"bad email", map[string]any{"company_name": "A", "email": "not-an-email"}, domain.EnumInvalidVendor, "email"},
		{"bad phone", map[string]any{"company_name": "A", "mobile_phone": "call me"}, domain.EnumInvalidVendor, "mobile_phone"},
		{"address too long", map[string]any{"company_name": "A", "address_string": strings.Repeat("a", 1001)}, domain.EnumInvalidVendor, "address_string"},
		{"memo too long", map[string]any{"company_name": "A", "memo": strings.Repeat("m", 2001)}, domain.EnumInvalidVendor, "memo"},
		{"memo and notes differ", map[string]any{"company_name": "A", "memo": "x", "notes": "y"}, domain.EnumInvalidVendor, "notes"},
		{"unknown property", map[string]any{"company_name": "A", "fax": "555"}, domain.EnumInvalidVendor, "fax"},
		{"bad tag", map[string]any{"company_name": "A", "tags": []any{map[string]any{"key": "k", "value": " "}}}, tags.EnumInvalidTags, "tags[0].value"},
		{"tags not an array", map[string]any{"company_name": "A", "tags": "k=v"}, tags.EnumInvalidTags, "tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e.with(t)
			before := e.counts()
			m := e.doInvalid(req("POST", path, tok, tt.body), 400, tt.enum)
			if m["type"] != "InvalidPayload" || fieldsOf(m)[tt.field] == nil {
				t.Fatalf("error does not name %s: %v", tt.field, m)
			}
			if e.counts() != before {
				t.Fatal("a refused create wrote")
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		e := e.with(t)
		r := req("POST", path, tok, `{"company_name":"A"}`)
		r.Header.Set("Content-Type", "text/plain")
		e.doInvalid(r, 415, "")
	})
	t.Run("too large", func(t *testing.T) {
		e := e.with(t)
		e.doInvalid(req("POST", path, tok, `{"company_name":"A","memo":"`+strings.Repeat("m", 70_000)+`"}`), 413, "")
	})
	t.Run("no token", func(t *testing.T) {
		e := e.with(t)
		e.doInvalid(req("POST", path, "", map[string]any{"company_name": "A"}), 401, "")
	})
}

func TestGetVendor(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
	c := e.create(bid, tok, map[string]any{"company_name": "Getme", "tags": []any{map[string]any{"key": "k", "value": "v"}}}, 201)
	path := base(bid) + "/vendors/" + c["id"].(string)

	got := data(e.do(req("GET", path, tok, nil), 200))
	checkShape(t, got)
	if got["id"] != c["id"] || got["company_name"] != "Getme" || len(got["transaction_tags"].([]any)) != 1 {
		t.Fatalf("get = %v", got)
	}
	e.do(req("POST", path+"/archive", tok, nil), 200)
	if got := data(e.do(req("GET", path, tok, nil), 200)); got["status"] != "ARCHIVED" {
		t.Fatalf("archived vendor = %v", got)
	}
	e.doInvalid(req("GET", base(bid)+"/vendors/"+uuid.NewString(), tok, nil), 404, domain.EnumVendorNotFound)
	e.doInvalid(req("GET", base(bid)+"/vendors/not-a-uuid", tok, nil), 400, "")
}

func TestPatchVendor(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
	c := e.create(bid, tok, map[string]any{"external_id": "p-1", "individual_name": "Ann", "company_name": "Acme",
		"email": "ann@acme.example", "memo": "m1", "tags": []any{map[string]any{"key": "region", "value": "west"}}}, 201)
	id := c["id"].(string)
	path := base(bid) + "/vendors/" + id
	patch := func(t *testing.T, body any, want int) map[string]any {
		t.Helper()
		return e.with(t).do(req("PATCH", path, tok, body), want)
	}

	t.Run("set, clear and keep", func(t *testing.T) {
		got := data(patch(t, map[string]any{"email": nil, "mobile_phone": "555-0100", "company_name": "Acme Corp", "office_phone": ""}, 200))
		checkShape(t, got)
		if got["email"] != nil || got["mobile_phone"] != "555-0100" || got["company_name"] != "Acme Corp" ||
			got["individual_name"] != "Ann" || got["memo"] != "m1" || got["external_id"] != "p-1" || got["office_phone"] != nil {
			t.Fatalf("patched = %v", got)
		}
		if got["updated_at"] == c["updated_at"] || got["created_at"] != c["created_at"] {
			t.Fatalf("timestamps: created %v updated %v (before %v)", got["created_at"], got["updated_at"], c["updated_at"])
		}
		// The change is read back.
		if again := data(e.do(req("GET", path, tok, nil), 200)); again["mobile_phone"] != "555-0100" || again["email"] != nil {
			t.Fatalf("read back = %v", again)
		}
	})

	t.Run("notes sets the memo", func(t *testing.T) {
		if got := data(patch(t, map[string]any{"notes": "m2"}, 200)); got["memo"] != "m2" || got["notes"] != "m2" {
			t.Fatalf("patched = %v", got)
		}
	})

	t.Run("tags replace the set", func(t *testing.T) {
		before := data(e.do(req("GET", path, tok, nil), 200))["transaction_tags"].([]any)[0].(map[string]any)
		got := data(patch(t, map[string]any{"tags": []any{map[string]any{"key": "region", "value": "west"}, map[string]any{"key": "tier", "value": "gold"}}}, 200))
		tg := got["transaction_tags"].([]any)
		if len(tg) != 2 || tg[0].(map[string]any)["id"] != before["id"] || tg[0].(map[string]any)["created_at"] != before["created_at"] || tg[1].(map[string]any)["value"] != "gold" {
			t.Fatalf("tags = %v (kept tag was %v)", tg, before)
		}
		if got := data(patch(t, map[string]any{"tags": []any{}}, 200)); len(got["transaction_tags"].([]any)) != 0 {
			t.Fatalf("tags after [] = %v", got["transaction_tags"])
		}
	})

	t.Run("status archives and reactivates", func(t *testing.T) {
		got := data(patch(t, map[string]any{"status": "ARCHIVED", "company_name": "Archived Co"}, 200))
		if got["status"] != "ARCHIVED" || got["archived_at"] == nil || got["company_name"] != "Archived Co" {
			t.Fatalf("archived = %v", got)
		}
		got = data(patch(t, map[string]any{"status": "ACTIVE"}, 200))
		if got["status"] != "ACTIVE" || got["archived_at"] != nil {
			t.Fatalf("reactivated = %v", got)
		}
	})

	t.Run("every change is an event, a no-op is none", func(t *testing.T) {
		evts := e.with(t).events(bid, id)
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
		if last.Status != "ACTIVE" || *last.CompanyName != "Archived Co" || last.Email != nil || len(last.Tags) != 0 {
			t.Fatalf("last event = %+v", last)
		}
		before := e.counts()
		cur := data(patch(t, map[string]any{}, 200))
		same := data(patch(t, map[string]any{"status": "ACTIVE", "company_name": "Archived Co", "memo": " m2 "}, 200))
		if e.counts() != before || cur["updated_at"] != same["updated_at"] {
			t.Fatal("a patch that changes nothing wrote")
		}
	})

	t.Run("external id", func(t *testing.T) {
		e := e.with(t)
		e.create(bid, tok, map[string]any{"external_id": "taken", "company_name": "Holder"}, 201)
		before := e.counts()
		m := e.do(req("PATCH", path, tok, map[string]any{"external_id": "taken"}), 409)
		if m["error_enum"] != domain.EnumDuplicateExternalID {
			t.Fatalf("error = %v", m)
		}
		if e.counts() != before {
			t.Fatal("a refused patch wrote")
		}
		if got := data(patch(t, map[string]any{"external_id": "p-2"}, 200)); got["external_id"] != "p-2" {
			t.Fatalf("patched = %v", got)
		}
		// The new external id is the one a create finds.
		if got := e.create(bid, tok, map[string]any{"external_id": "p-2", "company_name": "X"}, 200); got["id"] != id {
			t.Fatalf("create by the new external id found %v", got["id"])
		}
		if got := data(patch(t, map[string]any{"external_id": nil}, 200)); got["external_id"] != nil {
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
			{"no name left", map[string]any{"individual_name": nil, "company_name": nil}, 400, domain.EnumVendorNameRequired, "company_name"},
			{"unknown status", map[string]any{"status": "DELETED"}, 400, domain.EnumInvalidVendor, "status"},
			{"null status", map[string]any{"status": nil}, 400, domain.EnumInvalidVendor, "status"},
			{"null tags", map[string]any{"tags": nil}, 400, tags.EnumInvalidTags, "tags"},
			{"bad email", map[string]any{"email": "@"}, 400, domain.EnumInvalidVendor, "email"},
			{"bad phone", map[string]any{"office_phone": "1"}, 400, domain.EnumInvalidVendor, "office_phone"},
			{"unknown property", map[string]any{"id": id}, 400, domain.EnumInvalidVendor, "id"},
			{"not an object", `"x"`, 400, domain.EnumInvalidVendor, "body"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				before := e.counts()
				m := e.doInvalid(req("PATCH", path, tok, tt.body), tt.status, tt.enum)
				if fieldsOf(m)[tt.field] == nil {
					t.Fatalf("error does not name %s: %v", tt.field, m)
				}
				if e.counts() != before {
					t.Fatal("a refused patch wrote")
				}
			})
		}
		e := e.with(t)
		e.doInvalid(req("PATCH", base(bid)+"/vendors/"+uuid.NewString(), tok, map[string]any{"memo": "x"}), 404, domain.EnumVendorNotFound)
		e.doInvalid(req("PATCH", base(bid)+"/vendors/123", tok, map[string]any{"memo": "x"}), 400, "")
		r := req("PATCH", path, tok, `{"memo":"x"}`)
		r.Header.Set("Content-Type", "text/plain")
		e.doInvalid(r, 415, "")
	})
}

func TestArchiveVendor(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
	c := e.create(bid, tok, map[string]any{"company_name": "Old Co", "external_id": "old-1", "memo": "keep"}, 201)
	keep := e.create(bid, tok, map[string]any{"company_name": "Kept Co"}, 201)
	id := c["id"].(string)
	path := base(bid) + "/vendors/" + id + "/archive"

	got := data(e.do(req("POST", path, tok, nil), 200))
	checkShape(t, got)
	if got["status"] != "ARCHIVED" || got["archived_at"] == nil || got["notes"] != "keep" || got["external_id"] != "old-1" {
		t.Fatalf("archived = %v", got)
	}
	evts := e.events(bid, id)
	if len(evts) != 2 || evts[1].Status != "ARCHIVED" || evts[1].MergedIntoID != nil || evts[1].Version != 2 {
		t.Fatalf("events = %+v", evts)
	}
	// Idempotent: the same answer, nothing written.
	before := e.counts()
	again := data(e.do(req("POST", path, tok, nil), 200))
	if again["archived_at"] != got["archived_at"] || again["updated_at"] != got["updated_at"] || e.counts() != before {
		t.Fatalf("archiving again = %v (first %v), or it wrote", again, got)
	}
	// Hidden from the default listing, listed on request, readable by id.
	if l := ids(e.list(bid, tok, "")); len(l) != 1 || l[0] != keep["id"] {
		t.Fatalf("default listing = %v, want only %v", l, keep["id"])
	}
	if l := ids(e.list(bid, tok, "include_archived=true")); len(l) != 2 {
		t.Fatalf("listing with archived = %v", l)
	}
	e.do(req("GET", base(bid)+"/vendors/"+id, tok, nil), 200)
	// A create by its external id still finds it (archived).
	if f := e.create(bid, tok, map[string]any{"external_id": "old-1", "company_name": "X"}, 200); f["id"] != id || f["status"] != "ARCHIVED" {
		t.Fatalf("create by external id = %v", f)
	}
	e.doInvalid(req("POST", base(bid)+"/vendors/"+uuid.NewString()+"/archive", tok, nil), 404, domain.EnumVendorNotFound)
	e.doInvalid(req("POST", base(bid)+"/vendors/nope/archive", tok, nil), 400, "")
}

// listFixture creates vendors whose filters tell apart.
type listFixture struct {
	ann, bob, zeta, dora, acme string // dora is archived
}

func newListFixture(e *env, bid uuid.UUID, tok string) listFixture {
	e.t.Helper()
	id := func(body map[string]any) string { return e.create(bid, tok, body, 201)["id"].(string) }
	f := listFixture{
		ann:  id(map[string]any{"individual_name": "Ann Lee", "company_name": "Acme Corp", "email": "ann@acme.example", "external_id": "crm-001"}),
		bob:  id(map[string]any{"individual_name": "Bob Stone", "email": "bob@stone.example", "external_id": "crm-002"}),
		zeta: id(map[string]any{"company_name": "Zeta LLC", "email": "billing@zeta.example", "external_id": "ZETA-9"}),
		dora: id(map[string]any{"individual_name": "Dora", "external_id": "crm-004"}),
		acme: id(map[string]any{"company_name": "acme"}),
	}
	e.do(req("POST", base(bid)+"/vendors/"+f.dora+"/archive", tok, nil), 200)
	return f
}

func TestListFilters(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
	f := newListFixture(e, bid, tok)
	// A vendor of another business matching every filter.
	e.create(e.business("client-a"), tok, map[string]any{"individual_name": "Ann Lee", "company_name": "acme", "external_id": "crm-001"}, 201)

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
			e := e.with(t)
			got := ids(e.list(bid, tok, tt.query))
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
				e := e.with(t)
				m := e.doInvalid(req("GET", base(bid)+"/vendors?"+tt.query, tok, nil), 400, "")
				if m["type"] != "InvalidParameters" || fieldsOf(m)[tt.param] == nil {
					t.Fatalf("error does not name %s: %v", tt.param, m)
				}
			})
		}
	})
}

func TestListPagination(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
	// Seven vendors: two share a display name (the tie is broken by id),
	// one is archived (listed only with include_archived).
	names := []string{"delta", "Alpha", "charlie", "bravo", "Echo", "alpha", "foxtrot"}
	byName := map[string]string{}
	var created []string
	for i, n := range names {
		body := map[string]any{"company_name": n}
		if i%2 == 1 {
			body = map[string]any{"individual_name": n}
		}
		id := e.create(bid, tok, body, 201)["id"].(string)
		created = append(created, id)
		byName[id] = strings.ToLower(n)
		time.Sleep(2 * time.Millisecond) // distinct created_at
	}
	e.do(req("POST", base(bid)+"/vendors/"+created[6]+"/archive", tok, nil), 200)
	// Touch one so updated_at order differs from created_at order.
	e.do(req("PATCH", base(bid)+"/vendors/"+created[0], tok, map[string]any{"memo": "touched"}), 200)

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
			page := e.with(t).list(bid, tok, q)
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
		page := e.with(t).list(bid, tok, "")
		p := page["meta"].(map[string]any)["pagination"].(map[string]any)
		if len(ids(page)) != 6 || p["has_more"] != false || p["cursor"] != nil {
			t.Fatalf("page = %v", p)
		}
		if _, ok := p["total_count"]; ok {
			t.Fatalf("total_count without show_total_count: %v", p)
		}
	})
	t.Run("a cursor works only with its sort and filters", func(t *testing.T) {
		e := e.with(t)
		p := e.list(bid, tok, "limit=2")["meta"].(map[string]any)["pagination"].(map[string]any)
		cur := p["cursor"].(string)
		for _, q := range []string{"include_archived=true", "sort_by=created_at", "sort_order=DESC", "q=a"} {
			e.doInvalid(req("GET", base(bid)+"/vendors?limit=2&cursor="+cur+"&"+q, tok, nil), 400, "")
		}
		other := e.business("client-a")
		e.doInvalid(req("GET", base(other)+"/vendors?limit=2&cursor="+cur, tok, nil), 400, "")
		// With the same filters (another limit is fine) it continues.
		if got := ids(e.list(bid, tok, "limit=10&cursor="+cur)); len(got) != 4 {
			t.Fatalf("rest = %v", got)
		}
	})
}

// TestEveryChangeOnTheOutbox: the events leave through the relay to the
// broker (the outbox rows get sent).
func TestEveryChangeOnTheOutbox(t *testing.T) {
	e := newEnv(t)
	tok := e.token("client-a")
	bid := e.business("client-a")
	c := e.create(bid, tok, map[string]any{"company_name": "Relay Co"}, 201)
	e.do(req("PATCH", base(bid)+"/vendors/"+c["id"].(string), tok, map[string]any{"email": "r@relay.example"}), 200)
	e.do(req("POST", base(bid)+"/vendors/"+c["id"].(string)+"/archive", tok, nil), 200)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var pending int
		if err := e.db.NewRaw("SELECT count(*) FROM outbox WHERE sent_at IS NULL").Scan(t.Context(), &pending); err != nil {
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
	evts := e.events(bid, c["id"].(string))
	if len(evts) != 3 || evts[0].Version != 1 || evts[2].Version != 3 || evts[2].Status != "ARCHIVED" || *evts[1].Email != "r@relay.example" {
		t.Fatalf("events = %s", fmt.Sprint(evts))
	}
}
