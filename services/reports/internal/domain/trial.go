package domain

import (
	"cmp"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Trial balance columns and its totals row.
const (
	TrialColAccount     = "account"
	TrialColAccountType = "account_type"
	TrialColDebit       = "debit"
	TrialColCredit      = "credit"
	TrialTotalRow       = "total_trial_balance"
)

// typeOrder is the order of the account types in a trial balance, and
// their display names.
var typeOrder = map[string]struct {
	rank int
	name string
}{
	TypeAsset: {0, "Asset"}, TypeLiability: {1, "Liability"}, TypeEquity: {2, "Equity"},
	TypeRevenue: {3, "Revenue"}, TypeExpense: {4, "Expense"},
}

// TrialBalanceLine is an account's balance in a trial balance: signed
// cents, debit positive.
type TrialBalanceLine struct {
	Account Account
	Balance int64
}

// TrialBalance is a trial balance: every account with a balance on the
// day, in type then chart order, and the debits' and credits' totals.
type TrialBalance struct {
	Lines   []TrialBalanceLine
	Debits  int64
	Credits int64
}

// BuildTrialBalance is the trial balance of balances split as the balance
// sheet's (prior: before the fiscal year's start; current: from it to the
// day). The balance sheet accounts' balances are both parts; the
// profit-and-loss accounts show the fiscal year to date, their prior sum
// being closed into the retained earnings account (made up when the
// business has never used it). A positive balance is a debit, a negative
// one a credit, so debits = credits whatever the amounts, since every
// entry balances.
func BuildTrialBalance(accounts map[uuid.UUID]Account, prior, current map[uuid.UUID]int64) TrialBalance {
	bal := map[uuid.UUID]int64{}
	var retainedID uuid.UUID
	for id, a := range accounts {
		if a.Type == TypeEquity && a.StableName != nil && *a.StableName == StableRetainedEarnings {
			retainedID = id
		}
	}
	accts := accounts
	var closed int64
	for id, v := range prior {
		a, ok := accounts[id]
		switch {
		case !ok:
		case IsPnLType(a.Type):
			closed += v
		default:
			bal[id] += v
		}
	}
	for id, v := range current {
		if _, ok := accounts[id]; ok {
			bal[id] += v
		}
	}
	if closed != 0 {
		if retainedID == uuid.Nil {
			retainedID = uuid.NewSHA1(uuid.NameSpaceOID, []byte(StableRetainedEarnings))
			accts = make(map[uuid.UUID]Account, len(accounts)+1)
			for k, v := range accounts {
				accts[k] = v
			}
			accts[retainedID] = Account{ID: retainedID, StableName: ptrTo(StableRetainedEarnings), Name: "Retained earnings", Type: TypeEquity}
		}
		bal[retainedID] += closed
	}
	var tb TrialBalance
	chainKeys := map[uuid.UUID]string{} // the chain's names: chart order
	for id, v := range bal {
		a := accts[id]
		if v == 0 {
			continue
		}
		if _, ok := typeOrder[a.Type]; !ok {
			continue
		}
		tb.Lines = append(tb.Lines, TrialBalanceLine{Account: a, Balance: v})
		names := []string{}
		for _, c := range Chain(a, accts) {
			names = append(names, c.Name)
		}
		chainKeys[id] = strings.Join(names, "\x00")
		if v > 0 {
			tb.Debits += v
		} else {
			tb.Credits -= v
		}
	}
	slices.SortFunc(tb.Lines, func(x, y TrialBalanceLine) int {
		return cmp.Or(cmp.Compare(typeOrder[x.Account.Type].rank, typeOrder[y.Account.Type].rank),
			strings.Compare(chainKeys[x.Account.ID], chainKeys[y.Account.ID]),
			strings.Compare(x.Account.ID.String(), y.Account.ID.String()))
	})
	return tb
}

// Unified is the trial balance as the client's unified report: columns
// account, account_type, debit and credit (Currency, cents, unsigned; the
// other side Empty), a row per account keyed by its stable name (else its
// id), then the bold totals row.
func (tb TrialBalance) Unified(bid uuid.UUID) UnifiedReport {
	u := UnifiedReport{BusinessID: bid, Columns: []UnifiedReportColumn{
		{ColumnKey: TrialColAccount, DisplayName: "Account", IsRowHeader: true, Alignment: AlignLeft, Pinning: PinLeft},
		{ColumnKey: TrialColAccountType, DisplayName: "Account type", Alignment: AlignLeft},
		{ColumnKey: TrialColDebit, DisplayName: "Debit", Alignment: AlignRight},
		{ColumnKey: TrialColCredit, DisplayName: "Credit", Alignment: AlignRight},
	}}
	for _, l := range tb.Lines {
		debit, credit := EmptyCell(), EmptyCell()
		if l.Balance > 0 {
			debit = CurrencyCell(l.Balance)
		} else {
			credit = CurrencyCell(-l.Balance)
		}
		u.Rows = append(u.Rows, UnifiedReportRow{RowKey: accountName(l.Account), Cells: map[string]*UnifiedReportCell{
			TrialColAccount: TextCell(l.Account.Name), TrialColAccountType: TextCell(typeOrder[l.Account.Type].name),
			TrialColDebit: debit, TrialColCredit: credit,
		}})
	}
	u.Rows = append(u.Rows, UnifiedReportRow{RowKey: TrialTotalRow, Cells: map[string]*UnifiedReportCell{
		TrialColAccount: TextCell("Total").Bold(), TrialColAccountType: EmptyCell(),
		TrialColDebit: CurrencyCell(tb.Debits).Bold(), TrialColCredit: CurrencyCell(tb.Credits).Bold(),
	}})
	return u
}
