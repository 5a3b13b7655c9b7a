package money

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in         string
		wantScaled int64
		wantString string
		wantErr    error
	}{
		{"2", 2_000_000, "2", nil},
		{"1.5", 1_500_000, "1.5", nil},
		{"0.333", 333_000, "0.333", nil},
		{"0.333333", 333_333, "0.333333", nil},
		{"1.500000", 1_500_000, "1.5", nil},
		{"-0.25", -250_000, "-0.25", nil},
		{"0", 0, "0", nil},
		{"-0.000000", 0, "0", nil},
		{"0.000001", 1, "0.000001", nil},
		{"9223372036854.775807", math.MaxInt64, "9223372036854.775807", nil},
		{"-9223372036854.775808", math.MinInt64, "-9223372036854.775808", nil},

		{"0.3333333", 0, "", ErrTooPrecise},
		{"1.0000000", 0, "", ErrTooPrecise},
		{"9223372036854.775808", 0, "", ErrOverflow},
		{"1e2", 0, "", ErrSyntax},
		{"", 0, "", ErrSyntax},
		{"1/3", 0, "", ErrSyntax},
		{"+1.5", 0, "", ErrSyntax},
		{"1.5 ", 0, "", ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			q, err := ParseQuantity(tc.in)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("ParseQuantity(%q) = %v, %v; want %v", tc.in, q, err, tc.wantErr)
				}
				return
			}
			if err != nil || q.Scaled() != tc.wantScaled || q.String() != tc.wantString {
				t.Fatalf("ParseQuantity(%q) = %d (%q), %v; want %d (%q)", tc.in, q.Scaled(), q, err, tc.wantScaled, tc.wantString)
			}
			if QuantityFromScaled(q.Scaled()) != q {
				t.Fatal("QuantityFromScaled does not invert Scaled")
			}
		})
	}
}

func TestQuantityOf(t *testing.T) {
	q, err := QuantityOf(-3)
	if err != nil || q.String() != "-3" || q.Sign() != -1 {
		t.Fatalf("QuantityOf(-3) = %v, %v", q, err)
	}
	if _, err := QuantityOf(9_223_372_036_855); !errors.Is(err, ErrOverflow) {
		t.Fatalf("QuantityOf beyond range: %v, want ErrOverflow", err)
	}
}

func TestQuantityJSON(t *testing.T) {
	type line struct {
		Quantity Quantity `json:"quantity"`
	}
	tests := []struct {
		body    string
		want    string
		wantErr error
	}{
		{`{"quantity":"1.5"}`, "1.5", nil},
		{`{"quantity":1.5}`, "1.5", nil},
		{`{"quantity":"2"}`, "2", nil},
		{`{"quantity":3}`, "3", nil},
		{`{"quantity":"0.3333333"}`, "", ErrTooPrecise},
		{`{"quantity":1e2}`, "", ErrSyntax},
		{`{"quantity":"1,5"}`, "", ErrSyntax},
		{`{"quantity":null}`, "", ErrSyntax},
		{`{"quantity":true}`, "", ErrSyntax},
	}
	for _, tc := range tests {
		t.Run(tc.body, func(t *testing.T) {
			var l line
			err := json.Unmarshal([]byte(tc.body), &l)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("decode %s: %v, want %v", tc.body, err, tc.wantErr)
				}
				return
			}
			if err != nil || l.Quantity.String() != tc.want {
				t.Fatalf("decode %s = %v, %v; want %s", tc.body, l.Quantity, err, tc.want)
			}
			out, err := json.Marshal(l)
			if err != nil || string(out) != `{"quantity":"`+tc.want+`"}` {
				t.Fatalf("encode = %s, %v; want the quantity as a JSON string", out, err)
			}
		})
	}
}

func TestLineTotal(t *testing.T) {
	q := func(s string) Quantity {
		t.Helper()
		v, err := ParseQuantity(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name    string
		qty     Quantity
		price   Cents
		want    Cents
		wantErr bool
	}{
		{"whole", q("2"), 1999, 3998, false},
		{"half up", q("1.5"), 333, 500, false}, // 499.5
		{"half away from zero, negative qty", q("-1.5"), 333, -500, false},
		{"half away from zero, negative price", q("1.5"), -333, -500, false},
		{"both negative", q("-1.5"), -333, 500, false},
		{"2.5 rounds to 3, not to even", q("2.5"), 1, 3, false},
		{"0.5 cent", q("0.5"), 1, 1, false},
		{"-0.5 cent", q("0.5"), -1, -1, false},
		{"just below half", q("0.499999"), 1, 0, false},
		{"just above half", q("0.500001"), 1, 1, false},
		{"down", q("0.333"), 100, 33, false},                // 33.3
		{"hours", q("1.75"), 12000, 21000, false},           // 1¾ h at $120
		{"third of a unit", q("0.333333"), 300, 100, false}, // 99.9999
		{"zero quantity", q("0"), MaxCents, 0, false},
		{"one × max", q("1"), MaxCents, MaxCents, false},
		{"one × min", q("1"), MinCents, MinCents, false},
		{"half × min", q("0.5"), MinCents, MinCents / 2, false},
		{"huge quantity", QuantityFromScaled(math.MaxInt64), 1, 9223372036855, false}, // 9223372036854.775807
		{"overflow", q("2"), MaxCents, 0, true},
		{"overflow negative", q("-1"), MinCents, 0, true},
		{"overflow huge", QuantityFromScaled(math.MaxInt64), MaxCents, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LineTotal(tc.qty, tc.price)
			if tc.wantErr {
				if !errors.Is(err, ErrOverflow) {
					t.Fatalf("got %d, %v; want ErrOverflow", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("LineTotal(%s, %d) = %d, %v; want %d", tc.qty, tc.price, got, err, tc.want)
			}
		})
	}
}

// TestLineTotalMatchesBig checks the 128-bit rounding against math/big.
func TestLineTotalMatchesBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		qs := int64(rng.Uint64()) >> rng.UintN(64)
		price := int64(rng.Uint64()) >> rng.UintN(64)
		if rng.IntN(3) == 0 { // exercise exact halves
			qs = qs/500_000*500_000 + 500_000
		}
		got, err := LineTotal(QuantityFromScaled(qs), Cents(price))
		want := roundHalfAway(new(big.Int).Mul(bigInt(qs), bigInt(price)), bigInt(quantityScale))
		if !fitsInt64(want) {
			if !errors.Is(err, ErrOverflow) {
				t.Fatalf("LineTotal(%d, %d) = %d, %v; want ErrOverflow", qs, price, got, err)
			}
			continue
		}
		if err != nil || int64(got) != want.Int64() {
			t.Fatalf("LineTotal(%d millionths, %d) = %d, %v; want %s", qs, price, got, err, want)
		}
	}
}
