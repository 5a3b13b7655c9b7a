package domain

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestCategories(t *testing.T) {
	bid := uuid.New()
	accounts := SeedChart(bid, "US", time.Now())
	now := time.Now()
	rent := DefaultAccountID(bid, "RENT")
	accounts = append(accounts, Account{ID: uuid.New(), BusinessID: bid, ParentID: &rent, Name: "Gone", Type: Expense,
		Subtype: "OPERATING_EXPENSES", ArchivedAt: &now})
	roots := BuildTree(accounts)

	top := func(cs []Category) []string {
		var out []string
		for _, c := range cs {
			if c.Account != nil {
				out = append(out, c.Account.Category())
			} else {
				out = append(out, string(c.Exclusion))
			}
		}
		return out
	}
	tests := []struct {
		mode CategoryMode
		want []string
	}{
		{ModeAll, []string{"ASSETS", "LIABILITIES", "EQUITY", "REVENUE", "EXPENSES",
			"PERSONAL_INFLOWS", "PERSONAL_EXPENSES", "DUPLICATE_TRANSACTION", "TRANSFER_BETWEEN_ACCOUNTS"}},
		{ModeExpenses, []string{"COST_OF_GOODS_SOLD", "OPERATING_EXPENSES", "TAXES",
			"PERSONAL_EXPENSES", "DUPLICATE_TRANSACTION", "TRANSFER_BETWEEN_ACCOUNTS"}},
		{ModeRevenue, []string{"SALES", "UNCATEGORIZED_REVENUE", "RETURNS_AND_ALLOWANCES",
			"PERSONAL_INFLOWS", "DUPLICATE_TRANSACTION", "TRANSFER_BETWEEN_ACCOUNTS"}},
		{ModeDefault, []string{"SALES", "UNCATEGORIZED_REVENUE", "RETURNS_AND_ALLOWANCES", "COST_OF_GOODS_SOLD",
			"OPERATING_EXPENSES", "TAXES", "PERSONAL_INFLOWS", "PERSONAL_EXPENSES", "DUPLICATE_TRANSACTION", "TRANSFER_BETWEEN_ACCOUNTS"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			cs := Categories(roots, tt.mode)
			if got := top(cs); !slices.Equal(got, tt.want) {
				t.Fatalf("top level = %v, want %v", got, tt.want)
			}
			var all []string
			var walk func(cs []Category)
			walk = func(cs []Category) {
				for _, c := range cs {
					all = append(all, c.DisplayName())
					walk(c.Children)
				}
			}
			walk(cs)
			if slices.Contains(all, "Gone") {
				t.Fatal("an archived account is offered")
			}
			if tt.mode != ModeRevenue && !slices.Contains(all, "Bank fees") {
				t.Fatal("nested expense accounts missing")
			}
		})
	}

	for in, want := range map[string]CategoryMode{"": ModeDefault, "ALL": ModeAll, "EXPENSES": ModeExpenses, "REVENUE": ModeRevenue} {
		if got, err := ParseCategoryMode(in); err != nil || got != want {
			t.Errorf("ParseCategoryMode(%q) = %s, %v", in, got, err)
		}
	}
	if _, err := ParseCategoryMode("all"); err == nil {
		t.Error("lower-case mode accepted")
	}
	if _, err := ParseCategoryMode("INCOME"); err == nil {
		t.Error("unknown mode accepted")
	}
	if x, err := ParseExclusion("category", "PERSONAL_EXPENSES"); err != nil || x.DisplayName() != "Personal expenses" {
		t.Errorf("ParseExclusion = %s, %v", x, err)
	}
	if _, err := ParseExclusion("category", "NOT_MINE"); err == nil {
		t.Error("unknown exclusion accepted")
	}
}
