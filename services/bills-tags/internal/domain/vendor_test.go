package domain

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/party"
)

var (
	biz = uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	cid = uuid.MustParse("0190c4c4-0000-7000-8000-0000000000c1")
	t0  = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
)

// The rules are pkg/party's (tested there); these check that vendors
// answer with their own enums and nouns.
func TestVendorKind(t *testing.T) {
	if _, err := ParseVendorInput([]byte(`[]`)); apperr.From(err).Enum != EnumInvalidVendor {
		t.Fatalf("not an object: %v, want %s", err, EnumInvalidVendor)
	}
	if _, err := ParseVendorPatch([]byte(`{"status":"GONE"}`)); apperr.From(err).Enum != EnumInvalidVendor {
		t.Fatalf("bad status: %v, want %s", err, EnumInvalidVendor)
	}
	if _, err := ParseVendorInput([]byte(`{}`)); apperr.From(err).Enum != EnumVendorNameRequired {
		t.Fatalf("no name: %v, want %s", err, EnumVendorNameRequired)
	}
	name := "Ann"
	v := NewVendor(biz, cid, VendorInput{IndividualName: &name}, t0)
	_, _, err := v.Apply(VendorPatch{IndividualName: party.Nullable[string]{Set: true, Null: true}}, t0)
	fields, _ := apperr.From(err).Meta["fields"].(map[string]string)
	if apperr.From(err).Enum != EnumVendorNameRequired || fields["company_name"] != "individual_name or company_name is required: the vendor would have no name" {
		t.Fatalf("nameless: %v %v", err, fields)
	}
	if _, err := ParseVendorFilter(map[string][]string{"include_archived": {"x"}}); apperr.From(err).Enum != EnumInvalidFilter {
		t.Fatalf("bad filter: %v, want %s", err, EnumInvalidFilter)
	}
	if _, err := ParseMergeInput([]byte(`{"vendor_to_archive_id":"`+biz.String()+`","x":1}`), cid); apperr.From(err).Enum != EnumInvalidVendor {
		t.Fatalf("merge with an unknown property: %v, want %s", err, EnumInvalidVendor)
	}
}

// A merged vendor is ARCHIVED with MergedIntoID; archiving it again keeps
// the merge, reactivating it clears it.
func TestVendorMergeAndApply(t *testing.T) {
	name := "Ann"
	v := NewVendor(biz, cid, VendorInput{IndividualName: &name}, t0)
	t1, t2 := t0.Add(time.Hour), t0.Add(2*time.Hour)
	merged, changed := v.MergeInto(biz, t1)
	if !changed || merged.Status != StatusArchived || !merged.ArchivedAt.Equal(t1) || *merged.MergedIntoID != biz || merged.Version != 2 {
		t.Fatalf("merge: %+v %v", merged, changed)
	}
	if again, changed := merged.MergeInto(biz, t2); changed || again.Version != 2 {
		t.Fatalf("merging again: %+v %v", again, changed)
	}
	if same, changed, err := merged.Apply(ArchivePatch(), t2); err != nil || changed || same.MergedIntoID == nil {
		t.Fatalf("archiving a merged vendor: %+v %v %v", same, changed, err)
	}
	renamed, changed, err := merged.Apply(VendorPatch{Memo: party.Nullable[string]{Set: true, Value: "m"}}, t2)
	if err != nil || !changed || renamed.MergedIntoID == nil || renamed.Version != 3 {
		t.Fatalf("patching a merged vendor: %+v %v %v", renamed, changed, err)
	}
	active, changed, err := merged.Apply(VendorPatch{Status: party.Optional[VendorStatus]{Set: true, Value: StatusActive}}, t2)
	if err != nil || !changed || active.Status != StatusActive || active.ArchivedAt != nil || active.MergedIntoID != nil || active.Version != 3 {
		t.Fatalf("reactivate: %+v %v %v", active, changed, err)
	}
}
