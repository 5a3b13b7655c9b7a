package domain

import (
	"cmp"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Activity is where the statement of cash flows puts an account's change.
type Activity string

// The activities, and Cash: the accounts whose balance is the cash the
// statement explains.
const (
	ActivityCash      Activity = "CASH"
	ActivityOperating Activity = "OPERATING"
	ActivityInvesting Activity = "INVESTING"
	ActivityFinancing Activity = "FINANCING"
)

// CashFlowClasses classifies balance sheet accounts by type and subtype
// (the account's own, else its nearest ancestor's; the roots' ASSETS,
// LIABILITIES and EQUITY say nothing more than the type): cash and cash
// equivalents; investing (long-term assets); financing (loans, owners'
// equity). Every other asset and liability is working capital (operating),
// as is any subtype not listed; profit-and-loss accounts make the net
// income, the operating section's first line.
var CashFlowClasses = map[string]map[string]Activity{
	TypeAsset: {
		"CASH":               ActivityCash,
		"BANK_ACCOUNTS":      ActivityCash,
		"UNDEPOSITED_FUNDS":  ActivityCash,
		"FIXED_ASSETS":       ActivityInvesting,
		"NON_CURRENT_ASSETS": ActivityInvesting,
		// Accumulated depreciation is not cash spent: its change adds
		// the depreciation expense back in operating activities.
		"ACCUMULATED_DEPRECIATION": ActivityOperating,
	},
	TypeLiability: {
		"SHAREHOLDER_LOANS":       ActivityFinancing,
		"LINE_OF_CREDIT":          ActivityFinancing,
		"NOTES_PAYABLE":           ActivityFinancing,
		"NON_CURRENT_LIABILITIES": ActivityFinancing,
	},
	TypeEquity: {"*": ActivityFinancing},
}

// ClassifyCashFlow is the activity of account a (of a balance sheet type)
// given the business's accounts, and false for a profit-and-loss account.
func ClassifyCashFlow(a Account, accounts map[uuid.UUID]Account) (Activity, bool) {
	classes, ok := CashFlowClasses[a.Type]
	switch {
	case IsPnLType(a.Type):
		return "", false
	case !ok:
		return ActivityOperating, true
	}
	if act, ok := classes["*"]; ok {
		return act, true
	}
	chain := Chain(a, accounts)
	for i := len(chain) - 1; i >= 0; i-- {
		s := chain[i].Subtype
		if s == nil || *s == "" || rootSubtypes[*s] {
			continue // no subtype of its own: the parent's decides
		}
		if act, ok := classes[*s]; ok {
			return act, true
		}
		return ActivityOperating, true
	}
	return ActivityOperating, true
}

// rootSubtypes are the subtypes of the chart's roots, which say nothing
// more than the type.
var rootSubtypes = map[string]bool{"ASSETS": true, "LIABILITIES": true, "EQUITY": true}

// CashFlow is a statement of cash flows by the indirect method: each
// section a line item (operating starts from the net income, then the
// change of each working-capital account; every line is the cash it
// brought in, negative when it took cash out), the period's net cash
// increase, and the cash accounts' balances at the start (the day before
// the first) and at the end.
type CashFlow struct {
	Operating, Investing, Financing LineItem
	NetIncome                       int64
	NetCashIncrease                 int64
	CashAtStart, CashAtEnd          int64
}

// BuildCashFlow is the statement of changes (signed cents, debit positive,
// per account, over the period) and opening (each account's balance the
// day before the period). Every non-cash account's line is minus its
// change (a debit change, as a receivable growing, took cash), so since
// every entry balances the sections add up to the cash accounts' change
// exactly.
func BuildCashFlow(accounts map[uuid.UUID]Account, changes, opening map[uuid.UUID]int64) CashFlow {
	var out CashFlow
	var cashChange int64
	sections := map[Activity][]LineItem{}
	totals := map[Activity]int64{}
	for id, v := range changes {
		a, ok := accounts[id]
		if !ok || v == 0 {
			continue
		}
		act, ok := ClassifyCashFlow(a, accounts)
		switch {
		case !ok:
			out.NetIncome -= v
		case act == ActivityCash:
			cashChange += v
		default:
			sections[act] = append(sections[act], LineItem{Name: accountName(a), DisplayName: a.Name, Value: -v, LineItems: []LineItem{}})
			totals[act] -= v
		}
	}
	for id, v := range opening {
		if a, ok := accounts[id]; ok {
			if act, ok := ClassifyCashFlow(a, accounts); ok && act == ActivityCash {
				out.CashAtStart += v
			}
		}
	}
	// The sections explain the change of cash; both are computed, and they
	// agree because every entry balances.
	out.NetCashIncrease = out.NetIncome + totals[ActivityOperating] + totals[ActivityInvesting] + totals[ActivityFinancing]
	out.CashAtEnd = out.CashAtStart + cashChange
	sorted := func(ls []LineItem) []LineItem {
		slices.SortFunc(ls, func(a, b LineItem) int {
			return cmp.Or(strings.Compare(a.DisplayName, b.DisplayName), strings.Compare(a.Name, b.Name))
		})
		if ls == nil {
			return []LineItem{}
		}
		return ls
	}
	ops := append([]LineItem{{Name: "NET_INCOME", DisplayName: "Net income", Value: out.NetIncome, LineItems: []LineItem{}}},
		sorted(sections[ActivityOperating])...)
	out.Operating = LineItem{Name: "OPERATING_ACTIVITIES", DisplayName: "Operating activities", Value: out.NetIncome + totals[ActivityOperating], LineItems: ops}
	out.Investing = LineItem{Name: "INVESTING_ACTIVITIES", DisplayName: "Investing activities", Value: totals[ActivityInvesting], LineItems: sorted(sections[ActivityInvesting])}
	out.Financing = LineItem{Name: "FINANCING_ACTIVITIES", DisplayName: "Financing activities", Value: totals[ActivityFinancing], LineItems: sorted(sections[ActivityFinancing])}
	return out
}
