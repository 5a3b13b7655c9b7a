package domain

import "time"

// RetryDelays are the waits before each retry, after the first attempt
// (sent at once): 8 attempts in all over about 27.6 hours.
var RetryDelays = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// MaxAttempts is how many attempts a delivery gets before it fails.
var MaxAttempts = len(RetryDelays) + 1

// NextAttempt is when attempt number attempts+1 of a delivery goes, the
// attempts-th having just ended at now without success; ok is false when
// the delivery has had all its attempts (it fails).
func NextAttempt(attempts int, now time.Time) (time.Time, bool) {
	if attempts < 1 || attempts > len(RetryDelays) {
		return time.Time{}, false
	}
	return now.Add(RetryDelays[attempts-1]), true
}

// DisableAfter is how long an endpoint may fail without a success before
// it is disabled.
const DisableAfter = 5 * 24 * time.Hour

// Delivered reports whether an answer's status code counts as delivered
// (any 2xx; a redirect is not followed and is not delivered).
func Delivered(status int) bool { return status >= 200 && status <= 299 }
