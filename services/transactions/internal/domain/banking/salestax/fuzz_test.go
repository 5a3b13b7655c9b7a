package salestax

import (
	"strings"
	"testing"
)

// FuzzParseProvince: a province query or body value parses to one of
// Provinces, and the parsed code parses to itself.
func FuzzParseProvince(f *testing.F) {
	for _, s := range []string{"ON", " qc ", "Yt", "XX", "", "O N", "ON\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := ParseProvince(s)
		if !ok {
			return
		}
		again, ok := ParseProvince(string(p))
		if !ok || again != p || len(p) != 2 || strings.ToUpper(string(p)) != string(p) {
			t.Fatalf("ParseProvince(%q) = %q; again %q %v", s, p, again, ok)
		}
	})
}
