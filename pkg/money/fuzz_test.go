package money

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
)

// canonicalAmount rewrites text that Parse accepted into Format's form:
// no leading zeros, exactly two decimals, no "-0.00".
func canonicalAmount(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	frac += strings.Repeat("0", 2-len(frac))
	out := whole + "." + frac
	if neg && out != "0.00" {
		out = "-" + out
	}
	return out
}

// FuzzParseFormat: Format(Parse(s)) is s in canonical form for every s
// that parses (so s == Format(Parse(s)) whenever s is canonical), the value
// agrees with math/big's reading of the decimal, rejected text fails with a
// *ParseError of exactly one kind, and Parse(Format(c)) == c for every c.
func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"1234.50", "-0.01", "0.00", "12", "12.5", "007.10", "-0", "1.234", "1e3",
		"+1", "-", "", " 1", "1,000.00", "1.2.3", ".5", "5.", "92233720368547758.07", "-92233720368547758.08",
		"92233720368547758.08", "١٢"} {
		f.Add(s, int64(0))
	}
	for _, c := range []int64{1, -1, 99, -100, math.MaxInt64, math.MinInt64} {
		f.Add("0.00", c)
	}
	f.Fuzz(func(t *testing.T, s string, c int64) {
		if back, err := Parse(Format(Cents(c))); err != nil || back != Cents(c) {
			t.Fatalf("Parse(Format(%d)) = %d, %v", c, back, err)
		}
		v, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): %T %v is not a *ParseError", s, err, err)
			}
			kinds := 0
			for _, k := range []error{ErrSyntax, ErrTooPrecise, ErrOverflow} {
				if errors.Is(err, k) {
					kinds++
				}
			}
			if kinds != 1 {
				t.Fatalf("Parse(%q): %v wraps %d error kinds", s, err, kinds)
			}
			return
		}
		if got, want := Format(v), canonicalAmount(s); got != want {
			t.Fatalf("Format(Parse(%q)) = %q, want %q", s, got, want)
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("Parse accepted %q, which is not a decimal number", s)
		}
		r.Mul(r, big.NewRat(100, 1))
		if !r.IsInt() || r.Num().Cmp(bigInt(int64(v))) != 0 {
			t.Fatalf("Parse(%q) = %d, exact value %s cents", s, v, r.RatString())
		}
	})
}

// FuzzQuantity: a quantity prints in a form that parses back to itself,
// and every accepted text has the value math/big reads.
func FuzzQuantity(f *testing.F) {
	for _, s := range []string{"1.5", "2", "0.333", "-0.25", "1.500000", "0.3333333", "9223372036854.775807", "1e2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		if back, err := ParseQuantity(q.String()); err != nil || back != q {
			t.Fatalf("ParseQuantity(%q) = %s, which reads back as %v, %v", s, q, back, err)
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok || r.Cmp(big.NewRat(q.Scaled(), quantityScale)) != 0 {
			t.Fatalf("ParseQuantity(%q) = %s, exact value %v", s, q, r)
		}
	})
}

// FuzzAllocate: for any total and weights, Allocate either rejects the
// weights for a documented reason or returns parts that satisfy every
// allocation invariant.
func FuzzAllocate(f *testing.F) {
	enc := func(ws ...int64) []byte {
		b := make([]byte, 0, 8*len(ws))
		for _, w := range ws {
			b = binary.LittleEndian.AppendUint64(b, uint64(w))
		}
		return b
	}
	f.Add(int64(100), enc(1, 1, 1))
	f.Add(int64(-100), enc(1, 2, 3))
	f.Add(int64(5), enc(0, 1, 0, 1))
	f.Add(int64(1), enc(1, 1))
	f.Add(int64(math.MinInt64), enc(1, 1))
	f.Add(int64(math.MaxInt64), enc(math.MaxInt64))
	f.Add(int64(7), enc(0, 0))
	f.Add(int64(7), enc(-1, 2))
	f.Add(int64(7), enc(math.MaxInt64, 1))
	f.Add(int64(7), []byte{})
	f.Fuzz(func(t *testing.T, total int64, raw []byte) {
		if len(raw) > 8*64 {
			raw = raw[:8*64]
		}
		weights := make([]int64, len(raw)/8)
		var sum big.Int
		valid := len(weights) > 0
		for i := range weights {
			weights[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
			if weights[i] < 0 {
				valid = false
			}
			sum.Add(&sum, bigInt(weights[i]))
		}
		if sum.Sign() <= 0 || !sum.IsInt64() {
			valid = false
		}
		parts, err := Allocate(Cents(total), weights)
		if !valid {
			if !errors.Is(err, ErrInvalidWeights) {
				t.Fatalf("Allocate(%d, %v) = %v, %v; want ErrInvalidWeights", total, weights, parts, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Allocate(%d, %v): %v", total, weights, err)
		}
		checkAllocation(t, Cents(total), weights, parts)
	})
}

// FuzzLineTotal: LineTotal and MulRate equal the exact product rounded half
// away from zero, or report ErrOverflow exactly when it does not fit.
func FuzzLineTotal(f *testing.F) {
	f.Add(int64(1_500_000), int64(333))
	f.Add(int64(-500_000), int64(1))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64))
	f.Add(int64(math.MinInt64), int64(-1))
	f.Fuzz(func(t *testing.T, qs, price int64) {
		got, err := LineTotal(QuantityFromScaled(qs), Cents(price))
		want := roundHalfAway(new(big.Int).Mul(bigInt(qs), bigInt(price)), bigInt(quantityScale))
		if !want.IsInt64() {
			if !errors.Is(err, ErrOverflow) {
				t.Fatalf("LineTotal(%d, %d) = %d, %v; want ErrOverflow", qs, price, got, err)
			}
		} else if err != nil || int64(got) != want.Int64() {
			t.Fatalf("LineTotal(%d, %d) = %d, %v; want %s", qs, price, got, err, want)
		}

		r, err := RateFromScaled(qs % (maxRateScaled + 1))
		if qs < 0 {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		net, tax := SplitInclusive(Cents(price), r)
		wantTax := roundHalfAway(new(big.Int).Mul(bigInt(price), bigInt(r.Scaled())), bigInt(rateScale+r.Scaled()))
		if int64(tax) != wantTax.Int64() || net+tax != Cents(price) {
			t.Fatalf("SplitInclusive(%d, %s) = %d + %d; want tax %s", price, r, net, tax, wantTax)
		}
	})
}
