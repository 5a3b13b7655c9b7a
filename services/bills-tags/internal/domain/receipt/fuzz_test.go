package receipt

import (
	"net/url"
	"slices"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// FuzzParseOverrides feeds arbitrary create-bill-from-receipt bodies to
// ParseOverrides: refusals are 400 error objects; accepted line overrides
// number 1 to bill.MaxLines and only known properties are kept.
func FuzzParseOverrides(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"vendor_id":"0190a0b0-0000-7000-8000-000000000001","received_at":"2026-03-01T00:00:00Z","memo":"m","tags":[{"key":"k","value":"v"}]}`,
		`{"line_items":[{"description":"Paper","amount":1200,"account_identifier":{"type":"StableName","stable_name":"OFFICE_SUPPLIES"}},{"amount":"3.50"}]}`,
		`{"line_items":[]}`, `{"line_items":{}}`, `{"line_items":[1]}`, `{"vendor_external_id":"v","bill_terms":"NET_30"}`,
		`{"status":"PAID"}`, `[]`, `"x"`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		o, err := ParseOverrides(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		for k := range o.fields {
			if !overrideKeys[k] {
				t.Fatalf("kept unknown property %q of %s", k, body)
			}
		}
		if o.linesSet && (len(o.lines) == 0 || len(o.lines) > bill.MaxLines) {
			t.Fatalf("accepted %d line overrides", len(o.lines))
		}
	})
}

// FuzzParseFilter: GET /receipts's status filter refusals are 400 error
// objects; accepted statuses are sorted, distinct and valid.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"status=READY_FOR_BILL", "status=READY_FOR_BILL,BILL_CREATED&status=READY_FOR_BILL", "status=nope", "status=", "status=,", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		flt, err := ParseFilter(q)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if !slices.IsSorted(flt.Statuses) || len(slices.Compact(slices.Clone(flt.Statuses))) != len(flt.Statuses) {
			t.Fatalf("statuses %v are not sorted and distinct", flt.Statuses)
		}
		for _, s := range flt.Statuses {
			if _, ok := ParseStatus(string(s)); !ok {
				t.Fatalf("accepted status %q", s)
			}
		}
	})
}
