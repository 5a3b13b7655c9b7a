// Package clock is the suite's one clock: the time a use case stamps on
// what it writes, in the precision PostgreSQL keeps (UTC, microseconds),
// so that a value read back equals the value written. Tests replace it.
package clock

import "time"

// Clock gives the current time; the zero Clock is the system clock.
type Clock struct {
	now func() time.Time
}

// System is the system clock.
var System = Clock{}

// Fixed is a clock whose Now is fn (tests).
func Fixed(fn func() time.Time) Clock { return Clock{now: fn} }

// Now is the current time, UTC, truncated to microseconds.
func (c Clock) Now() time.Time { return DB(c.raw()) }

func (c Clock) raw() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

// DB is t as PostgreSQL stores a timestamptz: UTC, microseconds.
func DB(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
