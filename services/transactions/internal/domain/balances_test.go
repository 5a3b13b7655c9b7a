package domain

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
)

func TestBuildBalances(t *testing.T) {
	bid := uuid.New()
	accounts := SeedChart(bid, "US", time.Now())
	id := func(s string) uuid.UUID { return DefaultAccountID(bid, s) }
	now := time.Now()
	parent := id("RENT")
	oldAcct := Account{ID: uuid.New(), BusinessID: bid, ParentID: &parent, Name: "Old office", Type: Expense,
		Subtype: "OPERATING_EXPENSES", Normality: Debit, ArchivedAt: &now}
	quiet := Account{ID: uuid.New(), BusinessID: bid, ParentID: &parent, Name: "Closed", Type: Expense,
		Subtype: "OPERATING_EXPENSES", Normality: Debit, ArchivedAt: &now}
	accounts = append(accounts, oldAcct, quiet)
	totals := map[uuid.UUID]DebitCredit{
		id("CASH"):             {Debits: 10_000, Credits: 3_000},
		id("SALES"):            {Credits: 9_000},
		id("CUSTOMER_REFUNDS"): {Debits: 1_000},
		oldAcct.ID:             {Debits: 2_000},
		id("RENT"):             {Debits: 1_000},
	}
	nodes, err := BuildBalances(BuildTree(accounts), totals)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]BalanceNode{}
	names := map[uuid.UUID]bool{}
	var walk func(ns []BalanceNode)
	walk = func(ns []BalanceNode) {
		for _, n := range ns {
			if n.Account.StableName != nil {
				got[*n.Account.StableName] = n
			}
			names[n.Account.ID] = true
			walk(n.Children)
		}
	}
	walk(nodes)
	want := map[string]money.Cents{
		"CASH": 7_000, "ASSETS": 7_000,
		"SALES": 9_000, "CUSTOMER_REFUNDS": 1_000, "RETURNS_AND_ALLOWANCES": 1_000, // debit-normal contra revenue
		"REVENUE": 8_000,                                                 // credit-normal: sales less refunds
		"RENT":    3_000, "OPERATING_EXPENSES": 3_000, "EXPENSES": 3_000, // the archived child with lines counts
		"LIABILITIES": 0, "EQUITY": 0, "TIPS": 0,
	}
	for s, w := range want {
		if got[s].Balance != w {
			t.Errorf("%s balance %d, want %d", s, got[s].Balance, w)
		}
	}
	if !names[oldAcct.ID] || names[quiet.ID] {
		t.Fatalf("archived accounts: with lines shown %v, without lines shown %v", names[oldAcct.ID], names[quiet.ID])
	}
	// Trial balance: the roots' debits equal their credits when every
	// entry balanced.
	var d, c money.Cents
	for _, n := range nodes {
		d += n.Totals.Debits
		c += n.Totals.Credits
	}
	if d != 14_000 || c != 12_000 { // the totals above are not a balanced ledger; check they all count once
		t.Fatalf("root totals %d/%d", d, c)
	}

	_, err = BuildBalances(BuildTree(accounts), map[uuid.UUID]DebitCredit{
		id("CASH"): {Debits: money.MaxCents}, id("BANK_ACCOUNTS"): {Debits: 1},
	})
	if !errors.Is(err, money.ErrOverflow) {
		t.Fatalf("overflowing subtree: %v", err)
	}
	if b, err := Balance(Credit, DebitCredit{Debits: 5, Credits: 2}); err != nil || b != -3 {
		t.Fatalf("credit balance %d %v", b, err)
	}
}
