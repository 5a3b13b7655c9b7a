package acctsync

import (
	"strings"
	"unicode"

	"github.com/google/uuid"
)

// MappingRule maps a provider (AccountType, AccountSubType) pair onto the
// stable name of a local ledger account. An empty AccountSubType makes the
// rule cover every subtype of the AccountType.
type MappingRule struct {
	AccountType    string
	AccountSubType string
	StableName     string
}

// The rules that found a mapping, recorded with it.
const (
	RuleSubtype     = "SUBTYPE"      // an (AccountType, AccountSubType) rule
	RuleName        = "NAME"         // the account's name is a local stable name
	RuleAccountType = "ACCOUNT_TYPE" // an AccountType-wide rule
)

// defaultMappingRules is the default map from QuickBooks Online's account
// types and subtypes to the stable names of the local default chart. It is
// data: adding a row is the whole change needed to map another subtype.
var defaultMappingRules = []MappingRule{
	// Assets.
	{"Bank", "CashOnHand", "CASH"},
	{"Bank", "", "BANK_ACCOUNTS"},
	{"Accounts Receivable", "", "ACCOUNTS_RECEIVABLE"},
	{"Other Current Asset", "Inventory", "INVENTORY"},
	{"Other Current Asset", "PrepaidExpenses", "PREPAID_EXPENSES"},
	{"Other Current Asset", "UndepositedFunds", "UNDEPOSITED_FUNDS"},
	{"Fixed Asset", "AccumulatedDepreciation", "ACCUMULATED_DEPRECIATION"},
	{"Fixed Asset", "", "FIXED_ASSETS"},
	// Liabilities.
	{"Accounts Payable", "", "ACCOUNTS_PAYABLE"},
	{"Credit Card", "", "CREDIT_CARDS"},
	{"Other Current Liability", "LineOfCredit", "LINE_OF_CREDIT"},
	{"Other Current Liability", "PayrollTaxPayable", "PAYROLL_LIABILITIES"},
	{"Other Current Liability", "PayrollClearing", "PAYROLL_LIABILITIES"},
	{"Other Current Liability", "SalesTaxPayable", "SALES_TAXES_PAYABLE"},
	{"Other Current Liability", "GlobalTaxPayable", "SALES_TAXES_PAYABLE"},
	{"Other Current Liability", "LoanPayable", "NOTES_PAYABLE"},
	{"Long Term Liability", "NotesPayable", "NOTES_PAYABLE"},
	{"Long Term Liability", "ShareholderNotesPayable", "SHAREHOLDER_LOANS"},
	// Equity.
	{"Equity", "OpeningBalanceEquity", "OPENING_BALANCE_EQUITY"},
	{"Equity", "RetainedEarnings", "RETAINED_EARNINGS"},
	{"Equity", "OwnersEquity", "OWNERS_CAPITAL"},
	{"Equity", "PartnersEquity", "OWNERS_CAPITAL"},
	{"Equity", "PartnerContributions", "CONTRIBUTIONS"},
	{"Equity", "PartnerDistributions", "DISTRIBUTIONS"},
	// Revenue.
	{"Income", "DiscountsRefundsGiven", "DISCOUNTS"},
	{"Income", "", "SALES"},
	// Expenses.
	{"Cost of Goods Sold", "SuppliesMaterialsCogs", "MATERIALS"},
	{"Cost of Goods Sold", "", "COST_OF_GOODS_SOLD"},
	{"Expense", "AdvertisingPromotional", "MARKETING"},
	{"Expense", "BadDebts", "BAD_DEBT"},
	{"Expense", "BankCharges", "BANK_FEES"},
	{"Expense", "CommissionsAndFees", "OTHER_FEES"},
	{"Expense", "EntertainmentMeals", "MEALS"},
	{"Expense", "EquipmentRental", "EQUIPMENT"},
	{"Expense", "Insurance", "INSURANCE"},
	{"Expense", "InterestPaid", "INTEREST_EXPENSE"},
	{"Expense", "LegalProfessionalFees", "PROFESSIONAL_SERVICES"},
	{"Expense", "OfficeGeneralAdministrativeExpenses", "OFFICE_EXPENSES"},
	{"Expense", "OtherBusinessExpenses", "OTHER_BUSINESS_EXPENSES"},
	{"Expense", "PayrollExpenses", "PAYROLL"},
	{"Expense", "RentOrLeaseOfBuildings", "RENT"},
	{"Expense", "TaxesPaid", "OTHER_TAXES"},
	{"Expense", "Travel", "TRAVEL"},
	{"Expense", "TravelMeals", "MEALS"},
	{"Expense", "Utilities", "UTILITIES"},
	{"Expense", "", "OPERATING_EXPENSES"},
}

// DefaultMappingRules returns a copy of the default rules (callers may
// extend it and pass it in Options.MappingRules).
func DefaultMappingRules() []MappingRule {
	return append([]MappingRule(nil), defaultMappingRules...)
}

// MappingCandidate is a local stable name an external account may map to,
// with the rule that proposed it.
type MappingCandidate struct {
	StableName string
	Rule       string
}

// MappingCandidates lists, best first, the local stable names the default
// rule proposes for a: the rule for its exact (AccountType, AccountSubType),
// then its own name read as a stable name ("Accounts Receivable" →
// ACCOUNTS_RECEIVABLE), then the rule for its AccountType as a whole. The
// caller takes the first candidate that exists locally with the same
// account type.
func MappingCandidates(a ExternalAccount, rules []MappingRule) []MappingCandidate {
	var out []MappingCandidate
	seen := map[string]bool{}
	add := func(name, rule string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, MappingCandidate{StableName: name, Rule: rule})
		}
	}
	for _, r := range rules {
		if r.AccountSubType != "" && r.AccountType == a.AccountType && r.AccountSubType == a.AccountSubType {
			add(r.StableName, RuleSubtype)
		}
	}
	add(StableNameOf(a.Name), RuleName)
	for _, r := range rules {
		if r.AccountSubType == "" && r.AccountType == a.AccountType {
			add(r.StableName, RuleAccountType)
		}
	}
	return out
}

// StableNameOf reads a display name as a stable name: letters and digits
// upper-cased, every other run of characters one underscore ("Owner's
// Draw" → OWNERS_DRAW, "Meals & Entertainment" → MEALS_ENTERTAINMENT).
// Apostrophes join rather than separate.
func StableNameOf(name string) string {
	var b strings.Builder
	pendingSep := false
	for _, r := range name {
		switch {
		case r == '\'' || r == '’':
			continue
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if pendingSep && b.Len() > 0 {
				b.WriteByte('_')
			}
			pendingSep = false
			b.WriteRune(unicode.ToUpper(r))
		default:
			pendingSep = true
		}
	}
	return b.String()
}

// Mapping is the local account an imported external account maps to.
type Mapping struct {
	ExternalID     string
	LocalAccountID uuid.UUID
	Rule           string
}
