package domain

import (
	"net/url"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Error enums of the report's parameters.
const (
	EnumInvalidDateRange          = "InvalidDateRange"
	EnumInvalidTagFilter          = "InvalidTagFilter"
	EnumUnsupportedReportingBasis = "UnsupportedReportingBasis"
	EnumUnsupportedStructure      = "UnsupportedStructure"
)

// DateLayout is the YYYY-MM-DD of the query parameters.
const DateLayout = "2006-01-02"

// PnLQuery is a profit-and-loss request: the days Start..End (inclusive,
// UTC) and a tag filter.
type PnLQuery struct {
	Start, End time.Time
	Filter     TagFilter
	Structure  Structure
	// Basis is ACCRUAL or CASH; empty: the business's default.
	Basis string
}

// ParsePnLQuery reads start_date, end_date (required, YYYY-MM-DD, end not
// before start), tag_key and tag_values (comma-separated or repeated; only
// with tag_key), reporting_basis (ACCRUAL or CASH; absent: the business's
// default) and structure (Structures; DEFAULT when absent). Other
// parameters (include_uncategorized) are ignored.
func ParsePnLQuery(q url.Values) (PnLQuery, error) {
	var out PnLQuery
	bad := map[string]string{}
	enum := apperr.InvalidParameters
	var errEnum string
	out.Start, out.End, errEnum = parseDateRange(q, bad)
	out.Filter, out.Basis = parseFilterAndBasis(q, bad, &errEnum)
	var ok bool
	if out.Structure, ok = ParseStructure(q.Get("structure")); !ok {
		bad["structure"] = structureValues
		errEnum = EnumUnsupportedStructure
	}
	if len(bad) > 0 {
		return PnLQuery{}, apperr.FieldErrors(enum, bad).WithEnum(errEnum)
	}
	return out, nil
}

// parseDateRange reads start_date and end_date (required, YYYY-MM-DD,
// end not before start), noting each violation in bad; the enum is
// InvalidDateRange when there is one.
func parseDateRange(q url.Values, bad map[string]string) (start, end time.Time, errEnum string) {
	date := func(name string) time.Time {
		s := q.Get(name)
		if s == "" {
			bad[name] = "required (YYYY-MM-DD)"
			return time.Time{}
		}
		d, err := time.Parse(DateLayout, s)
		if err != nil {
			bad[name] = "must be a date YYYY-MM-DD"
		}
		return d
	}
	start, end = date("start_date"), date("end_date")
	if len(bad) > 0 {
		return start, end, EnumInvalidDateRange
	}
	if end.Before(start) {
		bad["end_date"] = "must not be before start_date"
		return start, end, EnumInvalidDateRange
	}
	return start, end, ""
}

// parseFilterAndBasis reads tag_key and tag_values (comma-separated or
// repeated; values only with a key) and reporting_basis (ACCRUAL, CASH or
// absent), noting each violation in bad and its enum in errEnum.
func parseFilterAndBasis(q url.Values, bad map[string]string, errEnum *string) (TagFilter, string) {
	var f TagFilter
	f.Key = strings.TrimSpace(q.Get("tag_key"))
	for _, v := range q["tag_values"] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				f.Values = append(f.Values, s)
			}
		}
	}
	if len(f.Values) > 0 && f.Key == "" {
		bad["tag_values"] = "needs tag_key"
		*errEnum = EnumInvalidTagFilter
	}
	basis := q.Get("reporting_basis")
	switch basis {
	case "", BasisAccrual, BasisCash:
	default:
		bad["reporting_basis"] = "must be ACCRUAL or CASH"
		*errEnum = EnumUnsupportedReportingBasis
		basis = ""
	}
	return f, basis
}
