package party

import (
	"net/url"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr"
)

// FuzzParseInput: any body either parses into a counterparty that keeps
// every rule or is refused with a 400; nothing panics. Customers and
// vendors read it alike but for their own error enums.
func FuzzParseInput(f *testing.F) {
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
		in, err := kinds[0].ParseInput(body)
		vin, verr := kinds[1].ParseInput(body)
		if (err == nil) != (verr == nil) || !reflect.DeepEqual(in, vin) {
			t.Fatalf("%q: customer %+v (%v), vendor %+v (%v)", body, in, err, vin, verr)
		}
		if err != nil {
			checkEnums(t, body, err, verr)
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
		c := New[customerKind](biz, cid, in, t0)
		if _, changed, err := c.Apply(Patch{}, t0); changed || err != nil {
			t.Fatalf("an empty patch changed %q: %v %v", body, changed, err)
		}
	})
}

// checkEnums fails unless err (a customer's) and verr (a vendor's) are the
// same 400 but for the kind's enums.
func checkEnums(t *testing.T, body []byte, err, verr error) {
	t.Helper()
	ce, ve := apperr.From(err), apperr.From(verr)
	if ce.Status() != 400 || ve.Status() != 400 {
		t.Fatalf("status %d/%d for %q: %v", ce.Status(), ve.Status(), body, err)
	}
	for i, want := range []string{enumInvalid, enumNameRequired} {
		if ce.Enum == enumOf(kinds[0], want) && ve.Enum != enumOf(kinds[1], want) {
			t.Fatalf("%q: customer enum %s, vendor enum %s (%d)", body, ce.Enum, ve.Enum, i)
		}
	}
}

// FuzzParsePatch: a patch either parses or is a 400, and applying it twice
// changes nothing the second time, to a customer as to a vendor.
func FuzzParsePatch(f *testing.F) {
	for _, s := range []string{`{}`, `{"status":"ARCHIVED"}`, `{"email":null,"tags":[]}`, `{"individual_name":null}`,
		`{"notes":"a","memo":"b"}`, `{"tags":[{"key":"k","value":"v"},{"key":"k","value":"w"}]}`, `{"external_id":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := kinds[0].ParsePatch(body)
		vp, verr := kinds[1].ParsePatch(body)
		if (err == nil) != (verr == nil) || !reflect.DeepEqual(p, vp) {
			t.Fatalf("%q: customer %+v (%v), vendor %+v (%v)", body, p, err, vp, verr)
		}
		if err != nil {
			checkEnums(t, body, err, verr)
			return
		}
		applyTwice[customerKind](t, body, p)
		applyTwice[vendorKind](t, body, p)
	})
}

func applyTwice[K Kinded](t *testing.T, body []byte, p Patch) {
	c := New[K](biz, cid, Input{IndividualName: ptr("Ann"), CompanyName: ptr("Acme")}, t0)
	once, _, err := c.Apply(p, t0)
	if err != nil {
		if ae := apperr.From(err); ae.Status() != 400 || ae.Enum != (*new(K)).Kind().EnumNameRequired {
			t.Fatalf("apply %q: status %d, enum %s", body, ae.Status(), ae.Enum)
		}
		return
	}
	if once.IndividualName == nil && once.CompanyName == nil {
		t.Fatalf("%q left the counterparty without a name", body)
	}
	if (once.Status == StatusArchived) != (once.ArchivedAt != nil) {
		t.Fatalf("%q: status %s with archived_at %v", body, once.Status, once.ArchivedAt)
	}
	if _, changed, err := once.Apply(p, t0); changed || err != nil {
		t.Fatalf("applying %q twice changed it again: %v %v", body, changed, err)
	}
}

// FuzzParseFilter: any query string parses or is a 400, and the canonical
// form parses back to the same filter.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"", "include_archived=true&q=ann", "name=Acme&name=Other", "external_id_contains=%25_", "q=%ff", "identity_status=IDENTIFIED"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		flt, err := ParseFilter(q)
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
		again, err := ParseFilter(back)
		if err != nil || again != flt {
			t.Fatalf("%q: canonical form %q parses to %+v (%v), want %+v", raw, flt.Canonical(), again, err, flt)
		}
	})
}
