package domain

import (
	"cmp"
	"slices"
	"time"

	"github.com/acctsuite/acct/pkg/events"

	"github.com/google/uuid"
)

// ChartTemplate is one account of the default chart: data, not code, so the
// chart can be read (and reviewed) as a table.
type ChartTemplate struct {
	StableName string
	Name       string
	Type       AccountType
	Subtype    string
	// Normality is the type's default when empty; contra accounts set the
	// other side.
	Normality Direction
	// Countries restricts the account to businesses of these ISO 3166-1
	// countries; empty means every business.
	Countries []string
	Children  []ChartTemplate
}

// Stable names of accounts other parts of the service rely on.
const (
	StableAssets               = "ASSETS"
	StableLiabilities          = "LIABILITIES"
	StableEquity               = "EQUITY"
	StableRevenue              = "REVENUE"
	StableExpenses             = "EXPENSES"
	StableBankAccounts         = "BANK_ACCOUNTS"
	StableCreditCards          = "CREDIT_CARDS"
	StableSalesTaxesReceivable = "SALES_TAXES_RECEIVABLE"
	StableUncategorizedRevenue = "UNCATEGORIZED_REVENUE"
	StableUncategorizedExpense = "UNCATEGORIZED_EXPENSES"
	StableOpeningBalanceEquity = "OPENING_BALANCE_EQUITY"
)

func leaf(stable, name, subtype string) ChartTemplate {
	return ChartTemplate{StableName: stable, Name: name, Subtype: subtype}
}

// DefaultChart is the chart every business starts with. Types are set on
// the roots and inherited; subtypes are per account.
var DefaultChart = []ChartTemplate{
	{StableName: StableAssets, Name: "Assets", Type: Asset, Subtype: "ASSETS", Children: []ChartTemplate{
		leaf("CASH", "Cash", "CASH"),
		leaf(StableBankAccounts, "Bank accounts", "BANK_ACCOUNTS"),
		leaf("ACCOUNTS_RECEIVABLE", "Accounts receivable", "ACCOUNTS_RECEIVABLE"),
		leaf("INVENTORY", "Inventory", "INVENTORY"),
		{StableName: "FIXED_ASSETS", Name: "Fixed assets", Subtype: "FIXED_ASSETS", Children: []ChartTemplate{
			{StableName: "ACCUMULATED_DEPRECIATION", Name: "Accumulated depreciation", Subtype: "ACCUMULATED_DEPRECIATION", Normality: Credit},
		}},
		leaf("UNDEPOSITED_FUNDS", "Undeposited funds", "UNDEPOSITED_FUNDS"),
		leaf("PAYMENT_PROCESSOR_CLEARING", "Payment processor clearing", "PAYMENT_PROCESSOR_CLEARING"),
		leaf("PREPAID_EXPENSES", "Prepaid expenses", "PREPAID_EXPENSES"),
		// Clearing account of transfers between the business's own accounts:
		// the two legs of a transfer bring it back to zero.
		leaf("TRANSFERS_IN_TRANSIT", "Transfers in transit", "OTHER_CURRENT_ASSETS"),
		{StableName: StableSalesTaxesReceivable, Name: "Sales taxes receivable (input tax credits)", Subtype: "TAXES_RECEIVABLE", Countries: []string{"CA"}},
	}},
	{StableName: StableLiabilities, Name: "Liabilities", Type: Liability, Subtype: "LIABILITIES", Children: []ChartTemplate{
		leaf("ACCOUNTS_PAYABLE", "Accounts payable", "ACCOUNTS_PAYABLE"),
		leaf(StableCreditCards, "Credit cards", "CREDIT_CARDS"),
		leaf("SHAREHOLDER_LOANS", "Shareholder loans", "SHAREHOLDER_LOANS"),
		leaf("PAYROLL_LIABILITIES", "Payroll liabilities", "PAYROLL_LIABILITIES"),
		leaf("SALES_TAXES_PAYABLE", "Sales taxes payable", "SALES_TAXES_PAYABLE"),
		leaf("OTHER_TAXES_PAYABLE", "Other taxes payable", "OTHER_TAXES_PAYABLE"),
		leaf("LINE_OF_CREDIT", "Line of credit", "LINE_OF_CREDIT"),
		leaf("NOTES_PAYABLE", "Notes payable", "NOTES_PAYABLE"),
		leaf("TIPS", "Tips", "TIPS"),
		leaf("UNEARNED_REVENUE", "Unearned revenue", "UNEARNED_REVENUE"),
		leaf("REFUND_LIABILITIES", "Refund liabilities", "REFUND_LIABILITIES"),
	}},
	{StableName: StableEquity, Name: "Equity", Type: Equity, Subtype: "EQUITY", Children: []ChartTemplate{
		leaf("CONTRIBUTIONS", "Owner contributions", "CONTRIBUTIONS"),
		{StableName: "DISTRIBUTIONS", Name: "Distributions", Subtype: "DISTRIBUTIONS", Normality: Debit, Children: []ChartTemplate{
			{StableName: "OWNERS_DRAW", Name: "Owner's draw", Subtype: "DISTRIBUTIONS", Normality: Debit},
		}},
		leaf("RETAINED_EARNINGS", "Retained earnings", "RETAINED_EARNINGS"),
		leaf(StableOpeningBalanceEquity, "Opening balance equity", "OPENING_BALANCE_EQUITY"),
		leaf("OWNERS_CAPITAL", "Owner's capital", "OWNERS_CAPITAL"),
	}},
	{StableName: StableRevenue, Name: "Revenue", Type: Revenue, Subtype: "REVENUE", Children: []ChartTemplate{
		leaf("SALES", "Sales", "SALES"),
		leaf(StableUncategorizedRevenue, "Uncategorized revenue", "UNCATEGORIZED_REVENUE"),
		{StableName: "RETURNS_AND_ALLOWANCES", Name: "Returns and allowances", Subtype: "RETURNS_AND_ALLOWANCES", Normality: Debit, Children: []ChartTemplate{
			{StableName: "DISCOUNTS", Name: "Discounts", Subtype: "RETURNS_AND_ALLOWANCES", Normality: Debit},
			{StableName: "CUSTOMER_REFUNDS", Name: "Customer refunds", Subtype: "RETURNS_AND_ALLOWANCES", Normality: Debit},
		}},
	}},
	{StableName: StableExpenses, Name: "Expenses", Type: Expense, Subtype: "EXPENSES", Children: []ChartTemplate{
		{StableName: "COST_OF_GOODS_SOLD", Name: "Cost of goods sold", Subtype: "COST_OF_GOODS_SOLD", Children: []ChartTemplate{
			leaf("ITEMS_FOR_RESALE", "Items for resale", "COST_OF_GOODS_SOLD"),
			leaf("MATERIALS", "Materials", "COST_OF_GOODS_SOLD"),
		}},
		{StableName: "OPERATING_EXPENSES", Name: "Operating expenses", Subtype: "OPERATING_EXPENSES", Children: []ChartTemplate{
			leaf(StableUncategorizedExpense, "Uncategorized expenses", "UNCATEGORIZED_EXPENSES"),
			{StableName: "PAYROLL", Name: "Payroll", Subtype: "PAYROLL", Children: []ChartTemplate{
				leaf("PAYROLL_REGULAR_WAGES", "Regular wages", "PAYROLL"),
				leaf("PAYROLL_CONTRACTORS", "Contractors", "PAYROLL"),
				leaf("PAYROLL_FEES", "Payroll fees", "PAYROLL"),
			}},
			leaf("RENT", "Rent", "OPERATING_EXPENSES"),
			leaf("UTILITIES", "Utilities", "OPERATING_EXPENSES"),
			leaf("INSURANCE", "Insurance", "OPERATING_EXPENSES"),
			leaf("MARKETING", "Marketing", "OPERATING_EXPENSES"),
			leaf("OFFICE_EXPENSES", "Office expenses", "OPERATING_EXPENSES"),
			leaf("TRAVEL", "Travel", "OPERATING_EXPENSES"),
			leaf("MEALS", "Meals", "OPERATING_EXPENSES"),
			leaf("SOFTWARE", "Software", "OPERATING_EXPENSES"),
			{StableName: "FEES", Name: "Fees", Subtype: "FEES", Children: []ChartTemplate{
				leaf("BANK_FEES", "Bank fees", "FEES"),
				leaf("OTHER_FEES", "Other fees", "FEES"),
			}},
			leaf("OTHER_BUSINESS_EXPENSES", "Other business expenses", "OPERATING_EXPENSES"),
			leaf("BAD_DEBT", "Bad debt", "OPERATING_EXPENSES"),
			leaf("EQUIPMENT", "Equipment", "OPERATING_EXPENSES"),
			leaf("PHONE", "Phone", "OPERATING_EXPENSES"),
			leaf("PROFESSIONAL_SERVICES", "Professional services", "OPERATING_EXPENSES"),
			leaf("INTEREST_EXPENSE", "Interest expense", "INTEREST_EXPENSE"),
		}},
		{StableName: "TAXES", Name: "Taxes", Subtype: "TAXES", Children: []ChartTemplate{
			leaf("SALES_TAXES", "Sales taxes", "TAXES"),
			leaf("INCOME_TAXES", "Income taxes", "TAXES"),
			leaf("PAYROLL_TAXES", "Payroll taxes", "TAXES"),
			leaf("OTHER_TAXES", "Other taxes", "TAXES"),
		}},
	}},
}

// DefaultAccountID is the id of the seeded account stableName of a
// business (events.DefaultAccountID: deterministic, so seeding the same
// business twice names the same rows, and other services know the ids of
// the default chart without asking).
func DefaultAccountID(businessID uuid.UUID, stableName string) uuid.UUID {
	return events.DefaultAccountID(businessID, stableName)
}

// SeedChart lists the default accounts of a business in the given country,
// parents before children, with deterministic ids (DefaultAccountID).
func SeedChart(businessID uuid.UUID, country string, at time.Time) []Account {
	var out []Account
	var walk func(ts []ChartTemplate, parent *Account)
	walk = func(ts []ChartTemplate, parent *Account) {
		for i, t := range ts {
			if len(t.Countries) > 0 && !slices.Contains(t.Countries, country) {
				continue
			}
			typ := t.Type
			if parent != nil {
				typ = parent.Type
			}
			normality := t.Normality
			if normality == "" {
				normality = typ.DefaultNormality()
			}
			stable := t.StableName
			a := Account{
				ID: DefaultAccountID(businessID, stable), BusinessID: businessID, Name: t.Name, StableName: &stable,
				Normality: normality, Type: typ, Subtype: t.Subtype, Default: true, Position: i + 1,
				CreatedAt: at, UpdatedAt: at,
			}
			if parent != nil {
				pid := parent.ID
				a.ParentID = &pid
			}
			out = append(out, a)
			walk(t.Children, &a)
		}
	}
	walk(DefaultChart, nil)
	return out
}

// Node is an account in the chart tree with its sub-accounts.
type Node struct {
	Account  Account
	Children []*Node
}

// BuildTree arranges accounts into their tree: roots in chart order
// (assets, liabilities, equity, revenue, expenses), siblings by position,
// creation time and id. An account whose parent is not among accounts is
// dropped with its descendants (it cannot be placed).
func BuildTree(accounts []Account) []*Node {
	nodes := make(map[uuid.UUID]*Node, len(accounts))
	for _, a := range accounts {
		nodes[a.ID] = &Node{Account: a}
	}
	var roots []*Node
	for _, a := range accounts {
		n := nodes[a.ID]
		if a.ParentID == nil {
			roots = append(roots, n)
			continue
		}
		if p, ok := nodes[*a.ParentID]; ok {
			p.Children = append(p.Children, n)
		}
	}
	var sortNodes func(ns []*Node)
	sortNodes = func(ns []*Node) {
		slices.SortFunc(ns, func(x, y *Node) int {
			return cmp.Or(
				cmp.Compare(x.Account.Position, y.Account.Position),
				x.Account.CreatedAt.Compare(y.Account.CreatedAt),
				cmp.Compare(x.Account.ID.String(), y.Account.ID.String()),
			)
		})
		for _, n := range ns {
			sortNodes(n.Children)
		}
	}
	sortNodes(roots)
	slices.SortStableFunc(roots, func(x, y *Node) int {
		return cmp.Compare(slices.Index(AccountTypes, x.Account.Type), slices.Index(AccountTypes, y.Account.Type))
	})
	return roots
}

// Walk visits every node of the trees depth first, parents before children.
func Walk(roots []*Node, fn func(n *Node)) {
	for _, n := range roots {
		fn(n)
		Walk(n.Children, fn)
	}
}

// Descendants lists the ids of the account and every account below it.
func Descendants(roots []*Node, id uuid.UUID) []uuid.UUID {
	var out []uuid.UUID
	var collect func(n *Node)
	collect = func(n *Node) {
		out = append(out, n.Account.ID)
		for _, c := range n.Children {
			collect(c)
		}
	}
	Walk(roots, func(n *Node) {
		if n.Account.ID == id {
			collect(n)
		}
	})
	return out
}

// Ancestors returns the accounts above id, root first.
func Ancestors(byID map[uuid.UUID]Account, id uuid.UUID) []Account {
	var chain []Account
	seen := map[uuid.UUID]bool{id: true}
	a, ok := byID[id]
	for ok && a.ParentID != nil && !seen[*a.ParentID] {
		seen[*a.ParentID] = true
		a, ok = byID[*a.ParentID]
		if ok {
			chain = append(chain, a)
		}
	}
	slices.Reverse(chain)
	return chain
}
