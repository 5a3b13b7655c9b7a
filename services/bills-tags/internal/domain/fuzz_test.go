package domain

import (
	"net/url"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// FuzzParseVendorInput: any body either parses into a vendor that
// keeps every rule or is refused with a 400; nothing panics.
func FuzzParseVendorInput(f *testing.F) {
	for _, s := range []string{
		`{"individual_name":"Ann"}`,
		`{"company_name":"Acme","email":"a@b.co","mobile_phone":"555 0100","tags":[{"key":"k","value":"v"}]}`,
		`{"company_name":"A","memo":"x","notes":"x"}`,
		`{}`, `[]`, `null`, `{"individual_name":null}`, `{"email":"\u0000@x.io","company_name":"a"}`,
		`{"company_name":"\ud800"}`, `{"tags":[{"key":"a","value":"b"}],"company_name":" "}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseVendorInput(body)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		if in.IndividualName == nil && in.CompanyName == nil {
			t.Fatalf("%q parsed without a name", body)
		}
		for _, p := range []*string{in.ExternalID, in.IndividualName, in.CompanyName, in.Email, in.MobilePhone, in.OfficePhone, in.AddressString, in.Memo} {
			if p != nil && (*p == "" || !utf8.ValidString(*p)) {
				t.Fatalf("%q parsed into an empty or invalid text %q", body, *p)
			}
		}
		c := NewVendor(biz, cid, in, t0)
		if _, changed, err := c.Apply(VendorPatch{}, t0); changed || err != nil {
			t.Fatalf("an empty patch changed %q: %v %v", body, changed, err)
		}
	})
}

// FuzzParseVendorPatch: a patch either parses or is a 400, and applying
// it twice changes nothing the second time.
func FuzzParseVendorPatch(f *testing.F) {
	for _, s := range []string{`{}`, `{"status":"ARCHIVED"}`, `{"email":null,"tags":[]}`, `{"individual_name":null}`,
		`{"notes":"a","memo":"b"}`, `{"tags":[{"key":"k","value":"v"},{"key":"k","value":"w"}]}`, `{"external_id":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := ParseVendorPatch(body)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		c := NewVendor(biz, cid, VendorInput{IndividualName: ptr("Ann"), CompanyName: ptr("Acme")}, t0)
		once, _, err := c.Apply(p, t0)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("apply %q: status %d", body, st)
			}
			return
		}
		if once.IndividualName == nil && once.CompanyName == nil {
			t.Fatalf("%q left the vendor without a name", body)
		}
		if (once.Status == StatusArchived) != (once.ArchivedAt != nil) {
			t.Fatalf("%q: status %s with archived_at %v", body, once.Status, once.ArchivedAt)
		}
		if _, changed, err := once.Apply(p, t0); changed || err != nil {
			t.Fatalf("applying %q twice changed it again: %v %v", body, changed, err)
		}
	})
}

// FuzzParseVendorFilter: any query string parses or is a 400, and the
// canonical form parses back to the same filter.
func FuzzParseVendorFilter(f *testing.F) {
	for _, s := range []string{"", "include_archived=true&q=ann", "name=Acme&name=Other", "external_id_contains=%25_", "q=%ff", "identity_status=IDENTIFIED"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		flt, err := ParseVendorFilter(q)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q", st, raw)
			}
			return
		}
		back, err := url.ParseQuery(flt.Canonical()[len("v1?"):])
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseVendorFilter(back)
		if err != nil || again != flt {
			t.Fatalf("%q: canonical form %q parses to %+v (%v), want %+v", raw, flt.Canonical(), again, err, flt)
		}
	})
}

// FuzzParseMergeInput: any merge body parses into another vendor's id or
// is a 400.
func FuzzParseMergeInput(f *testing.F) {
	for _, s := range []string{`{"vendor_to_archive_id":"` + cid.String() + `"}`, `{"vendor_to_archive_id":"0190a0b0-0000-7000-8000-000000000001"}`,
		`{}`, `[]`, `null`, `{"vendor_to_archive_id":1}`, `{"vendor_to_archive_id":"{0190a0b0-0000-7000-8000-000000000001}"}`, `{"a":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		id, err := ParseMergeInput(body, cid)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		if id == cid || id == uuid.Nil {
			t.Fatalf("%q parsed into %s", body, id)
		}
	})
}
