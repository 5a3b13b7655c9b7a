// Package money is the one place where the suite does arithmetic on money.
//
// Amounts are int64 cents (Cents). Every operation that could leave the
// int64 range reports ErrOverflow instead of wrapping silently, and no path
// (parsing, formatting, rounding, allocation) ever touches a float: a value
// that cannot be represented exactly is rejected or rounded by an explicit,
// documented rule. The rounding rule is always half away from zero
// (0.5 → 1, −0.5 → −1, 2.5 → 3), the rule tax authorities and most
// accounting products use for line totals and taxes.
//
// The package also holds the decimal types money is multiplied by: Quantity
// (invoice line quantities, six decimal places) and Rate (tax and discount
// percentages, six decimal places of a percent), the tax-inclusive split,
// and the largest-remainder allocation that divides an amount into parts
// that always add up to it exactly.
package money

import (
	"fmt"
	"math"
	"math/bits"
)

// Cents is an amount of money in cents (hundredths of the currency unit).
// Its JSON form is a plain integer; use ParseJSONCents where the wire also
// allows a string of cents.
type Cents int64

// The range of Cents.
const (
	MaxCents Cents = math.MaxInt64
	MinCents Cents = math.MinInt64
)

// Add returns c + d, or ErrOverflow.
func (c Cents) Add(d Cents) (Cents, error) {
	s := c + d
	// Overflow happened iff both operands have the same sign and the
	// result's sign differs from it.
	if (c >= 0) == (d >= 0) && (s >= 0) != (c >= 0) {
		return 0, fmt.Errorf("%w: %d + %d", ErrOverflow, c, d)
	}
	return s, nil
}

// Sub returns c − d, or ErrOverflow.
func (c Cents) Sub(d Cents) (Cents, error) {
	s := c - d
	if (c >= 0) != (d >= 0) && (s >= 0) != (c >= 0) {
		return 0, fmt.Errorf("%w: %d - %d", ErrOverflow, c, d)
	}
	return s, nil
}

// Neg returns −c, or ErrOverflow for MinCents (whose negation is not an
// int64).
func (c Cents) Neg() (Cents, error) {
	if c == MinCents {
		return 0, fmt.Errorf("%w: -(%d)", ErrOverflow, c)
	}
	return -c, nil
}

// Abs returns |c|, or ErrOverflow for MinCents.
func (c Cents) Abs() (Cents, error) {
	if c < 0 {
		return c.Neg()
	}
	return c, nil
}

// Mul returns c × n, or ErrOverflow.
func (c Cents) Mul(n int64) (Cents, error) {
	p, ok := mulDivRound(int64(c), n, 1)
	if !ok {
		return 0, fmt.Errorf("%w: %d × %d", ErrOverflow, c, n)
	}
	return Cents(p), nil
}

// Sign returns −1, 0 or +1.
func (c Cents) Sign() int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// String is Format(c): "1234.50".
func (c Cents) String() string { return Format(c) }

// Sum adds the amounts. It fails only when the exact total is outside the
// int64 range: the running total is kept in 128 bits, so the order of the
// terms never matters (Sum(MaxCents, 1, -1) is MaxCents).
func Sum(amounts ...Cents) (Cents, error) {
	var hi, lo uint64 // two's-complement 128-bit accumulator
	for _, a := range amounts {
		var carry uint64
		lo, carry = bits.Add64(lo, uint64(a), 0)
		ext := uint64(0)
		if a < 0 {
			ext = math.MaxUint64 // sign extension of a negative term
		}
		hi, _ = bits.Add64(hi, ext, carry)
	}
	// The total fits int64 iff the high word is the sign extension of the
	// low word's top bit.
	switch {
	case hi == 0 && lo <= math.MaxInt64:
	case hi == math.MaxUint64 && lo > math.MaxInt64:
	default:
		return 0, fmt.Errorf("%w: sum of %d amounts", ErrOverflow, len(amounts))
	}
	return Cents(int64(lo)), nil
}

// abs64 is |a| as a uint64; it is exact for math.MinInt64 too.
func abs64(a int64) uint64 {
	if a < 0 {
		return -uint64(a)
	}
	return uint64(a)
}

// signed turns a magnitude and a sign back into an int64, reporting whether
// it fits.
func signed(u uint64, neg bool) (int64, bool) {
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return int64(-u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// mulDivRound returns a × b / d rounded half away from zero, computed
// exactly with a 128-bit intermediate product. d must be positive. ok is
// false when the result does not fit an int64.
func mulDivRound(a, b int64, d uint64) (int64, bool) {
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(abs64(a), abs64(b))
	if hi >= d { // the quotient needs more than 64 bits
		return 0, false
	}
	q, r := bits.Div64(hi, lo, d)
	if r >= d-r { // r/d ≥ ½: round the magnitude up, i.e. away from zero
		q++
		if q == 0 {
			return 0, false
		}
	}
	if q == 0 {
		return 0, true
	}
	return signed(q, neg)
}
