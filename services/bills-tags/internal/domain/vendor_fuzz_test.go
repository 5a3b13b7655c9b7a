package domain

import (
	"net/url"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzVendorBodies feeds arbitrary bodies and queries to the vendor
// parsers (POST and PATCH /vendors bodies, GET /vendors filters):
// refusals are 4xx error objects, an accepted vendor has a name.
func FuzzVendorBodies(f *testing.F) {
	for _, s := range []string{`{"company_name":"Acme Supply","external_id":"v-1","email":"ar@acme.test","mobile_phone":"555 0100","tags":[{"key":"k","value":"v"}]}`,
		`{"individual_name":"Bob"}`, `{"company_name":" "}`, `{"company_name":"x","tags":"y"}`, `{"company_name":"x","unknown":1}`,
		`{"email":null}`, `{}`, `[]`, ``} {
		f.Add([]byte(s), "status=ACTIVE&search=acme")
	}
	f.Add([]byte(`{"company_name":"B"}`), "status=NOPE&external_id=a&external_id=b")
	f.Fuzz(func(t *testing.T, body []byte, query string) {
		if in, err := ParseVendorInput(body); err != nil {
			apperrtest.Require4xx(t, err)
		} else if in.IndividualName == nil && in.CompanyName == nil {
			t.Fatalf("accepted a vendor without a name: %s", body)
		}
		if _, err := ParseVendorPatch(body); err != nil {
			apperrtest.Require4xx(t, err)
		}
		if q, err := url.ParseQuery(query); err == nil {
			if _, err := ParseVendorFilter(q); err != nil {
				apperrtest.Require4xx(t, err)
			}
		}
	})
}
