package domain

import (
	"encoding/json"
	"testing"
)

func TestParseMiles(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Miles
		ok   bool
	}{
		{"12", 1200, true}, {"12.5", 1250, true}, {"0.01", 1, true}, {"12.500", 1250, true}, {"007.10", 710, true},
		{"100000", 10000000, true}, {"100000.00", 10000000, true},
		{"0", 0, false}, {"0.00", 0, false}, {"-1", 0, false}, {"1.234", 0, false}, {"1.", 0, false}, {".5", 0, false},
		{"1e3", 0, false}, {"1,000", 0, false}, {" 1", 0, false}, {"+1", 0, false}, {"", 0, false}, {"100000.01", 0, false},
		{"99999999999999999999999", 0, false}, {"ten", 0, false},
	} {
		got, reason := ParseMiles(tc.in)
		if (reason == "") != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseMiles(%q) = %d, %q", tc.in, got, reason)
		}
	}
	if s := (Miles(10) + Miles(20)).String(); s != "0.3" {
		t.Fatalf("0.1 + 0.2 = %s", s)
	}
	for m, s := range map[Miles]string{0: "0", 1200: "12", 1250: "12.5", 1: "0.01", 10000000: "100000"} {
		if m.String() != s {
			t.Errorf("%d = %s, want %s", m, m.String(), s)
		}
	}
}

func TestVIN(t *testing.T) {
	for in, ok := range map[string]bool{
		"1M8GDM9AXKP042788": true, "1m8gdm9axkp042788": true, "11111111111111111": true, "1HGCM82633A004352": true,
		"1M8GDM9A1KP042788": false, "1M8GDM9AXKP04278": false, "1M8GDM9AXKP0O2788": false, "": false,
	} {
		if _, reason := NormalizeVIN(in); (reason == "") != ok {
			t.Errorf("NormalizeVIN(%q): %q", in, reason)
		}
	}
}

func TestRates(t *testing.T) {
	for d, want := range map[string]Rate{
		"2022-01-01": 585, "2022-06-30": 585, "2022-07-01": 625, "2023-12-31": 655, "2024-01-01": 670,
		"2025-06-01": 700, "2026-01-01": 725, "2031-05-05": 725,
	} {
		if got, ok := RateOn(MustDate(d)); !ok || got != want {
			t.Errorf("RateOn(%s) = %d, %v", d, got, ok)
		}
	}
	if _, ok := RateOn(MustDate("2021-12-31")); ok {
		t.Error("a rate before the table")
	}
	// Every change takes effect on a first day of a month (one rate per
	// month in the summary), in order.
	for i, p := range Rates {
		d := MustDate(p.Effective)
		if d.Time().Day() != 1 || (i > 0 && !MustDate(Rates[i-1].Effective).Before(d)) {
			t.Errorf("rate period %v", p)
		}
	}
	for _, tc := range []struct {
		m    Miles
		r    Rate
		want int64
	}{{10025, 585, 5865}, {10, 625, 6}, {20, 625, 13}, {1250, 655, 819}, {1, 585, 1}, {1, 400, 0}} {
		if got := Deduction(tc.m, tc.r); got != tc.want {
			t.Errorf("Deduction(%d, %d) = %d, want %d", tc.m, tc.r, got, tc.want)
		}
	}
	if Rate(585).String() != "58.5" || Rate(670).String() != "67" {
		t.Error("rate strings")
	}
}

func FuzzParseMiles(f *testing.F) {
	for _, s := range []string{"12", "12.5", "0.01", "12.500", "-1", "1e3", "1.234", "", "100000.00", "00.10", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, reason := ParseMiles(s)
		if reason != "" {
			return
		}
		if m <= 0 || m > MaxTripMiles*100 {
			t.Fatalf("ParseMiles(%q) = %d", s, m)
		}
		// The answer's form reads back as the same distance.
		back, r2 := ParseMiles(m.String())
		if r2 != "" || back != m {
			t.Fatalf("round trip of %q: %s -> %d %q", s, m.String(), back, r2)
		}
	})
}

func FuzzTripBody(f *testing.F) {
	for _, s := range []string{
		`{"vehicle_id":"01912345-6789-7abc-8def-0123456789ab","distance":"12.5","trip_date":"2024-01-01"}`,
		`{"vehicle_id":"x","distance":12.5,"trip_date":"2024-02-30","purpose":"BUSINESS","tags":[{"key":"a","value":"b"}]}`,
		`{"distance":-1}`, `[]`, `null`, `{"distance":"1e3"}`, `{"trips":[{}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if p, err := ParseTripInput(raw); err == nil {
			if !p.VehicleID.Set || !p.Distance.Set || !p.TripDate.Set || p.Distance.Value <= 0 || !p.Purpose.Value.Valid() {
				t.Fatalf("accepted an incomplete trip: %+v", p)
			}
			if _, ok := RateOn(p.TripDate.Value); !ok {
				t.Fatalf("accepted a date without a rate: %s", p.TripDate.Value)
			}
		}
		_, _ = ParseTripPatch(raw)
		_, _ = ParseBulkTrips(raw)
	})
}

func FuzzVehicleBody(f *testing.F) {
	for _, s := range []string{
		`{"make_and_model":"Car","vin":"1M8GDM9AXKP042788","year":2020,"is_primary":true}`,
		`{"make_and_model":"","year":"2020"}`, `{}`, `[1]`, `{"vin":null,"year":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if in, err := ParseVehicleInput(raw); err == nil {
			if in.MakeAndModel == "" {
				t.Fatal("accepted a vehicle without make_and_model")
			}
			if in.VIN != nil {
				if _, reason := NormalizeVIN(*in.VIN); reason != "" {
					t.Fatalf("accepted VIN %q", *in.VIN)
				}
			}
		}
		_, _ = ParseVehiclePatch(raw)
		var any_ any
		_ = json.Unmarshal(raw, &any_)
	})
}
