package domain

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestSeedChart(t *testing.T) {
	bid := uuid.New()
	now := time.Now().UTC()
	us := SeedChart(bid, "US", now)
	ca := SeedChart(bid, "CA", now)
	if len(ca) != len(us)+1 {
		t.Fatalf("CA chart has %d accounts, US %d: want exactly one more", len(ca), len(us))
	}
	contra := map[string]bool{
		"ACCUMULATED_DEPRECIATION": true, "DISTRIBUTIONS": true, "OWNERS_DRAW": true,
		"RETURNS_AND_ALLOWANCES": true, "DISCOUNTS": true, "CUSTOMER_REFUNDS": true,
	}
	seen := map[uuid.UUID]Account{}
	names := map[string]bool{}
	for _, a := range ca {
		s := *a.StableName
		if names[s] {
			t.Errorf("stable name %s twice", s)
		}
		names[s] = true
		if a.ID != DefaultAccountID(bid, s) || a.BusinessID != bid || !a.Default {
			t.Errorf("%s: id or business or default flag wrong: %+v", s, a)
		}
		if !a.Type.Valid() {
			t.Errorf("%s: type %q", s, a.Type)
		}
		if _, ok := LookupSubtype(a.Type, a.Subtype); !ok {
			t.Errorf("%s: subtype %q is not one of %s", s, a.Subtype, a.Type)
		}
		want := a.Type.DefaultNormality()
		if contra[s] {
			want = want.Opposite()
		}
		if a.Normality != want {
			t.Errorf("%s: normality %s, want %s", s, a.Normality, want)
		}
		if a.ParentID == nil {
			if !slices.Contains([]string{StableAssets, StableLiabilities, StableEquity, StableRevenue, StableExpenses}, s) {
				t.Errorf("%s is a root", s)
			}
		} else {
			p, ok := seen[*a.ParentID]
			if !ok {
				t.Errorf("%s listed before its parent", s)
			} else if p.Type != a.Type {
				t.Errorf("%s has type %s under %s of type %s", s, a.Type, *p.StableName, p.Type)
			}
		}
		seen[a.ID] = a
	}
	for _, s := range []string{"CASH", "BANK_ACCOUNTS", "ACCUMULATED_DEPRECIATION", "CREDIT_CARDS", "OWNERS_DRAW", "CUSTOMER_REFUNDS",
		"ITEMS_FOR_RESALE", "PAYROLL_REGULAR_WAGES", "BANK_FEES", "INTEREST_EXPENSE", "PAYROLL_TAXES", "SALES_TAXES_RECEIVABLE",
		"UNCATEGORIZED_EXPENSES", "UNCATEGORIZED_REVENUE", "OPENING_BALANCE_EQUITY"} {
		if !names[s] {
			t.Errorf("CA chart lacks %s", s)
		}
	}
	if slices.ContainsFunc(us, func(a Account) bool { return *a.StableName == StableSalesTaxesReceivable }) {
		t.Error("US chart has the input-tax-credit account")
	}
	// Deterministic: the same business seeds the same ids; another business others.
	again := SeedChart(bid, "US", now.Add(time.Hour))
	other := SeedChart(uuid.New(), "US", now)
	for i := range us {
		if again[i].ID != us[i].ID || other[i].ID == us[i].ID {
			t.Fatalf("ids not deterministic per business at %s", *us[i].StableName)
		}
	}
}

func TestBuildTree(t *testing.T) {
	bid := uuid.New()
	accounts := SeedChart(bid, "US", time.Now())
	meals := DefaultAccountID(bid, "MEALS")
	t0 := time.Now()
	late := Account{ID: uuid.New(), BusinessID: bid, ParentID: &meals, Name: "B late", Type: Expense, Subtype: "OPERATING_EXPENSES",
		Position: UserAccountPosition, CreatedAt: t0.Add(time.Second)}
	early := Account{ID: uuid.New(), BusinessID: bid, ParentID: &meals, Name: "A early", Type: Expense, Subtype: "OPERATING_EXPENSES",
		Position: UserAccountPosition, CreatedAt: t0}
	orphanParent := uuid.New()
	orphan := Account{ID: uuid.New(), BusinessID: bid, ParentID: &orphanParent, Type: Expense}
	// Reverse the input order: the tree must not depend on it.
	in := append([]Account{late, orphan, early}, accounts...)
	slices.Reverse(in)
	roots := BuildTree(in)
	var order []string
	for _, r := range roots {
		order = append(order, *r.Account.StableName)
	}
	if !slices.Equal(order, []string{"ASSETS", "LIABILITIES", "EQUITY", "REVENUE", "EXPENSES"}) {
		t.Fatalf("roots = %v", order)
	}
	count := 0
	var mealsNode *Node
	Walk(roots, func(n *Node) {
		count++
		if n.Account.ID == meals {
			mealsNode = n
		}
	})
	if count != len(accounts)+2 {
		t.Fatalf("tree has %d nodes, want %d (the orphan dropped)", count, len(accounts)+2)
	}
	if len(mealsNode.Children) != 2 || mealsNode.Children[0].Account.ID != early.ID {
		t.Fatalf("children of MEALS out of creation order")
	}
	expenses := roots[4]
	if first := *expenses.Children[0].Account.StableName; first != "COST_OF_GOODS_SOLD" {
		t.Fatalf("first expense child %s, want chart order", first)
	}

	ids := Descendants(roots, DefaultAccountID(bid, "FEES"))
	if len(ids) != 3 || !slices.Contains(ids, DefaultAccountID(bid, "BANK_FEES")) {
		t.Fatalf("descendants of FEES = %v", ids)
	}
	if got := Descendants(roots, uuid.New()); len(got) != 0 {
		t.Fatalf("descendants of an unknown id = %v", got)
	}

	byID := map[uuid.UUID]Account{}
	for _, a := range accounts {
		byID[a.ID] = a
	}
	var chain []string
	for _, a := range Ancestors(byID, DefaultAccountID(bid, "BANK_FEES")) {
		chain = append(chain, *a.StableName)
	}
	if !slices.Equal(chain, []string{"EXPENSES", "OPERATING_EXPENSES", "FEES"}) {
		t.Fatalf("ancestors = %v", chain)
	}
	if len(Ancestors(byID, DefaultAccountID(bid, "ASSETS"))) != 0 {
		t.Fatal("a root has ancestors")
	}
}

func TestLedgerID(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	if LedgerID(a) != LedgerID(a) || LedgerID(a) == LedgerID(b) || LedgerID(a) == a {
		t.Fatal("ledger ids must be stable per business and distinct")
	}
}
