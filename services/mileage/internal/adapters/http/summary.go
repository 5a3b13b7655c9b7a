package http

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// totalsJSON are the figures of a year or month: miles as decimal strings
// (the SDK's number strings), trips as integers, the deduction in cents.
type totalsJSON struct {
	Miles              string `json:"miles"`
	BusinessMiles      string `json:"business_miles"`
	PersonalMiles      string `json:"personal_miles"`
	UncategorizedMiles string `json:"uncategorized_miles"`
	EstimatedDeduction int64  `json:"estimated_deduction"`
	Trips              int64  `json:"trips"`
	BusinessTrips      int64  `json:"business_trips"`
	PersonalTrips      int64  `json:"personal_trips"`
	UncategorizedTrips int64  `json:"uncategorized_trips"`
}

type monthJSON struct {
	Month int `json:"month"`
	totalsJSON
	DeductionRate json.Number `json:"deduction_rate"`
}

type yearJSON struct {
	Year int `json:"year"`
	totalsJSON
	Months []monthJSON `json:"months"`
}

type summaryJSON struct {
	Years []yearJSON `json:"years"`
}

func toTotals(t domain.Totals) totalsJSON {
	return totalsJSON{
		Miles: t.Miles.String(), BusinessMiles: t.BusinessMiles.String(), PersonalMiles: t.PersonalMiles.String(),
		UncategorizedMiles: t.UncategorizedMiles.String(), EstimatedDeduction: t.EstimatedDeduction, Trips: t.Trips,
		BusinessTrips: t.BusinessTrips, PersonalTrips: t.PersonalTrips, UncategorizedTrips: t.UncategorizedTrips,
	}
}

// summary is GET /mileage/summary.
func (h *handlers) summary(c *fiber.Ctx) error {
	f, err := domain.ParseTripFilter(httpx.Query(c), false)
	if err != nil {
		return err
	}
	years, err := h.app.Summary(c.UserContext(), businessID(c), f)
	if err != nil {
		return err
	}
	out := summaryJSON{Years: make([]yearJSON, len(years))}
	for i, y := range years {
		yj := yearJSON{Year: y.Year, totalsJSON: toTotals(y.Totals), Months: make([]monthJSON, len(y.Months))}
		for j, m := range y.Months {
			yj.Months[j] = monthJSON{Month: m.Month, totalsJSON: toTotals(m.Totals), DeductionRate: json.Number(m.Rate.String())}
		}
		out.Years[i] = yj
	}
	return httpx.OK(c, out)
}
