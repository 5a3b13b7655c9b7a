package banking

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParseDirection(t *testing.T) {
	tests := []struct {
		in   string
		want Direction
		ok   bool
	}{
		{"CREDIT", Credit, true}, {"DEBIT", Debit, true},
		{"INFLOW", Credit, true}, {"OUTFLOW", Debit, true},
		{"MONEY_IN", Credit, true}, {"MONEY_OUT", Debit, true},
		{"credit", "", false}, {"", "", false}, {"IN", "", false},
	}
	for _, tt := range tests {
		got, ok := ParseDirection(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseDirection(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if !Credit.MoneyIn() || Debit.MoneyIn() {
		t.Error("CREDIT is money in, DEBIT money out")
	}
}

func TestEnumValidity(t *testing.T) {
	tests := []struct {
		name  string
		valid bool
	}{
		{"source API", SourceAPI.Valid() && SourceAPI.Importable()},
		{"source PROVIDER_3", SourceProvider3.Importable()},
		{"source CUSTOM is not importable", SourceCustom.Valid() && !SourceCustom.Importable()},
		{"source PLAID unknown", !Source("PLAID").Valid()},
		{"every status", len(CategorizationStatuses) == 7 && !CategorizationStatus("LAYER_REVIEW").Valid()},
		{"final statuses", StatusCategorized.Final() && StatusSplit.Final() && StatusMatched.Final() && !StatusPending.Final() && !StatusJournaling.Final()},
		{"methods", MethodSMS.Valid() && MethodServiceAuto.Valid() && !CategorizationMethod("MANUAL").Valid()},
		{"projected", ProjectedExclude.Valid() && !ProjectedIncomeCategory("INCOME").Valid()},
		{"exclusions", PersonalInflows.Valid() && !ExclusionType("GIFT").Valid() && TransferBetweenAccounts.DisplayName() == "Transfer between accounts"},
		{"kinds", KindDefault.Valid() && KindPersonal.Valid() && !CustomAccountKind("BUSINESS").Valid()},
	}
	for _, tt := range tests {
		if !tt.valid {
			t.Errorf("%s: wrong", tt.name)
		}
	}
}

func TestCustomAccountSubtypes(t *testing.T) {
	tests := []struct {
		typ     CustomAccountType
		subs    []CustomAccountSubtype
		parent  string
		refused CustomAccountSubtype
	}{
		{AccountDepository, []CustomAccountSubtype{SubtypeChecking, SubtypeSavings}, "BANK_ACCOUNTS", SubtypeCreditCard},
		{AccountCredit, []CustomAccountSubtype{SubtypeCreditCard}, "CREDIT_CARDS", SubtypeChecking},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.typ.Subtypes(), tt.subs) || tt.typ.LedgerParent() != tt.parent || tt.typ.Allows(tt.refused) {
			t.Errorf("%s: subtypes %v, parent %s, allows %s: %v", tt.typ, tt.typ.Subtypes(), tt.typ.LedgerParent(), tt.refused, tt.typ.Allows(tt.refused))
		}
		for _, s := range tt.subs {
			if !tt.typ.Allows(s) || !s.Valid() {
				t.Errorf("%s does not allow %s", tt.typ, s)
			}
		}
	}
	if CustomAccountType("LOAN").Valid() || len(CustomAccountType("LOAN").Subtypes()) != 0 {
		t.Error("LOAN is not a custom account type")
	}
}

func TestParseCustomAccountInput(t *testing.T) {
	body := func(m map[string]any) []byte {
		b, _ := json.Marshal(m)
		return b
	}
	in, err := ParseCustomAccountInput(body(map[string]any{
		"account_name": " Business Visa ", "institution_name": "RBC", "mask": "4242",
		"account_type": "CREDIT", "custom_account_type": "PERSONAL", "external_id": "ext-1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if in.AccountName != "Business Visa" || *in.InstitutionName != "RBC" || *in.Mask != "4242" || in.Type != AccountCredit ||
		in.Subtype != SubtypeCreditCard || in.Kind != KindPersonal || *in.ExternalID != "ext-1" || in.LedgerParent() != "CREDIT_CARDS" {
		t.Errorf("input = %+v", in)
	}
	in, err = ParseCustomAccountInput(body(map[string]any{"account_name": "Cash box", "account_type": "DEPOSITORY"}))
	if err != nil || in.Subtype != SubtypeChecking || in.Kind != KindDefault || in.InstitutionName != nil {
		t.Errorf("defaults: %+v, %v", in, err)
	}
	tests := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no name", map[string]any{"account_type": "DEPOSITORY"}, "account_name"},
		{"blank name", map[string]any{"account_name": " ", "account_type": "DEPOSITORY"}, "account_name"},
		{"long name", map[string]any{"account_name": strings.Repeat("n", 256), "account_type": "DEPOSITORY"}, "account_name"},
		{"no type", map[string]any{"account_name": "a"}, "account_type"},
		{"unknown type", map[string]any{"account_name": "a", "account_type": "LOAN"}, "account_type"},
		{"subtype of the other type", map[string]any{"account_name": "a", "account_type": "DEPOSITORY", "account_subtype": "CREDIT_CARD"}, "account_subtype"},
		{"card as savings", map[string]any{"account_name": "a", "account_type": "CREDIT", "account_subtype": "SAVINGS"}, "account_subtype"},
		{"unknown subtype", map[string]any{"account_name": "a", "account_type": "CREDIT", "account_subtype": "PLATINUM"}, "account_subtype"},
		{"unknown kind", map[string]any{"account_name": "a", "account_type": "CREDIT", "custom_account_type": "SHARED"}, "custom_account_type"},
		{"long mask", map[string]any{"account_name": "a", "account_type": "CREDIT", "mask": "12345678901"}, "mask"},
		{"numeric external id", map[string]any{"account_name": "a", "account_type": "CREDIT", "external_id": 5}, "external_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCustomAccountInput(body(tt.body))
			want400(t, err, EnumInvalidCustomAccount, tt.field)
		})
	}
	_, err = ParseCustomAccountInput([]byte(`"x"`))
	want400(t, err, EnumInvalidCustomAccount, "body")
}
