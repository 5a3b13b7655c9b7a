package main

import (
	"context"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func TestParseHundredths(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "12": 1200, "0.3": 30, "7.25": 725, "100.05": 10005} {
		if got, err := parseHundredths(in); err != nil || got != want {
			t.Errorf("parseHundredths(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1.234", "x", "1.x"} {
		if _, err := parseHundredths(bad); err == nil {
			t.Errorf("parseHundredths(%q) accepted", bad)
		}
	}
}

func TestMileageDeduction(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, c := range []struct {
		day  string
		h    int64
		want int64
	}{{"2022-06-30", 10025, 5865}, {"2022-07-01", 10, 6}, {"2023-03-10", 1250, 819}, {"2026-12-31", 100, 73}} {
		if got := mileageDeduction(day(c.day), c.h); got != c.want {
			t.Errorf("%s %d: %d, want %d", c.day, c.h, got, c.want)
		}
	}
}

// TestRawSummarySQL runs the bench's own GROUP BY over trips drawn as the
// bench draws them and checks every month against the same sums in Go
// (filters on vehicle, purpose and dates; deleted trips left out).
func TestRawSummarySQL(t *testing.T) {
	ctx := context.Background()
	db, err := pgx.Connect(ctx, testkit.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, `CREATE TABLE trips (business_id uuid, vehicle_id uuid, purpose text, trip_date date,
		distance bigint, deleted_at timestamptz)`); err != nil {
		t.Fatal(err)
	}
	bid, other := uuid.New(), uuid.New()
	vehicles := []uuid.UUID{uuid.New(), uuid.New()}
	type trip struct {
		vehicle int
		purpose string
		day     time.Time
		h       int64
		deleted bool
	}
	var trips []trip
	for i := range 3000 {
		v, p, day, h, del := mileageTrip(i)
		trips = append(trips, trip{v, p, day, h, del})
		var deletedAt any
		if del {
			deletedAt = time.Now()
		}
		if _, err := db.Exec(ctx, "INSERT INTO trips VALUES ($1, $2, $3, $4, $5, $6)", bid, vehicles[v], p, day, h, deletedAt); err != nil {
			t.Fatal(err)
		}
	}
	// Another business's trip is never counted.
	if _, err := db.Exec(ctx, "INSERT INTO trips VALUES ($1, $2, 'BUSINESS', '2024-05-05', 999, NULL)", other, vehicles[0]); err != nil {
		t.Fatal(err)
	}
	for _, f := range []mileageFilter{
		{name: "vehicle, BUSINESS, 2024", vehicles: vehicles[:1], purposes: []string{"BUSINESS"}, from: "2024-01-01", to: "2024-12-31"},
		{name: "vehicle, two purposes, dates", vehicles: vehicles[1:], purposes: []string{"BUSINESS", "PERSONAL"}, from: "2023-03-15", to: "2025-09-30"},
		{name: "everything"},
	} {
		t.Run(f.name, func(t *testing.T) {
			want := map[[2]int]summaryMonth{}
			for _, tr := range trips {
				d := tr.day.Format(time.DateOnly)
				if tr.deleted || len(f.vehicles) > 0 && f.vehicles[0] != vehicles[tr.vehicle] ||
					len(f.purposes) > 0 && !slices.Contains(f.purposes, tr.purpose) || f.from != "" && d < f.from || f.to != "" && d > f.to {
					continue
				}
				k := [2]int{tr.day.Year(), int(tr.day.Month())}
				m := want[k]
				m.miles += tr.h
				m.trips++
				switch tr.purpose {
				case "BUSINESS":
					m.business += tr.h
					m.bTrips++
					m.deduction += mileageDeduction(tr.day, tr.h)
				case "PERSONAL":
					m.personal += tr.h
					m.pTrips++
				default:
					m.uncategorized += tr.h
					m.uTrips++
				}
				want[k] = m
			}
			got, err := rawMonths(ctx, db, rawSummarySQL(bid, f))
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 || !maps.Equal(got, want) {
				t.Fatalf("%d months from SQL, %d in Go; differ: %v", len(got), len(want), !maps.Equal(got, want))
			}
		})
	}
}
