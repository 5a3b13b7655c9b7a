package domain

import (
	"net/url"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParseFilters feeds arbitrary query strings to the trip and vehicle
// list filters (GET /trips, /mileage/summary, /vehicles): refusals are 400
// error objects; accepted vehicle ids are at most 100, sorted and
// distinct, and purposes sorted and distinct.
func FuzzParseFilters(f *testing.F) {
	for _, s := range []string{"purposes=BUSINESS,PERSONAL&vehicle_ids=0190c4c4-0000-7000-8000-000000000001&start_date=2026-01-01&end_date=2026-03-31&year=2026&q=client",
		"include_deleted=true&allow_archived=1", "purpose=BUSINESS", "start_date=2026-03-01&end_date=2026-01-01", "year=999", "year=2026&start_date=2025-01-01",
		"vehicle_ids=x", "start_date=2026-02-30", "q=" + string(make([]byte, 201)), "include_deleted=maybe", "unknown=1", ""} {
		f.Add(s, true)
	}
	f.Add("q=a", false)
	f.Fuzz(func(t *testing.T, raw string, withQuery bool) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if flt, err := ParseTripFilter(q, withQuery); err != nil {
			apperrtest.Require4xx(t, err)
		} else {
			if len(flt.VehicleIDs) > 100 || !slices.IsSortedFunc(flt.VehicleIDs, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) }) {
				t.Fatalf("vehicle ids %v", flt.VehicleIDs)
			}
			if !slices.IsSorted(flt.Purposes) || len(slices.Compact(slices.Clone(flt.Purposes))) != len(flt.Purposes) {
				t.Fatalf("purposes %v", flt.Purposes)
			}
			if !withQuery && flt.Query != "" {
				t.Fatalf("q accepted where it is not taken")
			}
		}
		if _, err := ParseVehicleFilter(q); err != nil {
			apperrtest.Require4xx(t, err)
		}
	})
}
