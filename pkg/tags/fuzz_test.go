package tags

import (
	"testing"
	"unicode/utf8"
)

// FuzzNormalizeKey: an accepted key is already canonical (normalising it
// again changes nothing, so ids are stable across hops between services),
// within the limit, and its dimension id is the one of the raw text.
func FuzzNormalizeKey(f *testing.F) {
	for _, s := range []string{"project", " Project ", "re\u0301gion", "a\tb", "", "\xff", "👨‍👩‍👧", "\u0301a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := NormalizeKey(s)
		if err != nil {
			return
		}
		if again, err := NormalizeKey(k); err != nil || again != k {
			t.Fatalf("NormalizeKey(%q) = %q, which normalises to %q, %v", s, k, again, err)
		}
		if n := utf8.RuneCountInString(k); n == 0 || n > MaxKeyLength {
			t.Fatalf("NormalizeKey(%q) = %q has %d characters", s, k, n)
		}
		if DimensionID(biz1, s) != DimensionID(biz1, k) {
			t.Fatalf("DimensionID differs between %q and its normal form %q", s, k)
		}
	})
}
