package receipts

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/acctsuite/acct/pkg/money"
)

// MaxLineItems bounds the line items Parse proposes.
const MaxLineItems = 100

// maxParseBytes and maxParseLines bound the text Parse reads; a receipt
// is a few KB and under 200 lines.
const (
	maxParseBytes = 256 << 10
	maxParseLines = 2000
)

// LineItem is one proposed line of a bill.
type LineItem struct {
	Description string      `json:"description"`
	AmountCents money.Cents `json:"amount_cents"`
}

// Result is what Parse proposes for a receipt. Nil fields were not found.
type Result struct {
	ProposedVendorDisplay string       `json:"proposed_vendor_display,omitempty"`
	ProposedPaidAt        *time.Time   `json:"proposed_paid_at,omitempty"` // a date, at 00:00 UTC
	ProposedAmountCents   *money.Cents `json:"proposed_amount_cents,omitempty"`
	ProposedLineItems     []LineItem   `json:"proposed_line_items"`
	// ProposedCurrency is the receipt's currency (ISO 4217): the one its
	// codes, symbols and address name, else the business's country's
	// (Hints); "" when neither says.
	ProposedCurrency string `json:"proposed_currency,omitempty"`
	// Confidence is 0 (nothing found) to 1 (every field found and the
	// amounts add up).
	Confidence float64 `json:"confidence"`
	// FieldConfidence is how sure Parse is of each proposed field.
	FieldConfidence FieldConfidence `json:"field_confidence"`
	// Note says what to check when the total is uncertain (under
	// UncertainTotal): how it was found; "" otherwise.
	Note string `json:"note,omitempty"`
	// Reasons say how each field was found or why it was not.
	Reasons []string `json:"reasons"`
}

// FieldConfidence is how sure Parse is of each field it proposes, 0
// (not found) to 1.
type FieldConfidence struct {
	Vendor float64 `json:"vendor"`
	PaidAt float64 `json:"paid_at"`
	Amount float64 `json:"amount"`
}

// UncertainTotal is the amount confidence under which Parse adds a Note:
// a total that no total line and no arithmetic confirm.
const UncertainTotal = 0.7

// lineKind classifies a receipt line by its words.
type lineKind int

const (
	kindOther lineKind = iota
	kindTotal
	kindSubtotal
	kindTax
	kindTip
	kindPayment
	kindDiscount
	kindInfo // counts, card details, references: an amount there is not an item
)

// parsedLine is one line of the text with what Parse found in it.
type parsedLine struct {
	raw      string
	text     string // after OCR digit repair
	kind     lineKind
	amount   money.Cents
	before   string // the text before the amount
	hasAmt   bool
	negative bool
	dates    []dateMatch
}

// Parse proposes a vendor, a date, a total and line items from a
// receipt's text (as Extract returns it, OCR noise included). now bounds
// the plausible dates (not after now, not 20 years before) and resolves
// two-digit years. It never fails: what it cannot find stays nil, with a
// reason.
func Parse(text string, now time.Time) Result { return ParseFor(text, now, Hints{}) }

// Hints is what is known of a receipt before reading it.
type Hints struct {
	// Country is the business's country (ISO 3166-1 alpha-2; "" when
	// unknown): it decides how a date such as 03/04/2026 reads when the
	// receipt itself does not (a decimal comma, a dotted date, a day over
	// 12 do): month first in the United States and the few countries that
	// write dates so, day first elsewhere.
	Country string
}

// monthFirstCountries write numeric dates month first.
var monthFirstCountries = map[string]bool{
	"US": true, "PR": true, "GU": true, "VI": true, "AS": true, "MP": true, "UM": true, // the United States and its territories
	"PH": true, "FM": true, "MH": true, "PW": true, "CA": true, "BZ": true,
}

// dayFirstCountry: a business of country c reads 03/04 as the 3rd of
// April (false for an unknown country).
func dayFirstCountry(c string) bool {
	c = strings.ToUpper(strings.TrimSpace(c))
	return len(c) == 2 && !monthFirstCountries[c]
}

// ParseFor is Parse with what is known of the receipt (h).
func ParseFor(text string, now time.Time, h Hints) Result {
	if len(text) > maxParseBytes {
		text = text[:maxParseBytes]
	}
	text = strings.ToValidUTF8(text, "")
	var res Result
	res.ProposedLineItems = []LineItem{}
	lines := splitLines(text)
	// The receipt's own convention first (a decimal comma), then the
	// business's country.
	comma := decimalComma(lines)
	dayFirst := comma || dayFirstCountry(h.Country)
	for i := range lines {
		l := &lines[i]
		l.dates = findDates(l.text, dayFirst, now)
		l.kind = classify(l.text)
		// A date's numbers are not an amount, unless a total's label
		// comes after the date ("06/10 12:39 TOTAL 7.55").
		if len(l.dates) == 0 || l.kind == kindTotal {
			l.amount, l.before, l.negative, l.hasAmt = amountAtEnd(l.text)
			// On a labelled line, a fragment columns after the amount is
			// OCR's reading of a mark in the margin ("Tax:  3.91
			// Tee"): the amount ends the line without it.
			if !l.hasAmt && l.kind != kindOther && l.kind != kindInfo {
				if t, ok := withoutMarginTail(l.raw, l.text); ok {
					l.amount, l.before, l.negative, l.hasAmt = amountAtEnd(t)
				}
			}
		}
	}
	score := 0.0
	if v, why, conf := findVendor(lines); v != "" {
		res.ProposedVendorDisplay = v
		res.FieldConfidence.Vendor = conf
		res.Reasons = append(res.Reasons, why)
		score += 0.2
	} else {
		res.Reasons = append(res.Reasons, "vendor: no name line found")
	}
	if d, why, conf := pickDate(lines); d != nil {
		res.ProposedPaidAt = d
		res.FieldConfidence.PaidAt = conf
		res.Reasons = append(res.Reasons, why)
		score += 0.2
	} else {
		res.Reasons = append(res.Reasons, "date: none found")
	}
	cur, why := findCurrency(lines, comma, h.Country)
	res.ProposedCurrency = cur
	res.Reasons = append(res.Reasons, why)
	items, itemsEnd := findItems(lines)
	res.ProposedLineItems = items
	total, consistent, conf, why := pickTotal(lines, items, itemsEnd)
	res.Reasons = append(res.Reasons, why)
	if total != nil {
		res.ProposedAmountCents = total
		res.FieldConfidence.Amount = conf
		score += 0.3
		if consistent {
			score += 0.2
		}
		if conf < UncertainTotal {
			res.Note = "the total is uncertain, check it: " + strings.TrimPrefix(why, "total: ")
		}
	}
	if len(items) > 0 {
		score += 0.1
		res.Reasons = append(res.Reasons, fmt.Sprintf("line items: %d lines with an amount above the totals", len(items)))
	} else {
		res.Reasons = append(res.Reasons, "line items: none found")
	}
	res.Confidence = min(score, 1)
	return res
}

// marginTail is a short fragment a gap after an amount with two
// decimals that ends a line: a word of up to five characters, perhaps a
// mark after it ("Tee", "Ware 4", "&").
var marginTail = regexp.MustCompile(`\d[.,]\s?\d{2}\s{2,}(\S{1,5}(?:\s\S{1,2})?)$`)

// withoutMarginTail is text (raw as OCR read it, text repaired) without
// the margin's fragment after its last amount; ok is false when there
// is none, or when the fragment holds two digits or more (a column of
// the table, "22 81", not a mark).
func withoutMarginTail(raw, text string) (string, bool) {
	m := marginTail.FindStringSubmatch(raw)
	if m == nil || digitCount(m[1]) > 1 {
		return "", false
	}
	t := strings.TrimSpace(text)
	if !strings.HasSuffix(t, m[1]) {
		return "", false
	}
	return strings.TrimSpace(strings.TrimSuffix(t, m[1])), true
}

func digitCount(s string) int {
	n := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n++
		}
	}
	return n
}

func splitLines(text string) []parsedLine {
	var out []parsedLine
	for raw := range strings.Lines(text) {
		raw = strings.TrimRightFunc(raw, unicode.IsSpace)
		clean := strings.Map(func(r rune) rune {
			if r == '\t' || unicode.IsSpace(r) {
				return ' '
			}
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, raw)
		clean = strings.TrimSpace(clean)
		if clean == "" {
			continue
		}
		out = append(out, parsedLine{raw: clean, text: fixDigits(clean)})
		if len(out) == maxParseLines {
			break
		}
	}
	return out
}

var (
	commaDecimals = regexp.MustCompile(`\d,\d{2}(?:\D|$)`)
	dotDecimals   = regexp.MustCompile(`\d\.\d{2}(?:\D|$)`)
	dottedDate    = regexp.MustCompile(`\b\d{1,2}\.\d{1,2}\.\d{2,4}\b`)
)

// decimalComma reports whether the receipt writes amounts the European
// way (12,34): then its numeric dates are read day first too.
func decimalComma(lines []parsedLine) bool {
	comma, dot := 0, 0
	for _, l := range lines {
		t := dottedDate.ReplaceAllString(l.text, " ")
		comma += len(commaDecimals.FindAllString(t, -1))
		dot += len(dotDecimals.FindAllString(t, -1))
	}
	return comma > dot
}

// words returns the upper-cased words of a line's text, OCR's digits in
// words read as letters ("T0TAL" → "TOTAL", "SUBT0TAL").
func words(s string) []string {
	f := strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '#' && r != '%'
	})
	out := f[:0:0]
	for _, w := range f {
		// A number glued to a word ("1:399TOTAL", a time and the label
		// read as one) is the two.
		if m := gluedNumberWord.FindStringSubmatch(w); m != nil {
			out = append(out, m[1], m[2])
			continue
		}
		letters := 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters >= 2 && letters < len(w) {
			w = strings.NewReplacer("0", "O", "1", "L", "5", "S", "8", "B").Replace(w)
		}
		out = append(out, w)
	}
	return out
}

// gluedNumberWord is a number followed by a word of three letters or
// more, without a space.
var gluedNumberWord = regexp.MustCompile(`^(\d{2,})(\p{L}{3,})$`)

// near reports whether word w is kw or within one edit of it (for words
// of five letters or more): OCR's "TOTA1" or "T0TAL" is still TOTAL.
func near(w, kw string) bool {
	if w == kw {
		return true
	}
	if len(kw) < 5 || abs(len(w)-len(kw)) > 1 {
		return false
	}
	return editDistance(w, kw) <= 1
}

func hasWord(ws []string, kws ...string) bool {
	for _, w := range ws {
		for _, kw := range kws {
			if near(w, kw) {
				return true
			}
		}
	}
	return false
}

func hasPhrase(ws []string, a, b string) bool {
	for i := 0; i+1 < len(ws); i++ {
		if near(ws[i], a) && near(ws[i+1], b) {
			return true
		}
	}
	return false
}

// percentRate is a tax rate as a VAT table prints it (7,00%, 19 %,
// 8.875%): its whole number and its decimals (rateOf).
var percentRate = regexp.MustCompile(`(\d{1,2})(?:[.,](\d{1,3}))?\s?%`)

// moneyLike is an amount with two decimals.
var moneyLike = regexp.MustCompile(`\d[.,]\d{2}\b`)

// taxTable reports whether text is a row of a VAT table: a rate and at
// least two amounts.
func taxTable(text string) bool {
	return percentRate.MatchString(text) && len(moneyLike.FindAllStringIndex(text, -1)) >= 2
}

// maskedCard is a card number as receipts print it: ****1234, XXXX1234.
var maskedCard = regexp.MustCompile(`(?i)(?:\*{3,}|x{4,}|#{4,})\s?\d{4}`)

// classify tells what a line is by its words, before its amount.
func classify(text string) lineKind {
	ws := words(text)
	if len(ws) == 0 {
		return kindOther
	}
	ws = totalWords(ws)
	joined := strings.Join(ws, " ")
	switch {
	case toPay(ws):
		// "Net à payer", "Te betalen", "Total a pagar": what is due.
		if hasWord(ws, "PAID", "TENDERED", "TENDER", "CHANGE", "GEGEBEN", "BARGELD", "ZURUCK", "ZURÜCK", "RUCKGELD", "RÜCKGELD") {
			return kindPayment
		}
		return kindTotal
	case hasWord(ws, "SUBTOTAL", "SUBTOTALE", "ZWISCHENSUMME", "NETTO", "NET", "IMPONIBILE") || hasPhrase(ws, "SUB", "TOTAL") ||
		hasPhrase(ws, "SOUS", "TOTAL") || subTotalShort(ws):
		return kindSubtotal
	case hasWord(ws, "SAVINGS", "DISCOUNT", "COUPON", "REBATE", "PROMO"):
		return kindDiscount
	case taxTable(text):
		// A row of a VAT table (rate, net, tax, gross): its amounts are
		// neither items nor the total.
		return kindInfo
	case hasWord(ws, "TOTAL", "TOTALE", "SUMME", "GESAMT", "MONTANT", "ENDBETRAG", "ENDSUMME", "ZAHLBETRAG",
		"GESAMTBETRAG", "GESAMTSUMME", "BETRAG") || hasPhrase(ws, "AMOUNT", "DUE") ||
		hasPhrase(ws, "BALANCE", "DUE") || hasWord(ws, "BALANCE") || hasPhrase(ws, "BAL", "DUE") || hasPhrase(ws, "TO", "PAY") || hasPhrase(ws, "ZU", "ZAHLEN") ||
		hasPhrase(ws, "AMT", "DUE") || hasPhrase(ws, "W", "TAX"):
		if hasWord(ws, "MWST", "UST", "STEUER", "NETTO") {
			return kindTax
		}
		if hasWord(ws, "ITEMS", "ITEM", "QTY", "QUANTITY") || hasPhrase(ws, "TOTAL", "TAX") || hasPhrase(ws, "TAX", "TOTAL") {
			if hasPhrase(ws, "TOTAL", "TAX") || hasPhrase(ws, "TAX", "TOTAL") {
				return kindTax
			}
			return kindInfo
		}
		// (CONTANT, cash in Dutch, is one letter from MONTANT.)
		if hasWord(ws, "PAID", "TENDERED", "TENDER", "CHANGE", "GEGEBEN", "BARGELD", "ZURUCK", "ZURÜCK", "RUCKGELD", "RÜCKGELD") ||
			slices.Contains(ws, "CONTANT") || slices.Contains(ws, "CONTANTI") {
			return kindPayment
		}
		return kindTotal
	case hasWord(ws, "TAX", "VAT", "GST", "HST", "PST", "QST", "MWST", "IVA", "TVA", "UST", "BTW") || strings.Contains(joined, "SALES TAX"):
		return kindTax
	case hasWord(ws, "TIP", "GRATUITY", "TIPS", "GRAT", "TRINKGELD") || serviceCharge(ws):
		if percentRate.MatchString(text) && !serviceCharge(ws) {
			return kindInfo // a suggested tip ("18% TIP 8.09"), not one added; a service charge is
		}
		return kindTip
	case hasWord(ws, "VISA", "MASTERCARD", "AMEX", "DISCOVER", "CASH", "CHANGE", "DEBIT", "CREDIT", "TENDERED",
		"TENDER", "PAYMENT", "PAID", "MAESTRO", "GIROCARD", "APPROVED", "AUTH", "APPROVAL",
		"BARGELD", "GEGEBEN", "ZURUCK", "ZURÜCK", "RUCKGELD", "RÜCKGELD", "WECHSELGELD", "KARTE", "KARTENZAHLUNG",
		"ESPECES", "ESPÈCES", "RENDU", "MONNAIE", "EFECTIVO", "CAMBIO", "CONTANTI", "RESTO", "CONTANT", "WISSELGELD", "PINNEN") ||
		(ws[0] == "BAR" || ws[0] == "EC") && len(ws) <= 4 ||
		hasWord(ws, "MC") && len(ws) <= 4 || maskedCard.MatchString(text):
		return kindPayment
	case hasWord(ws, "SOLD", "COUNT", "ACCOUNT", "REF", "INVOICE", "RECEIPT", "TRANS", "TRANSACTION", "TERMINAL", "CASHIER", "REG",
		"RECHNUNG", "QUITTUNG", "KASSENBON", "FACTURE", "FACTUUR", "FACTURA", "FATTURA", "RICEVUTA", "RECIBO"):
		return kindInfo
	}
	return kindOther
}

// totalWords reads a total's label as its whole word: TTL, the short
// form tills print ("TTL 12.50", "SUB TTL"), and TOTAL, SUBTOTAL or
// SUMME that OCR split in two ("Tot al", "Su mme").
func totalWords(ws []string) []string {
	out := make([]string, 0, len(ws))
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if w == "TTL" {
			w = "TOTAL"
		} else if i+1 < len(ws) {
			switch j := w + ws[i+1]; j {
			case "TOTAL", "SUBTOTAL", "SUMME":
				w = j
				i++
			}
		}
		out = append(out, w)
	}
	return out
}

// subTotalShort: the subtotal's label abbreviated ("SUBTTL", "Sub
// Ttl", "Sub/Tt" as OCR reads it): SUB and TTL, TL, TT or TOT after
// it.
func subTotalShort(ws []string) bool {
	if slices.Contains(ws, "SUBTTL") || slices.Contains(ws, "SUBTL") {
		return true
	}
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] == "SUB" && slices.Contains([]string{"TTL", "TL", "TT", "TOT"}, ws[i+1]) {
			return true
		}
	}
	return false
}

// serviceCharge: a service charge, its first word whole or shortened
// ("SERVICE CHARGE", "SERV. CHARGE", "SVC CHARGE"): added to the bill as
// a tip is, and no change given (CHARGE is one letter from CHANGE).
func serviceCharge(ws []string) bool {
	return hasPhrase(ws, "SERVICE", "CHARGE") || hasPhrase(ws, "SERV", "CHARGE") || hasPhrase(ws, "SVC", "CHARGE") ||
		hasPhrase(ws, "SRV", "CHARGE")
}

// toPay: the words of a line say what is to be paid, in French, Dutch,
// Spanish, Italian or German ("Net à payer", "Te betalen", "Total a
// pagar", "Da pagare").
func toPay(ws []string) bool {
	return hasPhrase(ws, "A", "PAYER") || hasPhrase(ws, "À", "PAYER") || hasPhrase(ws, "TE", "BETALEN") ||
		hasPhrase(ws, "A", "PAGAR") || hasPhrase(ws, "DA", "PAGARE") || hasWord(ws, "APAYER")
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance of two strings, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// EditDistance is the Levenshtein distance of a and b in runes, exported
// for matching a proposed vendor name against known vendors.
func EditDistance(a, b string) int { return editDistance(a, b) }
