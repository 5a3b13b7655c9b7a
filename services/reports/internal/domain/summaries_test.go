package domain

import (
	"net/url"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
)

func TestParseSummariesQuery(t *testing.T) {
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	window := []string{"start_year", "2025", "start_month", "11", "end_year", "2026", "end_month", "2"}
	tests := []struct {
		name     string
		in       url.Values
		months   int
		first    Month
		badField string
	}{
		{"a window across a year end", q(window...), 4, Month{2025, time.November}, ""},
		{"one month", q("start_year", "2026", "start_month", "7", "end_year", "2026", "end_month", "7"), 1, Month{2026, time.July}, ""},
		{"36 months", q("start_year", "2024", "start_month", "1", "end_year", "2026", "end_month", "12"), 36, Month{2024, time.January}, ""},
		{"37 months", q("start_year", "2024", "start_month", "1", "end_year", "2027", "end_month", "1"), 0, Month{}, "end_month"},
		{"end before start", q("start_year", "2026", "start_month", "3", "end_year", "2026", "end_month", "2"), 0, Month{}, "end_month"},
		{"month 0", q("start_year", "2026", "start_month", "0", "end_year", "2026", "end_month", "2"), 0, Month{}, "start_month"},
		{"month 13", q("start_year", "2026", "start_month", "1", "end_year", "2026", "end_month", "13"), 0, Month{}, "end_month"},
		{"year missing", q("start_month", "1", "end_year", "2026", "end_month", "2"), 0, Month{}, "start_year"},
		{"not a number", q("start_year", "twenty", "start_month", "1", "end_year", "2026", "end_month", "2"), 0, Month{}, "start_year"},
		{"tag values without a key", q(append(window, "tag_values", "a")...), 0, Month{}, "tag_values"},
		{"a basis", q(append(window, "reporting_basis", "CASH")...), 4, Month{2025, time.November}, ""},
		{"an unknown basis", q(append(window, "reporting_basis", "TAX")...), 0, Month{}, "reporting_basis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSummariesQuery(tt.in)
			if tt.badField != "" {
				ae := apperr.From(err)
				if ae == nil || ae.Status() != 400 {
					t.Fatalf("err = %v, want a 400", err)
				}
				if fields, _ := ae.Meta["fields"].(map[string]string); fields[tt.badField] == "" {
					t.Fatalf("fields %v lack %s", ae.Meta, tt.badField)
				}
				return
			}
			ms := got.Months()
			if err != nil || len(ms) != tt.months || ms[0] != tt.first {
				t.Fatalf("months %v, %v", ms, err)
			}
			for i := 1; i < len(ms); i++ {
				if ms[i] != ms[i-1].Next() || !ms[i].Start().Equal(ms[i-1].End().AddDate(0, 0, 1)) {
					t.Fatalf("months %v are not consecutive", ms)
				}
			}
		})
	}
}

// FuzzParseSummariesQuery: any query is either refused with a 400 or a
// window of 1 to MaxSummaryMonths consecutive months.
func FuzzParseSummariesQuery(f *testing.F) {
	for _, s := range []string{"start_year=2025&start_month=11&end_year=2026&end_month=2",
		"start_year=2026&start_month=1&end_year=2026&end_month=1&tag_key=dept&tag_values=a,b&reporting_basis=CASH",
		"start_year=0&start_month=-1", "start_year=9999&start_month=12&end_year=9999&end_month=12", "tag_values=x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseSummariesQuery(v)
		if err != nil {
			if ae := apperr.From(err); ae == nil || ae.Status() != 400 {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		ms := q.Months()
		if len(ms) < 1 || len(ms) > MaxSummaryMonths || ms[0] != q.From || ms[len(ms)-1] != q.To {
			t.Fatalf("%q: %d months %v", raw, len(ms), ms)
		}
	})
}
