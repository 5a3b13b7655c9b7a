package money

import "fmt"

// Prorate is amount × part / whole rounded half away from zero to a whole
// cent, computed exactly in 128 bits: the share of amount that part of
// whole stands for (the revenue a partial payment of an invoice
// recognizes). whole must be positive (ErrInvalidWeights otherwise); part
// may be any value, so a share beyond the whole is not clipped. The only
// other error is ErrOverflow.
func Prorate(amount Cents, part, whole int64) (Cents, error) {
	if whole <= 0 {
		return 0, fmt.Errorf("%w: prorate over %d", ErrInvalidWeights, whole)
	}
	v, ok := mulDivRound(int64(amount), part, uint64(whole))
	if !ok {
		return 0, fmt.Errorf("%w: %d × %d / %d", ErrOverflow, amount, part, whole)
	}
	return Cents(v), nil
}
