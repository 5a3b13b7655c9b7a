package domain

import (
	"fmt"
	"strings"
	"time"
)

// Schedule is the waits before each retry, after the first attempt (sent
// at once): len+1 attempts in all.
type Schedule []time.Duration

// RetryDelays is the schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
// (8 attempts over about 27.6 hours).
var RetryDelays = Schedule{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// ParseSchedule reads a comma-separated list of durations ("5s,5m,30m");
// at least one, each positive, at most 20.
func ParseSchedule(s string) (Schedule, error) {
	var out Schedule
	for _, f := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("retry schedule %q: %q is not a positive duration", s, f)
		}
		out = append(out, d)
	}
	if len(out) > 20 {
		return nil, fmt.Errorf("retry schedule %q: more than 20 retries", s)
	}
	return out, nil
}

// String is the schedule as ParseSchedule reads it.
func (s Schedule) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// Next is when attempt number attempts+1 of a delivery goes under
// schedule s, the attempts-th having just ended at now without success;
// ok is false when the delivery has had all its attempts (it fails).
func (s Schedule) Next(attempts int, now time.Time) (time.Time, bool) {
	if attempts < 1 || attempts > len(s) {
		return time.Time{}, false
	}
	return now.Add(s[attempts-1]), true
}

// DisableAfter is how long an endpoint may fail without a success before
// it is disabled.
const DisableAfter = 5 * 24 * time.Hour

// Delivered reports whether an answer's status code counts as delivered
// (any 2xx; a redirect is not followed and is not delivered).
func Delivered(status int) bool { return status >= 200 && status <= 299 }
