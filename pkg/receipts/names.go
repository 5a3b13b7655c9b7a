package receipts

import (
	"strings"
	"unicode"
)

// normalizeName lower-cases a name and keeps its letters and digits, one
// space between words ("JOE'S  DINER;" → "joes diner").
func normalizeName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case r == '\'' || r == '’':
		default:
			b.WriteRune(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// NamesMatch is the accuracy tests' (and the receipts benchmark's) rule
// for a name read through OCR against the expected one: after
// normalizeName, the two match when they are within an edit distance of 2
// (or a quarter of the expected length, if longer), or when every word of
// the expected name is in the proposed one within one edit each (so
// "Blue Bottle Coffee" matches "Blue Bottle Coffee 2").
func NamesMatch(got, want string) bool {
	g, w := normalizeName(got), normalizeName(want)
	if g == "" || w == "" {
		return g == w
	}
	if editDistance(g, w) <= max(2, len(w)/4) {
		return true
	}
	gw := strings.Fields(g)
	for _, ww := range strings.Fields(w) {
		found := false
		for _, x := range gw {
			if x == ww || len(ww) >= 4 && editDistance(x, ww) <= 1 {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
