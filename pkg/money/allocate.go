package money

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Allocate divides total into len(weights) parts proportional to the
// weights, by the largest-remainder method: each part first gets its exact
// share rounded toward zero, then the cents left over go one each to the
// parts with the largest remainders, the earlier index winning a tie. So:
//
//   - the parts always add up to total exactly;
//   - every part differs from its exact share total × wᵢ / Σw by less than
//     one cent, and a zero weight gets exactly zero;
//   - a negative total is allocated like its absolute value, negated
//     (Allocate(−t, w) == −Allocate(t, w)), so a refund splits exactly like
//     the charge it reverses.
//
// Weights may be any integer measure (cents of the lines being split,
// units, shares). No weights, a negative weight, all-zero weights or a sum
// of weights beyond int64 are ErrInvalidWeights.
func Allocate[W ~int64](total Cents, weights []W) ([]Cents, error) {
	if len(weights) == 0 {
		return nil, fmt.Errorf("%w: no weights", ErrInvalidWeights)
	}
	var sum uint64
	for i, w := range weights {
		if w < 0 {
			return nil, fmt.Errorf("%w: weight %d (index %d) is negative", ErrInvalidWeights, w, i)
		}
		sum += uint64(w)
		if sum > math.MaxInt64 {
			return nil, fmt.Errorf("%w: the sum of the weights exceeds the int64 range", ErrInvalidWeights)
		}
	}
	if sum == 0 {
		return nil, fmt.Errorf("%w: all weights are zero", ErrInvalidWeights)
	}

	mag := abs64(int64(total)) // ≤ 2^63
	shares := make([]uint64, len(weights))
	rems := make([]uint64, len(weights))
	var given uint64
	for i, w := range weights {
		// wᵢ ≤ Σw, so mag × wᵢ / Σw ≤ mag < 2^64: Div64 cannot overflow.
		hi, lo := bits.Mul64(mag, uint64(w))
		shares[i], rems[i] = bits.Div64(hi, lo, sum)
		given += shares[i]
	}
	// Σ rems = left × Σw with every rem < Σw, so fewer than len(weights)
	// cents are left, and at least left+1 parts have a positive remainder:
	// a zero-weight part (remainder 0) never gets one.
	if left := mag - given; left > 0 {
		order := make([]int, len(weights))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rems[b], rems[a]) })
		for _, i := range order[:left] {
			shares[i]++
		}
	}
	parts := make([]Cents, len(weights))
	for i, s := range shares {
		v, _ := signed(s, total < 0) // s ≤ mag, so it fits with total's sign
		parts[i] = Cents(v)
	}
	return parts, nil
}

// Split divides total into n parts as even as possible (Allocate with equal
// weights): Split(100, 3) is [34, 33, 33], Split(−100, 3) is [−34, −33,
// −33]. n < 1 is ErrInvalidWeights.
func Split(total Cents, n int) ([]Cents, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: cannot split into %d parts", ErrInvalidWeights, n)
	}
	weights := make([]int64, n)
	for i := range weights {
		weights[i] = 1
	}
	return Allocate(total, weights)
}
