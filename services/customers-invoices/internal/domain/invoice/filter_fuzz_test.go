package invoice

import (
	"net/url"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParseInvoiceFilter: GET /invoices's query refusals are 400 error
// objects naming the parameter.
func FuzzParseInvoiceFilter(f *testing.F) {
	for _, s := range []string{"status=OPEN,PAID&customer_id=0190c4c4-0000-7000-8000-000000000001&sent_at_start=2026-01-01&sent_at_end=2026-03-31",
		"due_at_start=2026-01-01T00:00:00Z&search=acme&sort_by=sent_at&limit=10", "status=NOPE", "status=OPEN&status=PAID",
		"sent_at_start=2026-13-01", "customer_id=x", "unknown=1", "search=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if _, err := ParseFilter(q); err != nil {
			apperrtest.Require4xx(t, err)
		}
	})
}
