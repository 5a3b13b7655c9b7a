package money

import (
	"errors"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
)

func TestFieldError(t *testing.T) {
	_, tooPrecise := Parse("1.234")
	_, malformed := Parse("1,000")
	_, overflow := Cents(MaxCents).Add(1)
	_, badRate := ParsePercent("2000")
	_, badBP := RateFromBasisPoints(-1)
	_, badWeights := Allocate(100, []int64{1, -1})
	wrapped := errors.Join(errors.New("line 3"), overflow)

	tests := []struct {
		name       string
		typ        apperr.Type
		err        error
		wantEnum   string
		wantReason string
	}{
		{"too precise", apperr.InvalidPayload, tooPrecise, EnumTooManyDecimals, "must have at most 2 decimal places"},
		{"malformed", apperr.InvalidParameters, malformed, EnumMalformedNumber,
			"must be digits with an optional leading '-' and an optional '.' followed by at most 2 digits (no '+', spaces, exponents or separators)"},
		{"overflow", apperr.InvalidPayload, overflow, EnumOutOfRange, "amount out of range"},
		{"wrapped overflow", apperr.InvalidPayload, wrapped, EnumOutOfRange, "amount out of range"},
		{"rate out of range", apperr.InvalidPayload, badRate, EnumInvalidRate, "must be between 0 and 1000"},
		{"rate from basis points", apperr.InvalidPayload, badBP, EnumInvalidRate, "rate must be between 0% and 1000%"},
		{"weights", apperr.InvalidPayload, badWeights, EnumInvalidAllocation, "weight -1 (index 1) is negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := FieldError(tc.typ, "line_items[2].amount", tc.err)
			var ae *apperr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("FieldError returned %T %v, want *apperr.Error", err, err)
			}
			body := ae.Body()
			fields, _ := body.Meta["fields"].(map[string]string)
			if ae.Status() != 400 || body.Type != string(tc.typ) || body.ErrorEnum != tc.wantEnum || fields["line_items[2].amount"] != tc.wantReason {
				t.Fatalf("got status %d body %+v; want 400 %s %s with reason %q", ae.Status(), body, tc.typ, tc.wantEnum, tc.wantReason)
			}
			if !errors.Is(err, tc.err) {
				t.Fatal("the cause is lost")
			}
		})
	}
}

func TestFieldErrorPassesOtherErrorsThrough(t *testing.T) {
	if FieldError(apperr.InvalidPayload, "amount", nil) != nil {
		t.Fatal("nil must stay nil")
	}
	other := errors.New("database is down")
	if got := FieldError(apperr.InvalidPayload, "amount", other); got != other {
		t.Fatalf("got %v, want the error unchanged (not a 400)", got)
	}
}
