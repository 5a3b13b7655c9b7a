package domain

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRecognize(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []int64
		total int64
		paid  []int64
		want  [][]int64
	}{
		{"paid in full at once", []int64{-10000, -5000}, 16000, []int64{16000}, [][]int64{{-10000, -5000}}},
		{"half then half", []int64{-10000, -5000}, 16000, []int64{8000, 8000}, [][]int64{{-5000, -2500}, {-5000, -2500}}},
		// A third of 100.00 is 33.33 (33.333...), divided 2:1 over the
		// lines' remainders; the last payment takes exactly what is left.
		{"thirds", []int64{-6667, -3333}, 10000, []int64{3333, 3333, 3334},
			[][]int64{{-2222, -1111}, {-2222, -1111}, {-2223, -1111}}},
		{"partly paid", []int64{-10000}, 11300, []int64{5650}, [][]int64{{-5000}}},
		{"overpaid: capped at the total", []int64{-10000}, 10000, []int64{6000, 6000}, [][]int64{{-6000}, {-4000}}},
		{"no payments", []int64{-10000}, 10000, nil, [][]int64{}},
		{"zero total recognizes nothing", []int64{-100, 100}, 0, []int64{50}, [][]int64{{0, 0}}},
		{"write-off: no total", []int64{500}, 0, nil, [][]int64{}},
		{"expenses (a bill)", []int64{3000, 1000}, 4000, []int64{1000, 3000}, [][]int64{{750, 250}, {2250, 750}}},
		// Mixed signs: each line on its own, cumulatively.
		{"contra line", []int64{-10000, 1000}, 9000, []int64{3000, 6000}, [][]int64{{-3333, 333}, {-6667, 667}}},
		{"one cent over three payments", []int64{-1}, 3, []int64{1, 1, 1}, [][]int64{{0}, {-1}, {0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Recognize(c.lines, c.total, c.paid)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if !slices.Equal(got[i], c.want[i]) {
					t.Fatalf("payment %d: got %v, want %v (all: %v)", i, got[i], c.want[i], got)
				}
			}
		})
	}
}

// TestRecognizeProperties: for random documents and payments, a fully
// paid document has recognized every line exactly; nothing ever goes past
// a line's amount; with lines of one sign, each payment recognizes exactly
// the rounded proportion of the lines' sum it pays.
func TestRecognizeProperties(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	for n := range 5000 {
		lines := make([]int64, 1+r.IntN(6))
		mixed := r.IntN(4) == 0
		sign := int64(1 - 2*r.IntN(2))
		var sum int64
		for i := range lines {
			lines[i] = sign * r.Int64N(1_000_000)
			if mixed && i > 0 && r.IntN(2) == 0 {
				lines[i] = -lines[i] / 3
			}
			sum += lines[i]
		}
		total := abs(sum) + r.Int64N(100_000) // taxes sit on the total, not on the lines
		if total == 0 {
			total = 1
		}
		var paid []int64
		left := total
		for left > 0 && len(paid) < 8 {
			a := 1 + r.Int64N(left)
			if r.IntN(3) == 0 {
				a = left
			}
			paid = append(paid, a)
			left -= a
		}
		if r.IntN(5) == 0 && len(paid) > 0 {
			paid = paid[:len(paid)-1] // partly paid
		}
		got, err := Recognize(lines, total, paid)
		if err != nil {
			t.Fatal(err)
		}
		acc := make([]int64, len(lines))
		var cum int64
		for k, row := range got {
			cum += paid[k]
			var rowSum int64
			for i, v := range row {
				acc[i] += v
				rowSum += v
				if abs(acc[i]) > abs(lines[i]) || (acc[i] != 0 && (acc[i] < 0) != (lines[i] < 0)) {
					t.Fatalf("case %d: line %d recognized %d of %d (lines %v total %d paid %v)", n, i, acc[i], lines[i], lines, total, paid)
				}
			}
			if !mixed {
				prevCum := cum - paid[k]
				want := roundDiv(sum*min(cum, total), total) - roundDiv(sum*min(prevCum, total), total)
				if rowSum != want {
					t.Fatalf("case %d: payment %d recognized %d, want %d (lines %v total %d paid %v)", n, k, rowSum, want, lines, total, paid)
				}
			}
		}
		if cum >= total && !slices.Equal(acc, lines) {
			t.Fatalf("case %d: fully paid but recognized %v of %v (total %d paid %v)", n, acc, lines, total, paid)
		}
	}
}

// roundDiv is a/b rounded half away from zero (b > 0, no overflow in the
// property's ranges).
func roundDiv(a, b int64) int64 {
	q, r := a/b, a%b
	if 2*abs(r) >= b {
		if a < 0 {
			q--
		} else {
			q++
		}
	}
	return q
}
