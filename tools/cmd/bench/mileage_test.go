package main

import (
	"testing"
	"time"
)

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
