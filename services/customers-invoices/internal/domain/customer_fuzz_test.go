package domain

import (
	"net/url"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzCustomerBodies feeds arbitrary bodies and queries to the customer
// parsers (POST and PATCH /customers bodies, GET /customers filters):
// refusals are 4xx error objects, an accepted input has a name.
func FuzzCustomerBodies(f *testing.F) {
	for _, s := range []string{`{"company_name":"Acme","external_id":"c-1","email":"ap@acme.test","mobile_phone":"555 0100","tags":[{"key":"tier","value":"gold"}],"metadata":{"a":1}}`,
		`{"individual_name":"Ann"}`, `{"company_name":"  "}`, `{"individual_name":null}`, `{"company_name":"x","tags":"gold"}`, `{"company_name":"x","unknown":1}`,
		`{"email":null}`, `{}`, `[]`, ``} {
		f.Add([]byte(s), "status=ACTIVE&search=acme")
	}
	f.Add([]byte(`{"company_name":"B"}`), "status=NOPE&external_id=a&external_id=b")
	f.Add([]byte(`{"company_name":"B"}`), "%zz")
	f.Fuzz(func(t *testing.T, body []byte, query string) {
		if in, err := ParseCustomerInput(body); err != nil {
			apperrtest.Require4xx(t, err)
		} else if in.IndividualName == nil && in.CompanyName == nil {
			t.Fatalf("accepted a customer without a display name: %s", body)
		}
		if _, err := ParseCustomerPatch(body); err != nil {
			apperrtest.Require4xx(t, err)
		}
		if q, err := url.ParseQuery(query); err == nil {
			if _, err := ParseCustomerFilter(q); err != nil {
				apperrtest.Require4xx(t, err)
			}
		}
	})
}
