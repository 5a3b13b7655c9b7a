package domain

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Account types of the balance sheet.
const (
	TypeAsset     = "ASSET"
	TypeLiability = "LIABILITY"
	TypeEquity    = "EQUITY"
)

// StableRetainedEarnings is the default chart's retained earnings account:
// the balance sheet adds the net income of the closed fiscal years to it.
const StableRetainedEarnings = "RETAINED_EARNINGS"

// DayRange is the days From..To, inclusive (UTC); a zero From is the
// beginning of the books.
type DayRange struct {
	From, To time.Time
}

// Segment is a part of a DayRange read from one table: whole months
// Lo..Hi (their first days) from the month totals, or days Lo..Hi from the
// day totals.
type Segment struct {
	Monthly bool
	Lo, Hi  time.Time
}

// beginning stands for a zero From: before any book.
var beginning = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)

func monthStart(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// Segments splits r so that a balance over it reads at most the days of
// two months: the days up to the end of From's month (when From is not a
// month's first day), the whole months, then the days of To's month (when
// To is not a month's last day). An empty range (To before From) has none.
func Segments(r DayRange) []Segment {
	from, to := r.From, r.To
	if from.IsZero() {
		from = beginning
	}
	if to.Before(from) {
		return nil
	}
	var out []Segment
	cur := from
	if cur.Day() != 1 {
		end := monthStart(cur).AddDate(0, 1, -1)
		if !to.After(end) {
			return []Segment{{Lo: cur, Hi: to}}
		}
		out = append(out, Segment{Lo: cur, Hi: end})
		cur = end.AddDate(0, 0, 1)
	}
	// cur is a month's first day: the whole months up to To's.
	lastFull := monthStart(to)
	if to.Equal(monthStart(to).AddDate(0, 1, -1)) {
		lastFull = lastFull.AddDate(0, 1, 0) // To ends its month: it is whole
	}
	if cur.Before(lastFull) {
		out = append(out, Segment{Monthly: true, Lo: cur, Hi: lastFull.AddDate(0, -1, 0)})
		cur = lastFull
	}
	if !cur.After(to) {
		out = append(out, Segment{Lo: cur, Hi: to})
	}
	return out
}

// FiscalYearStart is the first day of the fiscal year that holds day d
// for a fiscal year starting in month startMonth (1–12; anything else is
// January).
func FiscalYearStart(d time.Time, startMonth int) time.Time {
	if startMonth < 1 || startMonth > 12 {
		startMonth = 1
	}
	y := d.Year()
	if int(d.Month()) < startMonth {
		y--
	}
	return time.Date(y, time.Month(startMonth), 1, 0, 0, 0, 0, time.UTC)
}

// BalanceQuery is a balance sheet or trial balance request: the day it is
// on and the basis (empty: the business's default).
type BalanceQuery struct {
	Date  time.Time
	Basis string
}

// ParseBalanceQuery reads effective_date (YYYY-MM-DD; absent: today,
// UTC) and reporting_basis (ACCRUAL or CASH; absent: the business's
// default). Other parameters are ignored.
func ParseBalanceQuery(q url.Values, today time.Time) (BalanceQuery, error) {
	out := BalanceQuery{Date: UTCDate(today)}
	bad := map[string]string{}
	errEnum := ""
	if s := q.Get("effective_date"); s != "" {
		d, err := time.Parse(DateLayout, s)
		if err != nil {
			bad["effective_date"] = "must be a date YYYY-MM-DD"
			errEnum = EnumInvalidDateRange
		}
		out.Date = d
	}
	out.Basis = parseBasis(q, bad, &errEnum)
	if len(bad) > 0 {
		return BalanceQuery{}, apperr.FieldErrors(apperr.InvalidParameters, bad).WithEnum(errEnum)
	}
	return out, nil
}

// PeriodQuery is a cash flow request: the days Start..End and the basis.
type PeriodQuery struct {
	Start, End time.Time
	Basis      string
}

// ParsePeriodQuery reads start_date and end_date (required, YYYY-MM-DD,
// end not before start) and reporting_basis (ACCRUAL, CASH or absent).
func ParsePeriodQuery(q url.Values) (PeriodQuery, error) {
	var out PeriodQuery
	bad := map[string]string{}
	var errEnum string
	out.Start, out.End, errEnum = parseDateRange(q, bad)
	out.Basis = parseBasis(q, bad, &errEnum)
	if len(bad) > 0 {
		return PeriodQuery{}, apperr.FieldErrors(apperr.InvalidParameters, bad).WithEnum(errEnum)
	}
	return out, nil
}

func parseBasis(q url.Values, bad map[string]string, errEnum *string) string {
	basis := q.Get("reporting_basis")
	switch basis {
	case "", BasisAccrual, BasisCash:
		return basis
	}
	bad["reporting_basis"] = "must be ACCRUAL or CASH"
	if *errEnum == "" {
		*errEnum = EnumUnsupportedReportingBasis
	}
	return ""
}

// UTCDate is t's calendar day in UTC.
func UTCDate(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// BalanceSheet is a balance sheet's figures: Assets (debit positive),
// Liabilities and Equity (credit positive) and their sum, each nesting
// the chart below its type's root. Equity holds RetainedEarnings (the net
// income of every closed fiscal year, on the retained earnings account's
// line) and NetIncome (the fiscal year to the day) as lines.
type BalanceSheet struct {
	Assets               LineItem
	Liabilities          LineItem
	Equity               LineItem
	LiabilitiesAndEquity LineItem
	RetainedEarnings     int64
	NetIncome            int64
}

// bsNode is a line of a balance sheet section: own is the account's own
// balance, value its own plus its children's.
type bsNode struct {
	acct     Account
	own      int64
	value    int64
	children map[uuid.UUID]*bsNode
	extra    []LineItem // lines that are not accounts (net income)
}

func (n *bsNode) child(a Account) *bsNode {
	if n.children == nil {
		n.children = map[uuid.UUID]*bsNode{}
	}
	c, ok := n.children[a.ID]
	if !ok {
		c = &bsNode{acct: a}
		n.children[a.ID] = c
	}
	return c
}

// add puts v on the account at the end of chain (its ancestors first)
// below n, adding it to every line on the way.
func (n *bsNode) add(chain []Account, v int64) {
	n.value += v
	if len(chain) == 0 {
		n.own += v
		return
	}
	n.child(chain[0]).add(chain[1:], v)
}

func accountName(a Account) string {
	if a.StableName != nil {
		return *a.StableName
	}
	return a.ID.String()
}

// items are n's lines in display name order; when n has both children
// and a balance of its own, the latter is a line "<name> - Other" first,
// so that every line is the sum of its line items.
func (n *bsNode) items(debitNormal bool) []LineItem {
	out := make([]LineItem, 0, len(n.children)+1)
	for _, c := range n.children {
		contra := false
		if c.acct.Normality != nil {
			contra = (*c.acct.Normality == "DEBIT") != debitNormal
		}
		li := LineItem{Name: accountName(c.acct), DisplayName: c.acct.Name, Value: c.value, IsContra: contra, LineItems: c.items(debitNormal)}
		out = append(out, li)
	}
	slices.SortFunc(out, func(a, b LineItem) int {
		return cmp.Or(strings.Compare(a.DisplayName, b.DisplayName), strings.Compare(a.Name, b.Name))
	})
	if n.own != 0 && (len(out) > 0 || len(n.extra) > 0) {
		name, display := "OTHER", "Other"
		if n.acct.ID != uuid.Nil {
			name, display = accountName(n.acct)+"_OTHER", n.acct.Name+" - Other"
		}
		out = append([]LineItem{{Name: name, DisplayName: display, Value: n.own, LineItems: []LineItem{}}}, out...)
	}
	return append(out, n.extra...)
}

// sectionOf is the balance sheet section of an account type.
func sectionOf(typ string) int {
	switch typ {
	case TypeAsset:
		return 0
	case TypeLiability:
		return 1
	case TypeEquity:
		return 2
	case TypeRevenue, TypeExpense:
		return 3
	}
	return -1
}

// BuildBalanceSheet is the balance sheet of balances split in two: prior,
// the signed cents (debit positive) per account before the fiscal year's
// start, and current, from its start to the day. An asset, liability or
// equity account's balance is the sum of both; the profit-and-loss
// accounts' prior sum is the retained earnings and their current sum the
// net income. Since every entry balances, assets = liabilities + equity
// whatever the amounts, with no plug. An account of an unknown type is
// left out (the ledger has none).
func BuildBalanceSheet(accounts map[uuid.UUID]Account, prior, current map[uuid.UUID]int64) BalanceSheet {
	var roots [3]*bsNode
	for i := range roots {
		roots[i] = &bsNode{}
	}
	var retained, net int64
	var retainedAcct *Account
	for _, a := range accounts {
		if a.Type == TypeEquity && a.StableName != nil && *a.StableName == StableRetainedEarnings {
			a := a
			retainedAcct = &a
		}
	}
	// The balance sheet accounts' balances (both parts), those netting to
	// zero left out; the profit and loss as retained earnings and net
	// income.
	balances := map[uuid.UUID]int64{}
	for _, part := range []struct {
		amounts map[uuid.UUID]int64
		pnl     *int64
	}{{prior, &retained}, {current, &net}} {
		for id, v := range part.amounts {
			a, ok := accounts[id]
			switch {
			case !ok:
			case sectionOf(a.Type) == 3:
				*part.pnl -= v
			case sectionOf(a.Type) >= 0:
				balances[id] += v
			}
		}
	}
	for id, v := range balances {
		if v == 0 {
			continue
		}
		a := accounts[id]
		sec := sectionOf(a.Type)
		if sec > 0 {
			v = -v
		}
		roots[sec].add(Chain(a, accounts)[1:], v)
	}
	if retained != 0 {
		if retainedAcct != nil {
			roots[2].add(Chain(*retainedAcct, accounts)[1:], retained)
		} else {
			ra := Account{ID: uuid.NewSHA1(uuid.NameSpaceOID, []byte(StableRetainedEarnings)), StableName: ptrTo(StableRetainedEarnings),
				Name: "Retained earnings", Type: TypeEquity}
			roots[2].add([]Account{ra}, retained)
		}
	}
	roots[2].value += net
	roots[2].extra = []LineItem{{Name: "NET_INCOME", DisplayName: "Net income", Value: net, LineItems: []LineItem{}}}
	bs := BalanceSheet{
		Assets:           LineItem{Name: "ASSETS", DisplayName: "Assets", Value: roots[0].value, LineItems: roots[0].items(true)},
		Liabilities:      LineItem{Name: "LIABILITIES", DisplayName: "Liabilities", Value: roots[1].value, LineItems: roots[1].items(false)},
		Equity:           LineItem{Name: "EQUITY", DisplayName: "Equity", Value: roots[2].value, LineItems: roots[2].items(false)},
		RetainedEarnings: retained,
		NetIncome:        net,
	}
	bs.LiabilitiesAndEquity = LineItem{Name: "LIABILITIES_AND_EQUITY", DisplayName: "Liabilities and equity",
		Value: bs.Liabilities.Value + bs.Equity.Value, LineItems: []LineItem{bs.Liabilities, bs.Equity}}
	return bs
}

func ptrTo[T any](v T) *T { return &v }
