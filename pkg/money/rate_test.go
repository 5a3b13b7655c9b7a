package money

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"
)

func mustPercent(t testing.TB, s string) Rate {
	t.Helper()
	r, err := ParsePercent(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParsePercent(t *testing.T) {
	tests := []struct {
		in         string
		wantScaled int64
		wantString string
		wantErr    error
	}{
		{"13", 13_000_000, "13%", nil},
		{"9.975", 9_975_000, "9.975%", nil},
		{"14.975", 14_975_000, "14.975%", nil},
		{"0", 0, "0%", nil},
		{"0.000001", 1, "0.000001%", nil},
		{"100", 100_000_000, "100%", nil},
		{"1000", 1_000_000_000, "1000%", nil},
		{"5.000", 5_000_000, "5%", nil},

		{"1000.000001", 0, "", ErrInvalidRate},
		{"-1", 0, "", ErrInvalidRate},
		{"-0.000001", 0, "", ErrInvalidRate},
		{"99999999999999999999", 0, "", ErrInvalidRate},
		{"0.0000001", 0, "", ErrTooPrecise},
		{"13%", 0, "", ErrSyntax},
		{"0.13e2", 0, "", ErrSyntax},
		{"", 0, "", ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			r, err := ParsePercent(tc.in)
			if tc.wantErr != nil {
				var pe *ParseError
				if !errors.Is(err, tc.wantErr) || !errors.As(err, &pe) || pe.What != "percent" {
					t.Fatalf("ParsePercent(%q) = %v, %v; want a *ParseError wrapping %v", tc.in, r, err, tc.wantErr)
				}
				return
			}
			if err != nil || r.Scaled() != tc.wantScaled || r.String() != tc.wantString {
				t.Fatalf("ParsePercent(%q) = %d (%s), %v; want %d (%s)", tc.in, r.Scaled(), r, err, tc.wantScaled, tc.wantString)
			}
			back, err := RateFromScaled(r.Scaled())
			if err != nil || back != r {
				t.Fatalf("RateFromScaled(Scaled()) = %v, %v", back, err)
			}
		})
	}
}

func TestRateConstructors(t *testing.T) {
	r, err := RateFromBasisPoints(1300)
	if err != nil || r != mustPercent(t, "13") || r.Percent() != "13" {
		t.Fatalf("RateFromBasisPoints(1300) = %v, %v; want 13%%", r, err)
	}
	if r, err := RateFromBasisPoints(100_000); err != nil || r.Percent() != "1000" {
		t.Fatalf("RateFromBasisPoints(MaxPercent) = %v, %v", r, err)
	}
	for _, bp := range []int64{-1, 100_001, 1 << 62} {
		if _, err := RateFromBasisPoints(bp); !errors.Is(err, ErrInvalidRate) {
			t.Errorf("RateFromBasisPoints(%d): %v, want ErrInvalidRate", bp, err)
		}
	}
	for _, v := range []int64{-1, 1_000_000_001} {
		if _, err := RateFromScaled(v); !errors.Is(err, ErrInvalidRate) {
			t.Errorf("RateFromScaled(%d): %v, want ErrInvalidRate", v, err)
		}
	}
}

func TestMulRate(t *testing.T) {
	tests := []struct {
		name    string
		amount  Cents
		rate    string
		want    Cents
		wantErr bool
	}{
		{"13% HST", 123456, "13", 16049, false},      // 16049.28
		{"half up", 10, "5", 1, false},               // 0.5
		{"half away from zero", -10, "5", -1, false}, // −0.5
		{"1.5 → 2", 30, "5", 2, false},
		{"2.5 → 3, not to even", 50, "5", 3, false},
		{"QST", 5000, "9.975", 499, false},  // 498.75
		{"QST half", 50, "9.975", 5, false}, // 4.9875
		{"zero rate", 123456, "0", 0, false},
		{"hundred percent of min", MinCents, "100", MinCents, false},
		{"max at max rate", MaxCents, "1000", 0, true},
		{"min at max rate", MinCents, "1000", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MulRate(tc.amount, mustPercent(t, tc.rate))
			if tc.wantErr {
				if !errors.Is(err, ErrOverflow) {
					t.Fatalf("got %d, %v; want ErrOverflow", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("MulRate(%d, %s%%) = %d, %v; want %d", tc.amount, tc.rate, got, err, tc.want)
			}
		})
	}
}

func TestSplitInclusive(t *testing.T) {
	tests := []struct {
		name    string
		total   Cents
		rate    string
		wantNet Cents
		wantTax Cents
	}{
		{"Ontario HST", 11300, "13", 10000, 1300},
		{"Ontario HST refund", -11300, "13", -10000, -1300},
		{"Québec GST+QST", 11498, "14.975", 10000, 1498}, // tax 1497.565…
		{"GST", 2100, "5", 2000, 100},
		{"tax rounds up past half", 100, "13", 88, 12}, // 11.504…
		{"tax rounds down", 1, "13", 1, 0},             // 0.115…
		{"exact", 21, "5", 20, 1},
		{"half a cent rounds away from zero", 1, "100", 0, 1},
		{"negative half a cent", -1, "100", 0, -1},
		{"zero rate", 12345, "0", 12345, 0},
		{"zero total", 0, "13", 0, 0},
		{"min at 100%", MinCents, "100", MinCents / 2, MinCents / 2},
		{"max at 1000%", MaxCents, "1000", 838488366986797801, 8384883669867978006},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			net, tax := SplitInclusive(tc.total, mustPercent(t, tc.rate))
			if net != tc.wantNet || tax != tc.wantTax {
				t.Fatalf("SplitInclusive(%d, %s%%) = %d + %d; want %d + %d", tc.total, tc.rate, net, tax, tc.wantNet, tc.wantTax)
			}
			if net+tax != tc.total {
				t.Fatalf("net + tax = %d, want %d", net+tax, tc.total)
			}
		})
	}
}

// TestRatesMatchBig checks MulRate and SplitInclusive against math/big on
// random amounts and rates: the tax is the rounded exact quotient and the
// split always adds up.
func TestRatesMatchBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		amount := int64(rng.Uint64()) >> rng.UintN(64)
		rs := rng.Int64N(maxRateScaled + 1)
		if rng.IntN(2) == 0 {
			rs = rs / 1_000_000 * 1_000_000 // whole percents, common in practice
		}
		r, err := RateFromScaled(rs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MulRate(Cents(amount), r)
		want := roundHalfAway(new(big.Int).Mul(bigInt(amount), bigInt(rs)), bigInt(rateScale))
		if !fitsInt64(want) {
			if !errors.Is(err, ErrOverflow) {
				t.Fatalf("MulRate(%d, %s) = %d, %v; want ErrOverflow", amount, r, got, err)
			}
		} else if err != nil || int64(got) != want.Int64() {
			t.Fatalf("MulRate(%d, %s) = %d, %v; want %s", amount, r, got, err, want)
		}

		net, tax := SplitInclusive(Cents(amount), r)
		wantTax := roundHalfAway(new(big.Int).Mul(bigInt(amount), bigInt(rs)), bigInt(rateScale+rs))
		if int64(tax) != wantTax.Int64() || net+tax != Cents(amount) {
			t.Fatalf("SplitInclusive(%d, %s) = %d + %d; want tax %s", amount, r, net, tax, wantTax)
		}
	}
}
