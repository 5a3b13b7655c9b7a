// Package domain holds the reports service's rules: the profit-and-loss
// report built from per-account amounts and the accounts' tree, the query
// parameters' rules and the canonical tag sets. It imports no fiber, bun or
// kafka.
package domain

import (
	"cmp"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Stable names of the default chart the report's sections hang on.
const (
	StableRevenue              = "REVENUE"
	StableExpenses             = "EXPENSES"
	StableCOGS                 = "COST_OF_GOODS_SOLD"
	StableTaxes                = "TAXES"
	StableUncategorizedExpense = "UNCATEGORIZED_EXPENSES"
	StableUncategorizedRevenue = "UNCATEGORIZED_REVENUE"
)

// Account types of the ledger.
const (
	TypeRevenue = "REVENUE"
	TypeExpense = "EXPENSE"
)

// Account is an account as the ledger's events describe it. Path is the
// ancestors' ids, root first.
type Account struct {
	ID         uuid.UUID
	StableName *string
	Name       string
	Type       string
	Subtype    *string
	Normality  *string
	Path       []uuid.UUID
}

// LineItem is the spec's and the SDK's PnlLineItem: Value in integer cents,
// positive in the section's own sense (revenue in income, expenses in the
// expense sections).
type LineItem struct {
	Name        string     `json:"name"`
	DisplayName string     `json:"display_name"`
	Value       int64      `json:"value"`
	IsContra    bool       `json:"is_contra"`
	LineItems   []LineItem `json:"line_items"`
}

// PnL is a profit-and-loss report's figures.
type PnL struct {
	Income            LineItem
	CostOfGoodsSold   LineItem
	Expenses          LineItem
	Taxes             LineItem
	GrossProfit       int64
	ProfitBeforeTaxes int64
	NetProfit         int64
	FullyCategorized  bool
}

// Section names a report section.
type Section int

// The sections.
const (
	SectionNone Section = iota
	SectionIncome
	SectionCOGS
	SectionExpenses
	SectionTaxes
)

// Classify is the section of a, given the business's accounts (for the
// ancestors' stable names), and the index in a's chain (ancestors then a)
// of the account the section hangs on: the lines below it are the
// section's line items. REVENUE accounts are income; EXPENSE accounts under
// COST_OF_GOODS_SOLD are COGS, under TAXES taxes, the others expenses.
func Classify(a Account, accounts map[uuid.UUID]Account) (Section, int) {
	chain := Chain(a, accounts)
	switch a.Type {
	case TypeRevenue:
		return SectionIncome, 0
	case TypeExpense:
		for i, c := range chain {
			if c.StableName != nil && *c.StableName == StableCOGS {
				return SectionCOGS, i
			}
			if c.StableName != nil && *c.StableName == StableTaxes {
				return SectionTaxes, i
			}
		}
		return SectionExpenses, 0
	}
	return SectionNone, 0
}

// Chain is a's ancestors (root first) then a; an ancestor the accounts do
// not hold is named by its id.
func Chain(a Account, accounts map[uuid.UUID]Account) []Account {
	out := make([]Account, 0, len(a.Path)+1)
	for _, id := range a.Path {
		anc, ok := accounts[id]
		if !ok {
			anc = Account{ID: id, Name: id.String(), Type: a.Type}
		}
		out = append(out, anc)
	}
	return append(out, a)
}

type node struct {
	acct     Account
	value    int64
	children map[uuid.UUID]*node
}

func (n *node) child(a Account) *node {
	if n.children == nil {
		n.children = map[uuid.UUID]*node{}
	}
	c, ok := n.children[a.ID]
	if !ok {
		c = &node{acct: a}
		n.children[a.ID] = c
	}
	return c
}

// creditNormal: the section whose natural balance is a credit.
func (s Section) creditNormal() bool { return s == SectionIncome }

func (n *node) items(s Section) []LineItem {
	out := make([]LineItem, 0, len(n.children))
	for _, c := range n.children {
		name := c.acct.ID.String()
		if c.acct.StableName != nil {
			name = *c.acct.StableName
		}
		contra := false
		if c.acct.Normality != nil {
			contra = (*c.acct.Normality == "CREDIT") != s.creditNormal()
		}
		out = append(out, LineItem{Name: name, DisplayName: c.acct.Name, Value: c.value, IsContra: contra, LineItems: c.items(s)})
	}
	slices.SortFunc(out, func(a, b LineItem) int {
		return cmp.Or(strings.Compare(a.DisplayName, b.DisplayName), strings.Compare(a.Name, b.Name))
	})
	return out
}

// BuildPnL is the report of amounts (signed cents per account, debit
// positive) over the business's accounts, laid out as structure s. A line
// item's value is its account's own amount plus its children's; the line
// items follow the account tree below the section's account, or, in a
// section the structure lays out (Structure.Layout), the structure's lines
// in order (those with no account left out), each with its accounts
// nested as the chart nests them. The sections' values do not depend on s.
func BuildPnL(accounts map[uuid.UUID]Account, amounts map[uuid.UUID]int64, s Structure) PnL {
	roots := map[Section]*node{SectionIncome: {}, SectionCOGS: {}, SectionExpenses: {}, SectionTaxes: {}}
	layouts := map[Section]*Layout{}
	lines := map[Section][]*node{}
	for sec := range roots {
		if l := s.Layout(sec); l != nil {
			layouts[sec], lines[sec] = l, make([]*node, len(l.Lines)+1)
		}
	}
	for id, amt := range amounts {
		a, ok := accounts[id]
		if !ok || amt == 0 {
			continue
		}
		sec, at := Classify(a, accounts)
		if sec == SectionNone {
			continue
		}
		v := amt
		if sec.creditNormal() {
			v = -amt
		}
		chain := Chain(a, accounts)
		n := roots[sec]
		n.value += v
		if l := layouts[sec]; l != nil {
			i, from := l.place(chain, at)
			if lines[sec][i] == nil {
				lines[sec][i] = &node{}
			}
			n, at = lines[sec][i], from-1
			n.value += v
		}
		for _, c := range chain[at+1:] {
			n = n.child(c)
			n.value += v
		}
	}
	section := func(sec Section, name, display string) LineItem {
		r := roots[sec]
		out := LineItem{Name: name, DisplayName: display, Value: r.value, LineItems: r.items(sec)}
		if l := layouts[sec]; l != nil {
			out.LineItems = []LineItem{}
			for i, n := range lines[sec] {
				if n == nil {
					continue
				}
				sl := l.Other
				if i < len(l.Lines) {
					sl = l.Lines[i]
				}
				out.LineItems = append(out.LineItems, LineItem{Name: sl.Name, DisplayName: sl.DisplayName, Value: n.value, LineItems: n.items(sec)})
			}
		}
		return out
	}
	p := PnL{
		Income:           section(SectionIncome, "INCOME", "Income"),
		CostOfGoodsSold:  section(SectionCOGS, "COST_OF_GOODS_SOLD", "Cost of goods sold"),
		Expenses:         section(SectionExpenses, "EXPENSES", "Expenses"),
		Taxes:            section(SectionTaxes, "TAXES", "Taxes"),
		FullyCategorized: true, // the caller knows the bank transactions
	}
	p.GrossProfit = p.Income.Value - p.CostOfGoodsSold.Value
	p.ProfitBeforeTaxes = p.GrossProfit - p.Expenses.Value
	p.NetProfit = p.ProfitBeforeTaxes - p.Taxes.Value
	return p
}
