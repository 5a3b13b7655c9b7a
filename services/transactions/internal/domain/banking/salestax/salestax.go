// Package salestax is the Canadian sales-tax table the categorization of a
// bank transaction draws on: which tax codes a business in a province may
// choose on a given date (the transaction's `tax_options`), the rates of
// each code's components on that date, and the split of a tax-inclusive
// amount into its net and the tax of each component.
//
// The table is data with effective dates, not code: a rate change is one
// more row. Rows cover GST since 2008-01-01 (5%), the HST of each
// harmonized province since it took its current form, Québec's QST since
// 2013-01-01 (9.975%, no longer compounded on GST) and the PST of British
// Columbia, Saskatchewan and Manitoba since their current regimes. A date
// before a code's first row offers no option for that code, so tax_code
// is refused there rather than guessed.
package salestax

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/money"
)

// Province is a Canadian province or territory, by its postal code.
type Province string

// The provinces and territories.
const (
	AB Province = "AB"
	BC Province = "BC"
	MB Province = "MB"
	NB Province = "NB"
	NL Province = "NL"
	NS Province = "NS"
	NT Province = "NT"
	NU Province = "NU"
	ON Province = "ON"
	PE Province = "PE"
	QC Province = "QC"
	SK Province = "SK"
	YT Province = "YT"
)

// Provinces lists every province and territory.
var Provinces = []Province{AB, BC, MB, NB, NL, NS, NT, NU, ON, PE, QC, SK, YT}

// ParseProvince reads a two-letter code, ignoring case and surrounding
// space.
func ParseProvince(s string) (Province, bool) {
	p := Province(strings.ToUpper(strings.TrimSpace(s)))
	return p, slices.Contains(Provinces, p)
}

// Tax is one of the taxes a code is made of.
type Tax string

// The taxes.
const (
	GST Tax = "GST" // federal Goods and Services Tax
	HST Tax = "HST" // Harmonized Sales Tax (federal + provincial in one)
	QST Tax = "QST" // Québec Sales Tax
	PST Tax = "PST" // provincial sales tax of BC and SK, Manitoba's RST
)

// Recoverable reports whether a registered business gets back the tax it
// pays on purchases (an input tax credit for GST/HST, an input tax refund
// for QST). PST is not recoverable: what a business pays is part of the
// cost of what it bought.
func (t Tax) Recoverable() bool { return t != PST }

// Component is a tax of a code at its rate on a date.
type Component struct {
	Tax  Tax
	Rate money.Rate
}

// Option is a tax code valid on a date, as offered in a transaction's
// `tax_options` and accepted as its `tax_code`.
type Option struct {
	Code        string
	DisplayName string
	Components  []Component
}

// Rate is the combined rate of the option's components. Canadian
// provincial taxes are no longer compounded on GST, so the rates add.
func (o Option) Rate() money.Rate {
	var sum int64
	for _, c := range o.Components {
		sum += c.Rate.Scaled()
	}
	r, err := money.RateFromScaled(sum)
	if err != nil {
		// The table's rates add up to well under MaxPercent.
		panic(fmt.Sprintf("salestax: rate of %s: %v", o.Code, err))
	}
	return r
}

// Share is the tax of one component in a split amount.
type Share struct {
	Tax         Tax
	Rate        money.Rate
	Amount      money.Cents
	Recoverable bool
}

// Split divides a tax-inclusive total into its net amount and the tax of
// each component: the tax at the combined rate is taken out with
// money.SplitInclusive (rounded half away from zero, as on receipts), then
// shared between the components in proportion to their rates with
// money.Allocate, so net + Σ shares == total exactly. A $113.00 purchase
// under HST_ON is $100.00 net and $13.00 HST; $112.00 under GST_PST_BC is
// $100.00 net, $5.00 GST and $7.00 PST. A negative total (a refund) splits
// like its absolute value, negated.
func (o Option) Split(total money.Cents) (net money.Cents, shares []Share, err error) {
	net, tax := money.SplitInclusive(total, o.Rate())
	weights := make([]int64, len(o.Components))
	for i, c := range o.Components {
		weights[i] = c.Rate.Scaled()
	}
	amounts, err := money.Allocate(tax, weights)
	if err != nil {
		return 0, nil, fmt.Errorf("split %s between the components of %s: %w", tax, o.Code, err)
	}
	shares = make([]Share, len(o.Components))
	for i, c := range o.Components {
		shares[i] = Share{Tax: c.Tax, Rate: c.Rate, Amount: amounts[i], Recoverable: c.Tax.Recoverable()}
	}
	return net, shares, nil
}

// day is a calendar date as yyyymmdd, which orders like the date.
type day int

func dayOf(t time.Time) day {
	y, m, d := t.Date()
	return day(y*10000 + int(m)*100 + d)
}

// forever is the open end of a period that still applies.
const forever day = 99991231

// rate is a component of a period's rates, in millionths of a percent.
type rate struct {
	tax    Tax
	scaled int64
}

// period is a span of days (both ends included) with its rates.
type period struct {
	from, until day
	rates       []rate
}

// schedule is a tax code: where it applies and its rates over time.
type schedule struct {
	code string
	// provinces it is offered to; empty means every province.
	provinces []Province
	// label names the code in display names, before its rates.
	label   string
	periods []period
}

// Percent values in millionths of a percent.
const (
	pct5     = 5_000_000
	pct6     = 6_000_000
	pct7     = 7_000_000
	pct8     = 8_000_000
	pct9_975 = 9_975_000
	pct12    = 12_000_000
	pct13    = 13_000_000
	pct14    = 14_000_000
	pct15    = 15_000_000
)

// table is every code, in the order options are offered: the province's
// own codes first, then GST, which every business may need for purchases
// made where only GST applies.
var table = []schedule{
	{code: "HST_ON", provinces: []Province{ON}, label: "HST Ontario", periods: []period{
		{from: 20100701, until: forever, rates: []rate{{HST, pct13}}},
	}},
	{code: "HST_NB", provinces: []Province{NB}, label: "HST New Brunswick", periods: []period{
		{from: 20100701, until: 20160630, rates: []rate{{HST, pct13}}},
		{from: 20160701, until: forever, rates: []rate{{HST, pct15}}},
	}},
	{code: "HST_NL", provinces: []Province{NL}, label: "HST Newfoundland and Labrador", periods: []period{
		{from: 20100701, until: 20160630, rates: []rate{{HST, pct13}}},
		{from: 20160701, until: forever, rates: []rate{{HST, pct15}}},
	}},
	{code: "HST_NS", provinces: []Province{NS}, label: "HST Nova Scotia", periods: []period{
		{from: 20100701, until: 20250331, rates: []rate{{HST, pct15}}},
		{from: 20250401, until: forever, rates: []rate{{HST, pct14}}},
	}},
	{code: "HST_PE", provinces: []Province{PE}, label: "HST Prince Edward Island", periods: []period{
		{from: 20130401, until: 20160930, rates: []rate{{HST, pct14}}},
		{from: 20161001, until: forever, rates: []rate{{HST, pct15}}},
	}},
	{code: "HST_BC", provinces: []Province{BC}, label: "HST British Columbia", periods: []period{
		{from: 20100701, until: 20130331, rates: []rate{{HST, pct12}}},
	}},
	{code: "GST_QST", provinces: []Province{QC}, label: "GST + QST", periods: []period{
		{from: 20130101, until: forever, rates: []rate{{GST, pct5}, {QST, pct9_975}}},
	}},
	{code: "GST_PST_BC", provinces: []Province{BC}, label: "GST + PST British Columbia", periods: []period{
		{from: 20130401, until: forever, rates: []rate{{GST, pct5}, {PST, pct7}}},
	}},
	{code: "GST_PST_SK", provinces: []Province{SK}, label: "GST + PST Saskatchewan", periods: []period{
		{from: 20170323, until: forever, rates: []rate{{GST, pct5}, {PST, pct6}}},
	}},
	{code: "GST_PST_MB", provinces: []Province{MB}, label: "GST + RST Manitoba", periods: []period{
		{from: 20130701, until: 20190630, rates: []rate{{GST, pct5}, {PST, pct8}}},
		{from: 20190701, until: forever, rates: []rate{{GST, pct5}, {PST, pct7}}},
	}},
	{code: "GST", label: "GST", periods: []period{
		{from: 20080101, until: forever, rates: []rate{{GST, pct5}}},
	}},
}

// offeredTo reports whether s is offered to a business in p; an unknown
// province ("") is offered every code.
func (s schedule) offeredTo(p Province) bool {
	return p == "" || len(s.provinces) == 0 || slices.Contains(s.provinces, p)
}

// on is the option of s valid on d, if any.
func (s schedule) on(d day) (Option, bool) {
	for _, per := range s.periods {
		if d < per.from || d > per.until {
			continue
		}
		o := Option{Code: s.code, Components: make([]Component, len(per.rates))}
		parts := make([]string, len(per.rates))
		for i, r := range per.rates {
			rt, err := money.RateFromScaled(r.scaled)
			if err != nil {
				panic(fmt.Sprintf("salestax: table rate of %s: %v", s.code, err))
			}
			o.Components[i] = Component{Tax: r.tax, Rate: rt}
			parts[i] = rt.String()
		}
		o.DisplayName = fmt.Sprintf("%s (%s)", s.label, strings.Join(parts, " + "))
		return o, true
	}
	return Option{}, false
}

// Options are the tax codes a business in province p may choose for a
// transaction dated on (its calendar day in on's location), in the order
// to offer them: the province's own codes, then GST. A business whose
// province is not known (p == "") is offered every code valid that day.
// The result is never nil, so it encodes as an empty list.
func Options(p Province, on time.Time) []Option {
	d := dayOf(on)
	out := []Option{}
	for _, s := range table {
		if !s.offeredTo(p) {
			continue
		}
		if o, ok := s.on(d); ok {
			out = append(out, o)
		}
	}
	return out
}

// Lookup is the option with the given code among Options(p, on).
func Lookup(p Province, code string, on time.Time) (Option, bool) {
	d := dayOf(on)
	for _, s := range table {
		if s.code == code && s.offeredTo(p) {
			return s.on(d)
		}
	}
	return Option{}, false
}

// Codes lists every code of the table, valid or not on any given day.
func Codes() []string {
	out := make([]string, len(table))
	for i, s := range table {
		out[i] = s.code
	}
	return out
}
