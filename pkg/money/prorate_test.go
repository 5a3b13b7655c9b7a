package money

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestProrate(t *testing.T) {
	for _, c := range []struct {
		amount      Cents
		part, whole int64
		want        Cents
	}{
		{10000, 1, 2, 5000},
		{10000, 1, 3, 3333},
		{10000, 2, 3, 6667},
		{-10000, 2, 3, -6667},
		{1, 1, 2, 1},   // 0.5 → 1
		{-1, 1, 2, -1}, // −0.5 → −1
		{1, 1, 3, 0},
		{12345, 0, 100, 0},
		{12345, 100, 100, 12345},
		{12345, 150, 100, 18518}, // 18517.5 → 18518: a share beyond the whole is not clipped
		{MaxCents, 1, 1, MaxCents},
		{MaxCents, math.MaxInt64, math.MaxInt64, MaxCents},
	} {
		got, err := Prorate(c.amount, c.part, c.whole)
		if err != nil || got != c.want {
			t.Errorf("Prorate(%d, %d, %d) = %d, %v; want %d", c.amount, c.part, c.whole, got, err, c.want)
		}
	}
	if _, err := Prorate(1, 1, 0); !errors.Is(err, ErrInvalidWeights) {
		t.Errorf("whole 0: %v, want ErrInvalidWeights", err)
	}
	if _, err := Prorate(1, 1, -5); !errors.Is(err, ErrInvalidWeights) {
		t.Errorf("negative whole: %v, want ErrInvalidWeights", err)
	}
	if _, err := Prorate(MaxCents, 2, 1); !errors.Is(err, ErrOverflow) {
		t.Errorf("overflow: %v, want ErrOverflow", err)
	}
}

// TestProrateMatchesBig checks Prorate against math/big for random values.
func TestProrateMatchesBig(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		amount := r.Int64N(1<<40) - 1<<39
		whole := r.Int64N(1<<40) + 1
		part := r.Int64N(2*whole+1) - whole/2
		got, err := Prorate(Cents(amount), part, whole)
		want := roundHalfAway(new(big.Int).Mul(bigInt(amount), bigInt(part)), bigInt(whole))
		if !fitsInt64(want) {
			if !errors.Is(err, ErrOverflow) {
				t.Fatalf("Prorate(%d, %d, %d): %v, want overflow", amount, part, whole, err)
			}
			continue
		}
		if err != nil || int64(got) != want.Int64() {
			t.Fatalf("Prorate(%d, %d, %d) = %d, %v; want %s", amount, part, whole, got, err, want)
		}
	}
}
