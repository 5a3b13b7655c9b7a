package domain

import (
	"fmt"
	"strings"

	"github.com/acctsuite/acct/pkg/apperr"
)

// ExclusionType is a categorization that takes a bank transaction out of
// the profit and loss instead of naming an account.
type ExclusionType string

// The exclusion choices.
const (
	PersonalInflows         ExclusionType = "PERSONAL_INFLOWS"
	PersonalExpenses        ExclusionType = "PERSONAL_EXPENSES"
	DuplicateTransaction    ExclusionType = "DUPLICATE_TRANSACTION"
	TransferBetweenAccounts ExclusionType = "TRANSFER_BETWEEN_ACCOUNTS"
)

// Exclusions lists every exclusion in display order.
var Exclusions = []ExclusionType{PersonalInflows, PersonalExpenses, DuplicateTransaction, TransferBetweenAccounts}

var exclusionNames = map[ExclusionType]string{
	PersonalInflows:         "Personal inflows",
	PersonalExpenses:        "Personal expenses",
	DuplicateTransaction:    "Duplicate transaction",
	TransferBetweenAccounts: "Transfer between accounts",
}

// Valid reports whether x is a known exclusion.
func (x ExclusionType) Valid() bool { _, ok := exclusionNames[x]; return ok }

// DisplayName is the human-readable name of the exclusion.
func (x ExclusionType) DisplayName() string { return exclusionNames[x] }

// CategoryMode selects which categories a list offers.
type CategoryMode string

// The modes of GET /categories.
const (
	// ModeAll offers every account of the chart (the five roots with
	// their trees) and every exclusion.
	ModeAll CategoryMode = "ALL"
	// ModeExpenses offers the expense accounts and the exclusions that
	// apply to money out.
	ModeExpenses CategoryMode = "EXPENSES"
	// ModeRevenue offers the revenue accounts and the exclusions that
	// apply to money in.
	ModeRevenue CategoryMode = "REVENUE"
	// ModeDefault, the default, offers revenue and expense accounts and
	// every exclusion: what a bank transaction is usually categorized as.
	ModeDefault CategoryMode = "DEFAULT"
)

// ParseCategoryMode reads the mode query parameter ("" is DEFAULT).
func ParseCategoryMode(s string) (CategoryMode, error) {
	if s == "" {
		return ModeDefault, nil
	}
	m := CategoryMode(s)
	switch m {
	case ModeAll, ModeExpenses, ModeRevenue, ModeDefault:
		return m, nil
	}
	return "", apperr.Field("mode", "must be one of ALL, EXPENSES, REVENUE, DEFAULT")
}

// Category is an item of a category list: an account with its
// sub-accounts, or an exclusion.
type Category struct {
	Account   *Account
	Exclusion ExclusionType
	Children  []Category
}

// DisplayName is what a client shows for the category.
func (c Category) DisplayName() string {
	if c.Account != nil {
		return c.Account.Name
	}
	return c.Exclusion.DisplayName()
}

// Categories derives the category list of mode from the chart tree
// (archived accounts never appear).
func Categories(roots []*Node, mode CategoryMode) []Category {
	byStable := map[string]*Node{}
	for _, r := range roots {
		if r.Account.StableName != nil {
			byStable[*r.Account.StableName] = r
		}
	}
	childrenOf := func(stable string) []Category {
		r, ok := byStable[stable]
		if !ok {
			return nil
		}
		return accountCategories(r.Children)
	}
	var out []Category
	var excl []ExclusionType
	switch mode {
	case ModeAll:
		out = accountCategories(roots)
		excl = Exclusions
	case ModeExpenses:
		out = childrenOf(StableExpenses)
		excl = []ExclusionType{PersonalExpenses, DuplicateTransaction, TransferBetweenAccounts}
	case ModeRevenue:
		out = childrenOf(StableRevenue)
		excl = []ExclusionType{PersonalInflows, DuplicateTransaction, TransferBetweenAccounts}
	default:
		out = append(childrenOf(StableRevenue), childrenOf(StableExpenses)...)
		excl = Exclusions
	}
	for _, x := range excl {
		out = append(out, Category{Exclusion: x})
	}
	return out
}

func accountCategories(nodes []*Node) []Category {
	out := make([]Category, 0, len(nodes))
	for _, n := range nodes {
		if n.Account.Archived() {
			continue
		}
		a := n.Account
		out = append(out, Category{Account: &a, Children: accountCategories(n.Children)})
	}
	return out
}

// ParseExclusion reads an exclusion type named in a request field.
func ParseExclusion(field, s string) (ExclusionType, error) {
	x := ExclusionType(s)
	if !x.Valid() {
		names := make([]string, len(Exclusions))
		for i, e := range Exclusions {
			names[i] = string(e)
		}
		return "", apperr.PayloadField(field, fmt.Sprintf("must be one of %s", strings.Join(names, ", ")))
	}
	return x, nil
}
