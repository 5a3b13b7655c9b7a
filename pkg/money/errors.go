package money

import (
	"errors"
	"fmt"
	"strings"

	"github.com/acctsuite/acct/pkg/apperr"
)

// The error kinds of the package. Every error it returns wraps exactly one
// of them, so callers test with errors.Is.
var (
	// ErrOverflow: the exact result is outside the int64 range of its type.
	ErrOverflow = errors.New("money: value out of range")
	// ErrSyntax: the text is not a number in the accepted grammar.
	ErrSyntax = errors.New("money: malformed number")
	// ErrTooPrecise: the number has more decimal places than its type holds.
	ErrTooPrecise = errors.New("money: too many decimal places")
	// ErrInvalidRate: a rate is negative or above MaxPercent.
	ErrInvalidRate = errors.New("money: invalid rate")
	// ErrInvalidWeights: an allocation has no parts, a negative weight, or
	// only zero weights.
	ErrInvalidWeights = errors.New("money: invalid allocation weights")
)

// ParseError describes text that could not be read as an amount, a quantity
// or a rate. Reason is written for API clients and is what FieldError puts
// in the error object's meta.
type ParseError struct {
	What   string // "amount", "cents", "quantity" or "percent"
	Input  string // the rejected text, shortened in Error when long
	Reason string
	Err    error // ErrSyntax, ErrTooPrecise or ErrOverflow
}

func (e *ParseError) Error() string {
	in := e.Input
	if len(in) > 40 {
		in = in[:40] + "…"
	}
	return fmt.Sprintf("money: parse %s %q: %s", e.What, in, e.Reason)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Stable error_enum values of the errors FieldError builds.
const (
	EnumOutOfRange        = "AmountOutOfRange"
	EnumMalformedNumber   = "MalformedNumber"
	EnumTooManyDecimals   = "TooManyDecimals"
	EnumInvalidRate       = "InvalidRate"
	EnumInvalidAllocation = "InvalidAllocation"
)

// FieldError turns an error of this package about one request field into
// the 400 error object naming that field (t is apperr.InvalidPayload for
// body fields, apperr.InvalidParameters for query parameters), so handlers
// need no mapping of their own. Errors that are not this package's (and nil)
// are returned unchanged: they are not the client's fault.
func FieldError(t apperr.Type, field string, err error) error {
	var enum, reason string
	var pe *ParseError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		reason = pe.Reason
	case errors.Is(err, ErrOverflow):
		reason = "amount out of range"
	case errors.Is(err, ErrInvalidRate):
		reason = fmt.Sprintf("rate must be between 0%% and %d%%", MaxPercent)
	case errors.Is(err, ErrInvalidWeights):
		reason = strings.TrimPrefix(err.Error(), ErrInvalidWeights.Error()+": ")
	default:
		return err
	}
	switch {
	case errors.Is(err, ErrOverflow):
		enum = EnumOutOfRange
	case errors.Is(err, ErrSyntax):
		enum = EnumMalformedNumber
	case errors.Is(err, ErrTooPrecise):
		enum = EnumTooManyDecimals
	case errors.Is(err, ErrInvalidRate):
		enum = EnumInvalidRate
	case errors.Is(err, ErrInvalidWeights):
		enum = EnumInvalidAllocation
	}
	ae := apperr.FieldErrors(t, map[string]string{field: reason}).WithEnum(enum)
	ae.Err = err
	return ae
}
