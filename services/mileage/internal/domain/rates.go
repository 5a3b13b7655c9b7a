package domain

import (
	"fmt"
	"strconv"
	"time"
)

// Rate is a deduction rate in tenths of a cent per mile (585 is 58.5
// cents), exact.
type Rate int64

// String is the rate in cents as a decimal: "58.5", "67".
func (r Rate) String() string {
	if r%10 == 0 {
		return strconv.FormatInt(int64(r)/10, 10)
	}
	return fmt.Sprintf("%d.%d", r/10, r%10)
}

// RatePeriod is a rate in force from Effective (a first day of a month)
// until the next period's.
type RatePeriod struct {
	Effective string // YYYY-MM-DD
	Rate      Rate
}

// Rates are the IRS standard mileage rates for business use, oldest first.
// Every change takes effect on a first day of a month, so one month has
// one rate (the summary's deduction_rate). A date after the last change
// takes the latest rate.
var Rates = []RatePeriod{
	{"2022-01-01", 585},
	{"2022-07-01", 625},
	{"2023-01-01", 655},
	{"2024-01-01", 670},
	{"2025-01-01", 700},
	{"2026-01-01", 725},
}

// FirstRateDate is the first date with a rate: trips before it are
// refused.
func FirstRateDate() Date { return MustDate(Rates[0].Effective) }

// RateOn is the rate in force on d, false before the table starts.
func RateOn(d Date) (Rate, bool) {
	var r Rate
	found := false
	for _, p := range Rates {
		if d.Before(MustDate(p.Effective)) {
			break
		}
		r, found = p.Rate, true
	}
	return r, found
}

// Deduction is miles × rate in cents, rounded half away from zero (both
// are positive: half up): hundredths of a mile × tenths of a cent are
// thousandths of a cent.
func Deduction(m Miles, r Rate) int64 {
	return (int64(m)*int64(r) + 500) / 1000
}

// Date is a calendar day (no time zone): the trip date.
type Date struct{ t time.Time }

// DateLayout is the wire form of a Date.
const DateLayout = "2006-01-02"

// ParseDate reads YYYY-MM-DD (a real day of the Gregorian calendar, year
// 1000 to 9999).
func ParseDate(s string) (Date, bool) {
	if len(s) != 10 {
		return Date{}, false
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil || t.Year() < 1000 {
		return Date{}, false
	}
	return Date{t}, true
}

// MustDate is ParseDate for constants.
func MustDate(s string) Date {
	d, ok := ParseDate(s)
	if !ok {
		panic("domain: bad date " + s)
	}
	return d
}

// DateOf is the calendar day of t in UTC.
func DateOf(t time.Time) Date {
	y, m, d := t.UTC().Date()
	return Date{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// String is YYYY-MM-DD.
func (d Date) String() string { return d.t.Format(DateLayout) }

// Time is midnight UTC of the day.
func (d Date) Time() time.Time { return d.t }

// IsZero reports an unset date.
func (d Date) IsZero() bool { return d.t.IsZero() }

// Before reports d < o.
func (d Date) Before(o Date) bool { return d.t.Before(o.t) }

// Year and Month of the day.
func (d Date) Year() int  { return d.t.Year() }
func (d Date) Month() int { return int(d.t.Month()) }
