// Package domain holds the transactions service's entities and rules: the
// ledger accounts and the default chart of accounts, balanced journal
// entries, balances and the category list derived from the chart. It
// imports no web framework, database or broker library; invalid input is
// reported as *apperr.Error values that the HTTP layer renders unchanged.
package domain

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// AccountType is the fundamental class of a ledger account.
type AccountType string

// The account types (the client's closed list).
const (
	Asset     AccountType = "ASSET"
	Liability AccountType = "LIABILITY"
	Equity    AccountType = "EQUITY"
	Revenue   AccountType = "REVENUE"
	Expense   AccountType = "EXPENSE"
)

// AccountTypes lists the types in chart order.
var AccountTypes = []AccountType{Asset, Liability, Equity, Revenue, Expense}

var accountTypeNames = map[AccountType]string{
	Asset: "Asset", Liability: "Liability", Equity: "Equity", Revenue: "Revenue", Expense: "Expense",
}

// Valid reports whether t is one of the five types.
func (t AccountType) Valid() bool { _, ok := accountTypeNames[t]; return ok }

// DisplayName is the human-readable name of the type.
func (t AccountType) DisplayName() string { return accountTypeNames[t] }

// DefaultNormality is the side that increases an account of this type:
// DEBIT for assets and expenses, CREDIT for liabilities, equity and revenue.
// Contra accounts (accumulated depreciation, distributions, returns) have
// the other one.
func (t AccountType) DefaultNormality() Direction {
	if t == Asset || t == Expense {
		return Debit
	}
	return Credit
}

// Direction is the side of a journal line, and the normality of an account
// (the side that increases it).
type Direction string

// The two sides.
const (
	Debit  Direction = "DEBIT"
	Credit Direction = "CREDIT"
)

// Valid reports whether d is DEBIT or CREDIT.
func (d Direction) Valid() bool { return d == Debit || d == Credit }

// Opposite is the other side.
func (d Direction) Opposite() Direction {
	if d == Debit {
		return Credit
	}
	return Debit
}

// Subtype is the finer classification of an account within its type.
type Subtype struct {
	Value       string
	DisplayName string
}

// subtypes lists, per type, the subtypes an account may have. The first of
// each list is the subtype of the type's root account.
var subtypes = map[AccountType][]Subtype{
	Asset: {
		{"ASSETS", "Assets"}, {"CASH", "Cash"}, {"BANK_ACCOUNTS", "Bank accounts"},
		{"ACCOUNTS_RECEIVABLE", "Accounts receivable"}, {"INVENTORY", "Inventory"},
		{"FIXED_ASSETS", "Fixed assets"}, {"ACCUMULATED_DEPRECIATION", "Accumulated depreciation"},
		{"UNDEPOSITED_FUNDS", "Undeposited funds"}, {"PAYMENT_PROCESSOR_CLEARING", "Payment processor clearing"},
		{"PREPAID_EXPENSES", "Prepaid expenses"}, {"TAXES_RECEIVABLE", "Taxes receivable"},
		{"OTHER_CURRENT_ASSETS", "Other current assets"}, {"NON_CURRENT_ASSETS", "Non-current assets"},
	},
	Liability: {
		{"LIABILITIES", "Liabilities"}, {"ACCOUNTS_PAYABLE", "Accounts payable"}, {"CREDIT_CARDS", "Credit cards"},
		{"SHAREHOLDER_LOANS", "Shareholder loans"}, {"PAYROLL_LIABILITIES", "Payroll liabilities"},
		{"SALES_TAXES_PAYABLE", "Sales taxes payable"}, {"OTHER_TAXES_PAYABLE", "Other taxes payable"},
		{"LINE_OF_CREDIT", "Line of credit"}, {"NOTES_PAYABLE", "Notes payable"}, {"TIPS", "Tips"},
		{"UNEARNED_REVENUE", "Unearned revenue"}, {"REFUND_LIABILITIES", "Refund liabilities"},
		{"OTHER_CURRENT_LIABILITIES", "Other current liabilities"}, {"NON_CURRENT_LIABILITIES", "Non-current liabilities"},
	},
	Equity: {
		{"EQUITY", "Equity"}, {"CONTRIBUTIONS", "Contributions"}, {"DISTRIBUTIONS", "Distributions"},
		{"RETAINED_EARNINGS", "Retained earnings"}, {"OPENING_BALANCE_EQUITY", "Opening balance equity"},
		{"OWNERS_CAPITAL", "Owner's capital"}, {"OTHER_EQUITY", "Other equity"},
	},
	Revenue: {
		{"REVENUE", "Revenue"}, {"SALES", "Sales"}, {"UNCATEGORIZED_REVENUE", "Uncategorized revenue"},
		{"RETURNS_AND_ALLOWANCES", "Returns and allowances"}, {"OTHER_INCOME", "Other income"},
	},
	Expense: {
		{"EXPENSES", "Expenses"}, {"COST_OF_GOODS_SOLD", "Cost of goods sold"},
		{"OPERATING_EXPENSES", "Operating expenses"}, {"PAYROLL", "Payroll"}, {"FEES", "Fees"},
		{"UNCATEGORIZED_EXPENSES", "Uncategorized expenses"}, {"INTEREST_EXPENSE", "Interest expense"},
		{"TAXES", "Taxes"}, {"OTHER_EXPENSES", "Other expenses"},
	},
}

// LookupSubtype returns the subtype value of type t, if it is one.
func LookupSubtype(t AccountType, value string) (Subtype, bool) {
	for _, s := range subtypes[t] {
		if s.Value == value {
			return s, true
		}
	}
	return Subtype{}, false
}

// subtypeName is the display name of a known subtype; an unknown value (a
// subtype removed from the table after accounts used it) displays as its
// value, so reading never fails.
func subtypeName(t AccountType, value string) string {
	if s, ok := LookupSubtype(t, value); ok {
		return s.DisplayName
	}
	return value
}

// Account is a ledger account of one business.
type Account struct {
	ID            uuid.UUID
	BusinessID    uuid.UUID
	ParentID      *uuid.UUID // nil only for the five root accounts
	Name          string
	AccountNumber *string
	StableName    *string
	Normality     Direction
	Type          AccountType
	Subtype       string
	// Default marks an account of the seeded chart: its stable name and
	// place are fixed and it cannot be archived.
	Default    bool
	Position   int // order among siblings
	ArchivedAt *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// SubtypeInfo is the account's subtype with its display name.
func (a Account) SubtypeInfo() Subtype {
	return Subtype{Value: a.Subtype, DisplayName: subtypeName(a.Type, a.Subtype)}
}

// Archived reports whether the account is archived.
func (a Account) Archived() bool { return a.ArchivedAt != nil }

// Category is the account's identifier in category lists: its stable name,
// or its id when it has none.
func (a Account) Category() string {
	if a.StableName != nil {
		return *a.StableName
	}
	return a.ID.String()
}

// Limits of account fields, in characters.
const (
	MaxAccountNameLength   = 255
	MaxAccountNumberLength = 40
	MaxStableNameLength    = 100
)

var stableNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)

// CheckStableName validates a caller-chosen stable name: 1 to 100 of
// A-Z a-z 0-9 _ . : - starting with a letter or digit. field names it in
// the error.
func CheckStableName(field, s string) error {
	if s == "" || utf8.RuneCountInString(s) > MaxStableNameLength || !stableNamePattern.MatchString(s) {
		return apperr.PayloadField(field, fmt.Sprintf("must be 1 to %d of A-Z a-z 0-9 _ . : - starting with a letter or digit", MaxStableNameLength))
	}
	return nil
}

// CleanText trims s and checks it is 1 to max characters of valid UTF-8
// without control characters; field names it in the error.
func CleanText(field, s string, max int) (string, error) {
	if !utf8.ValidString(s) {
		return "", apperr.PayloadField(field, "must be valid UTF-8")
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", apperr.PayloadField(field, "must not be empty")
	}
	if utf8.RuneCountInString(s) > max {
		return "", apperr.PayloadField(field, fmt.Sprintf("must be at most %d characters", max))
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", apperr.PayloadField(field, "must not contain control characters")
	}
	return s, nil
}

// CleanOptionalText is CleanText for a nullable field: nil and blank text
// are absent (nil).
func CleanOptionalText(field string, s *string, max int) (*string, error) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil, nil
	}
	v, err := CleanText(field, *s, max)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// AccountDraft is a caller's request for a new account (POST
// /ledger/accounts, or an account the bank part creates).
type AccountDraft struct {
	Name          string
	AccountNumber *string
	StableName    *string
	Normality     *Direction // the type's default normality when nil
	Type          AccountType
	Subtype       *string // the parent's subtype when nil
}

// NewAccount validates d as a child of parent and returns the account to
// store (without id and timestamps). The type must be the parent's, the
// subtype one of that type's, and the parent live.
func NewAccount(d AccountDraft, parent Account) (Account, error) {
	fields := map[string]string{}
	name, err := CleanText("name", d.Name, MaxAccountNameLength)
	if err != nil {
		fields["name"] = "must be 1 to 255 characters without control characters"
	}
	number, err := CleanOptionalText("account_number", d.AccountNumber, MaxAccountNumberLength)
	if err != nil {
		fields["account_number"] = fmt.Sprintf("must be at most %d characters without control characters", MaxAccountNumberLength)
	}
	if d.StableName != nil {
		if err := CheckStableName("stable_name", *d.StableName); err != nil {
			fields["stable_name"] = fmt.Sprintf("must be 1 to %d of A-Z a-z 0-9 _ . : - starting with a letter or digit", MaxStableNameLength)
		}
	}
	if !d.Type.Valid() {
		fields["account_type"] = "must be one of ASSET, LIABILITY, EQUITY, REVENUE, EXPENSE"
	}
	normality := d.Type.DefaultNormality()
	if d.Normality != nil {
		if !d.Normality.Valid() {
			fields["normality"] = "must be DEBIT or CREDIT"
		}
		normality = *d.Normality
	}
	if len(fields) > 0 {
		return Account{}, apperr.FieldErrors(apperr.InvalidPayload, fields)
	}
	if parent.Archived() {
		return Account{}, apperr.PayloadField("parent_id", "the parent account is archived").WithEnum(EnumAccountArchived)
	}
	if d.Type != parent.Type {
		return Account{}, apperr.PayloadField("account_type",
			fmt.Sprintf("must be the parent's type %s", parent.Type)).WithEnum(EnumAccountTypeMismatch)
	}
	subtype := parent.Subtype
	if d.Subtype != nil {
		s, ok := LookupSubtype(d.Type, *d.Subtype)
		if !ok {
			return Account{}, apperr.PayloadField("account_subtype",
				fmt.Sprintf("is not a subtype of %s (one of %s)", d.Type, subtypeList(d.Type))).WithEnum(EnumAccountTypeMismatch)
		}
		subtype = s.Value
	}
	pid := parent.ID
	return Account{
		BusinessID: parent.BusinessID, ParentID: &pid, Name: name, AccountNumber: number, StableName: d.StableName,
		Normality: normality, Type: d.Type, Subtype: subtype, Position: UserAccountPosition,
	}, nil
}

func subtypeList(t AccountType) string {
	vals := make([]string, 0, len(subtypes[t]))
	for _, s := range subtypes[t] {
		vals = append(vals, s.Value)
	}
	return strings.Join(vals, ", ")
}

// UserAccountPosition sorts accounts created by callers after the seeded
// siblings (then by creation time).
const UserAccountPosition = 1_000_000

// AccountUpdate is a full update of an account (PUT): the new name and
// number, and optionally the other fields as the caller last read them.
// Fields a caller may not change must be absent or equal to the current
// value, so clients that send the whole object back work.
type AccountUpdate struct {
	Name          string
	AccountNumber *string
	StableName    *string
	Normality     *Direction
	Type          *AccountType
	Subtype       *string
	ParentID      *uuid.UUID
}

// Apply validates u against a and returns the updated account. Name and
// number may always change; a caller-created account may also change its
// stable name and its subtype (within its type). Type, normality and parent
// never change: entries already posted were classified by them.
func (a Account) Apply(u AccountUpdate) (Account, error) {
	fields := map[string]string{}
	name, err := CleanText("name", u.Name, MaxAccountNameLength)
	if err != nil {
		fields["name"] = "must be 1 to 255 characters without control characters"
	}
	number, err := CleanOptionalText("account_number", u.AccountNumber, MaxAccountNumberLength)
	if err != nil {
		fields["account_number"] = fmt.Sprintf("must be at most %d characters without control characters", MaxAccountNumberLength)
	}
	if u.Type != nil && *u.Type != a.Type {
		fields["account_type"] = "cannot be changed"
	}
	if u.Normality != nil && *u.Normality != a.Normality {
		fields["normality"] = "cannot be changed"
	}
	if u.ParentID != nil && (a.ParentID == nil || *u.ParentID != *a.ParentID) {
		fields["parent_id"] = "cannot be changed"
	}
	stable := a.StableName
	if u.StableName != nil && (a.StableName == nil || *u.StableName != *a.StableName) {
		switch {
		case a.Default:
			fields["stable_name"] = "the stable name of a default account cannot be changed"
		case CheckStableName("stable_name", *u.StableName) != nil:
			fields["stable_name"] = fmt.Sprintf("must be 1 to %d of A-Z a-z 0-9 _ . : - starting with a letter or digit", MaxStableNameLength)
		default:
			s := *u.StableName
			stable = &s
		}
	}
	subtype := a.Subtype
	if u.Subtype != nil && *u.Subtype != a.Subtype {
		if a.Default {
			fields["account_subtype"] = "the subtype of a default account cannot be changed"
		} else if s, ok := LookupSubtype(a.Type, *u.Subtype); !ok {
			fields["account_subtype"] = fmt.Sprintf("is not a subtype of %s", a.Type)
		} else {
			subtype = s.Value
		}
	}
	if len(fields) > 0 {
		return Account{}, apperr.FieldErrors(apperr.InvalidPayload, fields).WithEnum(EnumImmutableField)
	}
	a.Name, a.AccountNumber, a.StableName, a.Subtype = name, number, stable, subtype
	return a, nil
}

// CanArchive reports why a cannot be archived (nil when it can): default
// accounts stay, and an account with a balance or live sub-accounts is
// still in use.
func (a Account) CanArchive(balance DebitCredit, liveChildren int) error {
	switch {
	case a.Default:
		return apperr.New(apperr.Conflict, "default accounts of the chart cannot be archived").WithEnum(EnumDefaultAccount)
	case liveChildren > 0:
		return apperr.Newf(apperr.Conflict, "the account has %d live sub-account(s); archive them first", liveChildren).
			WithEnum(EnumAccountInUse).WithMeta("live_sub_accounts", liveChildren)
	case balance.Debits != balance.Credits:
		return apperr.New(apperr.Conflict, "the account has a non-zero balance").
			WithEnum(EnumAccountInUse).WithMeta("debits", int64(balance.Debits)).WithMeta("credits", int64(balance.Credits))
	}
	return nil
}

// AccountUse is what refers to an account besides its row: the ledger
// lines posted to it, its sub-accounts (archived ones too) and the
// categorization rules that name it.
type AccountUse struct {
	HasLines    bool
	SubAccounts int
	Rules       int
}

// CanDelete says whether the account may be deleted: only one of the
// business's own that nothing refers to. One with ledger lines keeps its
// history and can only be archived (409 that says so); a default account
// of the chart stays.
func (a Account) CanDelete(u AccountUse) error {
	switch {
	case a.Default:
		return apperr.New(apperr.Conflict, "default accounts of the chart cannot be deleted").WithEnum(EnumDefaultAccount)
	case u.HasLines:
		return apperr.New(apperr.Conflict, "the account has ledger lines, which stay in the books: archive it instead "+
			"(POST .../ledger/accounts/{accountId}/archive)").WithEnum(EnumAccountInUse)
	case u.SubAccounts > 0:
		return apperr.Newf(apperr.Conflict, "the account has %d sub-account(s); delete them first, or archive it", u.SubAccounts).
			WithEnum(EnumAccountInUse).WithMeta("sub_accounts", u.SubAccounts)
	case u.Rules > 0:
		return apperr.Newf(apperr.Conflict, "%d categorization rule(s) use the account; delete them first, or archive it", u.Rules).
			WithEnum(EnumAccountInUse).WithMeta("categorization_rules", u.Rules)
	}
	return nil
}

// AccountRef names an account either by id or by stable name (the API's
// AccountId and StableName identifiers). Exactly one is set.
type AccountRef struct {
	ID         uuid.UUID
	StableName string
}

// ByID refers to an account by id.
func ByID(id uuid.UUID) AccountRef { return AccountRef{ID: id} }

// ByStableName refers to an account by stable name.
func ByStableName(name string) AccountRef { return AccountRef{StableName: name} }

// IsStableName reports whether the reference is by stable name.
func (r AccountRef) IsStableName() bool { return r.ID == uuid.Nil }

func (r AccountRef) String() string {
	if r.IsStableName() {
		return "stable name " + r.StableName
	}
	return "account " + r.ID.String()
}
