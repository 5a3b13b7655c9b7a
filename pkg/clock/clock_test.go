package clock_test

import (
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/clock"
)

func TestClock(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.FixedZone("x", 3600))
	tests := []struct {
		name string
		c    clock.Clock
		want func(time.Time) bool
	}{
		{"fixed: UTC, microseconds", clock.Fixed(func() time.Time { return at }), func(got time.Time) bool {
			return got.Equal(time.Date(2026, 3, 4, 4, 6, 7, 123456000, time.UTC)) && got.Location() == time.UTC
		}},
		{"system: now, UTC, microseconds", clock.System, func(got time.Time) bool {
			return got.Location() == time.UTC && got.Nanosecond()%1000 == 0 && time.Since(got) < time.Minute && time.Since(got) >= 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Now(); !tt.want(got) {
				t.Fatalf("Now() = %v", got)
			}
		})
	}
	if got := clock.DB(at); got.Nanosecond() != 123456000 || got.Location() != time.UTC {
		t.Fatalf("DB(%v) = %v", at, got)
	}
}
