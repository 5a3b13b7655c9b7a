package money

import (
	"errors"
	"math/big"
	"testing"
)

// FuzzParsePercent: a rate that parses is within [0, MaxPercent], agrees
// with math/big's reading of the decimal, and ParsePercent(r.Percent())
// gives it back; rejected text is a *ParseError.
func FuzzParsePercent(f *testing.F) {
	for _, s := range []string{"13", "9.975", "0", "0.000001", "1000", "1000.000001", "-1", "5.0000001", "",
		"1e2", " 5", "07.50", "999.999999", "+5", "١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParsePercent(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParsePercent(%q) error %v is not a *ParseError", s, err)
			}
			return
		}
		want, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("ParsePercent accepted %q, which is not a decimal", s)
		}
		got := new(big.Rat).SetFrac64(r.Scaled(), 1_000_000)
		if got.Cmp(want) != 0 {
			t.Fatalf("ParsePercent(%q) = %s, want %s", s, got.FloatString(6), want.FloatString(6))
		}
		if want.Sign() < 0 || want.Cmp(big.NewRat(MaxPercent, 1)) > 0 {
			t.Fatalf("ParsePercent accepted %q, out of [0, %d]", s, MaxPercent)
		}
		again, err := ParsePercent(r.Percent())
		if err != nil || again != r {
			t.Fatalf("ParsePercent(%q) = %v, %v; want %v", r.Percent(), again, err, r)
		}
	})
}
