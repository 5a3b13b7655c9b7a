package e2e

import (
	"net/http"
	"testing"
	"time"
)

// mileageFigures are the figures of one year or month of the mileage
// summary: miles as the API's decimal strings, the deduction in cents,
// trips (all, business, personal, unreviewed).
type mileageFigures struct {
	Miles, Business, Personal, Uncategorized string
	Deduction, Trips, BTrips, PTrips, UTrips int
}

func readMileageFigures(m map[string]any) mileageFigures {
	return mileageFigures{m["miles"].(string), m["business_miles"].(string), m["personal_miles"].(string), m["uncategorized_miles"].(string),
		int(m["estimated_deduction"].(float64)), int(m["trips"].(float64)), int(m["business_trips"].(float64)),
		int(m["personal_trips"].(float64)), int(m["uncategorized_trips"].(float64))}
}

// mileageYear is a year of the summary as a scenario expects it: its
// figures and its months (month number → rate in cents and figures).
type mileageYear struct {
	Year   int
	Totals mileageFigures
	Months []mileageMonth
}

type mileageMonth struct {
	Month int
	Rate  float64
	mileageFigures
}

// checkMileageSummary compares a summary's data.years with want.
func checkMileageSummary(t *testing.T, what string, years []any, want []mileageYear) {
	t.Helper()
	if len(years) != len(want) {
		t.Fatalf("%s: %d years, want %d: %v", what, len(years), len(want), years)
	}
	for i, w := range want {
		y := years[i].(map[string]any)
		if int(y["year"].(float64)) != w.Year {
			t.Fatalf("%s: year %v, want %d", what, y["year"], w.Year)
		}
		if got := readMileageFigures(y); got != w.Totals {
			t.Errorf("%s %d: %+v, want %+v", what, w.Year, got, w.Totals)
		}
		months := y["months"].([]any)
		if len(months) != len(w.Months) {
			t.Fatalf("%s %d: %d months, want %d: %v", what, w.Year, len(months), len(w.Months), months)
		}
		for j, wm := range w.Months {
			m := months[j].(map[string]any)
			if int(m["month"].(float64)) != wm.Month || m["deduction_rate"] != wm.Rate {
				t.Errorf("%s %d: month %v at rate %v, want %d at %v", what, w.Year, m["month"], m["deduction_rate"], wm.Month, wm.Rate)
			}
			if got := readMileageFigures(m); got != wm.mileageFigures {
				t.Errorf("%s %d-%02d: %+v, want %+v", what, w.Year, wm.Month, got, wm.mileageFigures)
			}
		}
	}
}

// mileageScenario: two vehicles, trips of each purpose over
// 2022 (across the 2022-07-01 rate change) and 2023, one deleted; the
// summary by year and month equals the hand-computed miles and deductions
// (each business trip's miles × the rate on its date, rounded half up
// once), also filtered by vehicle, purpose and dates.
func mileageScenario(t *testing.T, api *apiClient, platform string) {
	biz := createBusiness(t, api, platform, newBusiness(t, "E2E Mileage LLC"))
	base := "/v1/businesses/" + biz + "/mileage"
	// The business reaches mileage through acct.business.v1.
	api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/vehicles", Token: platform})
	vehicle := func(name string) string {
		return api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/vehicles", Token: platform, JSON: map[string]any{
			"make_and_model": name, "year": 2021, "external_id": "e2e-" + name,
		}}).Data(t)["id"].(string)
	}
	a, b := vehicle("Van"), vehicle("Sedan")
	trips := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/trips/bulk", Token: platform, JSON: map[string]any{
		"trips": []map[string]any{
			{"vehicle_id": a, "trip_date": "2022-06-30", "purpose": "BUSINESS", "distance": "100.25"}, // × 58.5 = 5864.625 → 5865
			{"vehicle_id": a, "trip_date": "2022-07-01", "purpose": "BUSINESS", "distance": "10.5"},   // × 62.5 = 656.25 → 656
			{"vehicle_id": b, "trip_date": "2022-07-15", "purpose": "PERSONAL", "distance": "8.2"},
			{"vehicle_id": b, "trip_date": "2022-07-20", "purpose": "UNREVIEWED", "distance": "3.3"},
			{"vehicle_id": b, "trip_date": "2023-02-10", "purpose": "BUSINESS", "distance": "40.1"}, // × 65.5 = 2626.55 → 2627
			{"vehicle_id": a, "trip_date": "2023-02-11", "purpose": "PERSONAL", "distance": "12"},
			{"vehicle_id": a, "trip_date": "2023-05-05", "purpose": "BUSINESS", "distance": "0.1"}, // × 65.5 = 6.55 → 7
			{"vehicle_id": b, "trip_date": "2023-05-06", "purpose": "BUSINESS", "distance": "25"},  // 1637.5 → 1638, deleted below
			{"vehicle_id": a, "trip_date": "2023-05-07", "distance": "0.2"},                        // UNREVIEWED by default
		},
	}}).JSON(t)["data"].([]any)
	if len(trips) != 9 {
		t.Fatalf("bulk created %d trips, want 9", len(trips))
	}
	if tr := trips[1].(map[string]any); tr["mileage_deduction_rate"] != 62.5 || tr["estimated_deduction"] != float64(656) || tr["distance"] != "10.5" {
		t.Errorf("the 2022-07-01 trip: rate %v, deduction %v, distance %v; want 62.5, 656, 10.5", tr["mileage_deduction_rate"], tr["estimated_deduction"], tr["distance"])
	}
	api.expect(t, http.StatusNoContent, request{Method: http.MethodDelete, Path: base + "/trips/" + trips[7].(map[string]any)["id"].(string), Token: platform})

	summary := func(query string) []any {
		return api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/summary" + query, Token: platform}).Data(t)["years"].([]any)
	}
	jun22 := mileageMonth{6, 58.5, mileageFigures{"100.25", "100.25", "0", "0", 5865, 1, 1, 0, 0}}
	jul22 := mileageMonth{7, 62.5, mileageFigures{"22", "10.5", "8.2", "3.3", 656, 3, 1, 1, 1}}
	feb23 := mileageMonth{2, 65.5, mileageFigures{"52.1", "40.1", "12", "0", 2627, 2, 1, 1, 0}}
	may23 := mileageMonth{5, 65.5, mileageFigures{"0.3", "0.1", "0", "0.2", 7, 2, 1, 0, 1}} // 0.1 + 0.2 miles are 0.3
	y22 := mileageYear{2022, mileageFigures{"122.25", "110.75", "8.2", "3.3", 6521, 4, 2, 1, 1}, []mileageMonth{jun22, jul22}}
	y23 := mileageYear{2023, mileageFigures{"52.4", "40.2", "12", "0.2", 2634, 4, 2, 1, 1}, []mileageMonth{feb23, may23}}
	checkMileageSummary(t, "summary", summary(""), []mileageYear{y22, y23})
	checkMileageSummary(t, "year=2023", summary("?year=2023"), []mileageYear{y23})

	// The deleted trip on request.
	checkMileageSummary(t, "include_deleted", summary("?include_deleted=true&year=2023"), []mileageYear{{2023,
		mileageFigures{"77.4", "65.2", "12", "0.2", 4272, 5, 3, 1, 1},
		[]mileageMonth{feb23, {5, 65.5, mileageFigures{"25.3", "25.1", "0", "0.2", 1645, 3, 2, 0, 1}}}}})

	// By vehicle, by purpose, both, and by dates.
	checkMileageSummary(t, "vehicle A", summary("?vehicle_ids="+a), []mileageYear{
		{2022, mileageFigures{"110.75", "110.75", "0", "0", 6521, 2, 2, 0, 0}, []mileageMonth{jun22, {7, 62.5, mileageFigures{"10.5", "10.5", "0", "0", 656, 1, 1, 0, 0}}}},
		{2023, mileageFigures{"12.3", "0.1", "12", "0.2", 7, 3, 1, 1, 1}, []mileageMonth{
			{2, 65.5, mileageFigures{"12", "0", "12", "0", 0, 1, 0, 1, 0}}, may23}},
	})
	checkMileageSummary(t, "BUSINESS", summary("?purpose=BUSINESS"), []mileageYear{
		{2022, mileageFigures{"110.75", "110.75", "0", "0", 6521, 2, 2, 0, 0}, []mileageMonth{jun22, {7, 62.5, mileageFigures{"10.5", "10.5", "0", "0", 656, 1, 1, 0, 0}}}},
		{2023, mileageFigures{"40.2", "40.2", "0", "0", 2634, 2, 2, 0, 0}, []mileageMonth{
			{2, 65.5, mileageFigures{"40.1", "40.1", "0", "0", 2627, 1, 1, 0, 0}}, {5, 65.5, mileageFigures{"0.1", "0.1", "0", "0", 7, 1, 1, 0, 0}}}},
	})
	b23 := mileageFigures{"40.1", "40.1", "0", "0", 2627, 1, 1, 0, 0}
	checkMileageSummary(t, "vehicle B, BUSINESS", summary("?purpose=BUSINESS&vehicle_ids="+b), []mileageYear{{2023, b23, []mileageMonth{{2, 65.5, b23}}}})
	checkMileageSummary(t, "PERSONAL and UNREVIEWED of both vehicles", summary("?purpose=PERSONAL&purpose=UNREVIEWED&vehicle_ids="+a+","+b), []mileageYear{
		{2022, mileageFigures{"11.5", "0", "8.2", "3.3", 0, 2, 0, 1, 1}, []mileageMonth{{7, 62.5, mileageFigures{"11.5", "0", "8.2", "3.3", 0, 2, 0, 1, 1}}}},
		{2023, mileageFigures{"12.2", "0", "12", "0.2", 0, 2, 0, 1, 1}, []mileageMonth{
			{2, 65.5, mileageFigures{"12", "0", "12", "0", 0, 1, 0, 1, 0}}, {5, 65.5, mileageFigures{"0.2", "0", "0", "0.2", 0, 1, 0, 0, 1}}}},
	})
	checkMileageSummary(t, "2022-07-01..2023-02-10", summary("?start_date=2022-07-01&end_date=2023-02-10"), []mileageYear{
		{2022, jul22.mileageFigures, []mileageMonth{jul22}},
		{2023, b23, []mileageMonth{{2, 65.5, b23}}},
	})
	// An inverted range is a 400 error object.
	assertErrorObject(t, api.do(t, request{Method: http.MethodGet, Path: base + "/summary?start_date=2023-02-10&end_date=2022-07-01", Token: platform}),
		http.StatusBadRequest, "InvalidParameters")
}
