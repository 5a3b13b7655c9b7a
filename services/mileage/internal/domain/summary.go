package domain

import "slices"

// Totals are the figures of one year or month of the mileage summary.
type Totals struct {
	Miles, BusinessMiles, PersonalMiles, UncategorizedMiles Miles
	Trips, BusinessTrips, PersonalTrips, UncategorizedTrips int64
	// EstimatedDeduction is the sum of the business trips' deductions in
	// cents (each rounded once, per trip).
	EstimatedDeduction int64
}

// Add adds o to t.
func (t *Totals) Add(o Totals) {
	t.Miles += o.Miles
	t.BusinessMiles += o.BusinessMiles
	t.PersonalMiles += o.PersonalMiles
	t.UncategorizedMiles += o.UncategorizedMiles
	t.Trips += o.Trips
	t.BusinessTrips += o.BusinessTrips
	t.PersonalTrips += o.PersonalTrips
	t.UncategorizedTrips += o.UncategorizedTrips
	t.EstimatedDeduction += o.EstimatedDeduction
}

// MonthSummary is one month with trips. Rate is the deduction rate in
// force that month (rates change on first days of months).
type MonthSummary struct {
	Month int
	Rate  Rate
	Totals
}

// YearSummary is one year with trips: its totals and months, oldest
// first.
type YearSummary struct {
	Year int
	Totals
	Months []MonthSummary
}

// MonthKey is a (year, month) with its totals, as the store's GROUP BY
// answers them.
type MonthKey struct {
	Year, Month int
	Totals
}

// BuildSummary assembles the years (oldest first) from per-month totals in
// any order.
func BuildSummary(months []MonthKey) []YearSummary {
	slices.SortFunc(months, func(a, b MonthKey) int {
		if a.Year != b.Year {
			return a.Year - b.Year
		}
		return a.Month - b.Month
	})
	out := []YearSummary{}
	for _, m := range months {
		if len(out) == 0 || out[len(out)-1].Year != m.Year {
			out = append(out, YearSummary{Year: m.Year, Months: []MonthSummary{}})
		}
		y := &out[len(out)-1]
		rate, _ := RateOn(MustDate(dateString(m.Year, m.Month)))
		y.Months = append(y.Months, MonthSummary{Month: m.Month, Rate: rate, Totals: m.Totals})
		y.Totals.Add(m.Totals)
	}
	return out
}

// TripTotals are one trip's figures.
func TripTotals(t Trip) Totals {
	o := Totals{Miles: t.Distance, Trips: 1, EstimatedDeduction: t.EstimatedDeduction()}
	switch t.Purpose {
	case PurposeBusiness:
		o.BusinessMiles, o.BusinessTrips = t.Distance, 1
	case PurposePersonal:
		o.PersonalMiles, o.PersonalTrips = t.Distance, 1
	default:
		o.UncategorizedMiles, o.UncategorizedTrips = t.Distance, 1
	}
	return o
}

// NaiveSummary is the summary of the trips f selects, computed one trip
// at a time: the reference the store's SQL is checked against.
func NaiveSummary(trips []Trip, f TripFilter) []YearSummary {
	byMonth := map[[2]int]*MonthKey{}
	for _, t := range trips {
		if !f.Matches(t) {
			continue
		}
		k := [2]int{t.TripDate.Year(), t.TripDate.Month()}
		if byMonth[k] == nil {
			byMonth[k] = &MonthKey{Year: k[0], Month: k[1]}
		}
		byMonth[k].Totals.Add(TripTotals(t))
	}
	months := make([]MonthKey, 0, len(byMonth))
	for _, m := range byMonth {
		months = append(months, *m)
	}
	return BuildSummary(months)
}

func dateString(y, m int) string {
	return string([]byte{byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
		byte('0' + m/10), byte('0' + m%10), '-', '0', '1'})
}
