package party

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
)

var (
	biz = uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	cid = uuid.MustParse("0190c4c4-0000-7000-8000-0000000000c1")
	t0  = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
)

func ptr[T any](v T) *T { return &v }

// The two kinds of counterparty the services have, as they name them.
type (
	customerKind struct{}
	vendorKind   struct{}
)

func (customerKind) Kind() Kind {
	return Kind{Noun: "customer", EnumInvalid: "InvalidCustomer", EnumNameRequired: "CustomerNameRequired"}
}

func (vendorKind) Kind() Kind {
	return Kind{Noun: "vendor", EnumInvalid: "InvalidVendor", EnumNameRequired: "VendorNameRequired"}
}

var kinds = []Kind{customerKind{}.Kind(), vendorKind{}.Kind()}

// Placeholders of a kind's enums in the tables below.
const (
	enumInvalid      = "<EnumInvalid>"
	enumNameRequired = "<EnumNameRequired>"
)

// enumOf is the error_enum k answers for a table's enum.
func enumOf(k Kind, enum string) string {
	switch enum {
	case enumInvalid:
		return k.EnumInvalid
	case enumNameRequired:
		return k.EnumNameRequired
	}
	return enum
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// fieldsOf returns the error's status, enum and meta.fields.
func fieldsOf(t *testing.T, err error) (int, string, map[string]string) {
	t.Helper()
	ae := apperr.From(err)
	fields, _ := ae.Meta["fields"].(map[string]string)
	return ae.Status(), ae.Enum, fields
}

func TestParseInput(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, in Input)
	}{
		{"individual only", `{"individual_name":"Ann Lee"}`, func(t *testing.T, in Input) {
			if str(in.IndividualName) != "Ann Lee" || in.CompanyName != nil || in.ExternalID != nil || in.Tags != nil {
				t.Fatalf("input = %+v", in)
			}
		}},
		{"company only", `{"company_name":"Acme Corp"}`, func(t *testing.T, in Input) {
			if str(in.CompanyName) != "Acme Corp" || in.IndividualName != nil {
				t.Fatalf("input = %+v", in)
			}
		}},
		{"every field, trimmed", `{"external_id":" c-1 ","individual_name":" Ann ","company_name":"Acme","email":"ann@acme.example",
			"mobile_phone":"+1 (415) 555-0100","office_phone":"1-800-FLOWERS ext. 12","address_string":"1 Main St\nSpringfield",
			"memo":"pays\tlate","tags":[{"key":"region","value":"west","dimension_display_name":"Region"}]}`, func(t *testing.T, in Input) {
			if str(in.ExternalID) != "c-1" || str(in.IndividualName) != "Ann" || str(in.Email) != "ann@acme.example" ||
				str(in.MobilePhone) != "+1 (415) 555-0100" || str(in.OfficePhone) != "1-800-FLOWERS ext. 12" ||
				str(in.AddressString) != "1 Main St\nSpringfield" || str(in.Memo) != "pays\tlate" {
				t.Fatalf("input = %+v", in)
			}
			if len(in.Tags) != 1 || in.Tags[0].Key != "region" || str(in.Tags[0].DimensionDisplayName) != "Region" {
				t.Fatalf("tags = %+v", in.Tags)
			}
		}},
		{"null and blank are none", `{"company_name":"Acme","email":null,"memo":"   ","external_id":"","tags":null}`, func(t *testing.T, in Input) {
			if in.Email != nil || in.Memo != nil || in.ExternalID != nil || in.Tags != nil {
				t.Fatalf("input = %+v", in)
			}
		}},
		{"notes is a synonym of memo", `{"company_name":"Acme","notes":"net 30"}`, func(t *testing.T, in Input) {
			if str(in.Memo) != "net 30" {
				t.Fatalf("memo = %s", str(in.Memo))
			}
		}},
		{"memo and notes alike", `{"company_name":"Acme","notes":"net 30","memo":" net 30"}`, func(t *testing.T, in Input) {
			if str(in.Memo) != "net 30" {
				t.Fatalf("memo = %s", str(in.Memo))
			}
		}},
		{"duplicate tags collapse", `{"company_name":"Acme","tags":[{"key":"k","value":"v"},{"key":" k","value":"v "}]}`, func(t *testing.T, in Input) {
			if len(in.Tags) != 1 {
				t.Fatalf("tags = %+v", in.Tags)
			}
		}},
		{"longest values", `{"individual_name":"` + strings.Repeat("é", MaxNameLength) + `","memo":"` + strings.Repeat("m", MaxMemoLength) + `"}`, func(t *testing.T, in Input) {
			if in.IndividualName == nil || in.Memo == nil {
				t.Fatalf("input = %+v", in)
			}
		}},
	}
	for _, k := range kinds {
		for _, tt := range tests {
			t.Run(k.Noun+"/"+tt.name, func(t *testing.T) {
				in, err := k.ParseInput([]byte(tt.body))
				if err != nil {
					t.Fatalf("ParseInput: %v", err)
				}
				tt.check(t, in)
			})
		}
	}
}

func TestParseInputInvalid(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name   string
		body   string
		enum   string
		fields []string
	}{
		{"not an object", `["x"]`, enumInvalid, []string{"body"}},
		{"not JSON", `{"company_name":`, enumInvalid, []string{"body"}},
		{"no name", `{"email":"a@b.example"}`, enumNameRequired, []string{"individual_name", "company_name"}},
		{"blank names", `{"individual_name":" ","company_name":null}`, enumNameRequired, []string{"individual_name", "company_name"}},
		{"empty object", `{}`, enumNameRequired, []string{"individual_name"}},
		{"name not a string", `{"individual_name":42}`, enumInvalid, []string{"individual_name"}},
		{"name too long", `{"individual_name":"` + long(MaxNameLength+1) + `"}`, enumInvalid, []string{"individual_name"}},
		{"name on two lines", `{"company_name":"Acme\nCorp"}`, enumInvalid, []string{"company_name"}},
		{"external id too long", `{"company_name":"A","external_id":"` + long(MaxExternalIDLength+1) + `"}`, enumInvalid, []string{"external_id"}},
		{"external id a number", `{"company_name":"A","external_id":7}`, enumInvalid, []string{"external_id"}},
		{"email without at", `{"company_name":"A","email":"ann.example.com"}`, enumInvalid, []string{"email"}},
		{"email with display name", `{"company_name":"A","email":"Ann <ann@example.com>"}`, enumInvalid, []string{"email"}},
		{"email without dot in domain", `{"company_name":"A","email":"ann@localhost"}`, enumInvalid, []string{"email"}},
		{"email with two ats", `{"company_name":"A","email":"a@b@example.com"}`, enumInvalid, []string{"email"}},
		{"email too long", `{"company_name":"A","email":"` + long(250) + `@x.io"}`, enumInvalid, []string{"email"}},
		{"phone with too few digits", `{"company_name":"A","mobile_phone":"+1"}`, enumInvalid, []string{"mobile_phone"}},
		{"phone with odd characters", `{"company_name":"A","office_phone":"555 0100 ☎"}`, enumInvalid, []string{"office_phone"}},
		{"phone too long", `{"company_name":"A","office_phone":"` + strings.Repeat("1", MaxPhoneLength+1) + `"}`, enumInvalid, []string{"office_phone"}},
		{"address too long", `{"company_name":"A","address_string":"` + long(MaxAddressLength+1) + `"}`, enumInvalid, []string{"address_string"}},
		{"memo too long", `{"company_name":"A","memo":"` + long(MaxMemoLength+1) + `"}`, enumInvalid, []string{"memo"}},
		{"memo with a control character", `{"company_name":"A","memo":"a\u0007b"}`, enumInvalid, []string{"memo"}},
		{"memo and notes differ", `{"company_name":"A","memo":"x","notes":"y"}`, enumInvalid, []string{"notes"}},
		{"unknown property", `{"company_name":"A","phone":"555-0100"}`, enumInvalid, []string{"phone"}},
		{"status is not for create", `{"company_name":"A","status":"ACTIVE"}`, enumInvalid, []string{"status"}},
		{"tags not an array", `{"company_name":"A","tags":{"key":"k","value":"v"}}`, tags.EnumInvalidTags, []string{"tags"}},
		{"tag without value", `{"company_name":"A","tags":[{"key":"k"}]}`, tags.EnumInvalidTags, []string{"tags[0].value"}},
		{"too many tags", `{"company_name":"A","tags":[` + strings.Repeat(`{"key":"k","value":"v"},`, tags.MaxTags) + `{"key":"k","value":"v"}]}`, tags.EnumInvalidTags, []string{"tags"}},
		{"every mistake at once", `{"individual_name":1,"email":"x","mobile_phone":"?"}`, enumInvalid, []string{"individual_name", "email", "mobile_phone"}},
	}
	for _, k := range kinds {
		for _, tt := range tests {
			t.Run(k.Noun+"/"+tt.name, func(t *testing.T) {
				_, err := k.ParseInput([]byte(tt.body))
				if err == nil {
					t.Fatal("want an error")
				}
				status, enum, fields := fieldsOf(t, err)
				if want := enumOf(k, tt.enum); status != 400 || enum != want || apperr.From(err).Type != apperr.InvalidPayload {
					t.Fatalf("error = %v (status %d, enum %s), want 400 %s", err, status, enum, want)
				}
				for _, f := range tt.fields {
					if fields[f] == "" {
						t.Errorf("meta.fields %v does not name %s", fields, f)
					}
				}
			})
		}
	}
}

func TestCheckEmail(t *testing.T) {
	for _, s := range []string{"a@b.co", "first.last+tag@sub.example.org", "o'neil@example.ie", "ünïcode@exämple.de"} {
		if r := checkText(s, ruleEmail); r != "" {
			t.Errorf("%q refused: %s", s, r)
		}
	}
	for _, s := range []string{"@example.com", "a@", "a@.com", "a@com.", "a@b..com", "a b@c.com", "<a@b.com>", "a@b.com (work)"} {
		if checkText(s, ruleEmail) == "" {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestCheckPhone(t *testing.T) {
	for _, s := range []string{"555", "+44 20 7946 0958", "(415) 555-0100 x12", "1-800-FLOWERS", "+1.415.555.0100;ext=2", "*67 555 0100#"} {
		if r := checkText(s, rulePhone); r != "" {
			t.Errorf("%q refused: %s", s, r)
		}
	}
	for _, s := range []string{"12", "call me", "+٣٣٣٣", "555_0100", "555\t0100"} {
		if checkText(s, rulePhone) == "" {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestParsePatch(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, p Patch)
	}{
		{"empty object changes nothing", `{}`, func(t *testing.T, p Patch) {
			if !reflect.DeepEqual(p, Patch{}) {
				t.Fatalf("patch = %+v", p)
			}
		}},
		{"null clears, absent keeps", `{"email":null,"office_phone":"","company_name":"New Co"}`, func(t *testing.T, p Patch) {
			if !p.Email.Set || !p.Email.Null || !p.OfficePhone.Null || p.MobilePhone.Set || p.CompanyName.Value != "New Co" || p.CompanyName.Null {
				t.Fatalf("patch = %+v", p)
			}
		}},
		{"status and tags", `{"status":"ARCHIVED","tags":[]}`, func(t *testing.T, p Patch) {
			if !p.Status.Set || p.Status.Value != StatusArchived || !p.Tags.Set || p.Tags.Value == nil || len(p.Tags.Value) != 0 {
				t.Fatalf("patch = %+v", p)
			}
		}},
		{"notes sets the memo", `{"notes":"hello"}`, func(t *testing.T, p Patch) {
			if !p.Memo.Set || p.Memo.Value != "hello" {
				t.Fatalf("patch = %+v", p)
			}
		}},
		{"external id", `{"external_id":"ext-9"}`, func(t *testing.T, p Patch) {
			if p.ExternalID.Value != "ext-9" {
				t.Fatalf("patch = %+v", p)
			}
		}},
	}
	for _, k := range kinds {
		for _, tt := range tests {
			t.Run(k.Noun+"/"+tt.name, func(t *testing.T) {
				p, err := k.ParsePatch([]byte(tt.body))
				if err != nil {
					t.Fatalf("ParsePatch: %v", err)
				}
				tt.check(t, p)
			})
		}
	}

	bad := []struct {
		name, body, enum, field string
	}{
		{"not an object", `"x"`, enumInvalid, "body"},
		{"unknown status", `{"status":"DELETED"}`, enumInvalid, "status"},
		{"lower-case status", `{"status":"archived"}`, enumInvalid, "status"},
		{"null status", `{"status":null}`, enumInvalid, "status"},
		{"null tags", `{"tags":null}`, tags.EnumInvalidTags, "tags"},
		{"bad tag", `{"tags":[{"key":"","value":"v"}]}`, tags.EnumInvalidTags, "tags[0].key"},
		{"bad email", `{"email":"nope"}`, enumInvalid, "email"},
		{"unknown property", `{"type":"CounterpartyData"}`, enumInvalid, "type"},
		{"number name", `{"company_name":5}`, enumInvalid, "company_name"},
	}
	for _, k := range kinds {
		for _, tt := range bad {
			t.Run(k.Noun+"/"+tt.name, func(t *testing.T) {
				_, err := k.ParsePatch([]byte(tt.body))
				status, enum, fields := fieldsOf(t, err)
				if want := enumOf(k, tt.enum); status != 400 || enum != want || fields[tt.field] == "" {
					t.Fatalf("error = %v (enum %s, fields %v), want 400 %s naming %s", err, enum, fields, want, tt.field)
				}
			})
		}
	}
}

func newParty[K Kinded](t *testing.T, body string) Party[K] {
	t.Helper()
	var k K
	in, err := k.Kind().ParseInput([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return New[K](biz, cid, in, t0)
}

func patch(t *testing.T, body string) Patch {
	t.Helper()
	p, err := kinds[0].ParsePatch([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNew(t *testing.T) {
	t.Run("customer", testNew[customerKind])
	t.Run("vendor", testNew[vendorKind])
}

func testNew[K Kinded](t *testing.T) {
	c := newParty[K](t, `{"company_name":"Acme","individual_name":"Ann","tags":[{"key":"z","value":"1"},{"key":"a","value":"2"}]}`)
	if c.Status != StatusActive || c.Version != 1 || !c.CreatedAt.Equal(t0) || !c.UpdatedAt.Equal(t0) || c.ArchivedAt != nil {
		t.Fatalf("party = %+v", c)
	}
	if id, x := c.Identity(); id != cid || x != nil {
		t.Fatalf("identity = %s %v, want %s and no external id", id, x, cid)
	}
	if c.DisplayName() != "Acme" {
		t.Fatalf("display name = %q, want the company's", c.DisplayName())
	}
	if len(c.Tags) != 2 || c.Tags[0].Key != "a" || c.Tags[1].Key != "z" {
		t.Fatalf("tags = %+v, want sorted by key", c.Tags)
	}
	if want := tags.NewTag(biz, cid, tags.KeyValue{Key: "a", Value: "2"}, t0).ID; c.Tags[0].ID != want {
		t.Fatalf("tag id = %s, want the deterministic %s", c.Tags[0].ID, want)
	}
	if c := newParty[K](t, `{"individual_name":"Ann"}`); c.DisplayName() != "Ann" {
		t.Fatalf("display name = %q, want the individual's", c.DisplayName())
	}
}

func TestApply(t *testing.T) {
	t.Run("customer", testApply[customerKind])
	t.Run("vendor", testApply[vendorKind])
}

func testApply[K Kinded](t *testing.T) {
	base := `{"external_id":"c-1","individual_name":"Ann","company_name":"Acme","email":"ann@acme.example",
		"memo":"vip","tags":[{"key":"region","value":"west"}]}`
	t1 := t0.Add(time.Hour)
	tests := []struct {
		name    string
		patch   string
		changed bool
		check   func(t *testing.T, before, after Party[K])
	}{
		{"empty patch", `{}`, false, nil},
		{"same values", `{"individual_name":"Ann","email":" ann@acme.example ","status":"ACTIVE","tags":[{"key":"region","value":"west"}]}`, false, nil},
		{"set and clear", `{"email":null,"mobile_phone":"555-0100","company_name":"Acme Corp"}`, true, func(t *testing.T, b, a Party[K]) {
			if a.Email != nil || str(a.MobilePhone) != "555-0100" || str(a.CompanyName) != "Acme Corp" || str(a.IndividualName) != "Ann" || str(a.Memo) != "vip" {
				t.Fatalf("after = %+v", a)
			}
		}},
		{"clear one name", `{"company_name":null}`, true, func(t *testing.T, b, a Party[K]) {
			if a.CompanyName != nil || a.DisplayName() != "Ann" {
				t.Fatalf("after = %+v", a)
			}
		}},
		{"archive", `{"status":"ARCHIVED"}`, true, func(t *testing.T, b, a Party[K]) {
			if a.Status != StatusArchived || a.ArchivedAt == nil || !a.ArchivedAt.Equal(t1) {
				t.Fatalf("after = %+v", a)
			}
		}},
		{"replace tags keeps the kept tag", `{"tags":[{"key":"region","value":"west","dimension_display_name":"ignored"},{"key":"tier","value":"gold"}]}`, true, func(t *testing.T, b, a Party[K]) {
			if len(a.Tags) != 2 || a.Tags[0] != b.Tags[0] || !a.Tags[1].CreatedAt.Equal(t1) {
				t.Fatalf("tags = %+v, want region=west unchanged and tier=gold new", a.Tags)
			}
		}},
		{"remove every tag", `{"tags":[]}`, true, func(t *testing.T, b, a Party[K]) {
			if len(a.Tags) != 0 || a.Tags == nil {
				t.Fatalf("tags = %#v", a.Tags)
			}
		}},
		{"external id", `{"external_id":null}`, true, func(t *testing.T, b, a Party[K]) {
			if a.ExternalID != nil {
				t.Fatalf("after = %+v", a)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := newParty[K](t, base)
			after, changed, err := before.Apply(patch(t, tt.patch), t1)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if changed != tt.changed {
				t.Fatalf("changed = %v, want %v", changed, tt.changed)
			}
			if !changed {
				if after.Version != before.Version || !after.UpdatedAt.Equal(before.UpdatedAt) {
					t.Fatalf("an unchanged party moved: %+v", after)
				}
				return
			}
			if after.Version != before.Version+1 || !after.UpdatedAt.Equal(t1) || !after.CreatedAt.Equal(t0) {
				t.Fatalf("version %d, updated %s, created %s", after.Version, after.UpdatedAt, after.CreatedAt)
			}
			if tt.check != nil {
				tt.check(t, before, after)
			}
		})
	}
}

func TestApplyStatus(t *testing.T) {
	t.Run("customer", testApplyStatus[customerKind])
	t.Run("vendor", testApplyStatus[vendorKind])
}

func testApplyStatus[K Kinded](t *testing.T) {
	c := newParty[K](t, `{"company_name":"Acme"}`)
	t1, t2, t3 := t0.Add(time.Hour), t0.Add(2*time.Hour), t0.Add(3*time.Hour)
	archived, changed, err := c.Apply(ArchivePatch(), t1)
	if err != nil || !changed || archived.Status != StatusArchived || !archived.ArchivedAt.Equal(t1) {
		t.Fatalf("archive: %+v %v %v", archived, changed, err)
	}
	again, changed, err := archived.Apply(ArchivePatch(), t2)
	if err != nil || changed || !again.ArchivedAt.Equal(t1) || again.Version != archived.Version {
		t.Fatalf("archiving again: %+v %v %v, want no change", again, changed, err)
	}
	active, changed, err := archived.Apply(patch(t, `{"status":"ACTIVE"}`), t3)
	if err != nil || !changed || active.Status != StatusActive || active.ArchivedAt != nil || active.Version != 3 {
		t.Fatalf("reactivate: %+v %v %v", active, changed, err)
	}
}

func TestApplyKeepsAName(t *testing.T) {
	t.Run("customer", testApplyKeepsAName[customerKind])
	t.Run("vendor", testApplyKeepsAName[vendorKind])
}

func testApplyKeepsAName[K Kinded](t *testing.T) {
	for _, body := range []string{`{"individual_name":null}`, `{"company_name":null,"individual_name":""}`} {
		c := newParty[K](t, `{"individual_name":"Ann"}`)
		_, _, err := c.Apply(patch(t, body), t0)
		status, enum, fields := fieldsOf(t, err)
		k := (*new(K)).Kind()
		if status != 400 || enum != k.EnumNameRequired || !strings.Contains(fields["individual_name"], "the "+k.Noun+" would have no name") {
			t.Fatalf("%s: error = %v (fields %v), want 400 %s", body, err, fields, k.EnumNameRequired)
		}
	}
	// Clearing one name while setting the other is fine.
	c := newParty[K](t, `{"individual_name":"Ann"}`)
	if _, changed, err := c.Apply(patch(t, `{"individual_name":null,"company_name":"Acme"}`), t0); err != nil || !changed {
		t.Fatalf("swap names: %v %v", changed, err)
	}
}

// A counterparty created from an unknown external id has no name: it keeps
// that external id until it gets one (the contract fuzzer found the PATCH
// {"external_id": null} answered 500 by the tables' name-or-external-id
// CHECK).
func TestApplyKeepsANamelessExternalID(t *testing.T) {
	t.Run("customer", testApplyKeepsANamelessExternalID[customerKind])
	t.Run("vendor", testApplyKeepsANamelessExternalID[vendorKind])
}

func testApplyKeepsANamelessExternalID[K Kinded](t *testing.T) {
	k := (*new(K)).Kind()
	c := New[K](biz, cid, Input{ExternalID: ptr("vendor-7")}, t0)
	for _, body := range []string{`{"external_id":null}`, `{"external_id":""}`, `{"external_id":null,"memo":"x"}`} {
		_, _, err := c.Apply(patch(t, body), t0)
		status, enum, fields := fieldsOf(t, err)
		if status != 400 || enum != k.EnumNameRequired || !strings.Contains(fields["external_id"], "has no name") {
			t.Fatalf("%s: error = %v (fields %v), want 400 %s", body, err, fields, k.EnumNameRequired)
		}
	}
	// Naming it and dropping the external id in one patch is fine.
	if next, changed, err := c.Apply(patch(t, `{"external_id":null,"company_name":"Acme"}`), t0); err != nil || !changed || next.ExternalID != nil {
		t.Fatalf("name and drop the external id: %+v %v %v", next, changed, err)
	}
}

func TestParseFilter(t *testing.T) {
	tests := []struct {
		query string
		want  Filter
	}{
		{"", Filter{}},
		{"include_archived=true", Filter{IncludeArchived: true}},
		{"include_archived=FALSE", Filter{}},
		{"include_archived=1", Filter{IncludeArchived: true}},
		{"external_id=+c-1+&external_id_contains=C-", Filter{ExternalID: "c-1", ExternalIDContains: "C-"}},
		{"name=Acme&name_contains=ac&q=ann", Filter{Name: "Acme", NameContains: "ac", Query: "ann"}},
		{"identity_status=IDENTIFIED", Filter{}},
		{"identity_status=anything&identity_status=twice", Filter{}},
		{"q=&name=", Filter{}},
		{"limit=5&sort_by=name&unknown=1", Filter{}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.query)
			f, err := ParseFilter(q)
			if err != nil {
				t.Fatalf("ParseFilter: %v", err)
			}
			if f != tt.want {
				t.Fatalf("filter = %+v, want %+v", f, tt.want)
			}
		})
	}

	bad := []struct{ query, field string }{
		{"include_archived=maybe", "include_archived"},
		{"include_archived=true&include_archived=false", "include_archived"},
		{"external_id=a&external_id=b", "external_id"},
		{"external_id=" + strings.Repeat("x", MaxExternalIDLength+1), "external_id"},
		{"q=" + strings.Repeat("x", MaxSearchLength+1), "q"},
		{"name_contains=a%00b", "name_contains"},
		{"name=" + strings.Repeat("n", MaxNameLength+1), "name"},
	}
	for _, tt := range bad {
		t.Run("bad "+tt.field, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.query)
			_, err := ParseFilter(q)
			status, enum, fields := fieldsOf(t, err)
			if status != 400 || enum != EnumInvalidFilter || apperr.From(err).Type != apperr.InvalidParameters || fields[tt.field] == "" {
				t.Fatalf("error = %v, want 400 InvalidParameters/%s naming %s", err, EnumInvalidFilter, tt.field)
			}
		})
	}
}

func TestFilterCanonical(t *testing.T) {
	parse := func(s string) Filter {
		q, _ := url.ParseQuery(s)
		f, err := ParseFilter(q)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	same := [][2]string{
		{"name=Acme&q=x", "q=x&name=Acme"},
		{"include_archived=1", "include_archived=true"},
		{"", "include_archived=false&identity_status=IDENTIFIED"},
		{"external_id= a ", "external_id=a"},
	}
	for _, p := range same {
		if parse(p[0]).Fingerprint() != parse(p[1]).Fingerprint() {
			t.Errorf("%q and %q have different fingerprints", p[0], p[1])
		}
	}
	different := [][2]string{
		{"", "include_archived=true"},
		{"name=a", "name_contains=a"},
		{"q=a", "q=A"},
		{"external_id=a", "external_id_contains=a"},
	}
	for _, p := range different {
		if parse(p[0]).Fingerprint() == parse(p[1]).Fingerprint() {
			t.Errorf("%q and %q share a fingerprint", p[0], p[1])
		}
	}
}
