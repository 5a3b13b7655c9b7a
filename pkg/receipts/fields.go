package receipts

import (
	"fmt"
	"regexp"
	"strconv"
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
	welcome      = regexp.MustCompile(`(?i)^([wvn]elcome(\s*to)?|willkommen(\s*(bei|im|in))?|bienvenue(\s*(chez|à|a))?|bienvenid[oa]s?(\s*a)?|benvenuti(\s*(da|a))?|welkom(\s*bij)?|thank you for (shopping|visiting|dining)( at| with)?|receipt|sales receipt|customer copy|copy)\b[\s:!,.-]*`)
	edgeNoise    = regexp.MustCompile(`^[^\p{L}\p{N}&(]+|[^\p{L}\p{N}&'")!.]+$`)
	descNoise    = regexp.MustCompile(`^[^\p{L}\p{N}(]+|[^\p{L}\p{N})%]+$`)
)

var (
	// companyLine is a company's legal name: the name, then its legal
	// form ("Aldi GmbH & Co. KG", "Acme Inc.").
	// The short forms count in capitals only ("AG", not "ag"), so
	// OCR's fragments ("se", "ag") are not a legal form.
	companyLine = regexp.MustCompile(`^(.*?\p{L}{2,}.*?)[\s,]+((?i:gmbh|inc|llc|ltd|corp|corporation|s\.a\.|s\.l\.|b\.v\.|n\.v\.|s\.r\.l\.|sarl|pvt)|AG|KG|OHG|SE|e\.\s?K\.|INC|LLC|LTD)\b`)
	// domainName is a web address's name (www.lidl.de → lidl).
	// (OCR may put a space after a dot: "www. marktkauf. de".)
	domainName = regexp.MustCompile(`(?i)\bwww\.\s?([a-z0-9][a-z0-9-]{2,})\.\s?[a-z]{2,3}\b`)
	// euStreet is a European street line: a street name with a house
	// number (or a range of them: 30-32), or a street word.
	euStreet = regexp.MustCompile(`(?i)^\p{L}[\p{L}.\-]*(?:\s\p{L}[\p{L}.\-]*)?\s+\d{1,4}\s?[a-z]?(?:\s?[-/]\s?\d{1,4}\s?[a-z]?)?$|\p{L}(straße|strasse|str\.|weg|platz|allee|gasse|damm)(?:\s+\d|$)|(?:\p{L}|\s)(straße|strasse)\b`)
	// houseNumber starts a street line that names no street word
	// ("190 Jericho Tpke", OCR's "6OTTW Roosevelt Rd"): a number, then
	// a word.
	houseNumber = regexp.MustCompile(`^\d[\dOIl]{1,5}[A-Za-z]{0,3}\s+\p{L}`)
	// labelValue is a "Server: Kim", "Table: 4" line, not a name.
	labelValue = regexp.MustCompile(`^\p{L}[\p{L}.# ]{1,20}\s?:\s?\S`)
	// currencyOnly is a line that is only a currency's code or name.
	currencyOnly = regexp.MustCompile(`(?i)^(eur|euro|usd|gbp|chf|inr)$`)
	// cityState is a US city and its state without the ZIP code
	// ("Yonkers, NY").
	cityState = regexp.MustCompile(`^\p{L}[\p{L} .'-]*,\s*[A-Z]{2}\.?$`)
	// itemLine is an item whose price OCR misread ("1 Coffee   33"): a
	// quantity, words, a number.
	itemLine = regexp.MustCompile(`^\d{1,2}\s+\p{L}.*\s\d+(?:[.,]\d*)?(?:\s+\S{1,2})?$`)
	// trailingPhone is a phone number ending a line, with its label
	// (Phone, Ph, Tel, Telefon; OCR may lose the P of "Phone").
	trailingPhone = regexp.MustCompile(`(?i)\s+(?:(?:p?hone|ph|tel|telefon|fon)\b[.:#]?\s*)?\(?\d{3}\)?[\s.\-]*\d{3}[\s.\-]*\d{4}$`)
	// phoneLabel is a phone's label alone.
	phoneLabel = regexp.MustCompile(`(?i)^\W*(?:p?hone|ph|tel|telefon|fon|fax|call|call us)\W*$`)
	// branchSuffix is a branch's number after a name: "#1234", "#
	// 44969-0".
	branchSuffix = regexp.MustCompile(`\s?#\s?\d+(?:-\d+)?$`)
	// storeNumber ends a branch line ("Puente Hills #25").
	storeNumber = regexp.MustCompile(`#\s?\d+$`)
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
			score := 3 - 0.25*float64(i)
			if businessWord(s) {
				score += 0.5
			}
			consider(displayName(s), score, fmt.Sprintf("vendor: header line %d %q", i+1, l.raw))
			first = i
			break
		}
	}
	// A header line that says what the business is ("Delphin
	// Apotheke", "Pine Tree Cafe") names it, even under a line that
	// only looked like a name (an owner, a slogan).
	for i, l := range lines[:header] {
		if i >= 8 {
			break
		}
		if s := headerName(l); s != "" && i != first && businessWord(s) {
			consider(displayName(s), 3.5-0.25*float64(i), fmt.Sprintf("vendor: header line %d %q names a business", i+1, l.raw))
			break
		}
	}
	for i := 1; i < header; i++ {
		if !addressAt(lines, i) || addressAt(lines, i-1) {
			continue
		}
		// The name is right above the address; a branch line ("Puente
		// Hills #25") may come between them.
		j := i - 1
		if j > 0 && storeNumber.MatchString(strings.TrimSpace(edgeNoise.ReplaceAllString(lines[j].raw, ""))) &&
			cleanLine(lines[j-1]) {
			j--
		}
		if s := headerName(lines[j]); s != "" {
			// A name printed on two lines: "Friendly Red's" over "of
			// Windham", "General Poor's" over "Tavern".
			if j > 0 && nameContinues(s) {
				if up := headerName(lines[j-1]); up != "" && !addressAt(lines, j-1) {
					s = up + " " + s
				}
			}
			if j != first || s != headerName(lines[j]) {
				score := 3.1
				if businessWord(s) {
					score += 0.5
				}
				consider(displayName(s), score, fmt.Sprintf("vendor: the line over the address, line %d %q", j+1, lines[j].raw))
			}
		}
		break
	}
	for i, l := range lines {
		// A legal name is a line of its own, not an item's.
		if l.hasAmt || l.kind != kindOther {
			continue
		}
		if m := companyLine.FindStringSubmatch(strings.TrimSpace(edgeNoise.ReplaceAllString(l.raw, ""))); m != nil {
			name := trimStrayWords(strings.TrimSpace(edgeNoise.ReplaceAllString(m[1], "")))
			// (A legal name that only says the trade, "Restaurants,
			// Inc.", is the operator's, not the shop's.)
			if nameLike(name) && wordsLike(name) && casedWords(name) && len(strings.Fields(name)) <= 4 && !genericName(name) {
				// Right under the first header line, the legal name is
				// the operator's: the shop's own name comes first
				// ("MEDIA MARKT" over "TV-Hifi-Elektro GmbH").
				score := 3.2
				if first >= 0 && i == first+1 {
					score = 2.9
				}
				consider(displayName(name), score, fmt.Sprintf("vendor: the legal name on line %d %q", i+1, l.raw))
				break
			}
		}
	}
	for i, l := range lines {
		if m := domainName.FindStringSubmatch(l.raw); m != nil {
			// Over a legal name, the web address's name written as a
			// word elsewhere too ("At Shopzone we...": a marketplace's
			// invoice, whose legal name is the seller's) is the brand
			// the receipt is under.
			score := 2.4
			if strings.HasPrefix(why, "vendor: the legal name") && nameWordElsewhere(lines, m[1]) {
				score = bestScore + 0.05
			}
			consider(displayName(strings.ToUpper(m[1])), score, fmt.Sprintf("vendor: the web address on line %d %q", i+1, l.raw))
			// A line that starts with the web address's brand
			// ("Marktkauf Lehr" and www.marktkauf-lehr.de) names the
			// shop, over a header line that does not (noise of a logo,
			// a slogan). (Not a line that only mentions it: "Ordered
			// via Foodhub" on a restaurant's receipt.)
			brand, _, _ := strings.Cut(m[1], "-")
			if len(brand) >= 4 && !hasWordFold(best, brand) {
				for j, o := range lines[:min(len(lines), 30)] {
					if s := headerName(o); s != "" && j != i && startsWithFold(s, brand) {
						consider(displayName(s), 3.6, fmt.Sprintf("vendor: line %d %q names the web address's brand", j+1, o.raw))
						break
					}
				}
			}
			break
		}
	}
	// A thanks that names the shop ("Thank you for dining at Villa
	// d'Este"), under a header OCR made noise of: over a lower header
	// line, not over the first ones.
	for i, l := range lines {
		if m := thanksAt.FindStringSubmatch(l.raw); m != nil {
			name := m[1] + m[2]
			name, _, _ = strings.Cut(name, "!")
			name = columnGap.Split(strings.TrimSpace(name), 2)[0] // (not the margin's marks after it)
			name = strings.TrimRight(strings.TrimSpace(name), ".,;:")
			s := columnName(name)
			if first, _, ok := strings.Cut(name, ". "); s == "" && ok {
				s = columnName(first) // "Villa d'Este. See you soon"
			}
			if s != "" {
				consider(displayName(s), 2.6, fmt.Sprintf("vendor: the thanks on line %d %q", i+1, l.raw))
				break
			}
		}
	}
	if best == "" {
		return "", "", 0
	}
	return best, why, min(0.8, max(0.3, (bestScore-1.5)/2))
}

// thanksAt is a line thanking for a visit at a named shop: the name
// after it ("Thank you for dining at Villa d'Este!", "Vielen Dank für
// Ihren Einkauf bei Getränke Wolf").
var thanksAt = regexp.MustCompile(`(?i)\b(?:thank\s?you|thanks)\s+for\s+(?:dining|shopping|visiting|eating|choosing|stopping\s+by)\s+(?:at|with|in)\s+(.+)$|\bdank\s+f(?:ü|u|ue)r\s+ihren\s+(?:einkauf|besuch)\s+(?:bei|im|in\s+der)\s+(.+)$`)

// headerName is what names a shop in header line l: its longest column
// (OCR adds marks and fragments in the margins, columns apart) that
// reads as a name, not an address, phone, web address, date, welcome
// line, number or legal name; "" when there is none.
func headerName(l parsedLine) string {
	if len(l.dates) > 0 || l.kind == kindInfo || tableHeader(l.raw) || itemLine.MatchString(strings.TrimSpace(edgeNoise.ReplaceAllString(l.raw, ""))) {
		return ""
	}
	best := ""
	cols := columnGap.Split(strings.TrimSpace(l.raw), -1)
	// (Columns far apart are the margins' fragments beside a name: "Ba
	// Friendly Red's".)
	joinable := len(cols) > 1 && !wideGap.MatchString(strings.TrimSpace(l.raw))
	for _, col := range cols {
		s := columnName(col)
		if letterCount(s) > letterCount(best) {
			best = s
		}
		// A column that is a name or a capitalised word alone ("Ki",
		// OCR's gap inside "King Taco") may be part of one name.
		c := strings.TrimSpace(edgeNoise.ReplaceAllString(col, ""))
		if s == "" && !capitalWord.MatchString(c) {
			joinable = false
		}
	}
	// A name OCR read with gaps of a few spaces ("Ki   Taco # 30"): its
	// columns, each a name or a capitalised word, read together as one
	// name.
	if joinable {
		if s := columnName(strings.Join(cols, " ")); letterCount(s) > letterCount(best) {
			best = s
		}
	}
	return best
}

// wideGap is a gap of five spaces or more: columns apart, not a word
// gap OCR widened.
var wideGap = regexp.MustCompile(`\s{5,}`)

// capitalWord is a word of letters that starts with a capital.
var capitalWord = regexp.MustCompile(`^\p{Lu}\p{L}*$`)

// columnName is what names a shop in one column of a header line: the
// column without OCR's marks at its edges, a welcome, a phone after the
// name; "" when it is not a name (an address, a phone, a web address, a
// label and its value, a legal name, fragments).
func columnName(col string) string {
	// OCR turns specks into marks and short fragments at the edges
	// (but a street's number is no fragment: "Markt 4").
	if c := strings.TrimSpace(edgeNoise.ReplaceAllString(col, "")); euStreet.MatchString(c) || streetLine.MatchString(c) {
		return ""
	}
	// A phone printed after the name, on its line ("Corner Deli
	// Phone 555-201-7788"), is not part of it.
	if m := trailingPhone.FindStringIndex(col); m != nil && m[0] > 0 {
		if phoneLabel.MatchString(col[:m[0]]) {
			return "" // "Phone: 555-201-7788"
		}
		col = col[:m[0]]
	}
	s := trimStrayWords(strings.TrimSpace(edgeNoise.ReplaceAllString(col, "")))
	if m := welcome.FindStringIndex(s); m != nil {
		s = s[m[1]:]
	}
	s = trimStrayWords(strings.TrimSpace(edgeNoise.ReplaceAllString(s, "")))
	// A chain's branch number after its name ("Subway #1234-0",
	// "Taco # 30") counts for no letters, and for no fragment.
	if !nameLike(branchCore(s)) || !wordsLike(branchCore(s)) || !wellCased(s) || labelValue.MatchString(s) || currencyOnly.MatchString(s) ||
		phoneLike.MatchString(s) || cityStateZip.MatchString(s) ||
		euZipCity.MatchString(s) || cityState.MatchString(s) || streetLine.MatchString(s) || euStreet.MatchString(s) || webLike.MatchString(s) ||
		companyLine.MatchString(s) {
		return ""
	}
	return s
}

// hasWordFold reports whether w is a word of s, in any case.
func hasWordFold(s, w string) bool {
	for _, x := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

// startsWithFold reports whether the first word of s is w, in any
// case.
func startsWithFold(s, w string) bool {
	f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return len(f) > 0 && strings.EqualFold(f[0], w)
}

// nameWordElsewhere: name (a web address's, at least four letters) is a
// word of a line of its own, not inside a web or mail address.
func nameWordElsewhere(lines []parsedLine, name string) bool {
	if len(name) < 4 {
		return false
	}
	for _, l := range lines {
		for _, w := range strings.Fields(l.raw) {
			if strings.EqualFold(strings.Trim(w, ".,:;!?'’\"()"), name) {
				return true
			}
		}
	}
	return false
}

// numberedWords are what a number follows on a receipt's lines that
// are not a name ("Store #7053", "Order #12").
var numberedWords = map[string]bool{"store": true, "shop": true, "branch": true, "filiale": true, "location": true,
	"unit": true, "register": true, "reg": true, "terminal": true, "table": true, "check": true, "order": true,
	"ticket": true, "trans": true, "guest": true, "server": true, "station": true, "markt": true}

// branchCore is name s without a branch number after it ("Subway
// #1234-0" → "Subway"), or s when the words before the number only say
// what is numbered ("Store #7053").
func branchCore(s string) string {
	core := branchSuffix.ReplaceAllString(s, "")
	if core == s || numberedWords[strings.ToLower(strings.Trim(core, " .:"))] {
		return s
	}
	return core
}

// businessWords say what a business is, in English, German, French,
// Spanish and Italian.
var businessWords = map[string]bool{
	"restaurant": true, "restaurants": true, "cafe": true, "café": true, "coffee": true, "grill": true, "pizza": true,
	"pizzeria": true, "diner": true, "kitchen": true, "bistro": true, "bakery": true, "deli": true, "market": true,
	"markt": true, "supermarkt": true, "supermarket": true, "store": true, "shop": true, "pub": true, "tavern": true,
	"taverna": true, "sushi": true, "burger": true, "burgers": true, "taqueria": true, "bbq": true, "steakhouse": true,
	"noodle": true, "noodles": true, "apotheke": true, "pharmacy": true, "drogerie": true, "bäckerei": true,
	"baeckerei": true, "metzgerei": true, "tankstelle": true, "hotel": true, "trattoria": true, "ristorante": true,
	"brasserie": true, "boulangerie": true, "restaurante": true, "cantina": true, "baumarkt": true, "pharmacie": true,
	"farmacia": true, "brewery": true, "pizzeria's": true, "cafeteria": true, "gasthaus": true, "imbiss": true,
}

// businessWord: s has a word that says what a business is, or such a
// word of six letters or more as OCR reads it: a letter wrong, lost or
// added ("RESTAURAMT"), or the word split in two ("RES TAURAN").
func businessWord(s string) bool {
	f := strings.Fields(strings.ToLower(s))
	for i := range f {
		f[i] = strings.Trim(f[i], ".,:;!'’\"()")
	}
	for i, w := range f {
		if businessWords[w] || nearBusinessWord(w) || i+1 < len(f) && nearBusinessWord(w+f[i+1]) {
			return true
		}
	}
	return false
}

// nearBusinessWord: w, six letters or more, is one edit from a business
// word of six letters or more (shorter words are too close to others:
// "pub", "deli").
func nearBusinessWord(w string) bool {
	if letterCount(w) < 6 || letterCount(w) != len([]rune(w)) {
		return false
	}
	for b := range businessWords {
		if len([]rune(b)) >= 6 && abs(len([]rune(b))-len([]rune(w))) <= 1 && editDistance(w, b) <= 1 {
			return true
		}
	}
	return false
}

// genericName: s names no shop, only its trade: each of its words of
// three letters or more is a business word ("RESTAURANTS" of
// "Restaurants, Inc.", an operator's legal name).
func genericName(s string) bool {
	n := 0
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.Trim(w, ".,:;!'’\"()")
		if letterCount(w) < 3 {
			continue
		}
		if !businessWords[w] {
			return false
		}
		n++
	}
	return n > 0
}

// joiningWords join the words of a name ("Friendly Red's of Windham").
var joiningWords = map[string]bool{"of": true, "at": true, "on": true, "and": true, "&": true, "de": true, "la": true,
	"du": true, "am": true, "im": true, "an": true, "the": true}

// cleanLine: l is one column that reads as a name, nothing beside it
// (OCR's fragments of a logo come in scattered columns).
func cleanLine(l parsedLine) bool {
	s := headerName(l)
	return s != "" && !columnGap.MatchString(strings.TrimSpace(l.raw)) && letterCount(s) >= letterCount(l.raw)-1
}

// nameContinues: s reads as the second line of a name printed on two
// lines: it starts with a joining word ("of Windham", "& Grill") or is a
// single word ("TAVERN").
func nameContinues(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return false
	}
	if joiningWords[strings.ToLower(f[0])] {
		return len(f) > 1
	}
	return len(f) == 1 && letterCount(f[0]) >= 4
}

// addressAt: line i is an address line, or a street without a street
// word ("190 Jericho Tpke") right above a city line.
func addressAt(lines []parsedLine, i int) bool {
	if addressLine(lines[i]) {
		return true
	}
	s := strings.TrimSpace(edgeNoise.ReplaceAllString(lines[i].raw, ""))
	if !houseNumber.MatchString(s) || i+1 >= len(lines) {
		return false
	}
	next := strings.TrimSpace(edgeNoise.ReplaceAllString(lines[i+1].raw, ""))
	for _, col := range columnGap.Split(next, -1) {
		col = strings.TrimSpace(edgeNoise.ReplaceAllString(col, ""))
		if cityStateZip.MatchString(col) || euZipCity.MatchString(col) {
			return true
		}
	}
	return false
}

// wellCased: the words of three letters or more of s are written as
// names are (Capitalised, ALL CAPITALS, lower case, or joined
// capitalised words: SmokeBoxBBQ), and one of them starts with a capital
// or a digit. OCR's fragments of a logo are not ("suknorS", "WNyHL",
// "eee").
func wellCased(s string) bool {
	if !casedWords(s) || sentence(s) || tableHeader(s) {
		return false
	}
	f := strings.Fields(s)
	// A name starts with a capital (or a number): "waits OES" is a
	// logo's fragments. A name of one word has four letters, or is in
	// capitals ("KFC"): "Con" is a fragment.
	if r := []rune(f[0])[0]; unicode.IsLower(r) && !joiningWords[f[0]] {
		return false
	}
	if len(f) == 1 && letterCount(f[0]) < 4 && strings.ToUpper(f[0]) != f[0] {
		return false
	}
	for _, w := range f {
		if letterCount(w) < 3 {
			continue
		}
		if r := []rune(w)[0]; unicode.IsUpper(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// tableHeader: s is the header of the items' table ("Qty Size Item
// Price", "Menge Artikel Betrag"): two of its words or more.
func tableHeader(s string) bool {
	n := 0
	for _, w := range strings.Fields(strings.ToLower(s)) {
		switch strings.Trim(w, ".:#") {
		case "qty", "quantity", "size", "item", "items", "price", "description", "amount", "menge", "artikel", "preis",
			"betrag", "bezeichnung", "anz", "ea", "each", "total", "unit":
			n++
		}
	}
	return n >= 2
}

// sentence: s reads as a slogan or a greeting, not a name: three words
// or more, two of them lower-case words of three letters or more
// ("Respekt, wer's selber macht.").
func sentence(s string) bool {
	f := strings.Fields(s)
	for _, w := range f {
		if sentenceWords[strings.ToLower(strings.Trim(w, ".,!?:;'\"’"))] {
			return true
		}
	}
	if len(f) < 3 {
		return false
	}
	lower := 0
	for _, w := range f[1:] {
		if letterCount(w) >= 3 && strings.ToLower(w) == w {
			lower++
		}
	}
	return lower >= 2
}

// sentenceWords are words of greetings and instructions, not of a
// shop's name ("Your guest number is", "Thank you", "Bitte Bon
// aufbewahren").
var sentenceWords = map[string]bool{
	"your": true, "you": true, "thank": true, "thanks": true, "please": true, "our": true, "we": true, "is": true,
	"are": true, "was": true, "will": true, "danke": true, "vielen": true, "bitte": true, "ihr": true, "ihre": true,
	"ihren": true, "sie": true, "wir": true, "merci": true, "gracias": true,
}

// casedWords: the words of three letters or more of s are written as
// names are.
func casedWords(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' }) {
		if letterCount(w) < 3 {
			continue
		}
		if !casedWord(w) {
			return false
		}
	}
	return true
}

// casedWord: w is written as a word of a name is: not lower case with a
// capital inside ("suknorS"), nor capitals, then lower case, then a
// capital again ("WNyHL").
func casedWord(w string) bool {
	r := []rune(w)
	if unicode.IsLower(r[0]) {
		return !strings.ContainsFunc(w, unicode.IsUpper)
	}
	if len(r) < 2 || !unicode.IsUpper(r[0]) || !unicode.IsUpper(r[1]) {
		return true
	}
	seenLower := false
	for _, c := range r[2:] {
		switch {
		case unicode.IsLower(c):
			seenLower = true
		case unicode.IsUpper(c) && seenLower:
			return false
		}
	}
	return true
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
			phoneLike.MatchString(col) || cityState.MatchString(col) {
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
		case len([]rune(w)) <= 2 && !(letters == len([]rune(w)) && unicode.IsUpper([]rune(w)[0]) && casedWord(w)):
			// (A short word in capitals or capitalised, "HP", "Ga",
			// is a word.)
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
var otherDate = regexp.MustCompile(`(?i)\b(order|due|delivery|ship|shipping|expir\w*|valid|g[üu]ltig|lieferdatum|bestelldatum|f[äa]llig\w*)\b`)

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
			// A labelled day and month whose year OCR mangled ("Datum:
			// 15.04. 202¢") take the year of the receipt's other dates.
			if dateLabel.MatchString(l.text) && !otherDate.MatchString(l.text) {
				if d, ok := yearlessDate(l.text, lines); ok {
					return &d, fmt.Sprintf("date: %s on the labelled line %d, its year from the receipt's other date", d.Format(time.DateOnly), i+1), 0.8
				}
			}
			continue
		}
		other := otherDate.MatchString(l.text)
		// The label may head a column, the date under it ("Datum Zeit
		// BonNr" over "02.05.2026 16:39 3619").
		labelAbove := i > 0 && len(lines[i-1].dates) == 0 && dateLabel.MatchString(lines[i-1].text) && !otherDate.MatchString(lines[i-1].text)
		if (dateLabel.MatchString(l.text) || labelAbove) && !other {
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

// dottedDayMonth is a day and month written the European way with no
// year that reads ("15.04." followed by nothing, a space or noise).
var dottedDayMonth = regexp.MustCompile(`(?:^|[^\d.,])(\d{1,2})\.(\d{1,2})\.(?:\s|$)`)

// yearlessDate reads a dotted day and month on text with the year of the
// first date elsewhere on the receipt (none: no date).
func yearlessDate(text string, lines []parsedLine) (time.Time, bool) {
	m := dottedDayMonth.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	for _, l := range lines {
		if len(l.dates) == 0 {
			continue
		}
		ref := l.dates[0].date
		d, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		if mo < 1 || mo > 12 || d < 1 || d > 31 {
			return time.Time{}, false
		}
		t := time.Date(ref.Year(), time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		// 31.04. is no date, and a day and month months away from the
		// receipt's other date are not its year's.
		if t.Day() != d || t.Sub(ref).Abs() > 60*24*time.Hour {
			return time.Time{}, false
		}
		return t, true
	}
	return time.Time{}, false
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
