package domain

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

func ptr[T any](v T) *T { return &v }

// errEnum returns the error's type and enum ("" for nil).
func errEnum(err error) (apperr.Type, string) {
	if err == nil {
		return "", ""
	}
	ae := apperr.From(err)
	return ae.Type, ae.Body().ErrorEnum
}

func seeded(t *testing.T, country string) map[string]Account {
	t.Helper()
	out := map[string]Account{}
	for _, a := range SeedChart(uuid.New(), country, time.Now()) {
		out[*a.StableName] = a
	}
	return out
}

func TestNewAccount(t *testing.T) {
	chart := seeded(t, "US")
	meals, expenses, bank := chart["MEALS"], chart["EXPENSES"], chart["BANK_ACCOUNTS"]
	archived := meals
	archived.ArchivedAt = ptr(time.Now())
	tests := []struct {
		name     string
		draft    AccountDraft
		parent   Account
		wantType apperr.Type
		wantEnum string
		check    func(t *testing.T, a Account)
	}{
		{"inherits subtype and default normality", AccountDraft{Name: " Team lunches ", Type: Expense}, meals, "", "", func(t *testing.T, a Account) {
			if a.Name != "Team lunches" || a.Subtype != "OPERATING_EXPENSES" || a.Normality != Debit || *a.ParentID != meals.ID ||
				a.BusinessID != meals.BusinessID || a.Default || a.Position != UserAccountPosition {
				t.Fatalf("account = %+v", a)
			}
		}},
		{"explicit subtype, normality, number and stable name", AccountDraft{Name: "Savings", Type: Asset, Subtype: ptr("BANK_ACCOUNTS"),
			Normality: ptr(Credit), AccountNumber: ptr("1010"), StableName: ptr("SAVINGS_1")}, bank, "", "", func(t *testing.T, a Account) {
			if a.Normality != Credit || *a.AccountNumber != "1010" || *a.StableName != "SAVINGS_1" || a.Subtype != "BANK_ACCOUNTS" {
				t.Fatalf("account = %+v", a)
			}
		}},
		{"blank number is absent", AccountDraft{Name: "X", Type: Expense, AccountNumber: ptr("  ")}, expenses, "", "", func(t *testing.T, a Account) {
			if a.AccountNumber != nil {
				t.Fatalf("number = %v", *a.AccountNumber)
			}
		}},
		{"type differs from the parent's", AccountDraft{Name: "X", Type: Revenue}, meals, apperr.InvalidPayload, EnumAccountTypeMismatch, nil},
		{"subtype of another type", AccountDraft{Name: "X", Type: Expense, Subtype: ptr("BANK_ACCOUNTS")}, meals, apperr.InvalidPayload, EnumAccountTypeMismatch, nil},
		{"unknown subtype", AccountDraft{Name: "X", Type: Expense, Subtype: ptr("NOPE")}, meals, apperr.InvalidPayload, EnumAccountTypeMismatch, nil},
		{"archived parent", AccountDraft{Name: "X", Type: Expense}, archived, apperr.InvalidPayload, EnumAccountArchived, nil},
		{"empty name", AccountDraft{Name: "  ", Type: Expense}, meals, apperr.InvalidPayload, "InvalidPayload", nil},
		{"name too long", AccountDraft{Name: strings.Repeat("n", 256), Type: Expense}, meals, apperr.InvalidPayload, "InvalidPayload", nil},
		{"control character", AccountDraft{Name: "a\tb", Type: Expense}, meals, apperr.InvalidPayload, "InvalidPayload", nil},
		{"bad stable name", AccountDraft{Name: "X", Type: Expense, StableName: ptr("has space")}, meals, apperr.InvalidPayload, "InvalidPayload", nil},
		{"unknown type", AccountDraft{Name: "X", Type: "THING"}, meals, apperr.InvalidPayload, "InvalidPayload", nil},
		{"unknown normality", AccountDraft{Name: "X", Type: Expense, Normality: ptr(Direction("UP"))}, meals, apperr.InvalidPayload, "InvalidPayload", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAccount(tt.draft, tt.parent)
			typ, enum := errEnum(err)
			if typ != tt.wantType || enum != tt.wantEnum {
				t.Fatalf("error = %v (%s/%s), want %s/%s", err, typ, enum, tt.wantType, tt.wantEnum)
			}
			if tt.check != nil {
				tt.check(t, a)
			}
		})
	}
}

func TestAccountApply(t *testing.T) {
	chart := seeded(t, "US")
	def := chart["MEALS"]
	user, err := NewAccount(AccountDraft{Name: "Lunch", Type: Expense, StableName: ptr("LUNCH")}, def)
	if err != nil {
		t.Fatal(err)
	}
	user.ID = uuid.New()
	tests := []struct {
		name    string
		account Account
		update  AccountUpdate
		wantErr bool
		check   func(t *testing.T, a Account)
	}{
		{"rename and renumber a default account", def, AccountUpdate{Name: "Meals & entertainment", AccountNumber: ptr("6100")}, false, func(t *testing.T, a Account) {
			if a.Name != "Meals & entertainment" || *a.AccountNumber != "6100" || *a.StableName != "MEALS" {
				t.Fatalf("account = %+v", a)
			}
		}},
		{"fields sent back unchanged", def, AccountUpdate{Name: "Meals", StableName: ptr("MEALS"), Type: ptr(Expense), Normality: ptr(Debit),
			Subtype: ptr("OPERATING_EXPENSES"), ParentID: def.ParentID}, false, nil},
		{"stable name of a default account", def, AccountUpdate{Name: "Meals", StableName: ptr("FOOD")}, true, nil},
		{"subtype of a default account", def, AccountUpdate{Name: "Meals", Subtype: ptr("PAYROLL")}, true, nil},
		{"type", user, AccountUpdate{Name: "Lunch", Type: ptr(Revenue)}, true, nil},
		{"normality", user, AccountUpdate{Name: "Lunch", Normality: ptr(Credit)}, true, nil},
		{"parent", user, AccountUpdate{Name: "Lunch", ParentID: ptr(uuid.New())}, true, nil},
		{"user account changes stable name and subtype", user, AccountUpdate{Name: "Lunch", StableName: ptr("LUNCHES"), Subtype: ptr("OTHER_EXPENSES")}, false,
			func(t *testing.T, a Account) {
				if *a.StableName != "LUNCHES" || a.Subtype != "OTHER_EXPENSES" {
					t.Fatalf("account = %+v", a)
				}
			}},
		{"subtype outside the type", user, AccountUpdate{Name: "Lunch", Subtype: ptr("SALES")}, true, nil},
		{"invalid stable name", user, AccountUpdate{Name: "Lunch", StableName: ptr("")}, true, nil},
		{"empty name", user, AccountUpdate{Name: ""}, true, nil},
		{"clearing the number", Account{Name: "N", AccountNumber: ptr("1"), Type: Asset, Subtype: "CASH"}, AccountUpdate{Name: "N"}, false,
			func(t *testing.T, a Account) {
				if a.AccountNumber != nil {
					t.Fatal("number kept")
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tt.account.Apply(tt.update)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if typ, enum := errEnum(err); typ != apperr.InvalidPayload || enum != EnumImmutableField {
					t.Fatalf("error %s/%s", typ, enum)
				}
				return
			}
			if tt.check != nil {
				tt.check(t, a)
			}
		})
	}
}

func TestCanArchive(t *testing.T) {
	chart := seeded(t, "US")
	user := Account{Name: "X", Type: Expense}
	tests := []struct {
		name     string
		account  Account
		totals   DebitCredit
		children int
		wantEnum string
	}{
		{"unused", user, DebitCredit{}, 0, ""},
		{"balanced activity", user, DebitCredit{Debits: 500, Credits: 500}, 0, ""},
		{"balance", user, DebitCredit{Debits: 500, Credits: 499}, 0, EnumAccountInUse},
		{"live children", user, DebitCredit{}, 2, EnumAccountInUse},
		{"default account", chart["TIPS"], DebitCredit{}, 0, EnumDefaultAccount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.account.CanArchive(tt.totals, tt.children)
			typ, enum := errEnum(err)
			if enum != tt.wantEnum || (err != nil && typ != apperr.Conflict) {
				t.Fatalf("error = %v (%s), want %q", err, enum, tt.wantEnum)
			}
		})
	}
}

func TestCanDelete(t *testing.T) {
	chart := seeded(t, "US")
	user := Account{Name: "X", Type: Expense}
	tests := []struct {
		name     string
		account  Account
		use      AccountUse
		wantEnum string
		wantText string
	}{
		{"never used", user, AccountUse{}, "", ""},
		{"lines (at any balance)", user, AccountUse{HasLines: true}, EnumAccountInUse, "archive it instead"},
		{"sub-accounts", user, AccountUse{SubAccounts: 1}, EnumAccountInUse, "sub-account"},
		{"a rule", user, AccountUse{Rules: 2}, EnumAccountInUse, "categorization rule"},
		{"default account", chart["TIPS"], AccountUse{}, EnumDefaultAccount, "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.account.CanDelete(tt.use)
			typ, enum := errEnum(err)
			if enum != tt.wantEnum || (err != nil && (typ != apperr.Conflict || !strings.Contains(err.Error(), tt.wantText))) {
				t.Fatalf("error = %v (%s), want %q saying %q", err, enum, tt.wantEnum, tt.wantText)
			}
		})
	}
}

func TestAccountTypeAndDirection(t *testing.T) {
	for _, tc := range []struct {
		typ  AccountType
		want Direction
		root string
	}{{Asset, Debit, "ASSETS"}, {Expense, Debit, "EXPENSES"}, {Liability, Credit, "LIABILITIES"}, {Equity, Credit, "EQUITY"}, {Revenue, Credit, "REVENUE"}} {
		if got := tc.typ.DefaultNormality(); got != tc.want || !tc.typ.Valid() || tc.typ.DisplayName() == "" {
			t.Errorf("%s: normality %s, want %s", tc.typ, got, tc.want)
		}
		if _, ok := LookupSubtype(tc.typ, tc.root); !ok {
			t.Errorf("%s lacks its root subtype %s", tc.typ, tc.root)
		}
	}
	if AccountType("ASSETS").Valid() || Direction("debit").Valid() || Debit.Opposite() != Credit || Credit.Opposite() != Debit {
		t.Fatal("validity or opposite wrong")
	}
	a := Account{Type: Expense, Subtype: "RETIRED_SUBTYPE"}
	if s := a.SubtypeInfo(); s.Value != "RETIRED_SUBTYPE" || s.DisplayName != "RETIRED_SUBTYPE" {
		t.Fatalf("unknown subtype displays as %+v", s)
	}
	id := uuid.New()
	if (Account{ID: id}).Category() != id.String() || (Account{StableName: ptr("RENT")}).Category() != "RENT" {
		t.Fatal("category identifier wrong")
	}
}
