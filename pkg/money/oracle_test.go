package money

import (
	"math/big"
)

// The tests check the int64 arithmetic against math/big, an independent
// exact implementation.

func bigInt(v int64) *big.Int { return big.NewInt(v) }

// roundHalfAway is num/den rounded half away from zero.
func roundHalfAway(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	if twice.Cmp(new(big.Int).Abs(den)) >= 0 {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, bigInt(1))
		} else {
			q.Add(q, bigInt(1))
		}
	}
	return q
}

// fitsInt64 reports whether v is within the int64 range.
func fitsInt64(v *big.Int) bool { return v.IsInt64() }
