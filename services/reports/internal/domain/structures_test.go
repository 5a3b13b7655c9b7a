package domain

import (
	"maps"
	"math/rand/v2"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
)

// testChart is the default chart's P&L accounts (services/transactions'
// chart.go, read, not imported) and custom accounts a platform or a
// bookkeeper would create: key, stable name ("" for a custom account),
// name, parent key, normality.
var testChart = [][5]string{
	{"REVENUE", "REVENUE", "Revenue", "", "CREDIT"},
	{"SALES", "SALES", "Sales", "REVENUE", "CREDIT"},
	{"UNCATEGORIZED_REVENUE", "UNCATEGORIZED_REVENUE", "Uncategorized revenue", "REVENUE", "CREDIT"},
	{"RETURNS_AND_ALLOWANCES", "RETURNS_AND_ALLOWANCES", "Returns and allowances", "REVENUE", "DEBIT"},
	{"DISCOUNTS", "DISCOUNTS", "Discounts", "RETURNS_AND_ALLOWANCES", "DEBIT"},
	{"CUSTOMER_REFUNDS", "CUSTOMER_REFUNDS", "Customer refunds", "RETURNS_AND_ALLOWANCES", "DEBIT"},
	{"EXPENSES", "EXPENSES", "Expenses", "", "DEBIT"},
	{"COST_OF_GOODS_SOLD", "COST_OF_GOODS_SOLD", "Cost of goods sold", "EXPENSES", "DEBIT"},
	{"ITEMS_FOR_RESALE", "ITEMS_FOR_RESALE", "Items for resale", "COST_OF_GOODS_SOLD", "DEBIT"},
	{"MATERIALS", "MATERIALS", "Materials", "COST_OF_GOODS_SOLD", "DEBIT"},
	{"OPERATING_EXPENSES", "OPERATING_EXPENSES", "Operating expenses", "EXPENSES", "DEBIT"},
	{"UNCATEGORIZED_EXPENSES", "UNCATEGORIZED_EXPENSES", "Uncategorized expenses", "OPERATING_EXPENSES", "DEBIT"},
	{"PAYROLL", "PAYROLL", "Payroll", "OPERATING_EXPENSES", "DEBIT"},
	{"PAYROLL_REGULAR_WAGES", "PAYROLL_REGULAR_WAGES", "Regular wages", "PAYROLL", "DEBIT"},
	{"PAYROLL_CONTRACTORS", "PAYROLL_CONTRACTORS", "Contractors", "PAYROLL", "DEBIT"},
	{"PAYROLL_FEES", "PAYROLL_FEES", "Payroll fees", "PAYROLL", "DEBIT"},
	{"RENT", "RENT", "Rent", "OPERATING_EXPENSES", "DEBIT"},
	{"UTILITIES", "UTILITIES", "Utilities", "OPERATING_EXPENSES", "DEBIT"},
	{"INSURANCE", "INSURANCE", "Insurance", "OPERATING_EXPENSES", "DEBIT"},
	{"MARKETING", "MARKETING", "Marketing", "OPERATING_EXPENSES", "DEBIT"},
	{"OFFICE_EXPENSES", "OFFICE_EXPENSES", "Office expenses", "OPERATING_EXPENSES", "DEBIT"},
	{"TRAVEL", "TRAVEL", "Travel", "OPERATING_EXPENSES", "DEBIT"},
	{"MEALS", "MEALS", "Meals", "OPERATING_EXPENSES", "DEBIT"},
	{"SOFTWARE", "SOFTWARE", "Software", "OPERATING_EXPENSES", "DEBIT"},
	{"FEES", "FEES", "Fees", "OPERATING_EXPENSES", "DEBIT"},
	{"BANK_FEES", "BANK_FEES", "Bank fees", "FEES", "DEBIT"},
	{"OTHER_FEES", "OTHER_FEES", "Other fees", "FEES", "DEBIT"},
	{"OTHER_BUSINESS_EXPENSES", "OTHER_BUSINESS_EXPENSES", "Other business expenses", "OPERATING_EXPENSES", "DEBIT"},
	{"BAD_DEBT", "BAD_DEBT", "Bad debt", "OPERATING_EXPENSES", "DEBIT"},
	{"EQUIPMENT", "EQUIPMENT", "Equipment", "OPERATING_EXPENSES", "DEBIT"},
	{"PHONE", "PHONE", "Phone", "OPERATING_EXPENSES", "DEBIT"},
	{"PROFESSIONAL_SERVICES", "PROFESSIONAL_SERVICES", "Professional services", "OPERATING_EXPENSES", "DEBIT"},
	{"INTEREST_EXPENSE", "INTEREST_EXPENSE", "Interest expense", "OPERATING_EXPENSES", "DEBIT"},
	{"TAXES", "TAXES", "Taxes", "EXPENSES", "DEBIT"},
	{"SALES_TAXES", "SALES_TAXES", "Sales taxes", "TAXES", "DEBIT"},
	{"INCOME_TAXES", "INCOME_TAXES", "Income taxes", "TAXES", "DEBIT"},
	{"PAYROLL_TAXES", "PAYROLL_TAXES", "Payroll taxes", "TAXES", "DEBIT"},
	{"OTHER_TAXES", "OTHER_TAXES", "Other taxes", "TAXES", "DEBIT"},
	// Custom accounts.
	{"diesel", "", "Diesel fuel", "OPERATING_EXPENSES", "DEBIT"},
	{"station", "", "Station 12", "diesel", "DEBIT"},
	{"fuelTaxRefunds", "", "Fuel tax refunds", "diesel", "CREDIT"},
	{"reefer", "", "REEFER DIESEL", "OPERATING_EXPENSES", "DEBIT"},
	{"fuelToll", "", "Fuel and toll cards", "OPERATING_EXPENSES", "DEBIT"},
	{"retirement", "", "Retirement plan", "OPERATING_EXPENSES", "DEBIT"},
	{"licenses", "", "Licenses & permits", "OPERATING_EXPENSES", "DEBIT"},
	{"directorFees", "", "Medical director fees", "OPERATING_EXPENSES", "DEBIT"},
	{"director", "", "Medical director", "PAYROLL", "DEBIT"},
	{"irrigationRepairs", "", "Irrigation repairs", "OPERATING_EXPENSES", "DEBIT"},
	{"inspection", "", "Citrus inspection fees", "OPERATING_EXPENSES", "DEBIT"},
	{"fertilizer", "", "Fertilizer", "COST_OF_GOODS_SOLD", "DEBIT"},
	{"hauling", "", "Fruit hauling", "COST_OF_GOODS_SOLD", "DEBIT"},
	{"botox", "", "Botox", "COST_OF_GOODS_SOLD", "DEBIT"},
	{"bloomnet", "", "BloomNet wire service", "COST_OF_GOODS_SOLD", "DEBIT"},
	{"freight", "", "Freight income", "REVENUE", "CREDIT"},
}

// testAccounts is testChart as accounts, by key.
func testAccounts() (map[uuid.UUID]Account, map[string]uuid.UUID) {
	ids := map[string]uuid.UUID{}
	accounts := map[uuid.UUID]Account{}
	for _, r := range testChart {
		id := uuid.NewSHA1(uuid.NameSpaceOID, []byte(r[0]))
		ids[r[0]] = id
		a := Account{ID: id, Name: r[2], Type: TypeExpense, Normality: new(r[4])}
		if r[1] != "" {
			a.StableName = new(r[1])
		}
		if r[3] != "" {
			parent := accounts[ids[r[3]]]
			a.Path, a.Type = append(slices.Clone(parent.Path), parent.ID), parent.Type
		} else if r[0] == "REVENUE" {
			a.Type = TypeRevenue
		}
		accounts[id] = a
	}
	return accounts, ids
}

// paths is a section as "path=value" lines, a custom account (named by
// its id) as 'its display name', depth first.
func paths(prefix string, li LineItem) []string {
	var out []string
	for _, c := range li.LineItems {
		name := c.Name
		if _, err := uuid.Parse(name); err == nil {
			name = "'" + c.DisplayName + "'"
		}
		p := strings.TrimPrefix(prefix+"/"+name, "/")
		s := p + "=" + strconv.FormatInt(c.Value, 10)
		if c.IsContra {
			s += " contra"
		}
		out = append(out, s)
		out = append(out, paths(p, c)...)
	}
	return out
}

// TestStructurePlacement: where one account's amount lands under each
// structure: by its stable name, an ancestor's stable name, its name's
// keywords (case-insensitive, at a word's start) or an ancestor's line;
// the first matching line wins, an account's own match beats its
// ancestors', the rest goes to Other; the NO_LICENSING variants send the
// licensing accounts to the line they match next, else Other.
func TestStructurePlacement(t *testing.T) {
	accounts, ids := testAccounts()
	for _, c := range []struct {
		s    Structure
		key  string
		want string // the section's line items, outermost first, leaf last
	}{
		{StructureDefault, "diesel", "OPERATING_EXPENSES/'Diesel fuel'"},
		{StructureDefault, "MATERIALS", "MATERIALS"},
		{StructureDefault, "PAYROLL_REGULAR_WAGES", "OPERATING_EXPENSES/PAYROLL/PAYROLL_REGULAR_WAGES"},

		{StructureTrucking, "INSURANCE", "INSURANCE/INSURANCE"},                                       // stable name
		{StructureTrucking, "MEALS", "MEALS_AND_PER_DIEM/MEALS"},                                      // stable name, second of a line
		{StructureTrucking, "PAYROLL_REGULAR_WAGES", "DRIVER_WAGES/PAYROLL/PAYROLL_REGULAR_WAGES"},    // ancestor
		{StructureTrucking, "PAYROLL_FEES", "DRIVER_WAGES/PAYROLL/PAYROLL_FEES"},                      // ancestor
		{StructureTrucking, "diesel", "FUEL/'Diesel fuel'"},                                           // keyword
		{StructureTrucking, "reefer", "FUEL/'REEFER DIESEL'"},                                         // case-insensitive
		{StructureTrucking, "station", "FUEL/'Diesel fuel'/'Station 12'"},                             // a custom ancestor's line
		{StructureTrucking, "fuelToll", "FUEL/'Fuel and toll cards'"},                                 // FUEL before TOLLS_AND_SCALES
		{StructureTrucking, "retirement", "OTHER_EXPENSES/OPERATING_EXPENSES/'Retirement plan'"},      // "tire" starts no word
		{StructureTrucking, "RENT", "OTHER_EXPENSES/OPERATING_EXPENSES/RENT"},                         // fallback
		{StructureTrucking, "OPERATING_EXPENSES", "OTHER_EXPENSES/OPERATING_EXPENSES"},                // a parent's own amount
		{StructureTrucking, "EXPENSES", "OTHER_EXPENSES/EXPENSES"},                                    // the section's account
		{StructureTrucking, "licenses", "PERMITS_AND_LICENSING/'Licenses & permits'"},                 // keyword
		{StructureTrucking, "director", "DRIVER_WAGES/PAYROLL/'Medical director'"},                    // ancestor
		{StructureTrucking, "MATERIALS", "OTHER_COST_OF_GOODS_SOLD/MATERIALS"},                        // COGS fallback
		{StructureTrucking, "COST_OF_GOODS_SOLD", "OTHER_COST_OF_GOODS_SOLD/COST_OF_GOODS_SOLD"},      // the section's account
		{StructureTrucking, "SALES", "SALES"},                                                         // income follows the chart
		{StructureTrucking, "INCOME_TAXES", "INCOME_TAXES"},                                           // taxes follow the chart
		{StructureMedspa, "director", "LICENSING_AND_MEDICAL_DIRECTOR/'Medical director'"},            // own keyword beats PAYROLL above it
		{StructureMedspa, "directorFees", "LICENSING_AND_MEDICAL_DIRECTOR/'Medical director fees'"},   // keyword
		{StructureMedspa, "licenses", "LICENSING_AND_MEDICAL_DIRECTOR/'Licenses & permits'"},          // keyword
		{StructureMedspa, "PAYROLL_CONTRACTORS", "PAYROLL_AND_PROVIDERS/PAYROLL/PAYROLL_CONTRACTORS"}, // ancestor
		{StructureMedspa, "MATERIALS", "MEDICAL_SUPPLIES/MATERIALS"},
		{StructureMedspa, "ITEMS_FOR_RESALE", "INJECTABLES_AND_PRODUCTS/ITEMS_FOR_RESALE"},
		{StructureMedspa, "botox", "INJECTABLES_AND_PRODUCTS/'Botox'"},
		{StructureMedspa, "BANK_FEES", "MERCHANT_AND_BANK_FEES/FEES/BANK_FEES"},
		{StructureMedspa, "diesel", "OTHER_EXPENSES/OPERATING_EXPENSES/'Diesel fuel'"},
		{StructureMedspa, "fertilizer", "OTHER_COST_OF_GOODS_SOLD/'Fertilizer'"},
		{StructureMedspaNoLicensing, "director", "PAYROLL_AND_PROVIDERS/PAYROLL/'Medical director'"},
		{StructureMedspaNoLicensing, "directorFees", "OTHER_EXPENSES/OPERATING_EXPENSES/'Medical director fees'"},
		{StructureMedspaNoLicensing, "licenses", "OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'"},
		{StructureMedspaNoLicensing, "MATERIALS", "MEDICAL_SUPPLIES/MATERIALS"},
		{StructureCitrus, "fertilizer", "FERTILIZER/'Fertilizer'"},
		{StructureCitrus, "hauling", "PICKING_AND_HAULING/'Fruit hauling'"},
		{StructureCitrus, "MATERIALS", "GROVE_SUPPLIES/MATERIALS"},
		{StructureCitrus, "ITEMS_FOR_RESALE", "OTHER_COST_OF_GOODS_SOLD/ITEMS_FOR_RESALE"},
		{StructureCitrus, "licenses", "LICENSING_AND_INSPECTION/'Licenses & permits'"},
		{StructureCitrus, "inspection", "LICENSING_AND_INSPECTION/'Citrus inspection fees'"},
		{StructureCitrus, "irrigationRepairs", "IRRIGATION/'Irrigation repairs'"}, // IRRIGATION before the repairs' line
		{StructureCitrus, "diesel", "EQUIPMENT_FUEL_AND_REPAIRS/'Diesel fuel'"},
		{StructureCitrus, "PAYROLL_REGULAR_WAGES", "LABOR_AND_PAYROLL/PAYROLL/PAYROLL_REGULAR_WAGES"},
		{StructureCitrus, "RENT", "LAND_RENT_AND_LEASES/RENT"},
		{StructureCitrusNoLicensing, "licenses", "OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'"},
		{StructureCitrusNoLicensing, "inspection", "OTHER_EXPENSES/OPERATING_EXPENSES/'Citrus inspection fees'"},
		{StructureCitrusNoLicensing, "fertilizer", "FERTILIZER/'Fertilizer'"},
		{StructureFlorist, "ITEMS_FOR_RESALE", "FLOWERS_AND_PLANTS/ITEMS_FOR_RESALE"},
		{StructureFlorist, "MATERIALS", "FLORAL_SUPPLIES/MATERIALS"},
		{StructureFlorist, "bloomnet", "WIRE_SERVICE_FEES/'BloomNet wire service'"}, // before FLOWERS_AND_PLANTS' "bloom"
		{StructureFlorist, "diesel", "DELIVERY/'Diesel fuel'"},
		{StructureFlorist, "PAYROLL_REGULAR_WAGES", "PAYROLL_AND_DESIGNERS/PAYROLL/PAYROLL_REGULAR_WAGES"},
		{StructureFlorist, "UTILITIES", "RENT_AND_UTILITIES/UTILITIES"},
		{StructureFlorist, "licenses", "OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'"},
		{StructureFlorist, "freight", "'Freight income'"},
	} {
		t.Run(string(c.s)+"/"+c.key, func(t *testing.T) {
			p := BuildPnL(accounts, map[uuid.UUID]int64{ids[c.key]: 100}, c.s)
			var got []string
			for _, sec := range []LineItem{p.Income, p.CostOfGoodsSold, p.Expenses, p.Taxes} {
				got = append(got, paths("", sec)...)
			}
			if len(got) == 0 {
				t.Fatal("no line item")
			}
			leaf := got[len(got)-1]
			for i, g := range got { // one chain: every line is a prefix of the leaf
				if !strings.HasPrefix(leaf, strings.Split(g, "=")[0]) || i > 0 && !strings.HasPrefix(g, strings.Split(got[i-1], "=")[0]+"/") {
					t.Fatalf("not one chain: %v", got)
				}
			}
			if want := c.want + "=100"; leaf != want && leaf != c.want+"=-100" {
				t.Fatalf("%s, want %s", strings.Join(got, " "), want)
			}
		})
	}
}

// TestStructureTree: a layout's lines in the table's order, values summed
// up the nested accounts, contra accounts marked, empty lines left out.
func TestStructureTree(t *testing.T) {
	accounts, ids := testAccounts()
	amounts := map[uuid.UUID]int64{
		ids["SALES"]: -50000, ids["DISCOUNTS"]: 1000,
		ids["MATERIALS"]: 700, ids["fertilizer"]: 300,
		ids["diesel"]: 400, ids["station"]: 250, ids["fuelTaxRefunds"]: -50, ids["RENT"]: 2000, ids["BANK_FEES"]: 30,
		ids["PAYROLL_REGULAR_WAGES"]: 9000, ids["director"]: 1500, ids["INSURANCE"]: 0, ids["licenses"]: 120,
		ids["INCOME_TAXES"]: 800,
	}
	p := BuildPnL(accounts, amounts, StructureTrucking)
	got := slices.Concat(paths("cogs", p.CostOfGoodsSold), paths("expenses", p.Expenses))
	want := []string{
		"cogs/OTHER_COST_OF_GOODS_SOLD=1000",
		"cogs/OTHER_COST_OF_GOODS_SOLD/'Fertilizer'=300",
		"cogs/OTHER_COST_OF_GOODS_SOLD/MATERIALS=700",
		"expenses/FUEL=600",
		"expenses/FUEL/'Diesel fuel'=600",
		"expenses/FUEL/'Diesel fuel'/'Fuel tax refunds'=-50 contra",
		"expenses/FUEL/'Diesel fuel'/'Station 12'=250",
		"expenses/DRIVER_WAGES=10500",
		"expenses/DRIVER_WAGES/PAYROLL=10500",
		"expenses/DRIVER_WAGES/PAYROLL/'Medical director'=1500",
		"expenses/DRIVER_WAGES/PAYROLL/PAYROLL_REGULAR_WAGES=9000",
		"expenses/PERMITS_AND_LICENSING=120",
		"expenses/PERMITS_AND_LICENSING/'Licenses & permits'=120",
		"expenses/OTHER_EXPENSES=2030",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=2030",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/FEES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/FEES/BANK_FEES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/RENT=2000",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("trucking:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p.CostOfGoodsSold.Value != 1000 || p.Expenses.Value != 13250 || p.NetProfit != 49000-1000-13250-800 ||
		p.Expenses.Name != "EXPENSES" || p.Expenses.DisplayName != "Expenses" || p.Expenses.LineItems[0].DisplayName != "Fuel" {
		t.Fatalf("%+v", p)
	}
	def := BuildPnL(accounts, amounts, StructureDefault)
	if !reflect.DeepEqual(p.Income, def.Income) || !reflect.DeepEqual(p.Taxes, def.Taxes) {
		t.Fatalf("income or taxes changed by the structure:\n%+v\n%+v", p, def)
	}
	// Nothing: no line at all.
	if e := BuildPnL(accounts, nil, StructureFlorist).Expenses; e.Value != 0 || e.LineItems == nil || len(e.LineItems) != 0 {
		t.Fatalf("empty: %+v", e)
	}
}

// TestStructuresProperty: for random amounts over the chart and custom
// accounts, every structure's sections, gross profit, profit before taxes
// and net profit equal DEFAULT's; income and taxes are DEFAULT's; in the
// laid-out sections the lines follow the table's order, their values add
// up to the section's, every node's value is its account's own amount plus
// its children's, and every account with an amount appears exactly once.
func TestStructuresProperty(t *testing.T) {
	accounts, _ := testAccounts()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	var pl []uuid.UUID
	for id, a := range accounts {
		if a.Type == TypeRevenue || a.Type == TypeExpense {
			pl = append(pl, id)
		}
	}
	slices.SortFunc(pl, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	for range 300 {
		amounts := map[uuid.UUID]int64{uuid.New(): 7} // an unknown account counts nowhere
		for range r.IntN(30) {
			amounts[pl[r.IntN(len(pl))]] += int64(r.IntN(200001) - 100000)
		}
		def := BuildPnL(accounts, amounts, StructureDefault)
		for _, s := range Structures {
			p := BuildPnL(accounts, amounts, s)
			if p.GrossProfit != def.GrossProfit || p.ProfitBeforeTaxes != def.ProfitBeforeTaxes || p.NetProfit != def.NetProfit {
				t.Fatalf("%s: profits %+v, DEFAULT %+v", s, p, def)
			}
			if !reflect.DeepEqual(p.Income, def.Income) || !reflect.DeepEqual(p.Taxes, def.Taxes) {
				t.Fatalf("%s: income or taxes differ from DEFAULT", s)
			}
			for _, c := range []struct {
				sec     Section
				got, dv LineItem
			}{{SectionCOGS, p.CostOfGoodsSold, def.CostOfGoodsSold}, {SectionExpenses, p.Expenses, def.Expenses}} {
				if c.got.Value != c.dv.Value || c.got.Name != c.dv.Name || c.got.DisplayName != c.dv.DisplayName || c.got.IsContra {
					t.Fatalf("%s: section %+v, DEFAULT %+v", s, c.got, c.dv)
				}
				l := s.Layout(c.sec)
				if l == nil {
					if !reflect.DeepEqual(c.got, c.dv) {
						t.Fatalf("%s: a section without layout differs from DEFAULT", s)
					}
					continue
				}
				checkLayout(t, s, c.sec, l, c.got, accounts, amounts)
			}
		}
	}
}

func checkLayout(t *testing.T, s Structure, sec Section, l *Layout, got LineItem, accounts map[uuid.UUID]Account, amounts map[uuid.UUID]int64) {
	t.Helper()
	own := map[string]int64{} // the section's accounts with an amount, by line item name
	for id, amt := range amounts {
		a, ok := accounts[id]
		if !ok || amt == 0 {
			continue
		}
		if got, _ := Classify(a, accounts); got != sec {
			continue
		}
		name := id.String()
		if a.StableName != nil {
			name = *a.StableName
		}
		own[name] = amt
	}
	order := append(slices.Clone(l.Lines), l.Other)
	last, sum := -1, int64(0)
	seen := map[string]int{}
	var walk func(li LineItem) int64
	walk = func(li LineItem) int64 {
		seen[li.Name]++
		var children int64
		for _, c := range li.LineItems {
			children += walk(c)
		}
		if li.Value != own[li.Name]+children {
			t.Fatalf("%s: %s = %d, own %d + children %d", s, li.Name, li.Value, own[li.Name], children)
		}
		return li.Value
	}
	for _, line := range got.LineItems {
		i := slices.IndexFunc(order, func(x StructureLine) bool { return x.Name == line.Name && x.DisplayName == line.DisplayName })
		if i <= last || line.IsContra || len(line.LineItems) == 0 {
			t.Fatalf("%s: line %+v out of order, contra or empty", s, line)
		}
		last = i
		var children int64
		for _, c := range line.LineItems {
			children += walk(c)
		}
		if line.Value != children {
			t.Fatalf("%s: line %s = %d, its accounts %d", s, line.Name, line.Value, children)
		}
		sum += line.Value
	}
	if sum != got.Value {
		t.Fatalf("%s: lines add up to %d, section %d", s, sum, got.Value)
	}
	for name, n := range seen {
		if n != 1 {
			t.Fatalf("%s: %s appears %d times", s, name, n)
		}
	}
	for name := range own {
		if seen[name] != 1 {
			t.Fatalf("%s: %s (own amount %d) appears %d times", s, name, own[name], seen[name])
		}
	}
}

// chartStableNames is the default chart's expense stable names (the
// structures may name only these).
var chartStableNames = []string{"COST_OF_GOODS_SOLD", "ITEMS_FOR_RESALE", "MATERIALS", "OPERATING_EXPENSES", "UNCATEGORIZED_EXPENSES",
	"PAYROLL", "PAYROLL_REGULAR_WAGES", "PAYROLL_CONTRACTORS", "PAYROLL_FEES", "RENT", "UTILITIES", "INSURANCE", "MARKETING",
	"OFFICE_EXPENSES", "TRAVEL", "MEALS", "SOFTWARE", "FEES", "BANK_FEES", "OTHER_FEES", "OTHER_BUSINESS_EXPENSES", "BAD_DEBT",
	"EQUIPMENT", "PHONE", "PROFESSIONAL_SERVICES", "INTEREST_EXPENSE"}

// TestStructureTable: the table's shape: every industry structure lays
// out the cost of goods sold and the expenses (not income or taxes) with
// distinct SCREAMING_SNAKE names, display names, lower-case keywords and
// stable names of the default chart; each NO_LICENSING variant is its
// structure without its licensing line.
func TestStructureTable(t *testing.T) {
	snake := regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	for _, s := range Structures {
		for _, sec := range []Section{SectionIncome, SectionCOGS, SectionExpenses, SectionTaxes} {
			l := s.Layout(sec)
			laid := s != StructureDefault && (sec == SectionCOGS || sec == SectionExpenses)
			if (l != nil) != laid {
				t.Fatalf("%s section %d: layout %v", s, sec, l)
			}
			if l == nil {
				continue
			}
			names := map[string]bool{}
			for _, line := range append(slices.Clone(l.Lines), l.Other) {
				if !snake.MatchString(line.Name) || line.DisplayName == "" || names[line.Name] {
					t.Errorf("%s: line %+v", s, line)
				}
				names[line.Name] = true
				for _, kw := range line.Keywords {
					if kw == "" || kw != strings.ToLower(kw) {
						t.Errorf("%s %s: keyword %q", s, line.Name, kw)
					}
				}
				for _, sn := range line.StableNames {
					if !slices.Contains(chartStableNames, sn) {
						t.Errorf("%s %s: %s is not a stable name of the default chart", s, line.Name, sn)
					}
				}
			}
			if !strings.HasPrefix(l.Other.Name, "OTHER_") || len(l.Other.StableNames)+len(l.Other.Keywords) != 0 {
				t.Errorf("%s: Other %+v", s, l.Other)
			}
		}
	}
	for variant, base := range map[Structure]Structure{StructureMedspaNoLicensing: StructureMedspa, StructureCitrusNoLicensing: StructureCitrus} {
		for _, sec := range []Section{SectionCOGS, SectionExpenses} {
			var dropped []string
			v := variant.Layout(sec).Lines
			for _, line := range base.Layout(sec).Lines {
				if !slices.ContainsFunc(v, func(x StructureLine) bool { return reflect.DeepEqual(x, line) }) {
					dropped = append(dropped, line.Name)
				}
			}
			want := 0
			if sec == SectionExpenses {
				want = 1
			}
			if len(dropped) != want || len(v)+want != len(base.Layout(sec).Lines) || want == 1 && !strings.HasPrefix(dropped[0], "LICENSING_") {
				t.Errorf("%s vs %s, section %d: dropped %v", variant, base, sec, dropped)
			}
		}
	}
}

func TestHasWordPrefix(t *testing.T) {
	for _, c := range []struct {
		name, kw string
		want     bool
	}{
		{"Diesel fuel", "fuel", true},
		{"DIESEL FUEL", "diesel", true},
		{"Refueling", "fuel", false},
		{"Retirement plan", "tire", false},
		{"Tires (steer)", "tire", true},
		{"Licenses & permits", "licens", true},
		{"Truck/trailer lease", "trailer lease", true},
		{"Fuel-surcharge", "surcharge", true},
		{"Épicerie fine", "épicerie", true},
		{"Fuel", "fuel cards", false},
		{"", "fuel", false},
	} {
		if got := hasWordPrefix(c.name, c.kw); got != c.want {
			t.Errorf("hasWordPrefix(%q, %q) = %v", c.name, c.kw, got)
		}
	}
}

func TestParseStructure(t *testing.T) {
	for _, s := range Structures {
		if got, ok := ParseStructure(string(s)); !ok || got != s {
			t.Errorf("%s: %s %v", s, got, ok)
		}
	}
	if got, ok := ParseStructure(""); !ok || got != StructureDefault {
		t.Errorf("empty: %s %v", got, ok)
	}
	for _, s := range []string{"trucking", "BAKERY", " DEFAULT"} {
		if _, ok := ParseStructure(s); ok {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestParseStructureParameters(t *testing.T) {
	day := url.Values{"start_date": {"2026-01-01"}, "end_date": {"2026-01-31"}}
	for _, s := range Structures {
		q := maps.Clone(day)
		q.Set("structure", string(s))
		if got, err := ParsePnLQuery(q); err != nil || got.Structure != s {
			t.Errorf("GET %s: %+v %v", s, got, err)
		}
	}
	if got, err := ParsePnLQuery(day); err != nil || got.Structure != StructureDefault {
		t.Errorf("GET without structure: %+v %v", got, err)
	}
	q := maps.Clone(day)
	q.Set("structure", "BAKERY")
	if e := apperr.From(must(ParsePnLQuery(q))); e.Enum != EnumUnsupportedStructure || e.Meta["fields"].(map[string]string)["structure"] == "" {
		t.Errorf("GET BAKERY: %+v", e)
	}

	periods := &PeriodsBody{Type: PeriodsYears, Years: []YearBody{{2026}}}
	filter := func(s *string) TagFilterBody {
		return TagFilterBody{RequiredTags: []tags.KeyValue{{Key: "dept", Value: "a"}}, Structure: s}
	}
	for _, c := range []struct {
		name string
		body ComparisonBody
		want Structure
		bad  string // the offending field
	}{
		{"none", ComparisonBody{Periods: periods}, StructureDefault, ""},
		{"top level", ComparisonBody{Periods: periods, Structure: new("CITRUS")}, StructureCitrus, ""},
		{"in a tag filter", ComparisonBody{Periods: periods, TagFilters: []TagFilterBody{filter(nil), filter(new("FLORIST"))}}, StructureFlorist, ""},
		{"the same everywhere", ComparisonBody{Periods: periods, Structure: new("MEDSPA"),
			TagFilters: []TagFilterBody{filter(new("MEDSPA")), filter(new("MEDSPA"))}}, StructureMedspa, ""},
		{"unknown", ComparisonBody{Periods: periods, Structure: new("BAKERY")}, "", "structure"},
		{"empty", ComparisonBody{Periods: periods, Structure: new("")}, "", "structure"},
		{"unknown in a tag filter", ComparisonBody{Periods: periods, TagFilters: []TagFilterBody{filter(new("trucking"))}}, "", "tag_filters[0].structure"},
		{"another than the top level", ComparisonBody{Periods: periods, Structure: new("TRUCKING"),
			TagFilters: []TagFilterBody{filter(new("TRUCKING")), filter(new("DEFAULT"))}}, "", "tag_filters[1].structure"},
		{"another than an earlier filter", ComparisonBody{Periods: periods,
			TagFilters: []TagFilterBody{filter(new("CITRUS")), filter(new("CITRUS_NO_LICENSING"))}}, "", "tag_filters[1].structure"},
	} {
		got, err := ParseComparison(c.body)
		if c.bad == "" {
			if err != nil || got.Structure != c.want {
				t.Errorf("%s: %+v %v", c.name, got, err)
			}
			continue
		}
		e := apperr.From(err)
		fields, _ := e.Meta["fields"].(map[string]string)
		if e.Type != apperr.InvalidPayload || e.Enum != EnumUnsupportedStructure || len(fields) != 1 || fields[c.bad] == "" {
			t.Errorf("%s: %+v", c.name, e)
		}
	}
}

func must[T any](_ T, err error) error { return err }
