package money

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestArithmetic(t *testing.T) {
	tests := []struct {
		name    string
		op      func() (Cents, error)
		want    Cents
		wantErr bool
	}{
		{"add", func() (Cents, error) { return Cents(150).Add(-200) }, -50, false},
		{"add to max", func() (Cents, error) { return (MaxCents - 1).Add(1) }, MaxCents, false},
		{"add past max", func() (Cents, error) { return MaxCents.Add(1) }, 0, true},
		{"add past min", func() (Cents, error) { return MinCents.Add(-1) }, 0, true},
		{"add opposite extremes", func() (Cents, error) { return MaxCents.Add(MinCents) }, -1, false},
		{"sub", func() (Cents, error) { return Cents(100).Sub(250) }, -150, false},
		{"sub to min", func() (Cents, error) { return (MinCents + 1).Sub(1) }, MinCents, false},
		{"sub past min", func() (Cents, error) { return MinCents.Sub(1) }, 0, true},
		{"sub past max", func() (Cents, error) { return Cents(0).Sub(MinCents) }, 0, true},
		{"sub negative from max", func() (Cents, error) { return MaxCents.Sub(-1) }, 0, true},
		{"neg", func() (Cents, error) { return Cents(-42).Neg() }, 42, false},
		{"neg max", func() (Cents, error) { return MaxCents.Neg() }, -MaxCents, false},
		{"neg min", func() (Cents, error) { return MinCents.Neg() }, 0, true},
		{"abs", func() (Cents, error) { return Cents(-7).Abs() }, 7, false},
		{"abs positive", func() (Cents, error) { return Cents(7).Abs() }, 7, false},
		{"abs min", func() (Cents, error) { return MinCents.Abs() }, 0, true},
		{"mul", func() (Cents, error) { return Cents(-125).Mul(4) }, -500, false},
		{"mul by zero", func() (Cents, error) { return MaxCents.Mul(0) }, 0, false},
		{"mul min by one", func() (Cents, error) { return MinCents.Mul(1) }, MinCents, false},
		{"mul min by minus one", func() (Cents, error) { return MinCents.Mul(-1) }, 0, true},
		{"mul max by minus one", func() (Cents, error) { return MaxCents.Mul(-1) }, -MaxCents, false},
		{"mul to min", func() (Cents, error) { return Cents(math.MinInt64 / 2).Mul(2) }, MinCents, false},
		{"mul past max", func() (Cents, error) { return Cents(math.MaxInt64/2 + 1).Mul(2) }, 0, true},
		{"mul huge", func() (Cents, error) { return Cents(1 << 40).Mul(1 << 40) }, 0, true},
		{"sum", func() (Cents, error) { return Sum(100, 250, -50) }, 300, false},
		{"sum of nothing", func() (Cents, error) { return Sum() }, 0, false},
		{"sum passing through overflow", func() (Cents, error) { return Sum(MaxCents, 1, -1) }, MaxCents, false},
		{"sum passing below min", func() (Cents, error) { return Sum(MinCents, -5, 5) }, MinCents, false},
		{"sum of extremes", func() (Cents, error) { return Sum(MaxCents, MinCents, MaxCents, MinCents) }, -2, false},
		{"sum past max", func() (Cents, error) { return Sum(MaxCents, 1) }, 0, true},
		{"sum past min", func() (Cents, error) { return Sum(MinCents, MinCents, MaxCents, -1) }, 0, true},
		{"sum far past max", func() (Cents, error) { return Sum(MaxCents, MaxCents, MaxCents) }, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.op()
			if tc.wantErr {
				if !errors.Is(err, ErrOverflow) {
					t.Fatalf("got %d, %v; want ErrOverflow", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func TestSign(t *testing.T) {
	for c, want := range map[Cents]int{MinCents: -1, -1: -1, 0: 0, 1: 1, MaxCents: 1} {
		if got := c.Sign(); got != want {
			t.Errorf("Cents(%d).Sign() = %d, want %d", c, got, want)
		}
	}
}

// TestArithmeticMatchesBig compares every operation with math/big on
// random operands, biased toward the edges of the range where overflow
// checks can go wrong.
func TestArithmeticMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() int64 {
		switch rng.IntN(4) {
		case 0:
			return rng.Int64N(2001) - 1000
		case 1:
			return math.MaxInt64 - rng.Int64N(1000)
		case 2:
			return math.MinInt64 + rng.Int64N(1000)
		}
		return int64(rng.Uint64())
	}
	check := func(op string, a, b int64, got Cents, err error, exact *big.Int) {
		t.Helper()
		if !fitsInt64(exact) {
			if !errors.Is(err, ErrOverflow) {
				t.Fatalf("%d %s %d = %d, %v; want ErrOverflow (exact %s)", a, op, b, got, err, exact)
			}
			return
		}
		if err != nil || int64(got) != exact.Int64() {
			t.Fatalf("%d %s %d = %d, %v; want %s", a, op, b, got, err, exact)
		}
	}
	for range 20000 {
		a, b := pick(), pick()
		got, err := Cents(a).Add(Cents(b))
		check("+", a, b, got, err, new(big.Int).Add(bigInt(a), bigInt(b)))
		got, err = Cents(a).Sub(Cents(b))
		check("-", a, b, got, err, new(big.Int).Sub(bigInt(a), bigInt(b)))
		got, err = Cents(a).Mul(b)
		check("×", a, b, got, err, new(big.Int).Mul(bigInt(a), bigInt(b)))
		c := pick()
		got, err = Sum(Cents(a), Cents(b), Cents(c))
		exact := new(big.Int).Add(bigInt(a), bigInt(b))
		check("Σ", a, b, got, err, exact.Add(exact, bigInt(c)))
	}
}
