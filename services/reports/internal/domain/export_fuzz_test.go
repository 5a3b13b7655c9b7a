package domain

import (
	"net/url"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParseExportQuery feeds arbitrary query strings to the CSV export's
// parser: refusals are 400 error objects; an accepted range is whole UTC
// days with start ≤ end.
func FuzzParseExportQuery(f *testing.F) {
	for _, s := range []string{"start_date=2026-01-01&end_date=2026-03-31&categorized=true&category=OFFICE_SUPPLIES&categorization_status=CATEGORIZED",
		"start_date=2026-01-01T10:00:00-05:00", "categorization_status=PENDING", "categorized=maybe", "start_date=2026-02-30",
		"start_date=2026-04-01&end_date=2026-01-01", "categorization_status=nope", "end_date=9999-12-31", ""} {
		f.Add(s)
	}
	activation := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		eq, err := ParseExportQuery(q, activation, now)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if !eq.Start.Equal(Day(eq.Start)) || !eq.End.Equal(Day(eq.End)) || eq.End.Before(eq.Start) {
			t.Fatalf("range %v .. %v of %q", eq.Start, eq.End, raw)
		}
	})
}
