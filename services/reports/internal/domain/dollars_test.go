package domain

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/money"
)

func TestDollars(t *testing.T) {
	for _, c := range []struct {
		cents int64
		want  string
	}{
		{0, "0"}, {1, "0.01"}, {-5, "-0.05"}, {4250, "42.5"}, {10, "0.1"}, {123456, "1234.56"}, {-123456, "-1234.56"},
		{99999999999999999 / 100, "9999999999999.99"}, {29, "0.29"}, {57, "0.57"}, {1001, "10.01"},
	} {
		if got := strconv.FormatFloat(Dollars(c.cents), 'f', -1, 64); got != c.want {
			t.Errorf("Dollars(%d) = %s, want %s", c.cents, got, c.want)
		}
	}
	// The shortest text of the double is the exact amount below 10^15 cents.
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		c := r.Int64N(1e15) - 5e14
		want := strings.TrimRight(strings.TrimRight(money.Format(money.Cents(c)), "0"), ".")
		if want == "" || want == "-" {
			want = "0"
		}
		if got := strconv.FormatFloat(Dollars(c), 'f', -1, 64); got != want {
			t.Fatalf("Dollars(%d) = %s, want %s", c, got, want)
		}
	}
}
