package service

import (
	"sync"
	"testing"

	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// A VIN with a valid check digit (the 9th character) and one without.
const (
	goodVIN = "1M8GDM9AXKP042788"
	badVIN  = "1M8GDM9A1KP042788"
)

var vehicleKeys = []string{"type", "id", "business_id", "make_and_model", "year", "is_primary", "is_eligible_for_deletion",
	"created_at", "updated_at", "external_id", "license_plate", "vin", "description", "archived_at", "deleted_at"}

func checkVehicleShape(t *testing.T, v map[string]any) {
	t.Helper()
	for _, k := range vehicleKeys {
		if _, ok := v[k]; !ok {
			t.Errorf("vehicle lacks %q: %v", k, v)
		}
	}
	if len(v) != len(vehicleKeys) || v["type"] != "ApiVehicle" {
		t.Errorf("vehicle = %v", v)
	}
}

func TestVehicles(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	b := base(bid) + "/mileage/vehicles"

	before := e.counts()
	v := e.vehicle(bid, tok, map[string]any{"make_and_model": " Toyota Prius ", "year": 2021, "external_id": "car-1",
		"license_plate": "7ABC123", "vin": "1m8gdm9axkp042788", "description": "Blue", "is_primary": true}, 201)
	checkVehicleShape(t, v)
	if v["make_and_model"] != "Toyota Prius" || v["year"] != float64(2021) || v["vin"] != goodVIN || v["is_primary"] != true ||
		v["is_eligible_for_deletion"] != true || v["business_id"] != bid.String() {
		t.Fatalf("vehicle = %v", v)
	}
	if after := e.counts(); after[0] != before[0]+1 || after[2] != before[2]+1 {
		t.Fatalf("counts %v -> %v", before, after)
	}
	id := v["id"].(string)
	if evts := e.outbox(bid, "vehicle_id", id); len(evts) != 1 || evts[0].Type != "vehicle.upserted" {
		t.Fatalf("events = %v", evts)
	}

	t.Run("idempotent on external_id", func(t *testing.T) {
		e := e.with(t)
		before := e.counts()
		again := e.vehicle(bid, tok, map[string]any{"make_and_model": "Other", "external_id": "car-1"}, 200)
		if again["id"] != id || again["make_and_model"] != "Toyota Prius" || e.counts() != before {
			t.Fatalf("again = %v", again)
		}
	})

	t.Run("a new primary demotes the previous one", func(t *testing.T) {
		e := e.with(t)
		w := e.vehicle(bid, tok, map[string]any{"make_and_model": "Ford Transit", "is_primary": true}, 201)
		if got := data(e.get(b+"/"+id, tok)); got["is_primary"] != false {
			t.Fatalf("previous primary = %v", got)
		}
		if evts := e.outbox(bid, "vehicle_id", id); len(evts) != 2 {
			t.Fatalf("the demotion published %d events", len(evts))
		}
		// PATCH back.
		p := data(e.Do(req("PATCH", b+"/"+id, tok, map[string]any{"is_primary": true}), 200))
		if p["is_primary"] != true || data(e.get(b+"/"+w["id"].(string), tok))["is_primary"] != false {
			t.Fatalf("patch primary = %v", p)
		}
		var n int
		if err := e.DB.NewRaw("SELECT count(*) FROM vehicles WHERE business_id = ? AND is_primary", bid).Scan(t.Context(), &n); err != nil || n != 1 {
			t.Fatalf("%d primary vehicles (%v)", n, err)
		}
	})

	t.Run("concurrent primaries leave one", func(t *testing.T) {
		e := e.with(t)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rq := req("POST", b, tok, map[string]any{"make_and_model": "Racer", "is_primary": true})
				resp, err := e.HTTP.Test(rq, -1)
				if err != nil || resp.StatusCode != 201 {
					t.Errorf("status %v %v", resp, err)
				}
			}()
		}
		wg.Wait()
		var n int
		if err := e.DB.NewRaw("SELECT count(*) FROM vehicles WHERE business_id = ? AND is_primary", bid).Scan(t.Context(), &n); err != nil || n != 1 {
			t.Fatalf("%d primary vehicles (%v)", n, err)
		}
	})

	t.Run("patch", func(t *testing.T) {
		e := e.with(t)
		p := data(e.Do(req("PATCH", b+"/"+id, tok, map[string]any{"license_plate": nil, "description": "Red", "year": 2020}), 200))
		checkVehicleShape(t, p)
		if p["license_plate"] != nil || p["description"] != "Red" || p["year"] != float64(2020) {
			t.Fatalf("patched = %v", p)
		}
	})

	t.Run("archive, list, reactivate", func(t *testing.T) {
		e := e.with(t)
		a := e.vehicle(bid, tok, map[string]any{"make_and_model": "Old Van"}, 201)
		aid := a["id"].(string)
		ar := data(e.Do(req("POST", b+"/"+aid+"/archive", tok, nil), 200))
		if ar["archived_at"] == nil || ar["is_eligible_for_deletion"] != false {
			t.Fatalf("archived = %v", ar)
		}
		has := func(query, id string) bool {
			for _, x := range e.get(b+query, tok)["data"].([]any) {
				if x.(map[string]any)["id"] == id {
					return true
				}
			}
			return false
		}
		if has("", aid) || !has("?allow_archived=true", aid) || !has("?include_archived=1", aid) {
			t.Fatal("archived vehicle listing")
		}
		e.DoInvalid(req("PATCH", b+"/"+aid, tok, map[string]any{"is_primary": true}), 409, domain.EnumVehicleArchived)
		e.DoInvalid(req("DELETE", b+"/"+aid, tok, nil), 409, domain.EnumVehicleNotDeletable)
		re := data(e.Do(req("POST", b+"/"+aid+"/reactivate", tok, nil), 200))
		if re["archived_at"] != nil || re["is_eligible_for_deletion"] != true {
			t.Fatalf("reactivated = %v", re)
		}
		del := data(e.Do(req("DELETE", b+"/"+aid, tok, nil), 200))
		if del["deleted_at"] == nil || del["is_eligible_for_deletion"] != false {
			t.Fatalf("deleted = %v", del)
		}
		if has("", aid) || !has("?allow_deleted=true", aid) || !has("?include_deleted=true", aid) {
			t.Fatal("deleted vehicle listing")
		}
		e.DoInvalid(req("DELETE", b+"/"+aid, tok, nil), 404, domain.EnumVehicleNotFound)
		e.DoInvalid(req("PATCH", b+"/"+aid, tok, map[string]any{"description": "x"}), 404, domain.EnumVehicleNotFound)
		if got := data(e.get(b+"/"+aid, tok)); got["deleted_at"] == nil {
			t.Fatalf("get deleted = %v", got)
		}
	})

	t.Run("a vehicle with trips is not deletable", func(t *testing.T) {
		e := e.with(t)
		e.trip(bid, tok, map[string]any{"vehicle_id": id, "distance": "1", "trip_date": "2024-01-01"}, 201)
		if got := data(e.get(b+"/"+id, tok)); got["is_eligible_for_deletion"] != false {
			t.Fatalf("vehicle = %v", got)
		}
		e.DoInvalid(req("DELETE", b+"/"+id, tok, nil), 409, domain.EnumVehicleNotDeletable)
	})
}

func TestVehicleValidation(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.Business("client-a")
	b := base(bid) + "/mileage/vehicles"
	v := e.vehicle(bid, tok, map[string]any{"make_and_model": "Car", "external_id": "x-1"}, 201)
	e.vehicle(bid, tok, map[string]any{"make_and_model": "Car 2", "external_id": "x-2"}, 201)
	before := e.counts()
	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"no make_and_model", map[string]any{"year": 2020}, "make_and_model"},
		{"blank make_and_model", map[string]any{"make_and_model": "  "}, "make_and_model"},
		{"bad VIN check digit", map[string]any{"make_and_model": "A", "vin": badVIN}, "vin"},
		{"short VIN", map[string]any{"make_and_model": "A", "vin": "1M8GDM9AXKP04278"}, "vin"},
		{"VIN with O", map[string]any{"make_and_model": "A", "vin": "1M8GDM9AXKP0O2788"}, "vin"},
		{"year out of range", map[string]any{"make_and_model": "A", "year": 1700}, "year"},
		{"year not an integer", map[string]any{"make_and_model": "A", "year": "2020"}, "year"},
		{"is_primary not a boolean", map[string]any{"make_and_model": "A", "is_primary": "yes"}, "is_primary"},
		{"unknown property", map[string]any{"make_and_model": "A", "color": "red"}, "color"},
		{"not an object", []any{1}, "body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := e.with(t).DoInvalid(req("POST", b, tok, tc.body), 400, "")
			if _, ok := fieldsOf(m)[tc.field]; !ok {
				t.Fatalf("error %v does not name %s", m, tc.field)
			}
		})
	}
	e.DoInvalid(req("PATCH", b+"/"+v["id"].(string), tok, map[string]any{"external_id": "x-2"}), 409, domain.EnumDuplicateExternalID)
	e.DoInvalid(req("PATCH", b+"/"+v["id"].(string), tok, map[string]any{"make_and_model": nil}), 400, domain.EnumInvalidVehicle)
	e.DoInvalid(req("GET", b+"?allow_archived=maybe", tok, nil), 400, domain.EnumInvalidFilter)
	e.DoInvalid(req("GET", b+"/not-a-uuid", tok, nil), 400, "")
	e.DoInvalid(req("GET", b+"/00000000-0000-7000-8000-000000000000", tok, nil), 404, domain.EnumVehicleNotFound)
	if e.counts() != before {
		t.Fatal("a refused request wrote")
	}
}
