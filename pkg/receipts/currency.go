package receipts

import (
	"regexp"
	"strings"
)

// currencyMarks are the ways a receipt prints its currency: the ISO 4217
// code, the symbol, or the local abbreviation.
var currencyMarks = []struct {
	code string
	re   *regexp.Regexp
	// weight: a code names the currency for sure; a symbol may be an OCR
	// misreading of another (€ for £, $ for S).
	weight int
}{
	{"USD", regexp.MustCompile(`\bUSD\b|US\$`), 3},
	{"EUR", regexp.MustCompile(`\bEUR\b|\bEURO\b`), 3},
	{"GBP", regexp.MustCompile(`\bGBP\b`), 3},
	{"INR", regexp.MustCompile(`\bINR\b|\bRs\.?\s?\d|₹`), 3},
	{"CHF", regexp.MustCompile(`\bCHF\b|\bFr\.\s?\d`), 3},
	{"CAD", regexp.MustCompile(`\bCAD\b|C\$`), 3},
	{"AUD", regexp.MustCompile(`\bAUD\b|A\$`), 3},
	// A symbol counts next to a number (OCR makes marks of specks).
	{"USD", regexp.MustCompile(`\$\s?\d|\d\s?\$`), 1},
	{"EUR", regexp.MustCompile(`€\s?\d|\d\s?€`), 1},
	{"GBP", regexp.MustCompile(`£\s?\d|\d\s?£`), 1},
}

// countryCurrency is the currency of a business's country, for a
// receipt that names none.
func countryCurrency(country string) string {
	c := strings.ToUpper(strings.TrimSpace(country))
	switch c {
	case "AT", "BE", "CY", "DE", "EE", "ES", "FI", "FR", "GR", "HR", "IE", "IT", "LT", "LU", "LV", "MT", "NL", "PT", "SI", "SK":
		return "EUR"
	}
	return map[string]string{"US": "USD", "PR": "USD", "GB": "GBP", "IN": "INR", "CH": "CHF", "CA": "CAD", "AU": "AUD"}[c]
}

// findCurrency proposes the receipt's currency (ISO 4217) from the
// codes and symbols it prints (a mark on a total line counting more)
// and a US address (a state and ZIP code, amounts with a decimal
// point); when there is none of these,
// the currency of the business's country ("" when unknown).
// comma: the receipt writes amounts with a decimal comma (not as US
// receipts do).
func findCurrency(lines []parsedLine, comma bool, country string) (code, why string) {
	score := map[string]int{}
	for i, l := range lines {
		if i < 15 && !comma && cityStateZip.MatchString(l.raw) {
			score["USD"] += 2
		}
		mult := 1
		if l.kind == kindTotal || l.kind == kindPayment {
			mult = 3
		}
		for _, m := range currencyMarks {
			if n := len(m.re.FindAllStringIndex(l.raw, -1)); n > 0 {
				if m.code == "USD" && m.weight == 1 && (strings.Contains(l.raw, "C$") || strings.Contains(l.raw, "A$") || strings.Contains(l.raw, "US$")) {
					continue // counted with its own code
				}
				score[m.code] += n * m.weight * mult
			}
		}
	}
	best := ""
	for _, c := range []string{"USD", "EUR", "GBP", "INR", "CHF", "CAD", "AUD"} {
		if best == "" || score[c] > score[best] {
			best = c
		}
	}
	if score[best] == 0 {
		if c := countryCurrency(country); c != "" {
			return c, "currency: none printed, the business's (" + c + ")"
		}
		return "", "currency: none printed"
	}
	return best, "currency: " + best + " from the codes, symbols and address printed"
}
