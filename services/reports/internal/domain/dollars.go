package domain

import (
	"strconv"

	"github.com/acctsuite/acct/pkg/money"
)

// Dollars is cents c as the number of dollars a spreadsheet's number cell
// holds (an IEEE double, whatever we do): the double nearest the exact
// decimal, parsed from money.Format's exact text rather than computed by
// a float division. Below 10^15 cents ($10 trillion) the shortest text of
// that double, which is what a spreadsheet stores and shows, is the exact
// amount ("42.5" for 4250).
func Dollars(c int64) float64 {
	f, _ := strconv.ParseFloat(money.Format(money.Cents(c)), 64) // always a valid decimal
	return f
}
