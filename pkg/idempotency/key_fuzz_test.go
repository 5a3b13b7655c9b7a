package idempotency

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzParseKey feeds arbitrary Idempotency-Key values to ParseKey: a
// refusal is a 400 naming the header (before this target, a NUL byte or
// invalid UTF-8 reached PostgreSQL and came back as a 500); an accepted
// key is storable text within MaxKeyLength and is returned unchanged.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"3f0c2a9e-6d1b-4a57-9a61-2b0e1c7d8f90", "order-42", "clé-été", strings.Repeat("k", MaxKeyLength),
		strings.Repeat("k", MaxKeyLength+1), "a\x00b", "\xff\xfe", "tab\there", "line\nbreak", " ", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		key, err := ParseKey(raw)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if key != raw || len(key) > MaxKeyLength || !utf8.ValidString(key) || strings.ContainsFunc(key, unicode.IsControl) {
			t.Fatalf("accepted %q as %q", raw, key)
		}
	})
}
