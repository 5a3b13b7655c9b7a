package money

import (
	"errors"
	"fmt"
)

// RateDecimals is the number of decimal places of a percentage a Rate
// holds: 9.975% (Québec QST) needs three, the extra ones cover compound
// and blended rates.
const RateDecimals = 6

// rateScale is the Rate.Scaled value of a rate of 1 (100%): one unit is a
// millionth of a percent.
const rateScale = 100_000_000

// MaxPercent is the largest rate the package accepts, in percent. Rates
// model taxes, discounts and markups; anything larger is taken as a unit
// mistake.
const MaxPercent = 1000

const maxRateScaled = MaxPercent * (rateScale / 100)

// Rate is an exact, non-negative percentage such as 13% or 9.975%, in
// millionths of a percent. The zero value is 0%. Build one with
// ParsePercent or RateFromBasisPoints.
type Rate struct {
	scaled int64
}

// ParsePercent reads a percentage without the '%' sign: "13" is 13%,
// "9.975" is 9.975%. At most RateDecimals decimal places (ErrTooPrecise);
// negative rates and rates above MaxPercent are ErrInvalidRate.
func ParsePercent(s string) (Rate, error) {
	v, err := parseDecimal(s, RateDecimals, "percent")
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Err == ErrOverflow {
			pe.Err, pe.Reason = ErrInvalidRate, fmt.Sprintf("must be between 0 and %d", MaxPercent)
		}
		return Rate{}, err
	}
	r, err := RateFromScaled(v)
	if err != nil {
		return Rate{}, &ParseError{What: "percent", Input: s, Reason: fmt.Sprintf("must be between 0 and %d", MaxPercent), Err: ErrInvalidRate}
	}
	return r, nil
}

// RateFromBasisPoints returns bp hundredths of a percent (1300 → 13%).
func RateFromBasisPoints(bp int64) (Rate, error) {
	const perBP = rateScale / 10_000
	if bp < 0 || bp > maxRateScaled/perBP {
		return Rate{}, fmt.Errorf("%w: %d basis points", ErrInvalidRate, bp)
	}
	return Rate{bp * perBP}, nil
}

// RateFromScaled is the inverse of Scaled, for reading a stored rate; it
// applies the same bounds as ParsePercent.
func RateFromScaled(v int64) (Rate, error) {
	if v < 0 || v > maxRateScaled {
		return Rate{}, fmt.Errorf("%w: %s%%", ErrInvalidRate, formatDecimal(v, RateDecimals, 0))
	}
	return Rate{v}, nil
}

// Scaled is the rate in millionths of a percent (13% → 13,000,000): what
// to store.
func (r Rate) Scaled() int64 { return r.scaled }

// Percent is the canonical percentage without the sign: "13", "9.975".
func (r Rate) Percent() string { return formatDecimal(r.scaled, RateDecimals, 0) }

// String is the percentage with its sign: "9.975%".
func (r Rate) String() string { return r.Percent() + "%" }

// MulRate is amount × rate rounded half away from zero to a whole cent:
// 13% of 1234.56 is 160.4928 → 160.49; 5% of 0.10 is 0.005 → 0.01 and of
// −0.10 → −0.01. The product is exact (128-bit); the only error is
// ErrOverflow.
func MulRate(amount Cents, r Rate) (Cents, error) {
	v, ok := mulDivRound(int64(amount), r.scaled, rateScale)
	if !ok {
		return 0, fmt.Errorf("%w: %d × %s", ErrOverflow, amount, r)
	}
	return Cents(v), nil
}

// SplitInclusive splits a tax-inclusive total into its net amount and its
// tax at rate r:
//
//	tax = round_half_away_from_zero(total × r / (1 + r))
//	net = total − tax
//
// so net + tax == total exactly, always. A $113.00 Ontario expense with 13%
// HST is $100.00 net and $13.00 tax. Rounding the tax (not the net) is the
// rule of receipts: the tax printed on them is the rounded one. It cannot
// overflow: |tax| ≤ |total| and net has the sign of total.
func SplitInclusive(total Cents, r Rate) (net, tax Cents) {
	// r ≤ MaxPercent keeps the denominator far below 2^63; the quotient's
	// magnitude is below |total|, so mulDivRound always succeeds.
	t, _ := mulDivRound(int64(total), r.scaled, uint64(rateScale+r.scaled))
	return total - Cents(t), Cents(t)
}
