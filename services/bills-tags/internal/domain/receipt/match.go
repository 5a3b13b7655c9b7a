package receipt

import (
	"strings"
	"unicode"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/receipts"
)

// VendorName is an active vendor as matching sees it.
type VendorName struct {
	ID         uuid.UUID
	Name       string // display name: company, else individual
	ExternalID *string
}

// legalSuffixes are dropped from the end of a normalized name: "Acme Inc."
// on a receipt is the vendor "Acme".
var legalSuffixes = map[string]bool{"inc": true, "llc": true, "ltd": true, "co": true, "corp": true, "gmbh": true, "sa": true, "plc": true}

// NormalizeName is a name as matching compares it: lower case, letters and
// digits, one space between words, apostrophes dropped, "&" read as
// "and" ("JOE'S  DINER, Inc." → "joes diner", "Desk & Ink" → "desk and ink").
func NormalizeName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '&':
			b.WriteString(" and ")
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case r == '\'' || r == '’':
		default:
			b.WriteRune(' ')
		}
	}
	ws := strings.Fields(b.String())
	for len(ws) > 1 && legalSuffixes[ws[len(ws)-1]] {
		ws = ws[:len(ws)-1]
	}
	return strings.Join(ws, " ")
}

// minMatchLen: shorter normalized names match only exactly.
const minMatchLen = 5

// MatchVendor is the vendor a receipt's proposed name designates, if any:
// after normalizing both, the same name; a name within an edit distance
// of a fifth of its length (OCR slips: "Sunrlse Bakery"); or a receipt name
// that starts with the vendor's whole name ("Sunrise Bakery #12" for
// "Sunrise Bakery"). The closest wins; a tie goes to the first given.
func MatchVendor(proposed string, vendors []VendorName) (VendorName, bool) {
	n := NormalizeName(proposed)
	if n == "" {
		return VendorName{}, false
	}
	best, bestD := -1, 0
	for i, v := range vendors {
		m := NormalizeName(v.Name)
		if m == "" {
			continue
		}
		var d int
		switch {
		case m == n:
			d = 0
		case len(n) < minMatchLen || len(m) < minMatchLen:
			continue
		case strings.HasPrefix(n, m+" "):
			d = 1 // as good as one slip: an exact name still beats it
		default:
			d = receipts.EditDistance(n, m)
			if d > max(len(n), len(m))/5 {
				continue
			}
		}
		if best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return VendorName{}, false
	}
	return vendors[best], true
}
