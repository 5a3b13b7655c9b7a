package domain

import (
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
)

// BalanceNode is an account of the chart with its balance: the lines of the
// account and of every account below it, signed by the account's own
// normality (positive when the account grew on its normal side).
type BalanceNode struct {
	Account  Account
	Balance  money.Cents
	Totals   DebitCredit // debits and credits of the subtree
	Children []BalanceNode
}

// Balance is the signed balance of totals for an account of normality n.
func Balance(n Direction, t DebitCredit) (money.Cents, error) {
	if n == Credit {
		return t.Credits.Sub(t.Debits)
	}
	return t.Debits.Sub(t.Credits)
}

// BuildBalances puts the per-account totals on the chart tree. Archived
// accounts appear only when they (or accounts below them) had lines in the
// period, so a period's balances always add up even after accounts were
// archived. An overflow of an int64 sum is an error.
func BuildBalances(roots []*Node, totals map[uuid.UUID]DebitCredit) ([]BalanceNode, error) {
	var build func(n *Node) (BalanceNode, bool, error)
	build = func(n *Node) (BalanceNode, bool, error) {
		t := totals[n.Account.ID]
		_, active := totals[n.Account.ID]
		out := BalanceNode{Account: n.Account}
		for _, c := range n.Children {
			child, keep, err := build(c)
			if err != nil {
				return BalanceNode{}, false, err
			}
			if !keep {
				continue
			}
			if t.Debits, err = t.Debits.Add(child.Totals.Debits); err != nil {
				return BalanceNode{}, false, err
			}
			if t.Credits, err = t.Credits.Add(child.Totals.Credits); err != nil {
				return BalanceNode{}, false, err
			}
			out.Children = append(out.Children, child)
			active = true
		}
		b, err := Balance(n.Account.Normality, t)
		if err != nil {
			return BalanceNode{}, false, err
		}
		out.Balance, out.Totals = b, t
		return out, !n.Account.Archived() || active, nil
	}
	out := make([]BalanceNode, 0, len(roots))
	for _, r := range roots {
		b, keep, err := build(r)
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, b)
		}
	}
	return out, nil
}
