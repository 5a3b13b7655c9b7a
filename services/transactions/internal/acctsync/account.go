// Package acctsync connects a business to its external accounting software
// (QuickBooks Online in the real product; the spec's neutral word is
// "acctsync"): the OAuth 2.0 authorization-code flow with a server-kept,
// single-use CSRF state, the provider tokens kept encrypted at rest and
// refreshed when they expire, the import of the external chart of accounts
// and its mapping onto the local ledger's accounts.
//
// This package is the domain and the use cases. It imports no web
// framework, database driver or provider SDK: the provider (package qbo),
// the store (package postgres) and the local ledger are interfaces it
// declares; the HTTP adapter lives in package httpapi.
package acctsync

import (
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
)

// Classification is the provider's top-level class of an account, in the
// provider's own words (QuickBooks Online's Account.Classification).
type Classification string

// The five classifications.
const (
	ClassAsset     Classification = "Asset"
	ClassLiability Classification = "Liability"
	ClassEquity    Classification = "Equity"
	ClassRevenue   Classification = "Revenue"
	ClassExpense   Classification = "Expense"
)

// Valid reports whether c is one of the five classifications.
func (c Classification) Valid() bool {
	switch c {
	case ClassAsset, ClassLiability, ClassEquity, ClassRevenue, ClassExpense:
		return true
	}
	return false
}

// AccountType is the API's account type (the client's closed list).
type AccountType string

// The account types.
const (
	TypeAsset     AccountType = "ASSET"
	TypeLiability AccountType = "LIABILITY"
	TypeEquity    AccountType = "EQUITY"
	TypeRevenue   AccountType = "REVENUE"
	TypeExpense   AccountType = "EXPENSE"
)

// DisplayName is the human-readable name of the type, as the local chart
// shows it.
func (t AccountType) DisplayName() string {
	switch t {
	case TypeAsset:
		return "Asset"
	case TypeLiability:
		return "Liability"
	case TypeEquity:
		return "Equity"
	case TypeRevenue:
		return "Revenue"
	case TypeExpense:
		return "Expense"
	}
	return string(t)
}

// Normality is the side that increases an account.
type Normality string

// The two sides.
const (
	Debit  Normality = "DEBIT"
	Credit Normality = "CREDIT"
)

// AccountType maps the classification onto the API's account type.
func (c Classification) AccountType() AccountType {
	switch c {
	case ClassAsset:
		return TypeAsset
	case ClassLiability:
		return TypeLiability
	case ClassEquity:
		return TypeEquity
	case ClassRevenue:
		return TypeRevenue
	default:
		return TypeExpense
	}
}

// Normality is DEBIT for assets and expenses and CREDIT for liabilities,
// equity and revenue: the side on which the provider reports a positive
// balance for the class.
func (c Classification) Normality() Normality {
	if c == ClassAsset || c == ClassExpense {
		return Debit
	}
	return Credit
}

// classificationByAccountType is the provider's fixed relation between its
// AccountType and Classification. It fills Classification when a provider
// answer leaves it out, which QuickBooks Online does for some accounts.
var classificationByAccountType = map[string]Classification{
	"Bank":                    ClassAsset,
	"Other Current Asset":     ClassAsset,
	"Fixed Asset":             ClassAsset,
	"Other Asset":             ClassAsset,
	"Accounts Receivable":     ClassAsset,
	"Equity":                  ClassEquity,
	"Expense":                 ClassExpense,
	"Other Expense":           ClassExpense,
	"Cost of Goods Sold":      ClassExpense,
	"Accounts Payable":        ClassLiability,
	"Credit Card":             ClassLiability,
	"Long Term Liability":     ClassLiability,
	"Other Current Liability": ClassLiability,
	"Income":                  ClassRevenue,
	"Other Income":            ClassRevenue,
}

// ClassifyAccountType is the classification implied by a provider
// AccountType, and whether the type is known.
func ClassifyAccountType(accountType string) (Classification, bool) {
	c, ok := classificationByAccountType[accountType]
	return c, ok
}

// ExternalAccount is one account of the external chart as the provider
// reports it.
type ExternalAccount struct {
	ExternalID         string // provider id (QuickBooks Online's Account.Id)
	ParentExternalID   string // "" for a top-level account
	Name               string
	FullyQualifiedName string
	AccountNumber      string // "" when the company does not number accounts
	AccountType        string // provider's AccountType, e.g. "Bank"
	AccountSubType     string // provider's AccountSubType, e.g. "Checking"
	Classification     Classification
	CurrentBalance     money.Cents
	Currency           string
	Active             bool
}

// Account is an imported external account as stored, under our own id.
type Account struct {
	ID         uuid.UUID
	BusinessID uuid.UUID
	RealmID    string
	ExternalAccount
	ImportedAt time.Time
	// LocalAccountID is the local ledger account the external one maps
	// to, when the import found one.
	LocalAccountID *uuid.UUID
}

// Subtype is the {value, display_name} pair of an account subtype.
type Subtype struct {
	Value       string
	DisplayName string
}

// Subtype is the account's subtype for the API: the provider's
// AccountSubType (never empty: the AccountType stands in when the provider
// sends none) with a readable display name ("CashOnHand" → "Cash on hand").
func (a ExternalAccount) Subtype() Subtype {
	v := strings.TrimSpace(a.AccountSubType)
	if v == "" {
		v = strings.ReplaceAll(strings.TrimSpace(a.AccountType), " ", "")
	}
	if v == "" {
		v = string(a.Classification)
	}
	return Subtype{Value: v, DisplayName: humanize(v)}
}

// humanize turns a provider enum spelled in CamelCase (with the odd
// underscore) into sentence case: "OtherCurrentAssets" → "Other current
// assets", "Investment_MortgageRealEstateLoans" → "Investment mortgage real
// estate loans". Acronyms stay upper case ("GlobalTaxPayableGST" → "Global
// tax payable GST").
func humanize(s string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if r == '_' || unicode.IsSpace(r) {
			flush()
			continue
		}
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	for i, w := range words {
		if len([]rune(w)) > 1 && strings.ToUpper(w) == w {
			continue // an acronym
		}
		w = strings.ToLower(w)
		if i == 0 {
			r := []rune(w)
			r[0] = unicode.ToUpper(r[0])
			w = string(r)
		}
		words[i] = w
	}
	return strings.Join(words, " ")
}

// LedgerAccount is an account of the local ledger (the chart of accounts of
// the transactions service), as acctsync shows it beside an external one.
type LedgerAccount struct {
	ID            uuid.UUID
	Name          string
	AccountNumber *string
	StableName    *string
	Normality     Normality
	AccountType   AccountType
	Subtype       Subtype
}

// LedgerAccountView is an imported account with its mapped local account
// and its sub-accounts, the answer of GET .../acctsync/ledger/accounts/{id}.
type LedgerAccountView struct {
	Account
	// Local is the mapped local ledger account; nil when there is no
	// mapping or the local account no longer exists.
	Local    *LedgerAccount
	Children []LedgerAccountView
}

// AccountNode is an imported account with its sub-accounts, as the store
// reads them.
type AccountNode struct {
	Account
	Children []AccountNode
}
