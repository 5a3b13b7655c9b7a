// Package banking is the framework-free domain of bank transactions: their
// enums, the categorize request and the journal lines a categorization
// posts (with Canadian sales tax), the validation of imported and recorded
// transactions, the listing filters, and auto-categorization rules and
// suggestions. It imports no web framework, database or broker library:
// the use cases call it, and every client mistake comes back as an
// *apperr.Error with a 4xx status, a stable error_enum and meta naming the
// offending field, which the HTTP layer renders unchanged.
package banking

import (
	"slices"
	"strings"

	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// Source is where a bank transaction came from.
type Source string

// The sources the spec names (its neutral words stand for the providers).
const (
	SourceAPI       Source = "API"
	SourceCustom    Source = "CUSTOM"
	SourceProvider1 Source = "PROVIDER_1"
	SourceProvider2 Source = "PROVIDER_2"
	SourceProvider3 Source = "PROVIDER_3"
)

// Sources lists every source.
var Sources = []Source{SourceAPI, SourceCustom, SourceProvider1, SourceProvider2, SourceProvider3}

// Valid reports whether s is a known source.
func (s Source) Valid() bool { return slices.Contains(Sources, s) }

// Importable reports whether the bulk import accepts s. CUSTOM transactions
// come only through a custom account, which owns their ids.
func (s Source) Importable() bool { return s.Valid() && s != SourceCustom }

// Direction says which way money moved in the bank or card account:
// CREDIT is money in, DEBIT is money out (a card charge is a DEBIT too).
type Direction string

// The two directions as stored and returned.
const (
	Credit Direction = "CREDIT"
	Debit  Direction = "DEBIT"
)

// directionSynonyms maps every accepted spelling to its direction: the
// spec's CREDIT/DEBIT, the client SDK's MONEY_IN/MONEY_OUT and the list
// filter's INFLOW/OUTFLOW.
var directionSynonyms = map[string]Direction{
	"CREDIT":    Credit,
	"DEBIT":     Debit,
	"INFLOW":    Credit,
	"OUTFLOW":   Debit,
	"MONEY_IN":  Credit,
	"MONEY_OUT": Debit,
}

// ParseDirection reads a direction in any accepted spelling (case-sensitive,
// as every enum of the API).
func ParseDirection(s string) (Direction, bool) {
	d, ok := directionSynonyms[s]
	return d, ok
}

// directionChoices is the list of accepted spellings for error messages.
const directionChoices = "CREDIT, DEBIT, INFLOW, OUTFLOW, MONEY_IN or MONEY_OUT"

// Valid reports whether d is CREDIT or DEBIT.
func (d Direction) Valid() bool { return d == Credit || d == Debit }

// MoneyIn reports whether the transaction brought money into the account.
func (d Direction) MoneyIn() bool { return d == Credit }

// CategorizationStatus is where a bank transaction is in its
// categorization.
type CategorizationStatus string

// The statuses of the spec.
const (
	StatusPending       CategorizationStatus = "PENDING"
	StatusReadyForInput CategorizationStatus = "READY_FOR_INPUT"
	StatusCategorized   CategorizationStatus = "CATEGORIZED"
	StatusSplit         CategorizationStatus = "SPLIT"
	StatusServiceReview CategorizationStatus = "SERVICE_REVIEW"
	StatusJournaling    CategorizationStatus = "JOURNALING"
	StatusMatched       CategorizationStatus = "MATCHED"
)

// CategorizationStatuses lists every status.
var CategorizationStatuses = []CategorizationStatus{
	StatusPending, StatusReadyForInput, StatusCategorized, StatusSplit,
	StatusServiceReview, StatusJournaling, StatusMatched,
}

// Valid reports whether s is a known status.
func (s CategorizationStatus) Valid() bool { return slices.Contains(CategorizationStatuses, s) }

// Final reports whether the status carries a final category (the
// `categorized` filter's true side).
func (s CategorizationStatus) Final() bool {
	return s == StatusCategorized || s == StatusSplit || s == StatusMatched
}

// CategorizationMethod says who categorized a transaction.
type CategorizationMethod string

// The methods of the spec: SMS and API by the business or its platform,
// SERVICE_AUTO by a rule, SERVICE_MANUAL by the service's bookkeepers.
const (
	MethodSMS           CategorizationMethod = "SMS"
	MethodAPI           CategorizationMethod = "API"
	MethodServiceAuto   CategorizationMethod = "SERVICE_AUTO"
	MethodServiceManual CategorizationMethod = "SERVICE_MANUAL"
)

// CategorizationMethods lists every method.
var CategorizationMethods = []CategorizationMethod{MethodSMS, MethodAPI, MethodServiceAuto, MethodServiceManual}

// Valid reports whether m is a known method.
func (m CategorizationMethod) Valid() bool { return slices.Contains(CategorizationMethods, m) }

// ProjectedIncomeCategory is how a transaction is expected to land in the
// profit and loss.
type ProjectedIncomeCategory string

// The projected income categories.
const (
	ProjectedRevenue ProjectedIncomeCategory = "REVENUE"
	ProjectedExpense ProjectedIncomeCategory = "EXPENSE"
	ProjectedExclude ProjectedIncomeCategory = "EXCLUDE"
)

// Valid reports whether p is a known projected income category.
func (p ProjectedIncomeCategory) Valid() bool {
	return p == ProjectedRevenue || p == ProjectedExpense || p == ProjectedExclude
}

// ExclusionType is the ledger's exclusion choice (one definition for the
// categories list and the categorization rules).
type ExclusionType = domain.ExclusionType

// The exclusion choices.
const (
	PersonalInflows         = domain.PersonalInflows
	PersonalExpenses        = domain.PersonalExpenses
	DuplicateTransaction    = domain.DuplicateTransaction
	TransferBetweenAccounts = domain.TransferBetweenAccounts
)

// ExclusionTypes lists every exclusion in display order.
var ExclusionTypes = domain.Exclusions

// CustomAccountType is the kind of a custom account (the field
// `account_type`).
type CustomAccountType string

// The custom account types.
const (
	AccountDepository CustomAccountType = "DEPOSITORY"
	AccountCredit     CustomAccountType = "CREDIT"
)

// CustomAccountSubtype refines a custom account type (`account_subtype`).
type CustomAccountSubtype string

// The custom account subtypes.
const (
	SubtypeChecking   CustomAccountSubtype = "CHECKING"
	SubtypeSavings    CustomAccountSubtype = "SAVINGS"
	SubtypeCreditCard CustomAccountSubtype = "CREDIT_CARD"
)

// subtypesOf says which subtypes go with which type.
var subtypesOf = map[CustomAccountType][]CustomAccountSubtype{
	AccountDepository: {SubtypeChecking, SubtypeSavings},
	AccountCredit:     {SubtypeCreditCard},
}

// Valid reports whether t is a known type.
func (t CustomAccountType) Valid() bool { _, ok := subtypesOf[t]; return ok }

// Subtypes are the subtypes valid for t.
func (t CustomAccountType) Subtypes() []CustomAccountSubtype { return slices.Clone(subtypesOf[t]) }

// Allows reports whether s is a subtype of t.
func (t CustomAccountType) Allows(s CustomAccountSubtype) bool {
	return slices.Contains(subtypesOf[t], s)
}

// LedgerParent is the stable name of the chart account a custom account's
// own ledger account is created under: deposits are assets (money in
// debits them), cards are liabilities.
func (t CustomAccountType) LedgerParent() string {
	if t == AccountCredit {
		return "CREDIT_CARDS"
	}
	return "BANK_ACCOUNTS"
}

// Valid reports whether s is a known subtype.
func (s CustomAccountSubtype) Valid() bool {
	return s == SubtypeChecking || s == SubtypeSavings || s == SubtypeCreditCard
}

// CustomAccountKind is whose money a custom account holds (the field
// `custom_account_type`).
type CustomAccountKind string

// The custom account kinds.
const (
	KindDefault  CustomAccountKind = "DEFAULT"
	KindPersonal CustomAccountKind = "PERSONAL"
)

// Valid reports whether k is a known kind.
func (k CustomAccountKind) Valid() bool { return k == KindDefault || k == KindPersonal }

// choices joins enum values for error messages.
func choices[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
