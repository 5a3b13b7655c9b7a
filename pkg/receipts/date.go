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
	isoDate     = regexp.MustCompile(`\b(\d{4})\s?[-/.]\s?(\d{1,2})\s?[-/.]\s?(\d{1,2})\b`)
	numericDate = regexp.MustCompile(`\b(\d{1,2})\s?([-/.])\s?(\d{1,2})\s?[-/.]\s?(\d{4}|\d{2})\b`)
	// English and German month names and their abbreviations.
	monthName = `(jan|feb|mar|mär|maer|apr|may|mai|jun|jul|aug|sep|sept|oct|okt|nov|dec|dez)[a-zä]*\.?`
	// A named month needs a separator on both sides, and a two-digit year
	// its apostrophe: "6OCT 21,81" is vitamins, not 6 October 2021.
	dayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?[\s\-/.]+` + monthName + `[\s,\-/.]+(\d{4}|'\d{2})\b`)
	monthDay = regexp.MustCompile(`(?i)\b` + monthName + `[\s\-/.]*(\d{1,2})(?:st|nd|rd|th)?[\s,\-/.]+(\d{4})\b`)
)

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "mär": 3, "maer": 3, "apr": 4, "may": 5, "mai": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "okt": 10, "nov": 11, "dec": 12, "dez": 12,
}

// findDates returns the dates in a line. dayFirst says how to read an
// ambiguous 03/04/2026: day first (European receipts) or month first (US).
// A slash or dash date whose first number is over 12 is day first
// whatever the hint; a dotted one is always day first.
func findDates(line string, dayFirst bool, now time.Time) []dateMatch {
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
		y := strings.TrimPrefix(line[m[6]:m[7]], "'")
		yi, _ := strconv.Atoi(y)
		add(yi, int(mon), atoi(line, m[2], m[3]), m[0], "named")
	}
	for _, m := range monthDay.FindAllStringSubmatchIndex(line, -1) {
		mon := months[strings.ToLower(line[m[2]:m[3]])]
		add(atoi(line, m[6], m[7]), int(mon), atoi(line, m[4], m[5]), m[0], "named")
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
