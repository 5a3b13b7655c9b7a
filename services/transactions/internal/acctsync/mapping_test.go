package acctsync

import (
	"reflect"
	"testing"
)

func TestStableNameOf(t *testing.T) {
	tests := map[string]string{
		"Accounts Receivable":       "ACCOUNTS_RECEIVABLE",
		"accounts receivable (A/R)": "ACCOUNTS_RECEIVABLE_A_R",
		"Owner's Draw":              "OWNERS_DRAW",
		"Meals & Entertainment":     "MEALS_ENTERTAINMENT",
		"  Sales  ":                 "SALES",
		"Café":                      "CAF",
		"":                          "",
	}
	for in, want := range tests {
		if got := StableNameOf(in); got != want {
			t.Errorf("StableNameOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMappingCandidates(t *testing.T) {
	rules := DefaultMappingRules()
	tests := []struct {
		name string
		acct ExternalAccount
		want []MappingCandidate
	}{
		{
			name: "subtype rule, then name, then type rule",
			acct: ExternalAccount{Name: "Petty Cash", AccountType: "Bank", AccountSubType: "CashOnHand"},
			want: []MappingCandidate{{"CASH", RuleSubtype}, {"PETTY_CASH", RuleName}, {"BANK_ACCOUNTS", RuleAccountType}},
		},
		{
			name: "name equal to the type rule is listed once",
			acct: ExternalAccount{Name: "Accounts Receivable (A/R)", AccountType: "Accounts Receivable", AccountSubType: "AccountsReceivable"},
			want: []MappingCandidate{{"ACCOUNTS_RECEIVABLE_A_R", RuleName}, {"ACCOUNTS_RECEIVABLE", RuleAccountType}},
		},
		{
			name: "income",
			acct: ExternalAccount{Name: "Sales", AccountType: "Income", AccountSubType: "SalesOfProductIncome"},
			want: []MappingCandidate{{"SALES", RuleName}},
		},
		{
			name: "unknown type: only the name",
			acct: ExternalAccount{Name: "Mystery", AccountType: "Other Asset", AccountSubType: "Goodwill"},
			want: []MappingCandidate{{"MYSTERY", RuleName}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MappingCandidates(tt.acct, rules)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("MappingCandidates = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDefaultMappingRulesAreACopy(t *testing.T) {
	a := DefaultMappingRules()
	a[0].StableName = "CHANGED"
	if DefaultMappingRules()[0].StableName == "CHANGED" {
		t.Fatal("DefaultMappingRules exposes the package table")
	}
}
