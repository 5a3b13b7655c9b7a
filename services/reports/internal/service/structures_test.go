package service

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/services/reports"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// flattenNamed is flatten with a custom account (named by its id) shown
// as 'its display name'.
func flattenNamed(prefix string, li domain.LineItem) []string {
	s := fmt.Sprintf("%s=%d", prefix, li.Value)
	if li.IsContra {
		s += " contra"
	}
	out := []string{s}
	for _, c := range li.LineItems {
		name := c.Name
		if _, err := uuid.Parse(name); err == nil {
			name = "'" + c.DisplayName + "'"
		}
		out = append(out, flattenNamed(prefix+"/"+name, c)...)
	}
	return out
}

// structuresHistory is the golden history and, in May, a sale (retail),
// materials, items for resale, fertilizer (a custom COGS account), rent,
// diesel fuel (a custom expense account, retail), insurance, wages,
// licenses & permits (custom, retail), bank fees and income tax.
func structuresHistory(bid uuid.UUID) []events.LedgerEntryPosted {
	pay := func(day, account string, amount int64, kv ...string) events.LedgerEntryPosted {
		return entry(bid, day, line(bid, account, "DEBIT", amount, kv...), line(bid, "CASH", "CREDIT", amount, kv...))
	}
	return append(goldenHistory(bid),
		entry(bid, "2026-05-04", line(bid, "CASH", "DEBIT", 20000, "dept", "retail"), line(bid, "SALES", "CREDIT", 20000, "dept", "retail")),
		pay("2026-05-05", "MATERIALS", 3000),
		pay("2026-05-06", "ITEMS_FOR_RESALE", 1200),
		pay("2026-05-07", "FERTILIZER", 800),
		pay("2026-05-08", "RENT", 2000),
		pay("2026-05-11", "DIESEL_FUEL", 450, "dept", "retail"),
		pay("2026-05-12", "INSURANCE", 600),
		pay("2026-05-15", "PAYROLL_REGULAR_WAGES", 5000),
		pay("2026-05-18", "LICENSES", 250, "dept", "retail"),
		pay("2026-05-19", "BANK_FEES", 30),
		pay("2026-05-20", "INCOME_TAXES", 1000),
	)
}

// mayTrees is May's hand-checked cost of goods sold and expenses per
// structure (income and taxes are DEFAULT's in every structure).
var mayTrees = map[domain.Structure][]string{
	domain.StructureDefault: {
		"cogs=5000",
		"cogs/'Fertilizer'=800",
		"cogs/ITEMS_FOR_RESALE=1200",
		"cogs/MATERIALS=3000",
		"expenses=8330",
		"expenses/OPERATING_EXPENSES=8330",
		"expenses/OPERATING_EXPENSES/'Diesel fuel'=450",
		"expenses/OPERATING_EXPENSES/FEES=30",
		"expenses/OPERATING_EXPENSES/FEES/BANK_FEES=30",
		"expenses/OPERATING_EXPENSES/INSURANCE=600",
		"expenses/OPERATING_EXPENSES/'Licenses & permits'=250",
		"expenses/OPERATING_EXPENSES/PAYROLL=5000",
		"expenses/OPERATING_EXPENSES/PAYROLL/PAYROLL_REGULAR_WAGES=5000",
		"expenses/OPERATING_EXPENSES/RENT=2000",
	},
	domain.StructureTrucking: {
		"cogs=5000",
		"cogs/OTHER_COST_OF_GOODS_SOLD=5000",
		"cogs/OTHER_COST_OF_GOODS_SOLD/'Fertilizer'=800",
		"cogs/OTHER_COST_OF_GOODS_SOLD/ITEMS_FOR_RESALE=1200",
		"cogs/OTHER_COST_OF_GOODS_SOLD/MATERIALS=3000",
		"expenses=8330",
		"expenses/FUEL=450",
		"expenses/FUEL/'Diesel fuel'=450",
		"expenses/INSURANCE=600",
		"expenses/INSURANCE/INSURANCE=600",
		"expenses/DRIVER_WAGES=5000",
		"expenses/DRIVER_WAGES/PAYROLL=5000",
		"expenses/DRIVER_WAGES/PAYROLL/PAYROLL_REGULAR_WAGES=5000",
		"expenses/PERMITS_AND_LICENSING=250",
		"expenses/PERMITS_AND_LICENSING/'Licenses & permits'=250",
		"expenses/OTHER_EXPENSES=2030",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=2030",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/FEES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/FEES/BANK_FEES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/RENT=2000",
	},
	domain.StructureMedspa: {
		"cogs=5000",
		"cogs/INJECTABLES_AND_PRODUCTS=1200",
		"cogs/INJECTABLES_AND_PRODUCTS/ITEMS_FOR_RESALE=1200",
		"cogs/MEDICAL_SUPPLIES=3000",
		"cogs/MEDICAL_SUPPLIES/MATERIALS=3000",
		"cogs/OTHER_COST_OF_GOODS_SOLD=800",
		"cogs/OTHER_COST_OF_GOODS_SOLD/'Fertilizer'=800",
		"expenses=8330",
		"expenses/PAYROLL_AND_PROVIDERS=5000",
		"expenses/PAYROLL_AND_PROVIDERS/PAYROLL=5000",
		"expenses/PAYROLL_AND_PROVIDERS/PAYROLL/PAYROLL_REGULAR_WAGES=5000",
		"expenses/LICENSING_AND_MEDICAL_DIRECTOR=250",
		"expenses/LICENSING_AND_MEDICAL_DIRECTOR/'Licenses & permits'=250",
		"expenses/RENT_AND_FACILITY=2000",
		"expenses/RENT_AND_FACILITY/RENT=2000",
		"expenses/INSURANCE=600",
		"expenses/INSURANCE/INSURANCE=600",
		"expenses/MERCHANT_AND_BANK_FEES=30",
		"expenses/MERCHANT_AND_BANK_FEES/FEES=30",
		"expenses/MERCHANT_AND_BANK_FEES/FEES/BANK_FEES=30",
		"expenses/OTHER_EXPENSES=450",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=450",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Diesel fuel'=450",
	},
	domain.StructureMedspaNoLicensing: {
		"cogs=5000",
		"cogs/INJECTABLES_AND_PRODUCTS=1200",
		"cogs/INJECTABLES_AND_PRODUCTS/ITEMS_FOR_RESALE=1200",
		"cogs/MEDICAL_SUPPLIES=3000",
		"cogs/MEDICAL_SUPPLIES/MATERIALS=3000",
		"cogs/OTHER_COST_OF_GOODS_SOLD=800",
		"cogs/OTHER_COST_OF_GOODS_SOLD/'Fertilizer'=800",
		"expenses=8330",
		"expenses/PAYROLL_AND_PROVIDERS=5000",
		"expenses/PAYROLL_AND_PROVIDERS/PAYROLL=5000",
		"expenses/PAYROLL_AND_PROVIDERS/PAYROLL/PAYROLL_REGULAR_WAGES=5000",
		"expenses/RENT_AND_FACILITY=2000",
		"expenses/RENT_AND_FACILITY/RENT=2000",
		"expenses/INSURANCE=600",
		"expenses/INSURANCE/INSURANCE=600",
		"expenses/MERCHANT_AND_BANK_FEES=30",
		"expenses/MERCHANT_AND_BANK_FEES/FEES=30",
		"expenses/MERCHANT_AND_BANK_FEES/FEES/BANK_FEES=30",
		"expenses/OTHER_EXPENSES=700",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=700",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Diesel fuel'=450",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'=250",
	},
	domain.StructureCitrus: {
		"cogs=5000",
		"cogs/FERTILIZER=800",
		"cogs/FERTILIZER/'Fertilizer'=800",
		"cogs/GROVE_SUPPLIES=3000",
		"cogs/GROVE_SUPPLIES/MATERIALS=3000",
		"cogs/OTHER_COST_OF_GOODS_SOLD=1200",
		"cogs/OTHER_COST_OF_GOODS_SOLD/ITEMS_FOR_RESALE=1200",
		"expenses=8330",
		"expenses/LABOR_AND_PAYROLL=5000",
		"expenses/LABOR_AND_PAYROLL/PAYROLL=5000",
		"expenses/LABOR_AND_PAYROLL/PAYROLL/PAYROLL_REGULAR_WAGES=5000",
		"expenses/LICENSING_AND_INSPECTION=250",
		"expenses/LICENSING_AND_INSPECTION/'Licenses & permits'=250",
		"expenses/EQUIPMENT_FUEL_AND_REPAIRS=450",
		"expenses/EQUIPMENT_FUEL_AND_REPAIRS/'Diesel fuel'=450",
		"expenses/LAND_RENT_AND_LEASES=2000",
		"expenses/LAND_RENT_AND_LEASES/RENT=2000",
		"expenses/INSURANCE=600",
		"expenses/INSURANCE/INSURANCE=600",
		"expenses/OTHER_EXPENSES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/FEES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/FEES/BANK_FEES=30",
	},
	domain.StructureCitrusNoLicensing: {
		"cogs=5000",
		"cogs/FERTILIZER=800",
		"cogs/FERTILIZER/'Fertilizer'=800",
		"cogs/GROVE_SUPPLIES=3000",
		"cogs/GROVE_SUPPLIES/MATERIALS=3000",
		"cogs/OTHER_COST_OF_GOODS_SOLD=1200",
		"cogs/OTHER_COST_OF_GOODS_SOLD/ITEMS_FOR_RESALE=1200",
		"expenses=8330",
		"expenses/LABOR_AND_PAYROLL=5000",
		"expenses/LABOR_AND_PAYROLL/PAYROLL=5000",
		"expenses/LABOR_AND_PAYROLL/PAYROLL/PAYROLL_REGULAR_WAGES=5000",
		"expenses/EQUIPMENT_FUEL_AND_REPAIRS=450",
		"expenses/EQUIPMENT_FUEL_AND_REPAIRS/'Diesel fuel'=450",
		"expenses/LAND_RENT_AND_LEASES=2000",
		"expenses/LAND_RENT_AND_LEASES/RENT=2000",
		"expenses/INSURANCE=600",
		"expenses/INSURANCE/INSURANCE=600",
		"expenses/OTHER_EXPENSES=280",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=280",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/FEES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/FEES/BANK_FEES=30",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'=250",
	},
	domain.StructureFlorist: {
		"cogs=5000",
		"cogs/FLOWERS_AND_PLANTS=1200",
		"cogs/FLOWERS_AND_PLANTS/ITEMS_FOR_RESALE=1200",
		"cogs/FLORAL_SUPPLIES=3000",
		"cogs/FLORAL_SUPPLIES/MATERIALS=3000",
		"cogs/OTHER_COST_OF_GOODS_SOLD=800",
		"cogs/OTHER_COST_OF_GOODS_SOLD/'Fertilizer'=800",
		"expenses=8330",
		"expenses/DELIVERY=450",
		"expenses/DELIVERY/'Diesel fuel'=450",
		"expenses/PAYROLL_AND_DESIGNERS=5000",
		"expenses/PAYROLL_AND_DESIGNERS/PAYROLL=5000",
		"expenses/PAYROLL_AND_DESIGNERS/PAYROLL/PAYROLL_REGULAR_WAGES=5000",
		"expenses/RENT_AND_UTILITIES=2000",
		"expenses/RENT_AND_UTILITIES/RENT=2000",
		"expenses/INSURANCE=600",
		"expenses/INSURANCE/INSURANCE=600",
		"expenses/MERCHANT_AND_BANK_FEES=30",
		"expenses/MERCHANT_AND_BANK_FEES/FEES=30",
		"expenses/MERCHANT_AND_BANK_FEES/FEES/BANK_FEES=30",
		"expenses/OTHER_EXPENSES=250",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=250",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'=250",
	},
}

// mayRetailExpenses is May's retail expenses per structure (diesel fuel
// and licenses & permits).
var mayRetailExpenses = map[domain.Structure][]string{
	domain.StructureDefault: {"expenses=700", "expenses/OPERATING_EXPENSES=700",
		"expenses/OPERATING_EXPENSES/'Diesel fuel'=450", "expenses/OPERATING_EXPENSES/'Licenses & permits'=250"},
	domain.StructureTrucking: {"expenses=700", "expenses/FUEL=450", "expenses/FUEL/'Diesel fuel'=450",
		"expenses/PERMITS_AND_LICENSING=250", "expenses/PERMITS_AND_LICENSING/'Licenses & permits'=250"},
	domain.StructureMedspa: {"expenses=700", "expenses/LICENSING_AND_MEDICAL_DIRECTOR=250",
		"expenses/LICENSING_AND_MEDICAL_DIRECTOR/'Licenses & permits'=250", "expenses/OTHER_EXPENSES=450",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=450", "expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Diesel fuel'=450"},
	domain.StructureMedspaNoLicensing: {"expenses=700", "expenses/OTHER_EXPENSES=700", "expenses/OTHER_EXPENSES/OPERATING_EXPENSES=700",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Diesel fuel'=450", "expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'=250"},
	domain.StructureCitrus: {"expenses=700", "expenses/LICENSING_AND_INSPECTION=250",
		"expenses/LICENSING_AND_INSPECTION/'Licenses & permits'=250", "expenses/EQUIPMENT_FUEL_AND_REPAIRS=450",
		"expenses/EQUIPMENT_FUEL_AND_REPAIRS/'Diesel fuel'=450"},
	domain.StructureCitrusNoLicensing: {"expenses=700", "expenses/EQUIPMENT_FUEL_AND_REPAIRS=450",
		"expenses/EQUIPMENT_FUEL_AND_REPAIRS/'Diesel fuel'=450", "expenses/OTHER_EXPENSES=250",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES=250", "expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'=250"},
	domain.StructureFlorist: {"expenses=700", "expenses/DELIVERY=450", "expenses/DELIVERY/'Diesel fuel'=450",
		"expenses/OTHER_EXPENSES=250", "expenses/OTHER_EXPENSES/OPERATING_EXPENSES=250",
		"expenses/OTHER_EXPENSES/OPERATING_EXPENSES/'Licenses & permits'=250"},
}

// May's figures (the same in every structure): sale 20000; COGS 3000 +
// 1200 + 800; expenses 2000 + 450 + 600 + 5000 + 250 + 30; income tax
// 1000. Retail: the sale, diesel fuel and licenses.
var (
	mayFigures       = figures{20000, 5000, 15000, 8330, 6670, 1000, 5670, true}
	mayRetailFigures = figures{20000, 0, 20000, 700, 19300, 0, 19300, true}
	marchFigures     = figures{14500, 3000, 11500, 2000, 9500, 1000, 8500, true}
)

// TestProfitAndLossStructuresGolden: the GET's report of May under every
// structure against hand-checked trees; income, taxes, the sections'
// values and the profits are DEFAULT's; March's figures too.
func TestProfitAndLossStructuresGolden(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	var evts []events.Event
	for _, p := range structuresHistory(bid) {
		evts = append(evts, event(t, p))
	}
	e.deliver(evts...)
	e.deliver(goldenTxEvents(t, bid)...)

	def := e.pnl(tok, bid, period("2026-05-01", "2026-05-31")).Data
	if got := slices.Concat(flattenNamed("income", def.Income), flattenNamed("taxes", def.Taxes)); !slices.Equal(got,
		[]string{"income=20000", "income/SALES=20000", "taxes=1000", "taxes/INCOME_TAXES=1000"}) {
		t.Fatalf("May's income and taxes: %v", got)
	}
	if len(mayTrees) != len(domain.Structures) {
		t.Fatalf("%d hand-checked trees for %d structures", len(mayTrees), len(domain.Structures))
	}
	for _, s := range domain.Structures {
		t.Run(string(s), func(t *testing.T) {
			may := e.pnl(tok, bid, period("2026-05-01", "2026-05-31", "structure", string(s))).Data
			if f := figuresOf(pnlResponse{Data: may}); f != mayFigures {
				t.Errorf("May: %+v, want %+v", f, mayFigures)
			}
			tree := slices.Concat(flattenNamed("cogs", may.CostOfGoodsSold), flattenNamed("expenses", may.Expenses))
			if want := mayTrees[s]; !slices.Equal(tree, want) {
				t.Errorf("May tree:\n%s\nwant:\n%s", strings.Join(tree, "\n"), strings.Join(want, "\n"))
			}
			if !reflect.DeepEqual(may.Income, def.Income) || !reflect.DeepEqual(may.Taxes, def.Taxes) {
				t.Errorf("income or taxes differ from DEFAULT's: %+v %+v", may.Income, may.Taxes)
			}
			if may.Expenses.Name != "EXPENSES" || may.Expenses.DisplayName != "Expenses" || may.CostOfGoodsSold.Name != "COST_OF_GOODS_SOLD" ||
				may.CostOfGoodsSold.DisplayName != "Cost of goods sold" {
				t.Errorf("section names: %+v %+v", may.Expenses, may.CostOfGoodsSold)
			}
			if s == domain.StructureTrucking {
				if l := may.Expenses.LineItems[0]; l.DisplayName != "Fuel" || l.IsContra || l.LineItems[0].DisplayName != "Diesel fuel" {
					t.Errorf("FUEL: %+v", l)
				}
			}
			march := e.pnl(tok, bid, period("2026-03-01", "2026-03-31", "structure", string(s))).Data
			if f := figuresOf(pnlResponse{Data: march}); f != marchFigures {
				t.Errorf("March: %+v, want %+v", f, marchFigures)
			}
			retail := e.pnl(tok, bid, period("2026-05-01", "2026-05-31", "structure", string(s), "tag_key", "dept", "tag_values", "retail")).Data
			if f := figuresOf(pnlResponse{Data: retail}); f != mayRetailFigures {
				t.Errorf("May, retail: %+v, want %+v", f, mayRetailFigures)
			}
			if got := flattenNamed("expenses", retail.Expenses); !slices.Equal(got, mayRetailExpenses[s]) {
				t.Errorf("May, retail expenses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(mayRetailExpenses[s], "\n"))
			}
		})
	}
}

// TestComparisonStructuresGolden: the comparison of March and May × the
// retail and wholesale filters under every structure (named at the top,
// or in the tag filters as the SDK sends it): hand-checked figures and
// retail trees, each result equal to the GET's report of the same period,
// tag and structure; without filters, May equals the GET's hand-checked
// report.
func TestComparisonStructuresGolden(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	var evts []events.Event
	for _, p := range structuresHistory(bid) {
		evts = append(evts, event(t, p))
	}
	e.deliver(evts...)
	e.deliver(goldenTxEvents(t, bid)...)

	for i, s := range domain.Structures {
		t.Run(string(s), func(t *testing.T) {
			retail, wholesale := required("dept", "retail"), required("dept", "wholesale")
			body := anyMap{"periods": months(2026, 3, 2026, 5), "tag_filters": []anyMap{retail, wholesale}}
			if i%2 == 0 {
				body["structure"] = string(s)
			} else { // as the SDK sends it
				retail["structure"], wholesale["structure"] = string(s), string(s)
			}
			pnls := e.compare(tok, bid, body).Data.Pnls
			want := []struct {
				month int
				value string
				f     figures
			}{
				{3, "retail", figures{9500, 3000, 6500, 0, 6500, 0, 6500, true}},
				{3, "wholesale", figures{5000, 0, 5000, 0, 5000, 0, 5000, true}},
				{5, "retail", mayRetailFigures},
				{5, "wholesale", figures{fully: true}},
			}
			if len(pnls) != len(want) {
				t.Fatalf("%d results", len(pnls))
			}
			for j, w := range want {
				p := pnls[j]
				if f := figuresOfBody(p.Pnl); p.Period.Month != w.month || p.TagFilter.Values[0] != w.value || f != w.f {
					t.Errorf("2026-%02d %s: %+v %+v, want %+v", w.month, w.value, p.Period, f, w.f)
				}
				single := e.pnl(tok, bid, period(p.Period.StartDate, p.Period.EndDate, "structure", string(s), "tag_key", "dept", "tag_values", w.value))
				if !reflect.DeepEqual(p.Pnl, single.Data) {
					t.Errorf("2026-%02d %s: comparison\n%+v\nGET\n%+v", w.month, w.value, p.Pnl, single.Data)
				}
			}
			if got := flattenNamed("expenses", pnls[2].Pnl.Expenses); !slices.Equal(got, mayRetailExpenses[s]) {
				t.Errorf("May, retail expenses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(mayRetailExpenses[s], "\n"))
			}

			all := e.compare(tok, bid, anyMap{"periods": months(2026, 5), "structure": string(s)}).Data.Pnls
			if len(all) != 1 || all[0].TagFilter != nil || figuresOfBody(all[0].Pnl) != mayFigures {
				t.Fatalf("May: %+v", all)
			}
			tree := slices.Concat(flattenNamed("cogs", all[0].Pnl.CostOfGoodsSold), flattenNamed("expenses", all[0].Pnl.Expenses))
			if !slices.Equal(tree, mayTrees[s]) {
				t.Errorf("May tree:\n%s\nwant:\n%s", strings.Join(tree, "\n"), strings.Join(mayTrees[s], "\n"))
			}
			if single := e.pnl(tok, bid, period("2026-05-01", "2026-05-31", "structure", string(s))); !reflect.DeepEqual(all[0].Pnl, single.Data) {
				t.Errorf("May: comparison\n%+v\nGET\n%+v", all[0].Pnl, single.Data)
			}
		})
	}
}

// TestOpenAPIStructures: the document's structures are the domain's, and
// its description names every line of every structure.
func TestOpenAPIStructures(t *testing.T) {
	doc, err := openapi.Load(reports.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	schema := doc.Components.Schemas["PnlStructure"].Value
	var enum []domain.Structure
	for _, v := range schema.Enum {
		enum = append(enum, domain.Structure(v.(string)))
	}
	if !slices.Equal(enum, domain.Structures) {
		t.Fatalf("document %v, domain %v", enum, domain.Structures)
	}
	for _, s := range domain.Structures {
		for _, sec := range []domain.Section{domain.SectionCOGS, domain.SectionExpenses} {
			l := s.Layout(sec)
			if l == nil {
				continue
			}
			for _, line := range append(slices.Clone(l.Lines), l.Other) {
				if !strings.Contains(schema.Description, line.Name) {
					t.Errorf("%s: %s undocumented", s, line.Name)
				}
			}
		}
	}
}
