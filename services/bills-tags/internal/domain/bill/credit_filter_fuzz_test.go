package bill

import (
	"net/url"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParseCreditFilter: GET /vendor-credits's filter refusals are 400
// error objects naming the parameter, never a panic.
func FuzzParseCreditFilter(f *testing.F) {
	for _, s := range []string{"vendor_id=0190a0b0-0000-7000-8000-000000000001&received_at_start=2026-01-01&received_at_end=2026-03-31T00:00:00Z",
		"reference_number=R1&reference_numbers=a,b,,c&memo=x&memo_contains=LUNCH", "vendor_id=x", "received_at_start=2026-02-30",
		"received_at_start=2026-03-01&received_at_end=2026-01-01", "reference_numbers=", "memo_contains=%00", "unknown=1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if _, err := ParseCreditFilter(q); err != nil {
			apperrtest.Require4xx(t, err)
		}
	})
}
