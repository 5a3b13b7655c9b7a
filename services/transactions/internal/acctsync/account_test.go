package acctsync

import (
	"errors"
	"testing"
)

func TestClassificationTypeAndNormality(t *testing.T) {
	tests := []struct {
		class     Classification
		typ       AccountType
		display   string
		normality Normality
	}{
		{ClassAsset, TypeAsset, "Asset", Debit},
		{ClassExpense, TypeExpense, "Expense", Debit},
		{ClassLiability, TypeLiability, "Liability", Credit},
		{ClassEquity, TypeEquity, "Equity", Credit},
		{ClassRevenue, TypeRevenue, "Revenue", Credit},
	}
	for _, tt := range tests {
		t.Run(string(tt.class), func(t *testing.T) {
			if !tt.class.Valid() {
				t.Fatalf("%s not valid", tt.class)
			}
			if got := tt.class.AccountType(); got != tt.typ {
				t.Errorf("AccountType = %s, want %s", got, tt.typ)
			}
			if got := tt.class.AccountType().DisplayName(); got != tt.display {
				t.Errorf("DisplayName = %q, want %q", got, tt.display)
			}
			if got := tt.class.Normality(); got != tt.normality {
				t.Errorf("Normality = %s, want %s", got, tt.normality)
			}
		})
	}
	for _, bad := range []Classification{"", "asset", "Income", "ASSET"} {
		if bad.Valid() {
			t.Errorf("%q accepted as a classification", bad)
		}
	}
}

func TestClassifyAccountType(t *testing.T) {
	tests := []struct {
		accountType string
		want        Classification
		ok          bool
	}{
		{"Bank", ClassAsset, true},
		{"Accounts Receivable", ClassAsset, true},
		{"Credit Card", ClassLiability, true},
		{"Long Term Liability", ClassLiability, true},
		{"Equity", ClassEquity, true},
		{"Income", ClassRevenue, true},
		{"Other Income", ClassRevenue, true},
		{"Cost of Goods Sold", ClassExpense, true},
		{"Other Expense", ClassExpense, true},
		{"Spaceship", "", false},
	}
	for _, tt := range tests {
		got, ok := ClassifyAccountType(tt.accountType)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ClassifyAccountType(%q) = %q, %v; want %q, %v", tt.accountType, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSubtype(t *testing.T) {
	tests := []struct {
		name string
		in   ExternalAccount
		want Subtype
	}{
		{"camel case", ExternalAccount{AccountSubType: "CashOnHand"}, Subtype{"CashOnHand", "Cash on hand"}},
		{"single word", ExternalAccount{AccountSubType: "Checking"}, Subtype{"Checking", "Checking"}},
		{"underscore", ExternalAccount{AccountSubType: "Investment_MortgageRealEstateLoans"}, Subtype{"Investment_MortgageRealEstateLoans", "Investment mortgage real estate loans"}},
		{"acronym", ExternalAccount{AccountSubType: "GlobalTaxPayableGST"}, Subtype{"GlobalTaxPayableGST", "Global tax payable GST"}},
		{"acronym inside", ExternalAccount{AccountSubType: "OtherCurrentAssetsUSA"}, Subtype{"OtherCurrentAssetsUSA", "Other current assets USA"}},
		{"missing subtype uses the type", ExternalAccount{AccountType: "Other Current Asset"}, Subtype{"OtherCurrentAsset", "Other current asset"}},
		{"nothing at all uses the class", ExternalAccount{Classification: ClassEquity}, Subtype{"Equity", "Equity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.Subtype(); got != tt.want {
				t.Errorf("Subtype() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCheckChart(t *testing.T) {
	ok := func(id, parent string) ExternalAccount {
		return ExternalAccount{ExternalID: id, ParentExternalID: parent, Classification: ClassAsset}
	}
	tests := []struct {
		name    string
		chart   []ExternalAccount
		wantErr bool
	}{
		{"empty", nil, false},
		{"tree", []ExternalAccount{ok("1", ""), ok("2", "1"), ok("3", "2")}, false},
		{"orphan parent is allowed", []ExternalAccount{ok("2", "99")}, false},
		{"duplicate id", []ExternalAccount{ok("1", ""), ok("1", "")}, true},
		{"missing id", []ExternalAccount{ok("", "")}, true},
		{"cycle", []ExternalAccount{ok("1", "3"), ok("2", "1"), ok("3", "2")}, true},
		{"bad classification", []ExternalAccount{{ExternalID: "1", Classification: "Income"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkChart(tt.chart)
			if (err != nil) != tt.wantErr {
				t.Fatalf("checkChart = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrProviderBadAnswer) {
				t.Errorf("error %v does not wrap ErrProviderBadAnswer", err)
			}
		})
	}
}
