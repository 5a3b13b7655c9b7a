package domain

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/pkg/money"
)

// MoneyFormat is how the comparison's CSV export writes amounts.
type MoneyFormat string

// The money formats of the comparison's CSV export.
const (
	MoneyDollarString MoneyFormat = "DOLLAR_STRING" // "1234.56", "-0.05"
	MoneyCentsInteger MoneyFormat = "CENTS_INTEGER" // "123456", "-5"
)

// EnumInvalidMoneyFormat is the error enum of a bad money_format.
const EnumInvalidMoneyFormat = "InvalidMoneyFormat"

// ParseMoneyFormat reads money_format: absent is DOLLAR_STRING; any value
// other than DOLLAR_STRING or CENTS_INTEGER (an empty one too) is a 400
// InvalidParameters naming money_format.
func ParseMoneyFormat(q url.Values) (MoneyFormat, error) {
	vs, ok := q["money_format"]
	if !ok {
		return MoneyDollarString, nil
	}
	if len(vs) == 1 {
		switch f := MoneyFormat(vs[0]); f {
		case MoneyDollarString, MoneyCentsInteger:
			return f, nil
		}
	}
	return "", apperr.FieldErrors(apperr.InvalidParameters,
		map[string]string{"money_format": "must be DOLLAR_STRING or CENTS_INTEGER, once"}).WithEnum(EnumInvalidMoneyFormat)
}

// Amount writes cents c in format f, exactly (integer arithmetic only).
func (f MoneyFormat) Amount(c int64) string {
	if f == MoneyCentsInteger {
		return strconv.FormatInt(c, 10)
	}
	return money.Format(money.Cents(c))
}

// ComparisonColumn is one period × tag filter of a comparison and its
// report: a column of the comparison's CSV.
type ComparisonColumn struct {
	Period ComparisonPeriod
	Filter RequiredTags // empty: every line (no suffix in the label)
	PnL    PnL
}

// Label is the column's header: the period ("2025-01", "2025" or
// "2025-01-01..2025-03-31") and, for a tag filter, " (dept=a, region=west)".
func (c ComparisonColumn) Label() string {
	var b strings.Builder
	switch c.Period.Type {
	case PeriodsMonths:
		b.WriteString(c.Period.Start.Format("2006-01"))
	case PeriodsYears:
		b.WriteString(c.Period.Start.Format("2006"))
	default:
		b.WriteString(c.Period.Start.Format(DateLayout) + ".." + c.Period.End.Format(DateLayout))
	}
	for i, t := range c.Filter {
		if i == 0 {
			b.WriteString(" (")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(t.Key + "=" + t.Value)
		if i == len(c.Filter)-1 {
			b.WriteString(")")
		}
	}
	return b.String()
}

// ComparisonCSVHeader is the first header cell of the comparison's CSV.
const ComparisonCSVHeader = "Line item"

// csvSections are the report's sections and totals in the order of the
// statement (and of the JSON report). A section the report gains (e.g.
// other outflows) is one more entry here, listed when non-nil.
func csvSections(p *PnL) []csvSection {
	return []csvSection{
		{item: &p.Income},
		{item: &p.CostOfGoodsSold},
		{total: "Gross profit", value: p.GrossProfit},
		{item: &p.Expenses},
		{total: "Profit before taxes", value: p.ProfitBeforeTaxes},
		{item: &p.Taxes},
		{total: "Net profit", value: p.NetProfit},
	}
}

// csvSection is a section (item) or a total (its label and value).
type csvSection struct {
	item  *LineItem
	total string
	value int64
}

// ComparisonCSV is the comparison's CSV: a header row ("Line item", then
// one column per period × filter in cols' order), then per section its
// row, its line items (the union of every column's tree: an item missing
// from a column is 0 there) indented by two spaces per level, and the
// totals, in the statement's order. Amounts in format f. Names are display
// names through SafeCell (before the indentation, so a spreadsheet that
// trims spaces cannot run them either).
func ComparisonCSV(cols []ComparisonColumn, f MoneyFormat) [][]string {
	header := make([]string, 0, len(cols)+1)
	header = append(header, ComparisonCSVHeader)
	for _, c := range cols {
		header = append(header, c.Label())
	}
	out := [][]string{header}
	if len(cols) == 0 {
		return out
	}
	per := make([][]csvSection, len(cols))
	for j := range cols {
		per[j] = csvSections(&cols[j].PnL)
	}
	for i, s := range per[0] {
		if s.item == nil {
			row := []string{s.total}
			for j := range cols {
				row = append(row, f.Amount(per[j][i].value))
			}
			out = append(out, row)
			continue
		}
		trees := make([]*LineItem, len(cols))
		for j := range cols {
			trees[j] = per[j][i].item
		}
		out = appendMerged(out, mergeItems(trees), 0, f)
	}
	return out
}

// mergedItem is one line item across the columns (nil: absent there).
type mergedItem struct {
	name, display string
	values        []*int64
	children      []*mergedItem
}

// mergeItems is the union of the trees items (one per column, nil for
// none) keyed by name at each level. Order: the first column's, then an
// item first seen in a later column goes before its next sibling in that
// column already listed (else at the end), so every column's own order
// is kept where they agree.
func mergeItems(items []*LineItem) *mergedItem {
	m := &mergedItem{values: make([]*int64, len(items))}
	named := false
	for j, it := range items {
		if it == nil {
			continue
		}
		if !named {
			m.name, m.display, named = it.Name, it.DisplayName, true
		}
		v := it.Value
		m.values[j] = &v
	}
	childrenOf := func(j int) []LineItem {
		if items[j] == nil {
			return nil
		}
		return items[j].LineItems
	}
	byName := make([]map[string]*LineItem, len(items))
	for j := range items {
		kids := childrenOf(j)
		byName[j] = make(map[string]*LineItem, len(kids))
		for k := range kids {
			byName[j][kids[k].Name] = &kids[k]
		}
	}
	index := map[string]int{} // name → position in order
	var order []string
	for j := range items {
		kids := childrenOf(j)
		for k := len(kids) - 1; k >= 0; k-- { // from the end: the next sibling is placed first
			name := kids[k].Name
			if _, ok := index[name]; ok {
				continue
			}
			at := len(order)
			for _, next := range kids[k+1:] {
				if p, ok := index[next.Name]; ok {
					at = p
					break
				}
			}
			order = append(order[:at], append([]string{name}, order[at:]...)...)
			for p := at; p < len(order); p++ {
				index[order[p]] = p
			}
		}
	}
	for _, name := range order {
		sub := make([]*LineItem, len(items))
		for j := range items {
			sub[j] = byName[j][name]
		}
		m.children = append(m.children, mergeItems(sub))
	}
	return m
}

func appendMerged(out [][]string, m *mergedItem, depth int, f MoneyFormat) [][]string {
	row := make([]string, 0, len(m.values)+1)
	row = append(row, strings.Repeat("  ", depth)+csvexport.SafeCell(m.display))
	for _, v := range m.values {
		var c int64
		if v != nil {
			c = *v
		}
		row = append(row, f.Amount(c))
	}
	out = append(out, row)
	for _, c := range m.children {
		out = appendMerged(out, c, depth+1, f)
	}
	return out
}
