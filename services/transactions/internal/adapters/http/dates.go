package http

import (
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
)

// dateLayout is the calendar-date form of query parameters and bodies.
const dateLayout = "2006-01-02"

// parseInstant reads a date (YYYY-MM-DD, midnight UTC) or an RFC 3339
// date-time; dateOnly reports which it was. Instants before year 1 (UTC)
// are refused: PostgreSQL has no year 0.
func parseInstant(s string) (t time.Time, dateOnly bool, ok bool) {
	if d, err := time.Parse(dateLayout, s); err == nil {
		return d, true, d.Year() >= 1
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), false, t.UTC().Year() >= 1
	}
	return time.Time{}, false, false
}

// periodStart reads a start bound (inclusive): the day's first instant for
// a date.
func periodStart(name, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, _, ok := parseInstant(s)
	if !ok {
		return nil, apperr.Field(name, "must be a date (YYYY-MM-DD) or an RFC 3339 date-time")
	}
	return &t, nil
}

// periodEnd reads an end bound, inclusive as the caller means it, and
// returns the exclusive instant after it: the next midnight for a date, the
// next microsecond for a date-time.
func periodEnd(name, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, dateOnly, ok := parseInstant(s)
	if !ok {
		return nil, apperr.Field(name, "must be a date (YYYY-MM-DD) or an RFC 3339 date-time")
	}
	if dateOnly {
		t = t.AddDate(0, 0, 1)
	} else {
		t = t.Truncate(time.Microsecond).Add(time.Microsecond)
	}
	return &t, nil
}

// period reads start_date, end_date and as_of (a synonym of end_date) into
// [from, until).
func period(startDate, endDate, asOf string) (from, until *time.Time, err error) {
	if endDate != "" && asOf != "" {
		return nil, nil, apperr.Field("as_of", "give as_of or end_date, not both")
	}
	if from, err = periodStart("start_date", startDate); err != nil {
		return nil, nil, err
	}
	name, end := "end_date", endDate
	if asOf != "" {
		name, end = "as_of", asOf
	}
	if until, err = periodEnd(name, end); err != nil {
		return nil, nil, err
	}
	if from != nil && until != nil && !from.Before(*until) {
		return nil, nil, apperr.Field(name, "must not be before start_date")
	}
	return from, until, nil
}
