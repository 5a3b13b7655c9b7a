package receipts

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// dateMatch is one date found in a line.
type dateMatch struct {
	date  time.Time
	start int
	kind  string // iso, numeric, named
}

var (
	// (A time may follow an ISO date after a T: 2026-03-14T08:15.)
	isoDate     = regexp.MustCompile(`\b(\d{4})\s?[-/.]\s?(\d{1,2})\s?[-/.]\s?(\d{1,2})(?:\b|T\d)`)
	numericDate = regexp.MustCompile(`\b(\d{1,2})\s?([-/.])\s?(\d{1,2})\s?[-/.]\s?(\d{4}|\d{2})\b`)
	// English, German, Dutch, French, Spanish and Italian month names
	// and their abbreviations (longest first where one begins another).
	monthName = `(janv|jan|févr|fevr|fév|fev|feb|mär|maer|maart|mrt|mars|mar|avr|apr|abr|may|mai|mei|mag|juin|juil|jun|jul|giu|lug|août|aout|aug|ago|sept|sep|set|oct|okt|ott|nov|déc|dec|dez|dic|ene|gen)[a-zäéû]*\.?`
	// A named month needs a separator on both sides, and a two-digit year
	// its apostrophe: "6OCT 21,81" is vitamins, not 6 October 2021.
	// (or a dash, a dot or a slash right after the month: "14-Mar-19",
	// "04 MAR.19"; or a space, when no decimals follow: "14 MAR 26",
	// not "2 MAR 21.50").
	dayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?[\s\-/.]+` + monthName + `(?:[\s,\-/.]+(\d{4})\b|\s?['’](\d{2})\b|[\-/.](\d{2})\b|\s(\d{2})(?:$|[^\w.,:]|[.,:](?:\D|$)))`)
	// A two-digit year after a month's name and its day needs its
	// apostrophe or a dash: "Jun28'17", "Feb23-19".
	// A time may stand between the day and the year ("Sun Jun 24
	// 20:49:53 2018").
	monthDay = regexp.MustCompile(`(?i)\b` + monthName + `[\s\-/.]*(\d{1,2})(?:st|nd|rd|th)?(?:(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?[\s,\-/.]+(\d{4})|['’-](\d{2}))\b`)
)

// gluedTime is a numeric date with a four-digit year and a time right
// after it, without the space between them.
var gluedTime = regexp.MustCompile(`(\b\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)\d{2})(\d{1,2}:\d{2})`)

// monthToken is a word of three or four letters and digits: a month's
// short name with a letter OCR read as a digit ("0ct", "N0V", "Ju1",
// "5EP", "Au9").
var monthToken = regexp.MustCompile(`\b[A-Za-z0159]{3,4}\b`)

// monthRepair reads a month's short name OCR wrote with a digit for a
// letter (0 for O, 1 for l, 5 for S, 9 for g) as the name; any other
// word stays as it is.
func monthRepair(w string) string {
	if !strings.ContainsAny(w, "0159") || letterCount(w) < 2 {
		return w
	}
	r := strings.NewReplacer("0", "o", "1", "l", "5", "s", "9", "g").Replace(strings.ToLower(w))
	if _, ok := months[r]; !ok && r != "sept" && r != "june" && r != "july" {
		return w
	}
	if strings.ToUpper(w) == w {
		return strings.ToUpper(r)
	}
	return r
}

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "mär": 3, "maer": 3, "apr": 4, "may": 5, "mai": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "okt": 10, "nov": 11, "dec": 12, "dez": 12,
	"janv": 1, "ene": 1, "gen": 1, "févr": 2, "fevr": 2, "fév": 2, "fev": 2, "maart": 3, "mrt": 3, "mars": 3,
	"avr": 4, "abr": 4, "mei": 5, "mag": 5, "juin": 6, "giu": 6, "juil": 7, "lug": 7, "août": 8, "aout": 8,
	"ago": 8, "set": 9, "ott": 10, "déc": 12, "dic": 12,
}

// findDates returns the dates in a line. dayFirst says how to read an
// ambiguous 03/04/2026: day first (European receipts) or month first (US).
// A slash or dash date whose first number is over 12 is day first
// whatever the hint; a dotted one is always day first.
func findDates(line string, dayFirst bool, now time.Time) []dateMatch {
	// A time OCR glued to the year ("12/8/201704:44:05") is set apart
	// (the date keeps its place in the line).
	line = gluedTime.ReplaceAllString(line, "$1 $2")
	line = monthToken.ReplaceAllStringFunc(line, monthRepair)
	var out []dateMatch
	add := func(y, m, d, start int, kind string) {
		if y < 100 {
			y += 2000
			if y > now.Year()+1 {
				y -= 100
			}
		}
		// OCR reads the 0 of 2019 as a 9 or an 8 ("2919"): a year of a
		// coming century is this one's.
		if y > now.Year()+1 && y < 3000 && y/100%10 != 0 {
			y = 2000 + y%100
		}
		if m < 1 || m > 12 || d < 1 || d > 31 {
			return
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d { // 31 April and the like
			return
		}
		// A receipt is not from the future, nor older than 20 years.
		if t.After(now.AddDate(0, 0, 2)) || t.Before(now.AddDate(-20, 0, 0)) {
			return
		}
		for _, o := range out {
			if o.start <= start && start < o.start+10 {
				return
			}
		}
		out = append(out, dateMatch{date: t, start: start, kind: kind})
	}
	for _, m := range isoDate.FindAllStringSubmatchIndex(line, -1) {
		add(atoi(line, m[2], m[3]), atoi(line, m[4], m[5]), atoi(line, m[6], m[7]), m[0], "iso")
	}
	for _, m := range numericDate.FindAllStringSubmatchIndex(line, -1) {
		a, b, y := atoi(line, m[2], m[3]), atoi(line, m[6], m[7]), atoi(line, m[8], m[9])
		sep := line[m[4]:m[5]]
		// OCR reads the 1 of a month 10-12 as a 4 or a 7 ("40/29/2026"):
		// a first number no date has, with a four-digit year, is repaired
		// when the second is a day.
		if a > 31 && (a/10 == 4 || a/10 == 7) && a%10 <= 2 && m[9]-m[8] == 4 && b >= 1 && b <= 31 {
			a = 10 + a%10
		}
		df := dayFirst || sep == "." || a > 12
		if b > 12 && a <= 12 {
			df = false
		}
		if df {
			add(y, b, a, m[0], "numeric")
		} else {
			add(y, a, b, m[0], "numeric")
		}
	}
	for _, m := range dayMonth.FindAllStringSubmatchIndex(line, -1) {
		mon := months[strings.ToLower(line[m[4]:m[5]])]
		y := m[6:8]
		for k := 8; y[0] < 0 && k+1 < len(m); k += 2 {
			y = m[k : k+2]
		}
		add(atoi(line, y[0], y[1]), int(mon), atoi(line, m[2], m[3]), m[0], "named")
	}
	for _, m := range monthDay.FindAllStringSubmatchIndex(line, -1) {
		mon := months[strings.ToLower(line[m[2]:m[3]])]
		y := m[6:8]
		if y[0] < 0 {
			y = m[8:10]
		}
		add(atoi(line, y[0], y[1]), int(mon), atoi(line, m[4], m[5]), m[0], "named")
	}
	return out
}

func atoi(s string, i, j int) int {
	n, err := strconv.Atoi(s[i:j])
	if err != nil {
		return -1
	}
	return n
}
