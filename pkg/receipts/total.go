package receipts

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acctsuite/acct/pkg/money"
)

// totalCandidate is an amount of the receipt that may be its total, with
// what speaks for and against it.
type totalCandidate struct {
	amount money.Cents
	line   int
	score  float64
	why    []string
}

// cashWords are a payment line's words for cash given and change back:
// their amounts are not the total (a card payment's is).
var cashWords = []string{"CASH", "CHANGE", "TENDERED", "TENDER", "BARGELD", "GEGEBEN", "ZURUCK", "ZURÜCK",
	"ESPECES", "ESPÈCES", "RENDU", "MONNAIE", "EFECTIVO", "CAMBIO", "CONTANTI", "RESTO", "CONTANT", "WISSELGELD",
	"RUCKGELD", "RÜCKGELD", "WECHSELGELD", "CHNG"}

// changeWords are the change-back words.
var changeWords = []string{"CHANGE", "CHNG", "ZURUCK", "ZURÜCK", "RUCKGELD", "RÜCKGELD", "WECHSELGELD", "RENDU",
	"MONNAIE", "CAMBIO", "RESTO", "WISSELGELD"}

// pickTotal proposes the total from scored candidates, every amount of
// the receipt: its line's words (a total line, or the line below one; a
// subtotal, tax, tip, discount, change or information line counts
// against), the arithmetic of the other amounts (subtotal + tax + tip,
// the items + tax + tip, cash given − change, the card payment's
// amount), and its place (the total comes after the items, and is
// usually the largest amount that is not cash given). consistent: an
// arithmetic check or a payment confirms it.
// conf is how sure pickTotal is (Result.FieldConfidence.Amount): a total
// line confirmed by arithmetic or a payment 0.95, a total line alone
// 0.75, arithmetic alone 0.6 (0.8 with the payment), the largest amount
// 0.3.
func pickTotal(lines []parsedLine, items []LineItem, itemsEnd int) (total *money.Cents, consistent bool, conf float64, why string) {
	var sub, tax, tip, card, cash, change []money.Cents
	var subLines, tipLines []int
	type amt struct {
		line int
		a    money.Cents
		kind lineKind
		// below: the amount stands alone on the line after a labelled
		// one (a large total printed apart from its label).
		below lineKind
	}
	var all []amt
	for i, l := range lines {
		a, ok := l.amount, l.hasAmt
		below := kindOther
		if ok && i > 0 && letterCount(l.before) == 0 && !lines[i-1].hasAmt {
			below = lines[i-1].kind
		}
		if !ok && (l.kind == kindTotal || l.kind == kindSubtotal || l.kind == kindTax) && i+1 < len(lines) &&
			lines[i+1].hasAmt && letterCount(lines[i+1].before) == 0 {
			continue // the amount is read on the next line, as below
		}
		if !ok || l.negative {
			continue
		}
		kind := l.kind
		if kind == kindOther && below != kindOther {
			kind = below
		}
		all = append(all, amt{line: i, a: a, kind: kind, below: below})
		switch kind {
		case kindSubtotal:
			sub, subLines = append(sub, a), append(subLines, i)
		case kindTax:
			tax = append(tax, a)
		case kindTip:
			tip, tipLines = append(tip, a), append(tipLines, i)
		case kindPayment:
			ws := words(l.text)
			switch {
			case hasWord(ws, changeWords...):
				change = append(change, a)
			case hasWord(ws, "EC", "ELEC", "ELECTRONIC") || strings.Contains(strings.ToUpper(l.text), "EC-CASH"):
				// "electronic cash", "EC-Cash": a card payment.
				card = append(card, a)
			case ws[0] == "BAR" || hasWord(ws, cashWords...):
				cash = append(cash, a)
			default:
				card = append(card, a)
			}
		}
	}
	if len(all) == 0 {
		return nil, false, 0, "total: no amount found"
	}
	var itemSum money.Cents
	for _, it := range items {
		itemSum, _ = itemSum.Add(it.AmountCents)
	}
	// A total line whose amount is under the items, with an amount
	// without a label (or with noise) right under it equal to the items
	// (or the subtotal) plus that amount: the line printed the tax, and
	// the total stands below ("TOTAL 2.43" over "30.58", the items
	// 28.15).
	for k, x := range all {
		if x.kind != kindTotal || k+1 >= len(all) {
			continue
		}
		y := all[k+1]
		if y.kind != kindOther || y.line > x.line+2 {
			continue
		}
		bases := append([]money.Cents{itemSum}, sub...)
		for _, b := range bases {
			if v, err := b.Add(x.a); err == nil && b > x.a && v == y.a {
				all[k].kind = kindTax
				tax = append(tax, x.a)
				break
			}
		}
	}
	var extras money.Cents
	for _, a := range append(slices.Clone(tax), tip...) {
		extras, _ = extras.Add(a)
	}
	sums := map[money.Cents]string{}
	for k, s := range sub {
		// A tip or service charge printed above the subtotal is in it.
		ex := extras
		for j, t := range tip {
			if tipLines[j] < subLines[k] {
				ex, _ = ex.Sub(t)
			}
		}
		if v, err := s.Add(ex); err == nil && v > 0 && (ex != 0 || extras == 0) {
			sums[v] = "subtotal + tax + tip"
		}
	}
	// Without a subtotal line, the amount right above the first tax
	// line may be the subtotal under another word ("Food", "Net").
	if len(sub) == 0 && len(tax) > 0 {
		for i, l := range lines {
			if l.kind != kindTax || !l.hasAmt {
				continue
			}
			if i > 0 && lines[i-1].hasAmt && lines[i-1].kind == kindOther && !lines[i-1].negative {
				if v, err := lines[i-1].amount.Add(extras); err == nil && v > 0 {
					if _, ok := sums[v]; !ok {
						sums[v] = "the amount above the tax + tax + tip"
					}
				}
			}
			break
		}
	}
	// (One item and nothing added to it confirm nothing: it is its own
	// sum.)
	if itemSum > 0 && (len(items) > 1 || extras > 0) {
		if v, err := itemSum.Add(extras); err == nil {
			if _, ok := sums[v]; !ok {
				sums[v] = "the items + tax + tip"
			}
		}
	}
	for _, c := range cash {
		for _, ch := range change {
			if v, err := c.Sub(ch); err == nil && v > 0 {
				if _, ok := sums[v]; !ok {
					sums[v] = "cash given − change"
				}
			}
		}
	}
	// The amounts printed right above an amount that add up to it (the
	// items, with the tax and tip between them): a total whose label
	// OCR lost, with noise read as items higher up.
	for _, x := range all {
		if x.kind != kindOther && x.kind != kindTotal || taxBelow(lines, x.line) {
			continue // a subtotal is the sum of the items too
		}
		if x.kind == kindOther && x.line < itemsEnd && itemsEnd < len(lines) {
			continue // an item over a total line: one price may be two others' sum
		}
		if v, ok := sumAbove(lines, x.line); ok && v == x.a {
			if _, seen := sums[v]; !seen {
				sums[v] = "the amounts above it"
			}
		}
	}
	// The gross column of a VAT table (net + tax = gross on each row):
	// the rows' gross amounts add up to the total.
	if g, ok := vatGross(lines); ok {
		// (It checks itself: stronger than the items' sum.)
		if how, seen := sums[g]; !seen || how == "the items + tax + tip" {
			sums[g] = "the VAT table's gross"
		}
	}
	// How many lines print each amount: a total is repeated (the card
	// slip, the VAT table), an item seldom is.
	// (Lines of one kind count once: two items may cost the same.)
	printed := map[money.Cents]int{}
	printedAs := map[money.Cents]map[lineKind]bool{}
	for _, x := range all {
		if x.a > 0 && !slices.Contains(cash, x.a) && !slices.Contains(change, x.a) {
			if printedAs[x.a] == nil {
				printedAs[x.a] = map[lineKind]bool{}
			}
			if !printedAs[x.a][x.kind] {
				printedAs[x.a][x.kind] = true
				printed[x.a]++
			}
		}
	}
	// Without a total line, an unlabelled amount right above the first
	// payment line: where the total stands, its label lost to OCR.
	abovePay := map[money.Cents]bool{}
	for i, l := range lines {
		if itemsEnd < len(lines) || l.kind != kindPayment {
			continue
		}
		for j := i - 1; j >= 0 && j >= i-2; j-- {
			if lines[j].hasAmt {
				if lines[j].kind == kindOther && !lines[j].negative {
					abovePay[lines[j].amount] = true
				}
				break
			}
		}
		break
	}
	// Without a total line, the largest unlabelled amount in the three
	// lines under the last subtotal, and not under half of it: the total
	// whose label OCR lost ("*DRV THRU 34.21" under "SUB TTL 31.24").
	var afterSub money.Cents
	if len(subLines) > 0 && !slices.ContainsFunc(all, func(x amt) bool { return x.kind == kindTotal }) {
		sl, s := subLines[len(subLines)-1], sub[len(sub)-1]
		for _, x := range all {
			if x.line > sl && x.line <= sl+3 && x.kind == kindOther && x.a > afterSub && 2*x.a >= s {
				afterSub = x.a
			}
		}
	}
	var largest money.Cents
	for _, x := range all {
		if x.kind != kindPayment || slices.Contains(card, x.a) {
			largest = max(largest, x.a)
		}
	}
	// Each amount scores by the best of the lines it is on (a total
	// repeated on a VAT table row is still the total).
	cands := map[money.Cents]*totalCandidate{}
	for _, x := range all {
		ls, why := 0.0, ""
		switch x.kind {
		case kindTotal:
			ls, why = 4, fmt.Sprintf("on a total line (%d)", x.line+1)
		case kindSubtotal:
			ls = -1.5
		case kindTax, kindTip, kindDiscount, kindInfo:
			ls = -3
		case kindPayment:
			if slices.Contains(change, x.a) || slices.Contains(cash, x.a) && !slices.Contains(card, x.a) {
				ls = -2
			}
		default:
			if x.line < itemsEnd {
				ls = -1 // an item's amount
			}
		}
		c := cands[x.a]
		if c == nil {
			c = &totalCandidate{amount: x.a, line: x.line, score: ls}
			if why != "" {
				c.why = []string{why}
			}
			cands[x.a] = c
			continue
		}
		c.line = max(c.line, x.line)
		if ls > c.score {
			c.score = ls
			c.why = nil
			if why != "" {
				c.why = []string{why}
			}
		}
	}
	for _, c := range cands {
		if how, ok := sums[c.amount]; ok {
			c.score += 3
			c.why = append(c.why, "equal to "+how)
		}
		if slices.Contains(card, c.amount) {
			c.score += 2
			c.why = append(c.why, "the card payment's amount")
		}
		if afterSub > 0 && c.amount == afterSub {
			c.score += 1.5
			c.why = append(c.why, "the amount under the subtotal, no total line")
		}
		if abovePay[c.amount] {
			c.score += 1.5
			c.why = append(c.why, "right above the payment")
		}
		if printed[c.amount] >= 2 {
			c.score += 1
			c.why = append(c.why, "printed more than once")
		}
		if c.amount == largest {
			c.score += 0.5
			c.why = append(c.why, "the largest amount")
		}
		if c.amount == 0 {
			c.score -= 5
		}
	}
	best := (*totalCandidate)(nil)
	for _, c := range cands {
		if best == nil || c.score > best.score || c.score == best.score && c.amount > best.amount {
			best = c
		}
	}
	// A total no line shows: the arithmetic alone (a misread total line).
	// (In order, the larger first, so that a tie is decided the same way
	// every time.)
	unseen := make([]money.Cents, 0, len(sums))
	for v := range sums {
		unseen = append(unseen, v)
	}
	slices.Sort(unseen)
	slices.Reverse(unseen)
	for _, v := range unseen {
		how := sums[v]
		if _, seen := cands[v]; seen || v <= 0 || how == "the amounts above it" {
			continue
		}
		score := 2.0
		switch how {
		case "the items + tax + tip":
			// The items' sum alone is weak: OCR reads noise as items.
			score = 0.5
		case "the amount above the tax + tax + tip":
			score = 1
		}
		if slices.Contains(card, v) {
			score += 2
		}
		if score > best.score {
			best = &totalCandidate{amount: v, score: score, why: []string{how + ", which no line shows"}}
		}
	}
	// The best amount no arithmetic confirms, one digit apart from the
	// VAT table's gross: OCR misread that digit of the total (the same
	// glyph misread alike on the card slip), and the table, whose rows
	// check themselves (net + tax = gross, the tax the rate of the
	// net), holds the total. (Not a subtotal + tax, whose amounts are
	// read no better than the total's, and not a few cents apart: cash
	// rounded to 5 cents.)
	if _, summed := sums[best.amount]; !summed && best.score >= 0 {
		for _, v := range unseen {
			if how := sums[v]; how == "the VAT table's gross" && oneDigitApart(v, best.amount) && abs(int(v-best.amount)) > 2 {
				best = &totalCandidate{amount: v, score: best.score,
					why: []string{fmt.Sprintf("equal to %s, %s on the total line read with a digit wrong", how, best.amount)}}
			}
		}
	}
	if best.score < 0 {
		// Nothing but items, taxes and payments: the largest amount that
		// is not a payment.
		var lg *money.Cents
		for _, x := range all {
			if x.kind != kindPayment && x.kind != kindInfo && x.kind != kindDiscount && (lg == nil || x.a > *lg) {
				a := x.a
				lg = &a
			}
		}
		if lg == nil {
			return nil, false, 0, "total: no amount found"
		}
		return lg, false, 0.3, fmt.Sprintf("total: %s, no total line: the largest amount", *lg)
	}
	_, summed := sums[best.amount]
	consistent = summed || slices.Contains(card, best.amount)
	onLine := false
	for _, x := range all {
		onLine = onLine || x.a == best.amount && x.kind == kindTotal
	}
	switch {
	case onLine && consistent:
		conf = 0.95
	case onLine:
		conf = 0.75
	case consistent && slices.Contains(card, best.amount):
		conf = 0.8
	case consistent:
		conf = 0.6
	default:
		conf = 0.4
	}
	a := best.amount
	return &a, consistent, conf, fmt.Sprintf("total: %s (%s; score %.1f)", a, strings.Join(best.why, ", "), best.score)
}

// sumAbove adds up the amounts on the lines right above line i that
// are items, taxes or tips (lines without an amount are passed over),
// up to a total, subtotal or payment line, and reports whether two or
// more of them, from line i upward, add up to line i's amount.
func sumAbove(lines []parsedLine, i int) (money.Cents, bool) {
	want := lines[i].amount
	var s money.Cents
	n := 0
	for j := i - 1; j >= 0 && j >= i-40; j-- {
		l := lines[j]
		if !l.hasAmt {
			continue
		}
		if l.negative || l.kind == kindTotal || l.kind == kindSubtotal || l.kind == kindPayment || l.kind == kindInfo ||
			l.kind == kindDiscount {
			break
		}
		s += l.amount
		n++
		if s > want {
			break
		}
		if s == want && n >= 2 {
			return s, true
		}
	}
	return 0, false
}

// vatAmounts are the amounts in a VAT table's row.
var vatAmounts = regexp.MustCompile(`(\d{1,6})\s?[.,]\s?(\d{2})\b`)

// vatGross adds up the gross column of the receipt's VAT table: each
// row a rate and three amounts, net + tax = gross (in either order).
// A row whose gross OCR misread or lost still counts when its tax is
// its rate of its net (to the cent of rounding): its gross is then net
// + tax. ok: at least one such row.
func vatGross(lines []parsedLine) (money.Cents, bool) {
	var sum money.Cents
	rows := 0
	for _, l := range lines {
		if l.kind == kindDiscount || l.kind == kindTip || serviceCharge(words(l.text)) {
			continue // a discount's or a tip's rate of an amount
		}
		m := percentRate.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		t := percentRate.ReplaceAllString(l.text, " ")
		var a []money.Cents
		for _, m := range vatAmounts.FindAllStringSubmatch(t, -1) {
			c, err := money.Parse(m[1] + "." + m[2])
			if err == nil {
				a = append(a, c)
			}
		}
		if len(a) < 2 {
			continue
		}
		a = a[max(0, len(a)-3):]
		if len(a) == 3 {
			if g := max(a[0], a[1], a[2]); a[0]+a[1]+a[2] == 2*g && g > 0 {
				sum += g
				rows++
				continue
			}
		}
		if g, ok := grossOfRate(rateOf(m), a); ok {
			sum += g
			rows++
		}
	}
	return sum, rows > 0
}

// rateOf is the rate a percentRate match prints, in thousandths of a
// percent (19,0% is 19000, 8.875% is 8875).
func rateOf(m []string) int64 {
	r, _ := strconv.ParseInt(m[1]+(m[2] + "000")[:3], 10, 64)
	return r
}

// grossOfRate finds a VAT row's net and tax among its amounts a (in
// the order printed, the first the tax or the net): the tax at least
// five cents and within a cent of rate (thousandths of a percent) times
// the net; the row's gross is their sum. ok is false when no pair
// checks.
func grossOfRate(rate int64, a []money.Cents) (money.Cents, bool) {
	if rate <= 0 || rate >= 50000 {
		return 0, false
	}
	for i := range a {
		for j := range a {
			tax, net := int64(a[i]), int64(a[j])
			if i == j || tax < 5 || net <= tax {
				continue
			}
			// (The tax is rounded from the gross or the net, either way.)
			want := (net*rate + 50000) / 100000
			if tax >= want-1 && tax <= want+1 {
				return money.Cents(net + tax), true
			}
		}
	}
	return 0, false
}

// oneDigitApart reports whether a and b print the same number of
// digits and differ in exactly one of them (one digit misread by OCR:
// 4 for 1, 0 for 9).
func oneDigitApart(a, b money.Cents) bool {
	x, y := fmt.Sprintf("%03d", int64(a)), fmt.Sprintf("%03d", int64(b))
	if len(x) != len(y) || a <= 0 || b <= 0 {
		return false
	}
	n := 0
	for i := range len(x) {
		if x[i] != y[i] {
			n++
		}
	}
	return n == 1
}

// taxBelow: the next line with an amount after line i is a tax line
// (line i is a subtotal, whatever its word).
func taxBelow(lines []parsedLine, i int) bool {
	for j := i + 1; j < len(lines) && j <= i+2; j++ {
		if lines[j].hasAmt {
			return lines[j].kind == kindTax
		}
	}
	return false
}
