package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

// TestUpdateVendorByPost: POST /vendors/{id}/update takes PATCH's body and
// rules.
func TestUpdateVendorByPost(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	v := e.create(bid, tok, map[string]any{"company_name": "Post Co", "memo": "m"}, 201)
	id := v["id"].(string)
	got := data(e.Do(req("POST", base(bid)+"/vendors/"+id+"/update", tok, map[string]any{"email": "ap@post.example", "notes": "n2"}), 200))
	checkShape(t, got)
	if got["email"] != "ap@post.example" || got["memo"] != "n2" || got["company_name"] != "Post Co" {
		t.Fatalf("updated = %v", got)
	}
	e.DoInvalid(req("POST", base(bid)+"/vendors/"+id+"/update", tok, map[string]any{"company_name": nil}), 400, domain.EnumVendorNameRequired)
	e.DoInvalid(req("POST", base(bid)+"/vendors/"+id+"/update", tok, map[string]any{"status": "GONE"}), 400, domain.EnumInvalidVendor)
	e.DoInvalid(req("POST", base(bid)+"/vendors/"+uuid.NewString()+"/update", tok, map[string]any{"memo": "x"}), 404, domain.EnumVendorNotFound)
	if n := len(e.events(bid, id)); n != 2 {
		t.Fatalf("%d events, want 2", n)
	}
}

// TestMergeVendor: the merged vendor is archived with merged_into_id, the
// kept one answered; every 4xx rule of the merge; a repeated merge writes
// nothing.
func TestMergeVendor(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	keep := e.create(bid, tok, map[string]any{"company_name": "Keep Co"}, 201)["id"].(string)
	gone := e.create(bid, tok, map[string]any{"company_name": "Gone Co", "external_id": "gone-1"}, 201)["id"].(string)
	merge := func(into string, body any, want int) map[string]any {
		t.Helper()
		return e.Do(req("POST", base(bid)+"/vendors/"+into+"/merge", tok, body), want)
	}

	t.Run("4xx", func(t *testing.T) {
		e := e.with(t)
		before := e.counts()
		path := base(bid) + "/vendors/" + keep + "/merge"
		e.DoInvalid(req("POST", path, tok, map[string]any{"vendor_to_archive_id": keep}), 400, domain.EnumInvalidMerge)
		e.DoInvalid(req("POST", path, tok, map[string]any{"vendor_to_archive_id": "nope"}), 400, domain.EnumInvalidMerge)
		e.DoInvalid(req("POST", path, tok, map[string]any{}), 400, domain.EnumInvalidMerge)
		e.DoInvalid(req("POST", path, tok, map[string]any{"vendor_to_archive_id": gone, "x": 1}), 400, domain.EnumInvalidVendor)
		e.DoInvalid(req("POST", path, tok, "[]"), 400, domain.EnumInvalidMerge)
		m := e.DoInvalid(req("POST", path, tok, map[string]any{"vendor_to_archive_id": uuid.NewString()}), 404, domain.EnumVendorNotFound)
		if fieldsOf(m)["vendor_to_archive_id"] == nil {
			t.Errorf("404 does not name vendor_to_archive_id: %v", m)
		}
		e.DoInvalid(req("POST", base(bid)+"/vendors/"+uuid.NewString()+"/merge", tok, map[string]any{"vendor_to_archive_id": gone}), 404, domain.EnumVendorNotFound)
		archived := e.create(bid, tok, map[string]any{"company_name": "Archived Co"}, 201)["id"].(string)
		e.Do(req("POST", base(bid)+"/vendors/"+archived+"/archive", tok, nil), 200)
		before = e.counts()
		e.DoInvalid(req("POST", base(bid)+"/vendors/"+archived+"/merge", tok, map[string]any{"vendor_to_archive_id": gone}), 409, domain.EnumVendorArchived)
		if e.counts() != before {
			t.Fatal("a refused merge wrote")
		}
	})

	got := data(merge(keep, map[string]any{"vendor_to_archive_id": gone}, 200))
	checkShape(t, got)
	if got["id"] != keep || got["status"] != "ACTIVE" || got["merged_into_id"] != nil {
		t.Fatalf("kept vendor = %v", got)
	}
	g := data(e.Do(req("GET", base(bid)+"/vendors/"+gone, tok, nil), 200))
	checkShape(t, g)
	if g["status"] != "ARCHIVED" || g["merged_into_id"] != keep {
		t.Fatalf("merged vendor = %v", g)
	}
	evts := e.events(bid, gone)
	if len(evts) != 2 || evts[1].Status != "ARCHIVED" || evts[1].MergedIntoID == nil || evts[1].MergedIntoID.String() != keep || evts[1].Version != 2 {
		t.Fatalf("events = %+v", evts)
	}
	// Again: nothing changes, nothing is published.
	before := e.counts()
	merge(keep, map[string]any{"vendor_to_archive_id": gone}, 200)
	if e.counts() != before {
		t.Fatal("a repeated merge wrote")
	}
	// Reactivated, the merged vendor stands alone again.
	r := data(e.Do(req("PATCH", base(bid)+"/vendors/"+gone, tok, map[string]any{"status": "ACTIVE"}), 200))
	if r["status"] != "ACTIVE" || r["merged_into_id"] != nil || r["archived_at"] != nil {
		t.Fatalf("reactivated = %v", r)
	}
}
