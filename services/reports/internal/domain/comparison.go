package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
)

// Limits of a comparison request.
const (
	MaxComparisonPeriods    = 36
	MaxComparisonTagFilters = 10
)

// Period types of a comparison request.
const (
	PeriodsMonths     = "Comparison_Months"
	PeriodsYears      = "Comparison_Years"
	PeriodsDateRanges = "Comparison_Date_Ranges"
)

// Error enums of the comparison's body (besides the query's).
const (
	EnumInvalidPeriods = "InvalidPeriods"
)

// ComparisonBody is the body of POST .../profit-and-loss-comparison.
type ComparisonBody struct {
	Periods        *PeriodsBody    `json:"periods"`
	TagFilters     []TagFilterBody `json:"tag_filters"`
	ReportingBasis *string         `json:"reporting_basis"`
	Structure      *string         `json:"structure"`
}

// PeriodsBody is the body's periods: one of three variants by type.
type PeriodsBody struct {
	Type       string          `json:"type"`
	Months     []MonthBody     `json:"months"`
	Years      []YearBody      `json:"years"`
	DateRanges []DateRangeBody `json:"date_ranges"`
}

// MonthBody is a month of Comparison_Months.
type MonthBody struct {
	Year  int `json:"year"`
	Month int `json:"month"`
}

// YearBody is a year of Comparison_Years.
type YearBody struct {
	Year int `json:"year"`
}

// DateRangeBody is a range of Comparison_Date_Ranges (YYYY-MM-DD, inclusive).
type DateRangeBody struct {
	StartDate string `json:"start_date"`
	EndDate   string `json:"end_date"`
}

// TagFilterBody is a tag filter item; the SDK sends structure inside it
// (accepted and checked like the top-level one).
type TagFilterBody struct {
	RequiredTags []tags.KeyValue `json:"required_tags"`
	Structure    *string         `json:"structure"`
}

// ComparisonPeriod is one period: its variant type, year and month where
// they apply, and its days Start..End (inclusive, UTC).
type ComparisonPeriod struct {
	Type        string
	Year, Month int
	Start, End  time.Time
}

// RequiredTags selects the lines carrying every one of its tags; the empty
// set selects every line.
type RequiredTags []Tag

// KVs is the tags in KV form (never nil).
func (r RequiredTags) KVs() []string { return TagSet(r).KVs() }

// Matches reports whether a line with tags s is selected.
func (r RequiredTags) Matches(s TagSet) bool {
	for _, t := range r {
		found := false
		for _, u := range s {
			if u == t {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Comparison is a checked comparison request: a report for every period ×
// filter (one empty filter when the body has none).
type Comparison struct {
	Periods []ComparisonPeriod
	Filters []RequiredTags
	// Filtered: the body had tag filters (the results then name theirs).
	Filtered bool
	// Basis is ACCRUAL or CASH; empty: the business's default.
	Basis string
	// Structure lays out every report (DEFAULT when the body names none).
	Structure Structure
}

const (
	minYear = 1
	maxYear = 9999
)

// ParseComparison checks a comparison body. Every offending field is named
// in one 400 InvalidPayload error (the enum is the first violation's).
func ParseComparison(b ComparisonBody) (Comparison, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	var out Comparison
	checkBasisStructure(v, "", b.ReportingBasis, b.Structure)
	if b.ReportingBasis != nil {
		out.Basis = *b.ReportingBasis
	}
	switch p := b.Periods; {
	case p == nil:
		v.Add("periods", EnumInvalidPeriods, "required")
	default:
		out.Periods = parsePeriods(v, *p)
	}
	if len(b.TagFilters) > MaxComparisonTagFilters {
		v.Add("tag_filters", EnumInvalidTagFilter, fmt.Sprintf("at most %d tag filters, got %d", MaxComparisonTagFilters, len(b.TagFilters)))
	} else {
		for i, f := range b.TagFilters {
			field := fmt.Sprintf("tag_filters[%d]", i)
			checkBasisStructure(v, field+".", nil, f.Structure)
			if len(f.RequiredTags) == 0 {
				v.Add(field+".required_tags", EnumInvalidTagFilter, "at least one tag is required")
				continue
			}
			kvs, err := tags.NormalizeList(field+".required_tags", f.RequiredTags)
			if err := v.Merge(err); err != nil {
				return Comparison{}, err
			}
			var r RequiredTags
			for _, kv := range kvs {
				r = append(r, Tag{Key: kv.Key, Value: kv.Value})
			}
			out.Filters = append(out.Filters, r)
		}
		out.Filtered = len(b.TagFilters) > 0
	}
	out.Structure = comparisonStructure(v, b)
	if err := v.Err(); err != nil {
		return Comparison{}, err
	}
	if !out.Filtered {
		out.Filters = []RequiredTags{{}}
	}
	return out, nil
}

func checkBasisStructure(v *apperr.Violations, prefix string, basis, structure *string) {
	if basis != nil {
		switch *basis {
		case BasisAccrual, BasisCash:
		default:
			v.Add(prefix+"reporting_basis", EnumUnsupportedReportingBasis, "must be ACCRUAL or CASH")
		}
	}
	if structure != nil && !slices.Contains(Structures, Structure(*structure)) {
		v.Add(prefix+"structure", EnumUnsupportedStructure, structureValues)
	}
}

// comparisonStructure is the body's structure: the top-level one, else
// the tag filters' (as the SDK sends it). One structure lays out every
// report: a tag filter naming another one than the body or an earlier
// filter is a violation (checkBasisStructure reports unknown values).
func comparisonStructure(v *apperr.Violations, b ComparisonBody) Structure {
	chosen, field := b.Structure, "structure"
	for i, f := range b.TagFilters {
		if f.Structure == nil {
			continue
		}
		if chosen == nil {
			chosen, field = f.Structure, fmt.Sprintf("tag_filters[%d].structure", i)
			continue
		}
		known := slices.Contains(Structures, Structure(*chosen)) && slices.Contains(Structures, Structure(*f.Structure))
		if known && *f.Structure != *chosen {
			v.Add(fmt.Sprintf("tag_filters[%d].structure", i), EnumUnsupportedStructure, "must be the same as "+field+" ("+*chosen+")")
		}
	}
	if chosen == nil {
		return StructureDefault
	}
	return Structure(*chosen) // an unknown one is a violation already
}

func parsePeriods(v *apperr.Violations, p PeriodsBody) []ComparisonPeriod {
	var out []ComparisonPeriod
	n := 0
	present := map[string]bool{"months": p.Months != nil, "years": p.Years != nil, "date_ranges": p.DateRanges != nil}
	want := ""
	switch p.Type {
	case PeriodsMonths:
		want, n = "months", len(p.Months)
	case PeriodsYears:
		want, n = "years", len(p.Years)
	case PeriodsDateRanges:
		want, n = "date_ranges", len(p.DateRanges)
	case "":
		v.Add("periods.type", EnumInvalidPeriods, "required: Comparison_Months, Comparison_Years or Comparison_Date_Ranges")
		return nil
	default:
		v.Add("periods.type", EnumInvalidPeriods, "must be Comparison_Months, Comparison_Years or Comparison_Date_Ranges")
		return nil
	}
	for name, ok := range present {
		if ok && name != want {
			v.Add("periods."+name, EnumInvalidPeriods, "not allowed with type "+p.Type)
		}
	}
	switch {
	case n == 0:
		v.Add("periods."+want, EnumInvalidPeriods, "at least one period is required")
		return nil
	case n > MaxComparisonPeriods:
		v.Add("periods."+want, EnumInvalidPeriods, fmt.Sprintf("at most %d periods, got %d", MaxComparisonPeriods, n))
		return nil
	}
	year := func(field string, y int) bool {
		if y < minYear || y > maxYear {
			v.Add(field, EnumInvalidDateRange, fmt.Sprintf("must be a year %d..%d", minYear, maxYear))
			return false
		}
		return true
	}
	for i, m := range p.Months {
		if p.Type != PeriodsMonths {
			break
		}
		field := fmt.Sprintf("periods.months[%d]", i)
		okY := year(field+".year", m.Year)
		if m.Month < 1 || m.Month > 12 {
			v.Add(field+".month", EnumInvalidDateRange, "must be a month 1..12")
			continue
		}
		if okY {
			start := time.Date(m.Year, time.Month(m.Month), 1, 0, 0, 0, 0, time.UTC)
			out = append(out, ComparisonPeriod{Type: p.Type, Year: m.Year, Month: m.Month, Start: start, End: start.AddDate(0, 1, -1)})
		}
	}
	for i, y := range p.Years {
		if p.Type != PeriodsYears {
			break
		}
		if year(fmt.Sprintf("periods.years[%d].year", i), y.Year) {
			out = append(out, ComparisonPeriod{Type: p.Type, Year: y.Year,
				Start: time.Date(y.Year, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(y.Year, 12, 31, 0, 0, 0, 0, time.UTC)})
		}
	}
	for i, r := range p.DateRanges {
		if p.Type != PeriodsDateRanges {
			break
		}
		field := fmt.Sprintf("periods.date_ranges[%d]", i)
		date := func(name, s string) (time.Time, bool) {
			d, err := time.Parse(DateLayout, strings.TrimSpace(s))
			if err != nil {
				v.Add(field+"."+name, EnumInvalidDateRange, "must be a date YYYY-MM-DD")
				return d, false
			}
			return d, true
		}
		s, okS := date("start_date", r.StartDate)
		e, okE := date("end_date", r.EndDate)
		if !okS || !okE {
			continue
		}
		if e.Before(s) {
			v.Add(field+".end_date", EnumInvalidDateRange, "must not be before start_date")
			continue
		}
		out = append(out, ComparisonPeriod{Type: p.Type, Start: s, End: e})
	}
	return out
}
