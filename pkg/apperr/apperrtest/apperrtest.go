// Package apperrtest holds the assertions fuzz targets and tests make on
// the errors of parsers of untrusted input.
package apperrtest

import (
	"errors"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Require4xx fails t unless err is an *apperr.Error whose status is a 4xx:
// bad input is the client's mistake, never a 5xx, and it carries the
// error object (type, message) the API renders.
func Require4xx(t testing.TB, err error) *apperr.Error {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an *apperr.Error: it would render as a 500", err, err)
	}
	if s := ae.Status(); s < 400 || s > 499 {
		t.Fatalf("error %v has status %d, want 4xx for bad input", err, s)
	}
	if ae.Message == "" {
		t.Fatalf("error of type %s has no message", ae.Type)
	}
	return ae
}
