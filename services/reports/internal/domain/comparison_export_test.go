package domain

import (
	"bytes"
	"encoding/csv"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestParseMoneyFormat(t *testing.T) {
	for _, c := range []struct {
		q    url.Values
		want MoneyFormat
		ok   bool
	}{
		{url.Values{}, MoneyDollarString, true},
		{url.Values{"money_format": {"DOLLAR_STRING"}}, MoneyDollarString, true},
		{url.Values{"money_format": {"CENTS_INTEGER"}}, MoneyCentsInteger, true},
		{url.Values{"other": {"x"}}, MoneyDollarString, true},
		{url.Values{"money_format": {""}}, "", false},
		{url.Values{"money_format": {"cents_integer"}}, "", false},
		{url.Values{"money_format": {"DOLLARS"}}, "", false},
		{url.Values{"money_format": {"CENTS_INTEGER", "CENTS_INTEGER"}}, "", false},
	} {
		got, err := ParseMoneyFormat(c.q)
		if !c.ok {
			e := apperr.From(err)
			fields, _ := e.Meta["fields"].(map[string]string)
			if e.Type != apperr.InvalidParameters || e.Enum != EnumInvalidMoneyFormat || fields["money_format"] == "" {
				t.Errorf("%v: %+v", c.q, e)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v: %q %v, want %q", c.q, got, err, c.want)
		}
	}
}

func TestMoneyFormatAmount(t *testing.T) {
	for _, c := range []struct {
		cents            int64
		dollars, integer string
	}{
		{0, "0.00", "0"},
		{5, "0.05", "5"},
		{-5, "-0.05", "-5"},
		{123456, "1234.56", "123456"},
		{-123456, "-1234.56", "-123456"},
		{100, "1.00", "100"},
		{9007199254740993, "90071992547409.93", "9007199254740993"}, // beyond float64's integers: exact
		{-9223372036854775808, "-92233720368547758.08", "-9223372036854775808"},
	} {
		if got := MoneyDollarString.Amount(c.cents); got != c.dollars {
			t.Errorf("DOLLAR_STRING %d = %q, want %q", c.cents, got, c.dollars)
		}
		if got := MoneyCentsInteger.Amount(c.cents); got != c.integer {
			t.Errorf("CENTS_INTEGER %d = %q, want %q", c.cents, got, c.integer)
		}
	}
}

func day(s string) time.Time {
	d, err := time.Parse(DateLayout, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestComparisonColumnLabel(t *testing.T) {
	for _, c := range []struct {
		col  ComparisonColumn
		want string
	}{
		{ComparisonColumn{Period: ComparisonPeriod{Type: PeriodsMonths, Year: 2025, Month: 1, Start: day("2025-01-01"), End: day("2025-01-31")}}, "2025-01"},
		{ComparisonColumn{Period: ComparisonPeriod{Type: PeriodsYears, Year: 2025, Start: day("2025-01-01"), End: day("2025-12-31")}}, "2025"},
		{ComparisonColumn{Period: ComparisonPeriod{Type: PeriodsDateRanges, Start: day("2025-01-01"), End: day("2025-03-31")}}, "2025-01-01..2025-03-31"},
		{ComparisonColumn{Period: ComparisonPeriod{Type: PeriodsMonths, Start: day("2025-12-01")}, Filter: RequiredTags{{"dept", "a"}}}, "2025-12 (dept=a)"},
		{ComparisonColumn{Period: ComparisonPeriod{Type: PeriodsYears, Start: day("0999-01-01")}, Filter: RequiredTags{{"dept", "a"}, {"region", "west"}}},
			"0999 (dept=a, region=west)"},
	} {
		if got := c.col.Label(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.col.Period, got, c.want)
		}
	}
}

// li is a line item; kids nest.
func li(name, display string, value int64, kids ...LineItem) LineItem {
	return LineItem{Name: name, DisplayName: display, Value: value, LineItems: kids}
}

func TestMergeItemsOrder(t *testing.T) {
	names := func(m *mergedItem) []string {
		var out []string
		for _, c := range m.children {
			out = append(out, c.name)
		}
		return out
	}
	for _, c := range []struct {
		name string
		cols [][]string
		want []string
	}{
		{"same", [][]string{{"A", "B"}, {"A", "B"}}, []string{"A", "B"}},
		{"new before its next sibling", [][]string{{"B"}, {"A", "B"}}, []string{"A", "B"}},
		{"new in the middle", [][]string{{"A", "C"}, {"B", "C"}}, []string{"A", "B", "C"}},
		{"new at the end", [][]string{{"A"}, {"A", "B"}, {"C"}}, []string{"A", "B", "C"}},
		{"empty columns", [][]string{{}, {"B", "A"}, nil}, []string{"B", "A"}},
		{"no relation: first seen first", [][]string{{"C"}, {"A", "B"}}, []string{"C", "A", "B"}},
	} {
		items := make([]*LineItem, len(c.cols))
		for j, ns := range c.cols {
			it := li("S", "S", 0)
			for _, n := range ns {
				it.LineItems = append(it.LineItems, li(n, n, 1))
			}
			items[j] = &it
		}
		if got := names(mergeItems(items)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// goldenColumns are 2 months × 2 tag filters whose trees differ: an
// account present in some columns only, a nested contra account, a
// display name that looks like a formula, negative figures.
func goldenColumns() []ComparisonColumn {
	jan := ComparisonPeriod{Type: PeriodsMonths, Year: 2026, Month: 1, Start: day("2026-01-01"), End: day("2026-01-31")}
	feb := ComparisonPeriod{Type: PeriodsMonths, Year: 2026, Month: 2, Start: day("2026-02-01"), End: day("2026-02-28")}
	a, w := RequiredTags{{"dept", "a"}}, RequiredTags{{"dept", "w"}, {"region", "west"}}
	pnl := func(income, cogs, expenses, taxes LineItem) PnL {
		income.Name, income.DisplayName = "INCOME", "Income"
		cogs.Name, cogs.DisplayName = "COST_OF_GOODS_SOLD", "Cost of goods sold"
		expenses.Name, expenses.DisplayName = "EXPENSES", "Expenses"
		taxes.Name, taxes.DisplayName = "TAXES", "Taxes"
		p := PnL{Income: income, CostOfGoodsSold: cogs, Expenses: expenses, Taxes: taxes}
		p.GrossProfit = income.Value - cogs.Value
		p.ProfitBeforeTaxes = p.GrossProfit - expenses.Value
		p.NetProfit = p.ProfitBeforeTaxes - taxes.Value
		return p
	}
	returns := func(v int64) LineItem {
		return li("RETURNS_AND_ALLOWANCES", "Returns and allowances", v, li("DISCOUNTS", "Discounts", v))
	}
	opex := func(kids ...LineItem) LineItem {
		var v int64
		for _, k := range kids {
			v += k.Value
		}
		return li("OPERATING_EXPENSES", "Operating expenses", v, kids...)
	}
	return []ComparisonColumn{
		{Period: jan, Filter: a, PnL: pnl(
			li("", "", 9500, returns(-500), li("SALES", "Sales", 10000)),
			li("", "", 3000, li("MATERIALS", "Materials", 3000)),
			li("", "", 2000, opex(li("RENT", "Rent", 2000))),
			li("", "", 0))},
		{Period: jan, Filter: w, PnL: pnl(
			li("", "", 5000, li("SALES", "Sales", 5000)),
			li("", "", 0),
			li("", "", 7, opex(li("c0ffee00-0000-7000-8000-000000000001", "=HYPERLINK(\"x\")", 7))),
			li("", "", 1000, li("INCOME_TAXES", "Income taxes", 1000)))},
		{Period: feb, Filter: a, PnL: pnl(li("", "", 0), li("", "", 0), li("", "", 0), li("", "", 0))},
		{Period: feb, Filter: w, PnL: pnl(
			li("", "", 1, li("SALES", "Sales", 1)),
			li("", "", 0),
			li("", "", 340, opex(li("BANK_FEES", "Bank fees", 300), li("UNCATEGORIZED_EXPENSES", "Uncategorized expenses", 40))),
			li("", "", 0))},
	}
}

// TestComparisonCSVGolden: the CSV of goldenColumns in both formats
// against hand-checked golden files (go test -run Golden -update
// rewrites them; check the diff by hand).
func TestComparisonCSVGolden(t *testing.T) {
	for _, f := range []MoneyFormat{MoneyDollarString, MoneyCentsInteger} {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		if err := w.WriteAll(ComparisonCSV(goldenColumns(), f)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "comparison_"+string(f)+".golden.csv")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s:\n%s\nwant\n%s", f, buf.Bytes(), want)
		}
	}
}

// TestComparisonCSV: every row has a cell per column; no columns is the
// header alone; no tag filter, no suffix.
func TestComparisonCSV(t *testing.T) {
	if got := ComparisonCSV(nil, MoneyDollarString); !reflect.DeepEqual(got, [][]string{{"Line item"}}) {
		t.Fatalf("no columns: %q", got)
	}
	cols := goldenColumns()
	rows := ComparisonCSV(cols, MoneyCentsInteger)
	for _, r := range rows {
		if len(r) != len(cols)+1 {
			t.Fatalf("row %q: %d cells", r, len(r))
		}
	}
	one := []ComparisonColumn{{Period: ComparisonPeriod{Type: PeriodsYears, Start: day("2026-01-01")}, PnL: BuildPnL(nil, nil, StructureDefault)}}
	want := [][]string{{"Line item", "2026"}, {"Income", "0.00"}, {"Cost of goods sold", "0.00"}, {"Gross profit", "0.00"},
		{"Expenses", "0.00"}, {"Profit before taxes", "0.00"}, {"Taxes", "0.00"}, {"Net profit", "0.00"}}
	if got := ComparisonCSV(one, MoneyDollarString); !reflect.DeepEqual(got, want) {
		t.Fatalf("empty report:\n%q\nwant\n%q", got, want)
	}
}

func FuzzParseMoneyFormat(f *testing.F) {
	for _, s := range []string{"", "money_format=DOLLAR_STRING", "money_format=CENTS_INTEGER", "money_format=", "money_format=x&money_format=y",
		"money_format=%00", "a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		got, err := ParseMoneyFormat(q)
		if err != nil {
			if e := apperr.From(err); e.Type != apperr.InvalidParameters || e.Enum != EnumInvalidMoneyFormat {
				t.Fatalf("error %v", err)
			}
			return
		}
		if got != MoneyDollarString && got != MoneyCentsInteger {
			t.Fatalf("accepted %q: %q", raw, got)
		}
		if _, ok := q["money_format"]; !ok && got != MoneyDollarString {
			t.Fatalf("default %q", got)
		}
		for _, c := range []int64{0, -5, 123456} {
			if MoneyFormat(got).Amount(c) == "" {
				t.Fatal("empty amount")
			}
		}
	})
}
