package receipts

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/acctsuite/acct/pkg/money"
)

var (
	phoneLike    = regexp.MustCompile(`\(?\d{3}\)?[\s.\-]*\d{3}[\s.\-]*\d{4}|\+\d[\d\s\-]{7,}`)
	cityStateZip = regexp.MustCompile(`(?i),?\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?\b`)
	euZipCity    = regexp.MustCompile(`^\d{4,5}\s+\p{L}`)
	streetLine   = regexp.MustCompile(`(?i)^\d+[A-Z]?(?:\s+|[.,]\s*).*\b(st|street|ave|avenue|blvd|boulevard|rd|road|dr|drive|ln|lane|way|hwy|highway|pkwy|square|sq|plaza|suite|ste|court|ct|place|pl|strasse|straße|str|rue|via)\b`)
	webLike      = regexp.MustCompile(`(?i)www\.|https?:|\.com\b|\.net\b|\.org\b|@`)
	welcome      = regexp.MustCompile(`(?i)^(welcome(\s*to)?|thank you for (shopping|visiting|dining)( at| with)?|receipt|sales receipt|customer copy|copy)\b[\s:!,.-]*`)
	edgeNoise    = regexp.MustCompile(`^[^\p{L}\p{N}&(]+|[^\p{L}\p{N}&'")!.]+$`)
	descNoise    = regexp.MustCompile(`^[^\p{L}\p{N}(]+|[^\p{L}\p{N})%]+$`)
)

var (
	// companyLine is a company's legal name: the name, then its legal
	// form ("Aldi GmbH & Co. KG", "Acme Inc.").
	companyLine = regexp.MustCompile(`(?i)^(.*?\p{L}{2,}.*?)[\s,]+(gmbh|ag|kg|ohg|se|e\.\s?k\.|inc|llc|ltd|corp|corporation|s\.a\.|s\.l\.|b\.v\.|n\.v\.|s\.r\.l\.|sarl)\b`)
	// domainName is a web address's name (www.lidl.de → lidl).
	domainName = regexp.MustCompile(`(?i)\bwww\.([a-z0-9][a-z0-9-]{2,})\.[a-z]{2,3}\b`)
	// euStreet is a European street line: a street name with a house
	// number, or a street word.
	euStreet = regexp.MustCompile(`(?i)^\p{L}[\p{L}.\-]*(?:\s\p{L}[\p{L}.\-]*)?\s+\d{1,4}\s?[a-z]?$|\p{L}(straße|strasse|str\.|weg|platz|allee|gasse|damm)\s+\d`)
)

// findVendor proposes the vendor from scored candidates: the clean line
// right above the shop's address (street, postal code and city, phone),
// the first clean header line (not an address, phone, web address, date,
// welcome line or number, with words rather than OCR fragments; the
// higher the better), each line judged by its widest clean column (OCR
// scatters marks in the margins), a company's legal name anywhere ("Aldi
// GmbH & Co. KG"), and a web address's name (www.lidl.de); a logo OCR
// cannot read leaves the header to noise, and the name over the address,
// the legal name or the web address still name the shop.
//
// conf (Result.FieldConfidence.Vendor) grows with the candidate's score:
// a legal name 0.8, the name over the address 0.8, the first header line
// 0.75, a lower one or a web address less.
func findVendor(lines []parsedLine) (name, why string, conf float64) {
	best, bestScore := "", 0.0
	consider := func(name string, score float64, reason string) {
		if name != "" && score > bestScore {
			best, bestScore, why = name, score, reason
		}
	}
	// The header: the first clean line, and the clean line right above
	// the shop's address (a name printed over its street and city, under
	// a logo OCR made noise of).
	header := min(len(lines), 12)
	for i, l := range lines[:header] {
		if l.hasAmt || l.kind == kindTotal || l.kind == kindSubtotal {
			header = i
			break
		}
	}
	first := -1
	for i, l := range lines[:header] {
		if i >= 8 {
			break
		}
		if s := headerName(l); s != "" {
			consider(displayName(s), 3-0.25*float64(i), fmt.Sprintf("vendor: header line %d %q", i+1, l.raw))
			first = i
			break
		}
	}
	for i := 1; i < header; i++ {
		if !addressLine(lines[i]) || addressLine(lines[i-1]) {
			continue
		}
		if s := headerName(lines[i-1]); s != "" && i-1 != first {
			consider(displayName(s), 3.1, fmt.Sprintf("vendor: the line over the address, line %d %q", i, lines[i-1].raw))
		}
		break
	}
	for i, l := range lines {
		if m := companyLine.FindStringSubmatch(strings.TrimSpace(edgeNoise.ReplaceAllString(l.raw, ""))); m != nil {
			name := trimStrayWords(strings.TrimSpace(edgeNoise.ReplaceAllString(m[1], "")))
			if nameLike(name) && wordsLike(name) && len(strings.Fields(name)) <= 4 {
				consider(displayName(name), 3.2, fmt.Sprintf("vendor: the legal name on line %d %q", i+1, l.raw))
				break
			}
		}
	}
	for i, l := range lines {
		if m := domainName.FindStringSubmatch(l.raw); m != nil {
			consider(displayName(strings.ToUpper(m[1])), 2.4, fmt.Sprintf("vendor: the web address on line %d %q", i+1, l.raw))
			break
		}
	}
	if best == "" {
		return "", "", 0
	}
	return best, why, min(0.8, max(0.3, (bestScore-1.5)/2))
}

// headerName is what names a shop in header line l: its longest column
// (OCR adds marks and fragments in the margins, columns apart) that
// reads as a name, not an address, phone, web address, date, welcome
// line, number or legal name; "" when there is none.
func headerName(l parsedLine) string {
	if len(l.dates) > 0 || l.kind == kindInfo {
		return ""
	}
	best := ""
	for _, col := range columnGap.Split(strings.TrimSpace(l.raw), -1) {
		// OCR turns specks into marks and short fragments at the edges.
		s := trimStrayWords(strings.TrimSpace(edgeNoise.ReplaceAllString(col, "")))
		if m := welcome.FindStringIndex(s); m != nil {
			s = s[m[1]:]
		}
		s = trimStrayWords(strings.TrimSpace(edgeNoise.ReplaceAllString(s, "")))
		if !nameLike(s) || !wordsLike(s) || phoneLike.MatchString(s) || cityStateZip.MatchString(s) ||
			euZipCity.MatchString(s) || streetLine.MatchString(s) || euStreet.MatchString(s) || webLike.MatchString(s) ||
			companyLine.MatchString(s) {
			continue
		}
		if letterCount(s) > letterCount(best) {
			best = s
		}
	}
	return best
}

// columnGap separates a line's columns.
var columnGap = regexp.MustCompile(`\s{3,}`)

// addressLine: l is a street, a city with its postal code or a phone
// number.
func addressLine(l parsedLine) bool {
	s := strings.TrimSpace(edgeNoise.ReplaceAllString(l.raw, ""))
	for _, col := range columnGap.Split(s, -1) {
		col = strings.TrimSpace(edgeNoise.ReplaceAllString(col, ""))
		if streetLine.MatchString(col) || euStreet.MatchString(col) || cityStateZip.MatchString(col) || euZipCity.MatchString(col) ||
			phoneLike.MatchString(col) {
			return true
		}
	}
	return false
}

// wordsLike: the line reads as words, not OCR fragments of a logo or a
// picture: a word of three letters or more, and at most half of the
// words one or two characters long.
func wordsLike(s string) bool {
	f := strings.Fields(s)
	long, short := 0, 0
	for _, w := range f {
		letters := 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		switch {
		case letters >= 3:
			long++
		case len([]rune(w)) <= 2:
			short++
		}
	}
	return long > 0 && 2*short <= len(f)
}

func trimStrayWords(s string) string {
	f := strings.Fields(s)
	for len(f) > 1 && len([]rune(f[len(f)-1])) == 1 && !unicode.IsLetter([]rune(f[len(f)-1])[0]) {
		f = f[:len(f)-1]
	}
	for len(f) > 1 && len([]rune(f[0])) == 1 && !unicode.IsLetter([]rune(f[0])[0]) {
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// nameLike: at least three letters, and letters are most of the
// characters that are not spaces.
func nameLike(s string) bool {
	letters, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r):
		default:
			other++
		}
	}
	return letters >= 3 && letters >= 2*other
}

// displayName collapses spaces and title-cases an all-capitals name
// ("JOE'S DINER" → "Joe's Diner"); a name in mixed case is kept.
func displayName(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.ToUpper(s) != s {
		return s
	}
	out := []rune(strings.ToLower(s))
	start := true
	for i, r := range out {
		if start && unicode.IsLetter(r) {
			out[i] = unicode.ToUpper(r)
		}
		start = unicode.IsSpace(r) || r == '-' || r == '&' || r == '/'
	}
	return string(out)
}

var dateLabel = regexp.MustCompile(`(?i)\b(date|dated|fecha|data)\b|datum\b`)

// otherDate labels a date that is not the sale's: an order, due,
// delivery or shipping date, a validity.
var otherDate = regexp.MustCompile(`(?i)\b(order|due|delivery|ship|shipping|expir\w*|valid|lieferdatum|bestelldatum|f[äa]llig\w*)\b`)

// pickDate prefers a date on a line labelled "Date", then the first date
// in the text (receipts print the sale date near the top; later ones are
// return-by dates and the like).
//
// conf (Result.FieldConfidence.PaidAt): a labelled date 0.9, the first
// date 0.7, an order or due date 0.5.
func pickDate(lines []parsedLine) (*time.Time, string, float64) {
	var first, firstOther *dateMatch
	var firstLine, otherLine int
	for i, l := range lines {
		if len(l.dates) == 0 {
			continue
		}
		other := otherDate.MatchString(l.text)
		if dateLabel.MatchString(l.text) && !other {
			d := l.dates[0].date
			return &d, fmt.Sprintf("date: %s on the labelled line %d", d.Format(time.DateOnly), i+1), 0.9
		}
		switch {
		case !other && first == nil:
			first, firstLine = &l.dates[0], i
		case other && firstOther == nil:
			firstOther, otherLine = &l.dates[0], i
		}
	}
	conf := 0.7
	if first == nil {
		first, firstLine, conf = firstOther, otherLine, 0.5
	}
	if first == nil {
		return nil, "", 0
	}
	d := first.date
	return &d, fmt.Sprintf("date: %s, the first date (line %d)", d.Format(time.DateOnly), firstLine+1), conf
}

// amountPat is an amount inside a line (a unit price).
const amountPat = `(?:\$?\d{1,3}(?:[,.]\d{3})*[.,]\d{2}|\$?\d+[.,]\d{2})`

var (
	qtyPrefix  = regexp.MustCompile(`(?i)^\d{1,3}\s*[x×@*]\s+`)
	skuPrefix  = regexp.MustCompile(`^\d{5,}\s+`)
	qtySuffix  = regexp.MustCompile(`(?i)([\s.:;_|]*\d{1,3}\s*[x×@*]\s*` + amountPat + `|\s+[x×@]\s*\d{1,3}|\s+\d{1,3}\s+` + amountPat + `|\s+` + amountPat + `)+$`)
	qtyOnly    = regexp.MustCompile(`(?i)^\(?\s*\d{1,3}\s*(?:[x×@*]|ea|pcs?)?\s*\$?\d*[.,]?\d*\s*(?:ea|each|/ea)?\s*\)?$`)
	headerWord = regexp.MustCompile(`(?i)^(item|description|qty|quantity|price|amount|each|total)s?$`)
)

// cleanDescription strips quantities, unit prices, SKUs and OCR noise
// from the text before an item's amount.
func cleanDescription(s string) string {
	for range 3 {
		s = strings.TrimSpace(descNoise.ReplaceAllString(s, ""))
		s = strings.TrimSpace(qtySuffix.ReplaceAllString(s, ""))
	}
	s = skuPrefix.ReplaceAllString(s, "")
	s = qtyPrefixRE(s)
	s = trimStrayWords(strings.TrimSpace(edgeNoise.ReplaceAllString(s, "")))
	return strings.Join(strings.Fields(s), " ")
}

// qtyPrefixRE drops a leading "2 x " or "2 " quantity (Go's regexp has no
// lookahead, so the second form is checked by hand).
func qtyPrefixRE(s string) string {
	if m := qtyPrefix.FindStringIndex(s); m != nil {
		return s[m[1]:]
	}
	f := strings.Fields(s)
	if len(f) > 1 && len(f[0]) <= 2 && isDigits(f[0]) && unicode.IsLetter([]rune(f[1])[0]) {
		return strings.Join(f[1:], " ")
	}
	return s
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// findItems proposes the lines with an amount above the first subtotal or
// total line that are none of tax, tip, payment, discount or information.
// An amount on a line without words (a "2 @ 4.50  9.00" line) belongs to
// the description on the line above. It returns the items and the index
// of the line where they end.
func findItems(lines []parsedLine) ([]LineItem, int) {
	end := len(lines)
	for i, l := range lines {
		if (l.kind == kindSubtotal || l.kind == kindTotal) && (l.hasAmt || i+1 < len(lines) && lines[i+1].hasAmt) {
			end = i
			break
		}
	}
	items := []LineItem{}
	for i := 0; i < end && len(items) < MaxLineItems; i++ {
		l := lines[i]
		// A minus on a line without a discount word is OCR noise (a
		// speck before the amount): the line is still an item.
		if !l.hasAmt || l.kind != kindOther || l.amount == 0 {
			continue
		}
		desc := cleanDescription(l.before)
		if letterCount(desc) < 2 {
			// "2 @ 4.50   9.00" under its description.
			if i > 0 && !lines[i-1].hasAmt && lines[i-1].kind == kindOther && len(lines[i-1].dates) == 0 &&
				qtyOnly.MatchString(strings.Trim(l.before, " .:;,_|-—'\"‘’`~")) {
				desc = cleanDescription(lines[i-1].text)
			}
			if letterCount(desc) < 2 {
				continue
			}
		}
		if headerWord.MatchString(desc) {
			continue
		}
		items = append(items, LineItem{Description: desc, AmountCents: l.amount})
	}
	return items, end
}

func contains(s []money.Cents, v money.Cents) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
