package receipts

import (
	"regexp"
	"strings"

	"github.com/acctsuite/acct/pkg/money"
)

// maxAmount bounds an amount read from a receipt ($10,000,000.00): OCR
// that runs digits together gives absurd numbers, and no receipt is that
// large.
const maxAmount money.Cents = 1_000_000_000

// trailingAmount matches an amount at the end of a (cleaned) line: an
// optional sign and currency, an integer part with or without thousands
// separators, a decimal separator ('.' or ',', OCR may put a space beside
// it) and exactly two decimals, then an optional currency.
var trailingAmount = regexp.MustCompile(
	`(?:^|[^\w.,])(-\s?)?(?:\$|USD|EUR|€|£|§)?\s?(\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{3})+|\d+)\s?([.,:])\s?(\d{2})(?:\s?(?:EUR|USD|€|\$))?(-)?$`)

// gluedFlag is a tax flag OCR glued to the amount ("2.16T"), and a last
// decimal read as a letter before it ("8.6LT").
var (
	gluedFlag   = regexp.MustCompile(`(\d[.,:]\s?\d{2})[A-Za-z]$`)
	letterDigit = regexp.MustCompile(`(\d[.,]\s?\d)[LlIi|]([A-Za-z]?)$`)
)

// trailingNoise is what follows an amount on a receipt line and is not
// part of it: tax flags ("3.49 T", "12.00 A"), OCR's stray marks.
var trailingNoise = regexp.MustCompile(`(?:[\s:;,|'"©®*~_\\/!.‘’“”°=—–-]+|\s[A-Za-z]{1,2}\b)+$`)

// ocrDigit maps letters OCR often reads in place of digits.
var ocrDigit = map[rune]rune{'O': '0', 'o': '0', 'D': '0', 'Q': '0', 'l': '1', 'I': '1', '|': '1', 'i': '1', '!': '1', 'S': '5', 's': '5', 'B': '8', 'Z': '2', 'z': '2'}

// fixDigits repairs OCR's letters-for-digits inside tokens that are
// otherwise numbers ("1O.5O" → "10.50", "l2,34" → "12,34", "$2O.00"),
// leaving words alone: a token is repaired only when it has a digit and a
// decimal separator followed by two digit-like characters, or when at
// least half of it is digits already.
func fixDigits(line string) string {
	fields := strings.Fields(line)
	changed := false
	for i, f := range fields {
		if fixed, ok := fixToken(f); ok {
			fields[i] = fixed
			changed = true
		}
	}
	if !changed {
		return line
	}
	// Rebuild with single spaces: positions no longer matter after this.
	return strings.Join(fields, " ")
}

// markedAmount is an amount with two decimals and a mark glued after it.
var markedAmount = regexp.MustCompile(`^([$€£]?\d+[.,]\d{2})[!|]$`)

var amountLike = regexp.MustCompile(`^[$€£]?[0-9OoDQlI|i!SsBZz]{1,7}[.,][0-9OoDQlI|i!SsBZz]{2}[A-Za-z]?$`)

// dateShaped is a numeric date whose digits OCR may have read as
// letters: two numbers of one or two, then a year of two or four,
// slashes, dashes or dots between them.
var dateShaped = regexp.MustCompile(`^[0-9OoDQlI|iSsBZz]{1,2}([/.-])[0-9OoDQlI|iSsBZz]{1,2}([/.-])[0-9OoDQlI|iSsBZz]{2}(?:[0-9OoDQlI|iSsBZz]{2})?$`)

func fixToken(tok string) (string, bool) {
	// A mark after an amount's two decimals is not a third one
	// ("$35.52!").
	if m := markedAmount.FindStringSubmatch(tok); m != nil {
		return m[1], true
	}
	digits, mapped, other := 0, 0, 0
	for _, r := range tok {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case ocrDigit[r] != 0:
			mapped++
		case r == '.' || r == ',' || r == '$' || r == '-' || r == '/' || r == ':':
		default:
			other++
		}
	}
	if mapped == 0 || digits == 0 || other > 0 {
		return "", false
	}
	// (A date's shape, "O8/l2/2O19", is a number's however many of its
	// digits OCR read as letters.)
	if !amountLike.MatchString(tok) && digits < 2*mapped && !(dateShaped.MatchString(tok) && digits >= 2) {
		return "", false
	}
	var b strings.Builder
	for i, r := range tok {
		if d, ok := ocrDigit[r]; ok {
			// A trailing letter after an amount is a tax flag: keep it.
			if i == len(tok)-1 && len(tok) > 3 && (tok[len(tok)-3] == '.' || tok[len(tok)-3] == ',') && r != 'O' && r != 'o' && r != 'l' && r != 'I' {
				b.WriteRune(r)
				continue
			}
			b.WriteRune(d)
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), true
}

// amountAtEnd finds the amount at the end of a line. It returns the
// amount, the text before it, and whether one was found. Amounts are read
// through pkg/money, never as floats; a negative or absurd amount is not
// one.
func amountAtEnd(line string) (amount money.Cents, before string, negative, ok bool) {
	s := strings.TrimSpace(line)
	ampm := false
	if loc := trailingNoise.FindStringIndex(s); loc != nil {
		ampm = meridiem.MatchString(s[loc[0]:])
		s = s[:loc[0]]
	}
	// A lone digit columns after an amount is a mark or a count, not
	// the amount.
	if m := strayDigit.FindStringSubmatchIndex(s); m != nil {
		if m[2] >= 0 {
			s = s[:m[2]]
		} else {
			s = s[:m[4]]
		}
	}
	// Dot leaders between the label and the amount ("Total.....12.50")
	// are not part of it.
	s = dotLeader.ReplaceAllString(s, " $1")
	s = letterDigit.ReplaceAllString(s, "${1}1${2}")
	s = gluedFlag.ReplaceAllString(s, "$1")
	m := trailingAmount.FindStringSubmatchIndex(s)
	if m == nil {
		return wholeAmountAtEnd(s)
	}
	intPart := s[m[4]:m[5]]
	intPart = strings.NewReplacer(",", "", ".", "").Replace(intPart)
	frac := s[m[8]:m[9]]
	c, err := money.Parse(intPart + "." + frac)
	if err != nil || c > maxAmount {
		return 0, "", false, false
	}
	negative = m[2] >= 0 || m[10] >= 0
	start := m[0]
	if start < len(s) && !isAmountStart(s[start]) {
		start++ // the separator before the amount belongs to the text
	}
	before = strings.TrimSpace(s[:start])
	// OCR reads a decimal point as a colon ("24:11"), but a time is not an
	// amount: a colon counts only after a description.
	if s[m[6]:m[7]] == ":" && (ampm || letterCount(before) < 2 || strings.Contains(strings.ToLower(before), "time") ||
		strings.TrimRight(before, "0123456789") != before) {
		return 0, "", false, false
	}
	return c, before, negative, true
}

// dotLeader is a run of dots (or underscores) leading to an amount.
var dotLeader = regexp.MustCompile(`(?:[._·…]\s?){3,}([$€£]?\d)`)

// meridiem is the AM or PM after a time ("12:49 PM"): the time is not
// an amount.
var meridiem = regexp.MustCompile(`(?i)^\s*[ap]\.?m\.?\s*$`)

// strayDigit is a single digit three spaces or more after an amount,
// or after an amount with a decimal comma, a space or more (a German
// receipt's VAT code: "29,98 1").
var strayDigit = regexp.MustCompile(`(?:\d[.,]\d{2})(\s{3,}\d)$|(?:\d,\d{2})(\s+\d)$`)

// wholeCurrencyAmount is an amount in whole units after the mark of a
// currency that is printed so (rupees, yen: "Rs 1939", "₹ 1,939").
var wholeCurrencyAmount = regexp.MustCompile(`(?:\bRs\.?|₹|\bINR|¥|\bJPY)\s?(\d{1,3}(?:,\d{3})+|\d{1,7})$`)

// wholeAmountAtEnd is amountAtEnd of an amount in whole units.
func wholeAmountAtEnd(s string) (amount money.Cents, before string, negative, ok bool) {
	m := wholeCurrencyAmount.FindStringSubmatchIndex(s)
	if m == nil {
		return 0, "", false, false
	}
	c, err := money.Parse(strings.ReplaceAll(s[m[2]:m[3]], ",", ""))
	if err != nil || c <= 0 || c > maxAmount {
		return 0, "", false, false
	}
	return c, strings.TrimSpace(s[:m[0]]), false, true
}

func isAmountStart(b byte) bool {
	return b == '-' || b == '$' || b >= '0' && b <= '9' || b == 'E' || b == 'U' || b == 0xE2 || b == 0xC2
}
