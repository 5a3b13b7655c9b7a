package service

import (
	"fmt"
	"testing"

	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

var tripKeys = []string{"type", "id", "business_id", "vehicle_id", "vehicle", "external_id", "distance", "distance_source",
	"trip_date", "purpose", "start_address", "end_address", "google_start_place_id", "google_end_place_id", "start_latitude",
	"start_longitude", "end_latitude", "end_longitude", "description", "transaction_tags", "mileage_deduction_rate",
	"estimated_deduction", "created_at", "updated_at", "deleted_at"}

func checkTripShape(t *testing.T, m map[string]any) {
	t.Helper()
	for _, k := range tripKeys {
		if _, ok := m[k]; !ok {
			t.Errorf("trip lacks %q: %v", k, m)
		}
	}
	if len(m) != len(tripKeys) {
		t.Errorf("trip has %d keys, want %d: %v", len(m), len(tripKeys), m)
	}
}

func TestTrips(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	b := base(bid) + "/mileage/trips"
	car := e.vehicle(bid, tok, map[string]any{"make_and_model": "Car"}, 201)["id"].(string)
	van := e.vehicle(bid, tok, map[string]any{"make_and_model": "Van"}, 201)["id"].(string)

	before := e.counts()
	tr := e.trip(bid, tok, map[string]any{"vehicle_id": car, "distance": "100.25", "trip_date": "2022-06-30", "purpose": "BUSINESS",
		"external_id": "t-1", "start_address": "A", "end_address": "B", "description": "client visit",
		"tags": []any{map[string]any{"key": "project", "value": "alpha"}}}, 201)
	checkTripShape(t, tr)
	if tr["distance"] != "100.25" || tr["mileage_deduction_rate"] != 58.5 || tr["estimated_deduction"] != float64(5865) ||
		tr["vehicle"].(map[string]any)["id"] != car || tr["purpose"] != "BUSINESS" || len(tr["transaction_tags"].([]any)) != 1 {
		t.Fatalf("trip = %v", tr)
	}
	if after := e.counts(); after[1] != before[1]+1 || after[2] != before[2]+1 {
		t.Fatalf("counts %v -> %v", before, after)
	}
	id := tr["id"].(string)
	if evts := e.outbox(bid, "trip_id", id); len(evts) != 1 || evts[0].Type != "trip.upserted" {
		t.Fatalf("events %v", evts)
	}

	t.Run("defaults and numbers", func(t *testing.T) {
		e := e.with(t)
		m := e.trip(bid, tok, map[string]any{"vehicle_id": van, "distance": 12.5, "trip_date": "2026-03-01"}, 201)
		if m["purpose"] != "UNREVIEWED" || m["distance"] != "12.5" || m["estimated_deduction"] != float64(0) || m["mileage_deduction_rate"] != 72.5 {
			t.Fatalf("trip = %v", m)
		}
		m = e.trip(bid, tok, map[string]any{"vehicle_id": van, "distance": "3.500", "trip_date": "2030-01-01", "purpose": "BUSINESS"}, 201)
		if m["distance"] != "3.5" || m["mileage_deduction_rate"] != 72.5 || m["estimated_deduction"] != float64(254) { // 253.75
			t.Fatalf("trip = %v", m)
		}
	})

	t.Run("idempotent on external_id", func(t *testing.T) {
		e := e.with(t)
		before := e.counts()
		again := e.trip(bid, tok, map[string]any{"vehicle_id": van, "distance": "1", "trip_date": "2023-01-01", "external_id": "t-1"}, 200)
		if again["id"] != id || e.counts() != before {
			t.Fatalf("again = %v", again)
		}
	})

	t.Run("patch and delete", func(t *testing.T) {
		e := e.with(t)
		m := e.trip(bid, tok, map[string]any{"vehicle_id": car, "distance": "10", "trip_date": "2024-05-05"}, 201)
		tid := m["id"].(string)
		p := data(e.Do(req("PATCH", b+"/"+tid, tok, map[string]any{"purpose": "BUSINESS", "vehicle_id": van, "distance": "20.2"}), 200))
		if p["purpose"] != "BUSINESS" || p["vehicle_id"] != van || p["distance"] != "20.2" || p["estimated_deduction"] != float64(1353) { // 20.2 × 67 = 1353.4
			t.Fatalf("patched = %v", p)
		}
		e.NoContent(req("DELETE", b+"/"+tid, tok, nil))
		if got := data(e.get(b+"/"+tid, tok)); got["deleted_at"] == nil {
			t.Fatalf("deleted trip = %v", got)
		}
		evts := e.outbox(bid, "trip_id", tid)
		if len(evts) != 3 || evts[2].Type != "trip.deleted" {
			t.Fatalf("events %v", evts)
		}
		e.DoInvalid(req("DELETE", b+"/"+tid, tok, nil), 404, domain.EnumTripNotFound)
		e.DoInvalid(req("PATCH", b+"/"+tid, tok, map[string]any{"purpose": "PERSONAL"}), 404, domain.EnumTripNotFound)
		for _, x := range e.get(b, tok)["data"].([]any) {
			if x.(map[string]any)["id"] == tid {
				t.Fatal("a deleted trip is listed")
			}
		}
		found := false
		for _, x := range e.get(b+"?include_deleted=true&limit=500", tok)["data"].([]any) {
			found = found || x.(map[string]any)["id"] == tid
		}
		if !found {
			t.Fatal("include_deleted does not list the deleted trip")
		}
	})

	t.Run("bulk is all or nothing", func(t *testing.T) {
		e := e.with(t)
		before := e.counts()
		m := e.DoInvalid(req("POST", b+"/bulk", tok, map[string]any{"trips": []any{
			map[string]any{"vehicle_id": car, "distance": "1", "trip_date": "2024-01-01"},
			map[string]any{"vehicle_id": car, "distance": "-1", "trip_date": "2024-01-01"},
		}}), 400, domain.EnumInvalidTrip)
		if _, ok := fieldsOf(m)["trips[1].distance"]; !ok {
			t.Fatalf("error = %v", m)
		}
		m = e.DoInvalid(req("POST", b+"/bulk", tok, map[string]any{"trips": []any{
			map[string]any{"vehicle_id": car, "distance": "1", "trip_date": "2024-01-01"},
			map[string]any{"vehicle_id": "00000000-0000-7000-8000-000000000000", "distance": "1", "trip_date": "2024-01-01"},
		}}), 400, domain.EnumInvalidTrip)
		if _, ok := fieldsOf(m)["trips[1].vehicle_id"]; !ok {
			t.Fatalf("error = %v", m)
		}
		var many []any
		for range 101 {
			many = append(many, map[string]any{"vehicle_id": car, "distance": "1", "trip_date": "2024-01-01"})
		}
		e.DoInvalid(req("POST", b+"/bulk", tok, map[string]any{"trips": many}), 400, domain.EnumInvalidTrip)
		if e.counts() != before {
			t.Fatal("a refused bulk wrote")
		}
		out := e.Do(req("POST", b+"/bulk", tok, map[string]any{"trips": many[:100]}), 201)["data"].([]any)
		if len(out) != 100 || e.counts()[1] != before[1]+100 {
			t.Fatalf("bulk wrote %d", len(out))
		}
	})

	t.Run("list filters and pages", func(t *testing.T) {
		e := e.with(t)
		bid := e.Business("client-a")
		b := base(bid) + "/mileage/trips"
		v1 := e.vehicle(bid, tok, map[string]any{"make_and_model": "One"}, 201)["id"].(string)
		v2 := e.vehicle(bid, tok, map[string]any{"make_and_model": "Two"}, 201)["id"].(string)
		for i := range 12 {
			v, p := v1, "BUSINESS"
			if i%3 == 0 {
				v, p = v2, "PERSONAL"
			}
			e.trip(bid, tok, map[string]any{"vehicle_id": v, "distance": "1", "purpose": p,
				"trip_date": fmt.Sprintf("2024-%02d-10", i+1), "description": fmt.Sprintf("trip %d", i)}, 201)
		}
		count := func(q string) int { return len(e.get(b+"?limit=500&"+q, tok)["data"].([]any)) }
		for q, want := range map[string]int{
			"": 12, "purpose=PERSONAL": 4, "purpose=PERSONAL&purpose=BUSINESS": 12, "vehicle_ids=" + v2: 4,
			"vehicle_ids=" + v1 + "," + v2: 12, "start_date=2024-03-01&end_date=2024-05-31": 3, "year=2023": 0,
			"year=2024&purpose=BUSINESS": 8, "q=TRIP%201": 3, // trip 1, 10, 11
		} {
			if got := count(q); got != want {
				t.Errorf("%s: %d trips, want %d", q, got, want)
			}
		}
		// Pages by trip_date, descending.
		var dates []string
		path := b + "?limit=5&sort_order=DESC"
		for path != "" {
			page := e.get(path, tok)
			for _, x := range page["data"].([]any) {
				dates = append(dates, x.(map[string]any)["trip_date"].(string))
			}
			path = ""
			if c, _ := page["meta"].(map[string]any)["pagination"].(map[string]any)["cursor"].(string); c != "" {
				path = b + "?limit=5&sort_order=DESC&cursor=" + c
			}
		}
		if len(dates) != 12 || dates[0] != "2024-12-10" || dates[11] != "2024-01-10" {
			t.Fatalf("pages = %v", dates)
		}
	})
}

func TestTripValidation(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	b := base(bid) + "/mileage/trips"
	car := e.vehicle(bid, tok, map[string]any{"make_and_model": "Car"}, 201)["id"].(string)
	old := e.vehicle(bid, tok, map[string]any{"make_and_model": "Old"}, 201)["id"].(string)
	e.Do(req("POST", base(bid)+"/mileage/vehicles/"+old+"/archive", tok, nil), 200)
	other := e.vehicle(e.Business("client-a"), tok, map[string]any{"make_and_model": "Elsewhere"}, 201)["id"].(string)
	ok := func(kv ...any) map[string]any {
		m := map[string]any{"vehicle_id": car, "distance": "10", "trip_date": "2024-01-01"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	before := e.counts()
	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"negative distance", ok("distance", "-1"), "distance"},
		{"zero distance", ok("distance", "0"), "distance"},
		{"non-numeric distance", ok("distance", "ten"), "distance"},
		{"exponent", ok("distance", "1e3"), "distance"},
		{"too many decimals", ok("distance", "1.234"), "distance"},
		{"too many decimals as a number", ok("distance", 1.005), "distance"},
		{"too far", ok("distance", "100000.01"), "distance"},
		{"no distance", ok("distance", nil), "distance"},
		{"unknown vehicle", ok("vehicle_id", "00000000-0000-7000-8000-000000000000"), "vehicle_id"},
		{"another business's vehicle", ok("vehicle_id", other), "vehicle_id"},
		{"archived vehicle", ok("vehicle_id", old), "vehicle_id"},
		{"bad vehicle id", ok("vehicle_id", "car"), "vehicle_id"},
		{"bad purpose", ok("purpose", "COMMUTE"), "purpose"},
		{"bad date", ok("trip_date", "2024-02-30"), "trip_date"},
		{"date before the rates", ok("trip_date", "2021-12-31"), "trip_date"},
		{"no date", ok("trip_date", nil), "trip_date"},
		{"unknown property", ok("speed", 3), "speed"},
		{"bad tags", ok("tags", "x"), "tags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := e.with(t).DoInvalid(req("POST", b, tok, tc.body), 400, "")
			if _, ok := fieldsOf(m)[tc.field]; !ok || m["type"] != "InvalidPayload" {
				t.Fatalf("error %v does not name %s", m, tc.field)
			}
		})
	}
	for _, q := range []string{"start_date=2024-02-01&end_date=2024-01-01", "purpose=COMMUTE", "vehicle_ids=x", "year=24", "start_date=2024-13-01", "include_deleted=maybe"} {
		for _, path := range []string{b, base(bid) + "/mileage/summary"} {
			e.DoInvalid(req("GET", path+"?"+q, tok, nil), 400, domain.EnumInvalidFilter)
		}
	}
	tid := e.trip(bid, tok, ok(), 201)["id"].(string)
	e.DoInvalid(req("PATCH", b+"/"+tid, tok, map[string]any{"vehicle_id": old}), 400, domain.EnumInvalidTrip)
	e.DoInvalid(req("PATCH", b+"/"+tid, tok, map[string]any{"distance": "1.001"}), 400, domain.EnumInvalidTrip)
	e.DoInvalid(req("GET", b+"/00000000-0000-7000-8000-000000000000", tok, nil), 404, domain.EnumTripNotFound)
	if after := e.counts(); after[1] != before[1]+1 {
		t.Fatalf("a refused request wrote: %v -> %v", before, after)
	}
}
