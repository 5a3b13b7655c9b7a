package postgres

import (
	"strings"
	"testing"
)

// TestTripDaysBackfillRates: the migration that fills trip_days from the
// trips written before it uses the rates of domain.Rates (RateCase), the
// one source of the rates.
func TestTripDaysBackfillRates(t *testing.T) {
	sql, err := migrationFiles.ReadFile("migrations/20261301000002_trip_days.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if want := RateCase("t.trip_date"); !strings.Contains(string(sql), want) {
		t.Fatalf("the trip_days backfill's rate CASE is not RateCase's:\n%s", want)
	}
}
