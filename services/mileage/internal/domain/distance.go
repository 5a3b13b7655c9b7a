package domain

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/acctsuite/acct/pkg/jsonraw"
)

// MilesDecimals is how many decimal places a distance keeps: hundredths of
// a mile (about 16 m), finer than any odometer or trip log a client has.
// More significant places are refused, never rounded; trailing zeros
// beyond them ("12.500") are exact and accepted.
const MilesDecimals = 2

// MaxTripMiles bounds one trip's distance (and keeps every sum exact in
// int64 hundredths).
const MaxTripMiles = 100_000

// Miles is a distance in hundredths of a mile: exact, so that 0.1 + 0.2
// miles is 0.3 miles.
type Miles int64

// String is the distance as a decimal string without trailing zeros:
// "12", "12.5", "0.3", "0".
func (m Miles) String() string {
	neg := m < 0
	u := int64(m)
	if neg {
		u = -u
	}
	s := strconv.FormatInt(u/100, 10)
	if f := u % 100; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%02d", f), "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ParseMiles reads a distance: digits with an optional '.' and decimals
// (at most MilesDecimals significant ones), greater than 0 and at most
// MaxTripMiles. No sign, spaces, exponents or separators. The reason is
// what a client reads in meta.fields.
func ParseMiles(s string) (Miles, string) {
	const grammar = "must be a decimal number of miles such as \"12.5\" (digits, an optional '.' and at most 2 decimals)"
	if strings.HasPrefix(s, "-") {
		return 0, "must be greater than 0"
	}
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || (dot && frac == "") || !digits(whole) || !digits(frac) {
		return 0, grammar
	}
	if len(frac) > MilesDecimals {
		if strings.Trim(frac[MilesDecimals:], "0") != "" {
			return 0, fmt.Sprintf("must have at most %d decimal places (hundredths of a mile)", MilesDecimals)
		}
		frac = frac[:MilesDecimals]
	}
	whole = strings.TrimLeft(whole, "0")
	if len(whole) > 6 { // beyond MaxTripMiles, and never an int64 overflow
		return 0, fmt.Sprintf("must be at most %d miles", MaxTripMiles)
	}
	w, _ := strconv.ParseInt("0"+whole, 10, 64)
	frac += strings.Repeat("0", MilesDecimals-len(frac))
	f, _ := strconv.ParseInt(frac, 10, 64)
	m := Miles(w*100 + f)
	switch {
	case m <= 0:
		return 0, "must be greater than 0"
	case m > MaxTripMiles*100:
		return 0, fmt.Sprintf("must be at most %d miles", MaxTripMiles)
	}
	return m, ""
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseJSONMiles reads a distance property: a decimal string (what the
// client SDK sends) or a JSON number, read from its literal text so that
// nothing goes through a float.
func parseJSONMiles(raw json.RawMessage) (Miles, string) {
	if s, ok := jsonraw.String(raw); ok {
		return ParseMiles(strings.TrimSpace(s))
	}
	lit := strings.TrimSpace(string(raw))
	if lit == "" || lit == "null" || strings.ContainsAny(lit, "\"{[tf") {
		return 0, "must be a decimal string of miles such as \"12.5\""
	}
	if strings.ContainsAny(lit, "eE") {
		return 0, "must be a decimal number without an exponent"
	}
	return ParseMiles(lit)
}
