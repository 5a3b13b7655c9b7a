package money

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestAllocate(t *testing.T) {
	tests := []struct {
		name    string
		total   Cents
		weights []int64
		want    []Cents
	}{
		{"thirds", 100, []int64{1, 1, 1}, []Cents{34, 33, 33}},
		{"negative thirds", -100, []int64{1, 1, 1}, []Cents{-34, -33, -33}},
		{"single weight", 12345, []int64{7}, []Cents{12345}},
		{"single weight negative", -12345, []int64{7}, []Cents{-12345}},
		{"zero weights get zero", 100, []int64{0, 1, 0}, []Cents{0, 100, 0}},
		{"zero total", 0, []int64{1, 2}, []Cents{0, 0}},
		{"tie goes to the earlier index", 1, []int64{1, 1}, []Cents{1, 0}},
		{"tie among later parts", 2, []int64{2, 1, 1, 1, 1}, []Cents{1, 1, 0, 0, 0}}, // 0.67 0.33×4
		{"largest remainder wins", 1000, []int64{1, 2, 3}, []Cents{167, 333, 500}},
		{"remainder skips zero weight", 5, []int64{1, 1, 0, 1, 1}, []Cents{2, 1, 0, 1, 1}},
		{"cents as weights", 1000, []int64{300, 700}, []Cents{300, 700}},
		{"uneven weights", 10000, []int64{3333, 3333, 3334}, []Cents{3333, 3333, 3334}},
		{"less than one cent each", 2, []int64{1, 1, 1, 1, 1}, []Cents{1, 1, 0, 0, 0}},
		{"max total", MaxCents, []int64{1, 1}, []Cents{1 << 62, 1<<62 - 1}},
		{"min total", MinCents, []int64{1, 1}, []Cents{-(1 << 62), -(1 << 62)}},
		{"max weight", MaxCents, []int64{math.MaxInt64}, []Cents{MaxCents}},
		{"max weights sum", 3, []int64{math.MaxInt64 - 1, 1}, []Cents{3, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Allocate(tc.total, tc.weights)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("Allocate(%d, %v) = %v, %v; want %v", tc.total, tc.weights, got, err, tc.want)
			}
		})
	}
}

func TestAllocateCentsWeights(t *testing.T) {
	// A bank transaction of $100.00 split like invoice lines of $10, $20, $0.
	got, err := Allocate(10000, []Cents{1000, 2000, 0})
	if want := []Cents{3333, 6667, 0}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Allocate = %v, %v; want %v", got, err, want)
	}
}

func TestAllocateErrors(t *testing.T) {
	tests := []struct {
		name    string
		weights []int64
	}{
		{"nil", nil},
		{"empty", []int64{}},
		{"all zero", []int64{0, 0, 0}},
		{"negative", []int64{1, -1, 2}},
		{"sum beyond int64", []int64{math.MaxInt64, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := Allocate(100, tc.weights); !errors.Is(err, ErrInvalidWeights) || got != nil {
				t.Fatalf("Allocate(100, %v) = %v, %v; want ErrInvalidWeights", tc.weights, got, err)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		total Cents
		n     int
		want  []Cents
	}{
		{100, 3, []Cents{34, 33, 33}},
		{-100, 3, []Cents{-34, -33, -33}},
		{0, 1, []Cents{0}},
		{7, 1, []Cents{7}},
		{5, 7, []Cents{1, 1, 1, 1, 1, 0, 0}},
		{-5, 7, []Cents{-1, -1, -1, -1, -1, 0, 0}},
		{MinCents, 2, []Cents{MinCents / 2, MinCents / 2}},
	}
	for _, tc := range tests {
		got, err := Split(tc.total, tc.n)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Split(%d, %d) = %v, %v; want %v", tc.total, tc.n, got, err, tc.want)
		}
	}
	for _, n := range []int{0, -1} {
		if _, err := Split(100, n); !errors.Is(err, ErrInvalidWeights) {
			t.Errorf("Split(100, %d): %v, want ErrInvalidWeights", n, err)
		}
	}
}

// checkAllocation asserts the allocation invariants against exact
// rational arithmetic: the parts add up to total, each is within one cent
// of its exact share (strictly), zero weights get zero, and a part has the
// sign of the total.
func checkAllocation(t *testing.T, total Cents, weights []int64, parts []Cents) {
	t.Helper()
	if len(parts) != len(weights) {
		t.Fatalf("Allocate(%d, %v): %d parts for %d weights", total, weights, len(parts), len(weights))
	}
	sumW := new(big.Int)
	for _, w := range weights {
		sumW.Add(sumW, bigInt(w))
	}
	sum := new(big.Int)
	one := big.NewRat(1, 1)
	for i, p := range parts {
		sum.Add(sum, bigInt(int64(p)))
		exact := new(big.Rat).SetFrac(new(big.Int).Mul(bigInt(int64(total)), bigInt(weights[i])), sumW)
		diff := new(big.Rat).Sub(new(big.Rat).SetInt64(int64(p)), exact)
		if diff.Abs(diff).Cmp(one) >= 0 {
			t.Fatalf("Allocate(%d, %v)[%d] = %d, exact share %s: off by a cent or more", total, weights, i, p, exact.FloatString(3))
		}
		if weights[i] == 0 && p != 0 {
			t.Fatalf("Allocate(%d, %v)[%d] = %d for a zero weight", total, weights, i, p)
		}
		if p.Sign()*total.Sign() < 0 {
			t.Fatalf("Allocate(%d, %v)[%d] = %d has the wrong sign", total, weights, i, p)
		}
	}
	if sum.Cmp(bigInt(int64(total))) != 0 {
		t.Fatalf("Allocate(%d, %v) = %v sums to %s", total, weights, parts, sum)
	}
}

// TestAllocateProperties runs the invariants over random totals and
// weights with a fixed seed (reproducible), and checks that a negative
// total allocates as the mirror of its absolute value.
func TestAllocateProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		total := Cents(int64(rng.Uint64()) >> rng.UintN(64))
		n := 1 + rng.IntN(12)
		weights := make([]int64, n)
		bound := int64(1) << rng.UintN(63) / int64(n) // keep Σw within int64
		for i := range weights {
			if rng.IntN(5) > 0 {
				weights[i] = rng.Int64N(bound + 1)
			}
		}
		parts, err := Allocate(total, weights)
		if slices.Max(weights) == 0 {
			if !errors.Is(err, ErrInvalidWeights) {
				t.Fatalf("Allocate(%d, %v): %v, want ErrInvalidWeights", total, weights, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Allocate(%d, %v): %v", total, weights, err)
		}
		checkAllocation(t, total, weights, parts)
		if total != MinCents {
			mirror, err := Allocate(-total, weights)
			if err != nil {
				t.Fatal(err)
			}
			for i := range mirror {
				if mirror[i] != -parts[i] {
					t.Fatalf("Allocate(%d, %v) = %v is not the mirror of %v", -total, weights, mirror, parts)
				}
			}
		}
	}
}
