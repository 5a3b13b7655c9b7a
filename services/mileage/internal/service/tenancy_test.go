package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// TestCrossTenant calls every route of one client's business with the
// tokens of others: each answers 404 and changes nothing. A vehicle or trip
// of one business addressed under another business of the same client is
// 404 too.
func TestCrossTenant(t *testing.T) {
	e := newEnv(t)
	owner := e.Token("client-a")
	bid := e.Business("client-a")
	mine := e.Business("client-a")
	v := e.vehicle(bid, owner, map[string]any{"make_and_model": "Private", "external_id": "v-1"}, 201)["id"].(string)
	tr := e.trip(bid, owner, map[string]any{"vehicle_id": v, "distance": "5", "trip_date": "2024-02-02", "purpose": "BUSINESS"}, 201)["id"].(string)
	b := base(bid) + "/mileage"
	tripBody := map[string]any{"vehicle_id": v, "distance": "1", "trip_date": "2024-01-01"}
	routes := []servicetest.Route{
		{Method: "POST", Path: b + "/vehicles", Body: map[string]any{"make_and_model": "Intruder", "external_id": "v-1"}},
		{Method: "GET", Path: b + "/vehicles"},
		{Method: "GET", Path: b + "/vehicles/" + v},
		{Method: "PATCH", Path: b + "/vehicles/" + v, Body: map[string]any{"make_and_model": "Hijacked"}},
		{Method: "DELETE", Path: b + "/vehicles/" + v},
		{Method: "POST", Path: b + "/vehicles/" + v + "/archive"},
		{Method: "POST", Path: b + "/vehicles/" + v + "/reactivate"},
		{Method: "POST", Path: b + "/trips", Body: tripBody},
		{Method: "POST", Path: b + "/trips/bulk", Body: map[string]any{"trips": []any{tripBody}}},
		{Method: "GET", Path: b + "/trips"},
		{Method: "GET", Path: b + "/trips/" + tr},
		{Method: "PATCH", Path: b + "/trips/" + tr, Body: map[string]any{"purpose": "PERSONAL"}},
		{Method: "DELETE", Path: b + "/trips/" + tr},
		{Method: "GET", Path: b + "/summary"},
	}
	// Every business exists before the counts are taken.
	strangers := e.Strangers("client-a", "client-b", mine, e.Business("client-b"))
	before := e.counts()
	e.RefuseStrangers(strangers, b, routes)
	if e.counts() != before {
		t.Fatal("a refused request wrote")
	}
	if got := data(e.get(b+"/vehicles/"+v, owner)); got["make_and_model"] != "Private" || got["deleted_at"] != nil {
		t.Fatalf("vehicle changed: %v", got)
	}

	// The owner, addressing one business's vehicle and trip through the other.
	o := base(mine) + "/mileage"
	for _, r := range []struct {
		method, path, enum string
		body               any
	}{
		{"GET", o + "/vehicles/" + v, domain.EnumVehicleNotFound, nil},
		{"PATCH", o + "/vehicles/" + v, domain.EnumVehicleNotFound, map[string]any{"description": "x"}},
		{"DELETE", o + "/vehicles/" + v, domain.EnumVehicleNotFound, nil},
		{"POST", o + "/vehicles/" + v + "/archive", domain.EnumVehicleNotFound, nil},
		{"POST", o + "/vehicles/" + v + "/reactivate", domain.EnumVehicleNotFound, nil},
		{"GET", o + "/trips/" + tr, domain.EnumTripNotFound, nil},
		{"PATCH", o + "/trips/" + tr, domain.EnumTripNotFound, map[string]any{"purpose": "PERSONAL"}},
		{"DELETE", o + "/trips/" + tr, domain.EnumTripNotFound, nil},
	} {
		e.DoInvalid(req(r.method, r.path, owner, r.body), 404, r.enum)
	}
	if got := e.get(o+"/trips", owner)["data"].([]any); len(got) != 0 {
		t.Fatalf("the other business lists %d trips", len(got))
	}
	if got := data(e.get(o+"/summary", owner))["years"].([]any); len(got) != 0 {
		t.Fatalf("the other business's summary: %v", got)
	}
	if got := e.get(o+"/vehicles?allow_archived=true&allow_deleted=true", owner)["data"].([]any); len(got) != 0 {
		t.Fatalf("the other business lists %d vehicles", len(got))
	}
}
