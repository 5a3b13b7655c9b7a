package domain

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
)

func TestRequiredTags(t *testing.T) {
	s := NewTagSet([]Tag{{"dept", "retail"}, {"proj", "x"}})
	for _, c := range []struct {
		r    RequiredTags
		want bool
	}{
		{nil, true},
		{RequiredTags{{"dept", "retail"}}, true},
		{RequiredTags{{"proj", "x"}, {"dept", "retail"}}, true},
		{RequiredTags{{"dept", "retail"}, {"proj", "y"}}, false},
		{RequiredTags{{"dept", "wholesale"}}, false},
	} {
		if got := c.r.Matches(s); got != c.want {
			t.Errorf("%v matches %v = %v", c.r, s, got)
		}
	}
}

func TestParseComparison(t *testing.T) {
	c, err := ParseComparison(ComparisonBody{
		Periods: &PeriodsBody{Type: PeriodsMonths, Months: []MonthBody{{2026, 2}, {2024, 2}, {2026, 12}}},
		TagFilters: []TagFilterBody{{RequiredTags: []tags.KeyValue{{Key: " dept ", Value: "retail"}, {Key: "dept", Value: "retail"}}},
			{RequiredTags: []tags.KeyValue{{Key: "proj", Value: "x"}}, Structure: new("DEFAULT")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	day := func(s string) time.Time { d, _ := time.Parse(DateLayout, s); return d }
	if len(c.Periods) != 3 || !c.Periods[0].End.Equal(day("2026-02-28")) || !c.Periods[1].End.Equal(day("2024-02-29")) ||
		!c.Periods[2].Start.Equal(day("2026-12-01")) || !c.Periods[2].End.Equal(day("2026-12-31")) {
		t.Fatalf("months %+v", c.Periods)
	}
	if !c.Filtered || len(c.Filters) != 2 || len(c.Filters[0]) != 1 || c.Filters[0][0] != (Tag{"dept", "retail"}) {
		t.Fatalf("filters %+v", c.Filters)
	}
	c, err = ParseComparison(ComparisonBody{Periods: &PeriodsBody{Type: PeriodsYears, Years: []YearBody{{2025}}}})
	if err != nil || c.Filtered || len(c.Filters) != 1 || len(c.Filters[0]) != 0 || !c.Periods[0].End.Equal(day("2025-12-31")) {
		t.Fatalf("years: %+v %v", c, err)
	}
	// Every violation at once.
	_, err = ParseComparison(ComparisonBody{
		Periods:        &PeriodsBody{Type: PeriodsDateRanges, DateRanges: []DateRangeBody{{"2026-01-02", "2026-01-01"}, {"x", "2026-01-01"}}},
		TagFilters:     []TagFilterBody{{}},
		ReportingBasis: new("cash"),
	})
	e := apperr.From(err)
	fields, _ := e.Meta["fields"].(map[string]string)
	if e.Type != apperr.InvalidPayload || e.Enum != EnumUnsupportedReportingBasis || len(fields) != 4 ||
		fields["periods.date_ranges[0].end_date"] == "" || fields["periods.date_ranges[1].start_date"] == "" ||
		fields["tag_filters[0].required_tags"] == "" {
		t.Fatalf("%+v", e)
	}
}

func FuzzParseComparison(f *testing.F) {
	for _, s := range []string{
		`{"periods":{"type":"Comparison_Months","months":[{"year":2026,"month":13}]}}`,
		`{"periods":{"type":"Comparison_Years","years":[{"year":0}]},"tag_filters":[{"required_tags":[{"key":"a","value":"b"}]}]}`,
		`{"periods":{"type":"Comparison_Date_Ranges","date_ranges":[{"start_date":"2026-01-02","end_date":"2026-01-01"}]}}`,
		`{"periods":{"type":"X"},"reporting_basis":"CASH"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var b ComparisonBody
		if json.Unmarshal([]byte(raw), &b) != nil {
			return
		}
		c, err := ParseComparison(b)
		if err != nil {
			if e := apperr.From(err); e.Type != apperr.InvalidPayload || e.Enum == "" {
				t.Fatalf("error %v", err)
			}
			return
		}
		if len(c.Periods) == 0 || len(c.Periods) > MaxComparisonPeriods || len(c.Filters) == 0 || len(c.Filters) > MaxComparisonTagFilters {
			t.Fatalf("accepted %q: %+v", raw, c)
		}
		for _, p := range c.Periods {
			if p.End.Before(p.Start) {
				t.Fatalf("accepted %q: %+v", raw, p)
			}
		}
		for _, r := range c.Filters {
			if c.Filtered && len(r) == 0 {
				t.Fatalf("accepted %q: an empty filter", raw)
			}
		}
	})
}
