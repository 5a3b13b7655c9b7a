package money

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// AmountDecimals is the number of decimal places of a dollar amount.
const AmountDecimals = 2

// pow10 holds 10^0 … 10^18, every power of ten that fits an int64.
var pow10 = func() [19]uint64 {
	var p [19]uint64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// The accepted text forms, stated once for error messages.
const (
	decimalGrammar = "digits with an optional leading '-' and an optional '.' followed by at most %d digits (no '+', spaces, exponents or separators)"
	wholeGrammar   = "digits with an optional leading '-' (no '+', '.', spaces, exponents or separators)"
)

// parseDecimal reads s as a fixed-point number with at most places decimal
// places and returns it scaled by 10^places. The grammar is deliberately
// narrow: -?[0-9]+(\.[0-9]{1,places})?. what names the value in errors.
func parseDecimal(s string, places int, what string) (int64, error) {
	fail := func(err error, reason string) (int64, error) {
		return 0, &ParseError{What: what, Input: s, Reason: reason, Err: err}
	}
	syntax := func() (int64, error) {
		if places == 0 {
			return fail(ErrSyntax, "must be "+wholeGrammar)
		}
		return fail(ErrSyntax, "must be "+fmt.Sprintf(decimalGrammar, places))
	}
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg, i = true, i+1
	}
	limit := uint64(math.MaxInt64) // magnitude bound
	if neg {
		limit++
	}
	var mag uint64
	overflow := false
	push := func(d uint64) {
		if overflow || mag > (limit-d)/10 {
			overflow = true
			return
		}
		mag = mag*10 + d
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		push(uint64(s[i] - '0'))
		i++
	}
	if i == intStart { // empty, "-", ".5", "+1", " 1"...
		return syntax()
	}
	frac := 0
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if i-fracStart < places {
				push(uint64(s[i] - '0'))
			}
			i++
		}
		frac = i - fracStart
		if frac == 0 { // "12."
			return syntax()
		}
	}
	if i != len(s) { // trailing garbage: "1e3", "1,000", "1.2.3", "1 "
		return syntax()
	}
	if frac > places {
		if places == 0 {
			return fail(ErrTooPrecise, "must be a whole number")
		}
		return fail(ErrTooPrecise, fmt.Sprintf("must have at most %d decimal places", places))
	}
	for ; frac < places; frac++ {
		push(0)
	}
	if overflow {
		return fail(ErrOverflow, "out of range")
	}
	v, _ := signed(mag, neg) // mag ≤ limit, so it fits
	return v, nil
}

// formatDecimal writes v scaled by 10^places with exactly places decimals
// (minPlaces == places) or with trailing fractional zeros trimmed down to
// minPlaces.
func formatDecimal(v int64, places, minPlaces int) string {
	u := abs64(v)
	scale := pow10[places]
	whole, frac := u/scale, u%scale
	buf := make([]byte, 0, 24)
	if v < 0 {
		buf = append(buf, '-')
	}
	buf = strconv.AppendUint(buf, whole, 10)
	if places == 0 {
		return string(buf)
	}
	digits := make([]byte, places)
	for i := places - 1; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := places
	for n > minPlaces && digits[n-1] == '0' {
		n--
	}
	if n > 0 {
		buf = append(buf, '.')
		buf = append(buf, digits[:n]...)
	}
	return string(buf)
}

// Parse reads a dollar amount such as "1234.50", "-0.01", "12" or "12.5"
// into cents. It never rounds: more than two decimal places is
// ErrTooPrecise. Empty text, spaces, a '+' sign, exponents, thousand
// separators, several dots, a dot without digits on both sides are
// ErrSyntax; values outside the int64 cents range are ErrOverflow.
func Parse(s string) (Cents, error) {
	v, err := parseDecimal(s, AmountDecimals, "amount")
	return Cents(v), err
}

// Format prints c as a dollar amount with exactly two decimals: "1234.50",
// "-0.01", "0.00". Parse(Format(c)) == c for every c, and Format is the
// canonical form: for text that Parse accepts, Format(Parse(s)) == s unless
// s has leading zeros, a "-0" or fewer than two decimals.
func Format(c Cents) string {
	return formatDecimal(int64(c), AmountDecimals, AmountDecimals)
}

// ParseCents reads a string of whole cents ("123450", "-1"), the form of
// amounts that travel as JSON strings (a BigInt on the client side).
func ParseCents(s string) (Cents, error) {
	v, err := parseDecimal(s, 0, "cents")
	return Cents(v), err
}

// ParseJSONCents reads integer cents from a JSON value that is either a
// number (123450) or a string of cents ("123450"); the spec sends most
// amounts as numbers and a journal-entry line's amount as a string. A
// fraction ("1.5", even "100.0"), an exponent, null or any other JSON type
// is rejected: cents are whole.
func ParseJSONCents(raw json.RawMessage) (Cents, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, &ParseError{What: "cents", Input: string(raw), Reason: "must be a JSON number or string of whole cents", Err: ErrSyntax}
		}
		return ParseCents(s)
	}
	v, err := parseDecimal(string(raw), 0, "cents")
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Err == ErrSyntax {
			pe.Reason = "must be a JSON number or string of whole cents"
		}
		return 0, err
	}
	return Cents(v), nil
}
