package domain

import (
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// EnumUnknownLineItem is the error enum of a line_item_name the profit and
// loss does not have.
const EnumUnknownLineItem = "UnknownLineItem"

// MaxDetailLines bounds the lines of one P&L drill-down (a year of a
// busy business's sales is far less; a range asking for more is a 400).
const MaxDetailLines = 50_000

// EnumTooManyLines is the error enum of a drill-down over MaxDetailLines.
const EnumTooManyLines = "TooManyLines"

// PnLLinesQuery is a P&L drill-down: the P&L query (days, tag filter,
// basis, structure) and the name of the line item whose lines are asked.
type PnLLinesQuery struct {
	PnLQuery
	LineItemName string
}

// ParsePnLLinesQuery reads the P&L's parameters (start_date, end_date,
// tag_key, tag_values, reporting_basis; the structure as pnl_structure, or
// structure) and line_item_name (required: a section's name, INCOME,
// COST_OF_GOODS_SOLD, EXPENSES or TAXES, or a line item's name as the P&L
// of the same structure names it).
func ParsePnLLinesQuery(q url.Values) (PnLLinesQuery, error) {
	p := url.Values{}
	for k, v := range q {
		p[k] = v
	}
	if s := q.Get("pnl_structure"); s != "" {
		p.Set("structure", s)
	}
	name := strings.TrimSpace(q.Get("line_item_name"))
	if name == "" {
		return PnLLinesQuery{}, apperr.FieldErrors(apperr.InvalidParameters, map[string]string{"line_item_name": "required"}).WithEnum(EnumUnknownLineItem)
	}
	base, err := ParsePnLQuery(p)
	if err != nil {
		return PnLLinesQuery{}, err
	}
	return PnLLinesQuery{PnLQuery: base, LineItemName: name}, nil
}

// findItem is the line item named name in li or below it.
func findItem(li LineItem, name string) (LineItem, bool) {
	if li.Name == name {
		return li, true
	}
	for _, c := range li.LineItems {
		if f, ok := findItem(c, name); ok {
			return f, true
		}
	}
	return LineItem{}, false
}

// FindLineItem is the line item named name in p's sections (a section
// itself included).
func (p PnL) FindLineItem(name string) (LineItem, bool) {
	for _, s := range []LineItem{p.Income, p.CostOfGoodsSold, p.Expenses, p.Taxes} {
		if f, ok := findItem(s, name); ok {
			return f, true
		}
	}
	return LineItem{}, false
}

// LineItemAccounts are the accounts whose amounts make the line item named
// name in the P&L of structure s, each with the sign that turns its signed
// amount (debit positive) into the line item's (−1 in income), and false
// when no account of the business lands on such a line item. It asks
// BuildPnL itself where each account lands, so a drill-down always sums
// to its line.
func LineItemAccounts(accounts map[uuid.UUID]Account, s Structure, name string) (map[uuid.UUID]int64, bool) {
	out := map[uuid.UUID]int64{}
	for id, a := range accounts {
		if sec, _ := Classify(a, accounts); sec == SectionNone {
			continue
		}
		p := BuildPnL(accounts, map[uuid.UUID]int64{id: 1}, s)
		if f, ok := p.FindLineItem(name); ok && f.Value != 0 {
			out[id] = f.Value // +1 or −1: the sign of a debit in that line
		}
	}
	return out, len(out) > 0
}

// DetailLine is one line behind a P&L figure: a ledger line (or, on the
// cash basis, the part of a document's line a payment recognized, on the
// payment's day), its account, signed amount (debit positive), day and
// tags.
type DetailLine struct {
	ID      string
	EntryID string
	Account Account
	Amount  int64
	Day     time.Time
	// EntryAt is the entry's time (the payment's day for a recognized
	// part).
	EntryAt    time.Time
	SourceType string
	SourceID   string
	Tags       TagSet
}
