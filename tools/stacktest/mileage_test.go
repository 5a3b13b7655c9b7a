package stacktest

import (
	"net/http"
	"testing"
	"time"
)

// figures are the figures of one year or month of the mileage summary:
// miles as decimal strings, the deduction in cents, trips (all, business,
// personal, unreviewed).
type figures struct {
	miles, business, personal, uncategorized string
	deduction, trips, bTrips, pTrips, uTrips int
}

func readFigures(m map[string]any) figures {
	return figures{m["miles"].(string), m["business_miles"].(string), m["personal_miles"].(string), m["uncategorized_miles"].(string),
		int(m["estimated_deduction"].(float64)), int(m["trips"].(float64)), int(m["business_trips"].(float64)),
		int(m["personal_trips"].(float64)), int(m["uncategorized_trips"].(float64))}
}

type summaryMonth struct {
	month int
	rate  float64
	figures
}

type summaryYear struct {
	year   int
	totals figures
	months []summaryMonth
}

// TestMileageThroughTheSuite is the mileage scenario through the real
// processes: a business created on auth-tokens reaches mileage through
// acct.business.v1; two vehicles, trips of each purpose over 2022 (across
// the 2022-07-01 rate change) and 2023, one deleted; the summary through
// the gateway by year and month equals the hand-computed miles and
// deductions, also by vehicle, purpose and dates; another platform gets
// 404.
func TestMileageThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "mileage-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid + "/mileage"
	vehicle := func(name string) string {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			r := jsonCall(t, http.MethodPost, base+"/vehicles", tok, map[string]any{"make_and_model": name, "year": 2021, "external_id": "st-" + name})
			if r.status == http.StatusCreated {
				return r.json["data"].(map[string]any)["id"].(string)
			}
			if time.Now().After(deadline) { // the business arrives through acct.business.v1
				t.Fatalf("vehicle %s: %d %s", name, r.status, r.body)
			}
		}
	}
	a, b := vehicle("Van"), vehicle("Sedan")
	r := jsonCall(t, http.MethodPost, base+"/trips/bulk", tok, map[string]any{"trips": []map[string]any{
		{"vehicle_id": a, "trip_date": "2022-06-30", "purpose": "BUSINESS", "distance": "100.25"}, // × 58.5 = 5864.625 → 5865
		{"vehicle_id": a, "trip_date": "2022-07-01", "purpose": "BUSINESS", "distance": "10.5"},   // × 62.5 = 656.25 → 656
		{"vehicle_id": b, "trip_date": "2022-07-15", "purpose": "PERSONAL", "distance": "8.2"},
		{"vehicle_id": b, "trip_date": "2022-07-20", "purpose": "UNREVIEWED", "distance": "3.3"},
		{"vehicle_id": b, "trip_date": "2023-02-10", "purpose": "BUSINESS", "distance": "40.1"}, // × 65.5 = 2626.55 → 2627
		{"vehicle_id": a, "trip_date": "2023-02-11", "purpose": "PERSONAL", "distance": "12"},
		{"vehicle_id": a, "trip_date": "2023-05-05", "purpose": "BUSINESS", "distance": "0.1"}, // × 65.5 = 6.55 → 7
		{"vehicle_id": b, "trip_date": "2023-05-06", "purpose": "BUSINESS", "distance": "25"},  // 1637.5 → 1638, deleted below
		{"vehicle_id": a, "trip_date": "2023-05-07", "distance": "0.2"},                        // UNREVIEWED by default
	}})
	if r.status != http.StatusCreated {
		t.Fatalf("bulk: %d %s", r.status, r.body)
	}
	trips := r.json["data"].([]any)
	if tr := trips[1].(map[string]any); tr["mileage_deduction_rate"] != 62.5 || tr["estimated_deduction"] != float64(656) {
		t.Errorf("the 2022-07-01 trip: rate %v, deduction %v; want 62.5, 656", tr["mileage_deduction_rate"], tr["estimated_deduction"])
	}
	if r := call(t, http.MethodDelete, base+"/trips/"+trips[7].(map[string]any)["id"].(string), tok, "", nil, true); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}

	check := func(query string, want []summaryYear) {
		t.Helper()
		r := call(t, http.MethodGet, base+"/summary"+query, tok, "", nil, true)
		if r.status != http.StatusOK {
			t.Fatalf("summary%s: %d %s", query, r.status, r.body)
		}
		years := r.json["data"].(map[string]any)["years"].([]any)
		if len(years) != len(want) {
			t.Fatalf("summary%s: %d years, want %d: %s", query, len(years), len(want), r.body)
		}
		for i, w := range want {
			y := years[i].(map[string]any)
			if int(y["year"].(float64)) != w.year {
				t.Fatalf("summary%s: year %v, want %d", query, y["year"], w.year)
			}
			if got := readFigures(y); got != w.totals {
				t.Errorf("summary%s %d: %+v, want %+v", query, w.year, got, w.totals)
			}
			months := y["months"].([]any)
			if len(months) != len(w.months) {
				t.Fatalf("summary%s %d: %d months, want %d: %s", query, w.year, len(months), len(w.months), r.body)
			}
			for j, wm := range w.months {
				m := months[j].(map[string]any)
				if int(m["month"].(float64)) != wm.month || m["deduction_rate"] != wm.rate {
					t.Errorf("summary%s %d: month %v at %v, want %d at %v", query, w.year, m["month"], m["deduction_rate"], wm.month, wm.rate)
				}
				if got := readFigures(m); got != wm.figures {
					t.Errorf("summary%s %d-%02d: %+v, want %+v", query, w.year, wm.month, got, wm.figures)
				}
			}
		}
	}
	jun22 := summaryMonth{6, 58.5, figures{"100.25", "100.25", "0", "0", 5865, 1, 1, 0, 0}}
	jul22 := summaryMonth{7, 62.5, figures{"22", "10.5", "8.2", "3.3", 656, 3, 1, 1, 1}}
	feb23 := summaryMonth{2, 65.5, figures{"52.1", "40.1", "12", "0", 2627, 2, 1, 1, 0}}
	may23 := summaryMonth{5, 65.5, figures{"0.3", "0.1", "0", "0.2", 7, 2, 1, 0, 1}} // 0.1 + 0.2 miles are 0.3
	y22 := summaryYear{2022, figures{"122.25", "110.75", "8.2", "3.3", 6521, 4, 2, 1, 1}, []summaryMonth{jun22, jul22}}
	y23 := summaryYear{2023, figures{"52.4", "40.2", "12", "0.2", 2634, 4, 2, 1, 1}, []summaryMonth{feb23, may23}}
	check("", []summaryYear{y22, y23})
	check("?year=2023", []summaryYear{y23})
	check("?include_deleted=true&year=2023", []summaryYear{{2023, figures{"77.4", "65.2", "12", "0.2", 4272, 5, 3, 1, 1},
		[]summaryMonth{feb23, {5, 65.5, figures{"25.3", "25.1", "0", "0.2", 1645, 3, 2, 0, 1}}}}})
	a22 := summaryYear{2022, figures{"110.75", "110.75", "0", "0", 6521, 2, 2, 0, 0}, []summaryMonth{jun22, {7, 62.5, figures{"10.5", "10.5", "0", "0", 656, 1, 1, 0, 0}}}}
	check("?vehicle_ids="+a, []summaryYear{a22, {2023, figures{"12.3", "0.1", "12", "0.2", 7, 3, 1, 1, 1},
		[]summaryMonth{{2, 65.5, figures{"12", "0", "12", "0", 0, 1, 0, 1, 0}}, may23}}})
	check("?purpose=BUSINESS", []summaryYear{a22, {2023, figures{"40.2", "40.2", "0", "0", 2634, 2, 2, 0, 0},
		[]summaryMonth{{2, 65.5, figures{"40.1", "40.1", "0", "0", 2627, 1, 1, 0, 0}}, {5, 65.5, figures{"0.1", "0.1", "0", "0", 7, 1, 1, 0, 0}}}}})
	b23 := figures{"40.1", "40.1", "0", "0", 2627, 1, 1, 0, 0}
	check("?purpose=BUSINESS&vehicle_ids="+b, []summaryYear{{2023, b23, []summaryMonth{{2, 65.5, b23}}}})
	check("?purpose=PERSONAL&purpose=UNREVIEWED&vehicle_ids="+a+","+b, []summaryYear{
		{2022, figures{"11.5", "0", "8.2", "3.3", 0, 2, 0, 1, 1}, []summaryMonth{{7, 62.5, figures{"11.5", "0", "8.2", "3.3", 0, 2, 0, 1, 1}}}},
		{2023, figures{"12.2", "0", "12", "0.2", 0, 2, 0, 1, 1}, []summaryMonth{
			{2, 65.5, figures{"12", "0", "12", "0", 0, 1, 0, 1, 0}}, {5, 65.5, figures{"0.2", "0", "0", "0.2", 0, 1, 0, 0, 1}}}},
	})
	check("?start_date=2022-07-01&end_date=2023-02-10", []summaryYear{{2022, jul22.figures, []summaryMonth{jul22}}, {2023, b23, []summaryMonth{{2, 65.5, b23}}}})
	expectError(t, call(t, http.MethodGet, base+"/summary?start_date=2023-02-10&end_date=2022-07-01", tok, "", nil, true), http.StatusBadRequest, "InvalidParameters")

	// Another platform does not see the business.
	id, secret := secondClient(t)
	expectError(t, call(t, http.MethodGet, base+"/summary", tokenFor(t, id, secret), "", nil, true), http.StatusNotFound, "NotFound")
}
