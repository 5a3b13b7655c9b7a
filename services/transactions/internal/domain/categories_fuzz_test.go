package domain

import (
	"testing"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParseCategoryQuery feeds arbitrary values to the parsers of GET
// /categories's mode and of exclusion names: refusals are 400 error
// objects; accepted values parse to themselves.
func FuzzParseCategoryQuery(f *testing.F) {
	for _, s := range []string{"", "DEFAULT", "EXPENSE", "REVENUE", "default", "TRANSFER", "PERSONAL", "NOPE", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if m, err := ParseCategoryMode(s); err != nil {
			apperrtest.Require4xx(t, err)
		} else if again, err := ParseCategoryMode(string(m)); err != nil || again != m {
			t.Fatalf("mode %q parsed as %q, then %q (%v)", s, m, again, err)
		}
		if x, err := ParseExclusion("exclusion_type", s); err != nil {
			apperrtest.Require4xx(t, err)
		} else if string(x) != s || !x.Valid() {
			t.Fatalf("exclusion %q parsed as %q", s, x)
		}
	})
}
