package service

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/mileage/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// month and year are the summary's figures in test form.
type fig struct {
	miles, business, personal, uncategorized string
	deduction, trips, bTrips, pTrips, uTrips int
}

func (f fig) check(t *testing.T, where string, m map[string]any) {
	t.Helper()
	got := fig{m["miles"].(string), m["business_miles"].(string), m["personal_miles"].(string), m["uncategorized_miles"].(string),
		int(m["estimated_deduction"].(float64)), int(m["trips"].(float64)), int(m["business_trips"].(float64)),
		int(m["personal_trips"].(float64)), int(m["uncategorized_trips"].(float64))}
	if got != f {
		t.Errorf("%s = %+v, want %+v", where, got, f)
	}
}

// TestSummaryGolden: two vehicles, trips of each purpose across the 2022
// mid-year rate change and 2023, one deleted; figures computed by hand.
func TestSummaryGolden(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	a := e.vehicle(bid, tok, map[string]any{"make_and_model": "A"}, 201)["id"].(string)
	b := e.vehicle(bid, tok, map[string]any{"make_and_model": "B"}, 201)["id"].(string)
	for _, tr := range []map[string]any{
		{"vehicle_id": a, "trip_date": "2022-06-30", "purpose": "BUSINESS", "distance": "100.25"}, // 100.25 × 58.5 = 5864.625 → 5865
		{"vehicle_id": a, "trip_date": "2022-07-01", "purpose": "BUSINESS", "distance": "0.1"},    // 0.1 × 62.5 = 6.25 → 6
		{"vehicle_id": b, "trip_date": "2022-07-15", "purpose": "BUSINESS", "distance": "0.1"},    // 6 (0.2 × 62.5 = 12.5 would be 13)
		{"vehicle_id": b, "trip_date": "2022-07-20", "purpose": "PERSONAL", "distance": "0.2"},
		{"vehicle_id": a, "trip_date": "2023-03-10", "purpose": "BUSINESS", "distance": "12.5"}, // 12.5 × 65.5 = 818.75 → 819
		{"vehicle_id": b, "trip_date": "2023-03-11", "distance": "7"},                           // UNREVIEWED
		{"vehicle_id": a, "trip_date": "2023-03-12", "purpose": "BUSINESS", "distance": "20"},   // 1310, deleted below
	} {
		e.trip(bid, tok, tr, 201)
	}
	list := e.get(base(bid)+"/mileage/trips?start_date=2023-03-12", tok)["data"].([]any)
	e.NoContent(req("DELETE", base(bid)+"/mileage/trips/"+list[0].(map[string]any)["id"].(string), tok, nil))

	summary := func(q string) []any {
		return data(e.get(base(bid)+"/mileage/summary?"+q, tok))["years"].([]any)
	}
	years := summary("")
	if len(years) != 2 {
		t.Fatalf("years = %v", years)
	}
	y22, y23 := years[0].(map[string]any), years[1].(map[string]any)
	if y22["year"] != float64(2022) || y23["year"] != float64(2023) {
		t.Fatalf("years = %v", years)
	}
	fig{"100.65", "100.45", "0.2", "0", 5877, 4, 3, 1, 0}.check(t, "2022", y22)
	fig{"19.5", "12.5", "0", "7", 819, 2, 1, 0, 1}.check(t, "2023", y23)
	m22 := y22["months"].([]any)
	jun, jul := m22[0].(map[string]any), m22[1].(map[string]any)
	if len(m22) != 2 || jun["month"] != float64(6) || jun["deduction_rate"] != 58.5 || jul["month"] != float64(7) || jul["deduction_rate"] != 62.5 {
		t.Fatalf("2022 months = %v", m22)
	}
	fig{"100.25", "100.25", "0", "0", 5865, 1, 1, 0, 0}.check(t, "2022-06", jun)
	fig{"0.4", "0.2", "0.2", "0", 12, 3, 2, 1, 0}.check(t, "2022-07", jul)
	mar := y23["months"].([]any)[0].(map[string]any)
	if mar["month"] != float64(3) || mar["deduction_rate"] != 65.5 {
		t.Fatalf("2023-03 = %v", mar)
	}

	// Deleted trips on request.
	fig{"39.5", "32.5", "0", "7", 2129, 3, 2, 0, 1}.check(t, "2023 with deleted", summary("include_deleted=true")[1].(map[string]any))
	// By vehicle: 0.1 + 0.2 miles are 0.3.
	byB := summary("vehicle_ids=" + b)
	fig{"0.3", "0.1", "0.2", "0", 6, 2, 1, 1, 0}.check(t, "B 2022", byB[0].(map[string]any))
	fig{"7", "0", "0", "7", 0, 1, 0, 0, 1}.check(t, "B 2023", byB[1].(map[string]any))
	// By purpose and vehicle.
	biz := summary("purpose=BUSINESS&vehicle_ids=" + a)
	fig{"100.35", "100.35", "0", "0", 5871, 2, 2, 0, 0}.check(t, "A business 2022", biz[0].(map[string]any))
	fig{"12.5", "12.5", "0", "0", 819, 1, 1, 0, 0}.check(t, "A business 2023", biz[1].(map[string]any))
	if got := summary("year=2023"); len(got) != 1 || got[0].(map[string]any)["year"] != float64(2023) {
		t.Fatalf("year=2023: %v", got)
	}
	if got := summary("start_date=2022-07-01&end_date=2022-07-31"); len(got) != 1 || len(got[0].(map[string]any)["months"].([]any)) != 1 {
		t.Fatalf("July: %v", got)
	}
	if got := summary("year=2021"); len(got) != 0 {
		t.Fatalf("2021: %v", got)
	}
}

// TestSummaryProperty: for random trip sets and filters, the summary the
// database computes equals domain.NaiveSummary over the same trips.
func TestSummaryProperty(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	rng := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	for set := range 4 {
		bid := e.Business("client-a")
		vehicles := []uuid.UUID{}
		for i := range 3 {
			id := e.vehicle(bid, tok, map[string]any{"make_and_model": fmt.Sprint("V", i)}, 201)["id"].(string)
			vehicles = append(vehicles, uuid.MustParse(id))
		}
		var trips []domain.Trip
		var bodies []any
		n := 20 + rng.IntN(60)
		for range n {
			d := domain.MustDate("2022-01-01").Time().AddDate(0, 0, rng.IntN(5*365))
			miles := domain.Miles(1 + rng.IntN(50000))
			tr := domain.Trip{VehicleID: vehicles[rng.IntN(3)], Distance: miles, TripDate: domain.DateOf(d),
				Purpose: domain.Purposes[rng.IntN(3)]}
			trips = append(trips, tr)
			bodies = append(bodies, map[string]any{"vehicle_id": tr.VehicleID.String(), "distance": miles.String(),
				"trip_date": tr.TripDate.String(), "purpose": string(tr.Purpose)})
		}
		created := e.Do(req("POST", base(bid)+"/mileage/trips/bulk", tok, map[string]any{"trips": bodies}), 201)["data"].([]any)
		for i, c := range created {
			if rng.IntN(5) == 0 {
				e.NoContent(req("DELETE", base(bid)+"/mileage/trips/"+c.(map[string]any)["id"].(string), tok, nil))
				now := time.Now()
				trips[i].DeletedAt = &now
			}
		}
		// Random edits of undeleted trips: purpose, date, distance, vehicle
		// (each moves the trip's figures between trip_days rows).
		for i, c := range created {
			if trips[i].DeletedAt != nil || rng.IntN(3) != 0 {
				continue
			}
			patch := map[string]any{}
			if rng.IntN(2) == 0 {
				trips[i].Purpose = domain.Purposes[rng.IntN(3)]
				patch["purpose"] = string(trips[i].Purpose)
			}
			if rng.IntN(2) == 0 {
				trips[i].TripDate = domain.DateOf(domain.MustDate("2022-01-01").Time().AddDate(0, 0, rng.IntN(5*365)))
				patch["trip_date"] = trips[i].TripDate.String()
			}
			if rng.IntN(2) == 0 {
				trips[i].Distance = domain.Miles(1 + rng.IntN(50000))
				patch["distance"] = trips[i].Distance.String()
			}
			if rng.IntN(3) == 0 {
				trips[i].VehicleID = vehicles[rng.IntN(3)]
				patch["vehicle_id"] = trips[i].VehicleID.String()
			}
			e.Do(req("PATCH", base(bid)+"/mileage/trips/"+c.(map[string]any)["id"].(string), tok, patch), 200)
		}
		for range 8 {
			q := url.Values{}
			if rng.IntN(2) == 0 {
				q.Set("include_deleted", "true")
			}
			for _, p := range domain.Purposes {
				if rng.IntN(3) == 0 {
					q.Add("purpose", string(p))
				}
			}
			if rng.IntN(2) == 0 {
				q.Set("vehicle_ids", vehicles[rng.IntN(3)].String()+","+vehicles[rng.IntN(3)].String())
			}
			if rng.IntN(2) == 0 {
				q.Set("start_date", domain.DateOf(domain.MustDate("2022-01-01").Time().AddDate(0, 0, rng.IntN(900))).String())
			}
			if rng.IntN(2) == 0 {
				q.Set("end_date", domain.DateOf(domain.MustDate("2024-06-01").Time().AddDate(0, 0, rng.IntN(900))).String())
			}
			if rng.IntN(4) == 0 {
				q.Set("year", fmt.Sprint(2022+rng.IntN(5)))
			}
			f, err := domain.ParseTripFilter(q, false)
			if err != nil {
				t.Fatal(err)
			}
			want := renderSummary(domain.NaiveSummary(trips, f))
			got := data(e.get(base(bid)+"/mileage/summary?"+q.Encode(), tok))["years"].([]any)
			if !reflect.DeepEqual(got, want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				t.Fatalf("set %d, filter %s:\n got %s\nwant %s", set, q.Encode(), gj, wj)
			}
			// The raw GROUP BY over the trips (the benchmark's baseline)
			// says the same as trip_days.
			raw, err := postgres.New(e.DB).SummarizeTripsRaw(context.Background(), bid, f)
			if err != nil {
				t.Fatal(err)
			}
			if r := renderSummary(domain.BuildSummary(raw)); !reflect.DeepEqual(r, want) {
				rj, _ := json.Marshal(r)
				wj, _ := json.Marshal(want)
				t.Fatalf("set %d, filter %s, raw GROUP BY:\n got %s\nwant %s", set, q.Encode(), rj, wj)
			}
		}
	}
}

// renderSummary is the years as the API's decoded JSON.
func renderSummary(years []domain.YearSummary) []any {
	totals := func(m map[string]any, t domain.Totals) map[string]any {
		m["miles"], m["business_miles"], m["personal_miles"], m["uncategorized_miles"] =
			t.Miles.String(), t.BusinessMiles.String(), t.PersonalMiles.String(), t.UncategorizedMiles.String()
		m["estimated_deduction"], m["trips"], m["business_trips"] = float64(t.EstimatedDeduction), float64(t.Trips), float64(t.BusinessTrips)
		m["personal_trips"], m["uncategorized_trips"] = float64(t.PersonalTrips), float64(t.UncategorizedTrips)
		return m
	}
	out := []any{}
	for _, y := range years {
		months := []any{}
		for _, m := range y.Months {
			var rate float64
			_ = json.Unmarshal([]byte(m.Rate.String()), &rate)
			months = append(months, totals(map[string]any{"month": float64(m.Month), "deduction_rate": rate}, m.Totals))
		}
		out = append(out, totals(map[string]any{"year": float64(y.Year), "months": months}, y.Totals))
	}
	return out
}
