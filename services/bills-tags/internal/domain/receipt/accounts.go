package receipt

import (
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// ChartAccount is an expense account of the default chart (the ledger's,
// services/transactions/internal/domain/chart.go): what a proposed
// account shows besides its identifier.
type ChartAccount struct {
	StableName string
	Name       string
	Subtype    string
}

// expenseAccounts are the default chart's expense leaves, by stable name.
// The ledger owns the chart; the names are stable, so a copy is safe (a
// business's own account is shown by id without these details).
var expenseAccounts = []ChartAccount{
	{"ITEMS_FOR_RESALE", "Items for resale", "COST_OF_GOODS_SOLD"},
	{"MATERIALS", "Materials", "COST_OF_GOODS_SOLD"},
	{bill.DefaultExpenseAccount, "Uncategorized expenses", "UNCATEGORIZED_EXPENSES"},
	{"PAYROLL_CONTRACTORS", "Contractors", "PAYROLL"},
	{"RENT", "Rent", "OPERATING_EXPENSES"},
	{"UTILITIES", "Utilities", "OPERATING_EXPENSES"},
	{"INSURANCE", "Insurance", "OPERATING_EXPENSES"},
	{"MARKETING", "Marketing", "OPERATING_EXPENSES"},
	{"OFFICE_EXPENSES", "Office expenses", "OPERATING_EXPENSES"},
	{"TRAVEL", "Travel", "OPERATING_EXPENSES"},
	{"MEALS", "Meals", "OPERATING_EXPENSES"},
	{"SOFTWARE", "Software", "OPERATING_EXPENSES"},
	{"BANK_FEES", "Bank fees", "FEES"},
	{"OTHER_FEES", "Other fees", "FEES"},
	{"OTHER_BUSINESS_EXPENSES", "Other business expenses", "OPERATING_EXPENSES"},
	{"EQUIPMENT", "Equipment", "OPERATING_EXPENSES"},
	{"PHONE", "Phone", "OPERATING_EXPENSES"},
	{"PROFESSIONAL_SERVICES", "Professional services", "OPERATING_EXPENSES"},
}

// ChartAccountOf is the default-chart account ref names in the business
// (by stable name, or by the deterministic id the ledger gives it).
func ChartAccountOf(businessID uuid.UUID, ref bill.AccountRef) (ChartAccount, bool) {
	for _, a := range expenseAccounts {
		if ref.StableName == a.StableName || ref.ID != nil && *ref.ID == events.DefaultAccountID(businessID, a.StableName) {
			return a, true
		}
	}
	return ChartAccount{}, false
}

// AccountID is the id the ledger gives ref in the business: its own id, or
// the default chart's deterministic id of its stable name.
func AccountID(businessID uuid.UUID, ref bill.AccountRef) uuid.UUID {
	if ref.ID != nil {
		return *ref.ID
	}
	return events.DefaultAccountID(businessID, ref.StableName)
}

// keywordRules map words of a line's description (or, failing that, of the
// vendor's name) to a default-chart account. Words compare after
// NormalizeName, singular or plural.
var keywordRules = []struct {
	account string
	words   []string
}{
	{"TRAVEL", []string{"fuel", "gas", "gasoline", "diesel", "petrol", "unleaded", "parking", "toll",
		"carwash", "flight", "airfare", "airline", "hotel", "lodging", "motel", "taxi", "cab", "uber", "lyft", "train", "rail", "bus", "shuttle"}},
	{"MEALS", []string{"meal", "restaurant", "lunch", "dinner", "breakfast", "brunch", "coffee", "cafe", "latte", "espresso",
		"cappuccino", "mocha", "tea", "sandwich", "burger", "pizza", "salad", "soup", "taco", "burrito", "sushi", "noodle", "fries",
		"croissant", "bagel", "muffin", "donut", "cake", "pastry", "cookie", "roll", "baguette", "bread", "juice", "soda",
		"water", "beer", "wine", "drink", "beverage", "smoothie", "snack", "food", "diner", "bistro", "grill", "bakery", "catering"}},
	{"OFFICE_EXPENSES", []string{"office", "paper", "printer", "ink", "toner", "pen", "pencil", "marker", "stapler", "staple",
		"envelope", "notebook", "notepad", "folder", "binder", "clip", "tape", "label", "postage", "stamp", "shipping", "stationery",
		"cartridge", "desk", "chair", "supply", "supplies"}},
	{"SOFTWARE", []string{"software", "subscription", "license", "licence", "saas", "cloud", "hosting", "domain", "app", "plugin"}},
	{"EQUIPMENT", []string{"computer", "laptop", "monitor", "keyboard", "mouse", "cable", "charger", "hardware", "tool", "drill",
		"equipment", "router", "ssd", "usb"}},
	{"PHONE", []string{"phone", "mobile", "cellular", "wireless", "sim"}},
	{"UTILITIES", []string{"electricity", "electric", "utility", "utilities", "internet", "broadband", "heating"}},
	{"RENT", []string{"rent", "lease", "storage"}},
	{"INSURANCE", []string{"insurance"}},
	{"MARKETING", []string{"advertising", "ad", "ads", "marketing", "flyer", "brochure", "banner", "poster", "print", "printing", "promo"}},
	{"PROFESSIONAL_SERVICES", []string{"legal", "attorney", "lawyer", "accounting", "accountant", "bookkeeping", "consulting", "consultant"}},
	{"OTHER_FEES", []string{"fee", "fees", "commission", "surcharge"}},
}

// keywordAccounts is keywordRules by word (the first rule naming a word
// keeps it).
var keywordAccounts = func() map[string]string {
	m := map[string]string{}
	for _, r := range keywordRules {
		for _, w := range r.words {
			if _, ok := m[w]; !ok {
				m[w] = r.account
			}
		}
	}
	return m
}()

// KeywordAccount is the account the words of text point to, if any: the
// first word (in reading order) that a rule names decides, so "Paper roll"
// is office expenses and "Cinnamon roll" a meal.
func KeywordAccount(text string) (string, bool) {
	for _, w := range strings.Fields(NormalizeName(text)) {
		cands := []string{w}
		if len(w) > 3 && strings.HasSuffix(w, "s") {
			cands = append(cands, strings.TrimSuffix(w, "s"))
		}
		if len(w) > 4 && strings.HasSuffix(w, "es") {
			cands = append(cands, strings.TrimSuffix(w, "es"))
		}
		for _, c := range cands {
			if a, ok := keywordAccounts[c]; ok {
				return a, true
			}
		}
	}
	return "", false
}

// ProposeAccount is the account of one proposed line: the business's
// history with the vendor (the account most used on its bills' lines)
// first, then the line's words, then the vendor's name; nil when nothing
// points anywhere.
func ProposeAccount(history *bill.AccountRef, description, vendorName string) *bill.AccountRef {
	if history != nil && !history.IsZero() {
		h := *history
		return &h
	}
	if a, ok := KeywordAccount(description); ok {
		r := bill.StableName(a)
		return &r
	}
	if a, ok := KeywordAccount(vendorName); ok {
		r := bill.StableName(a)
		return &r
	}
	return nil
}
