package domain

import (
	"net/url"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

func TestTagSet(t *testing.T) {
	bid := uuid.New()
	a := NewTagSet([]Tag{{"dept", "retail"}, {"proj", "x"}, {"dept", "retail"}, {"dept", "a"}})
	b := NewTagSet([]Tag{{"proj", "x"}, {"dept", "a"}, {"dept", "retail"}})
	if a.ID(bid) != b.ID(bid) || a.ID(bid) == a.ID(uuid.New()) || len(a) != 3 {
		t.Fatalf("canonical sets: %v %v", a, b)
	}
	if got := a.Keys(); len(got) != 2 || got[0] != "dept" || got[1] != "proj" {
		t.Fatalf("keys %v", got)
	}
	if NewTagSet(nil) == nil || NewTagSet(nil).ID(bid) == a.ID(bid) {
		t.Fatal("empty set")
	}
	for _, c := range []struct {
		f    TagFilter
		want bool
	}{
		{TagFilter{}, true},
		{TagFilter{Key: "dept"}, true},
		{TagFilter{Key: "dept", Values: []string{"b", "a"}}, true},
		{TagFilter{Key: "dept", Values: []string{"x"}}, false},
		{TagFilter{Key: "other"}, false},
	} {
		if got := c.f.Matches(a); got != c.want {
			t.Errorf("%+v matches = %v", c.f, got)
		}
	}
}

func TestBuildPnL(t *testing.T) {
	s := func(v string) *string { return &v }
	rev, sales, exp, cogs, mat, taxes, it, unc := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	cash := uuid.New()
	accounts := map[uuid.UUID]Account{
		rev:   {ID: rev, StableName: s("REVENUE"), Name: "Revenue", Type: TypeRevenue},
		sales: {ID: sales, StableName: s("SALES"), Name: "Sales", Type: TypeRevenue, Normality: s("CREDIT"), Path: []uuid.UUID{rev}},
		exp:   {ID: exp, StableName: s("EXPENSES"), Name: "Expenses", Type: TypeExpense},
		cogs:  {ID: cogs, StableName: s("COST_OF_GOODS_SOLD"), Name: "COGS", Type: TypeExpense, Path: []uuid.UUID{exp}},
		mat:   {ID: mat, Name: "Custom materials", Type: TypeExpense, Normality: s("DEBIT"), Path: []uuid.UUID{exp, cogs}},
		taxes: {ID: taxes, StableName: s("TAXES"), Name: "Taxes", Type: TypeExpense, Path: []uuid.UUID{exp}},
		it:    {ID: it, StableName: s("INCOME_TAXES"), Name: "Income taxes", Type: TypeExpense, Path: []uuid.UUID{exp, taxes}},
		unc:   {ID: unc, StableName: s("UNCATEGORIZED_REVENUE"), Name: "Uncategorized revenue", Type: TypeRevenue, Path: []uuid.UUID{rev}},
		cash:  {ID: cash, StableName: s("CASH"), Name: "Cash", Type: "ASSET"},
	}
	p := BuildPnL(accounts, map[uuid.UUID]int64{sales: -1000, mat: 300, cogs: 50, it: 100, cash: 999, uuid.New(): 5}, StructureDefault)
	if p.Income.Value != 1000 || p.CostOfGoodsSold.Value != 350 || p.GrossProfit != 650 || p.Expenses.Value != 0 ||
		p.ProfitBeforeTaxes != 650 || p.Taxes.Value != 100 || p.NetProfit != 550 || !p.FullyCategorized {
		t.Fatalf("%+v", p)
	}
	if li := p.CostOfGoodsSold.LineItems; len(li) != 1 || li[0].Name != mat.String() || li[0].Value != 300 || li[0].IsContra {
		t.Fatalf("COGS items %+v (the amount on COST_OF_GOODS_SOLD itself counts in the section only)", li)
	}
	// fully_categorized comes from the bank transactions, not the accounts.
	if p := BuildPnL(accounts, map[uuid.UUID]int64{unc: -1}, StructureDefault); !p.FullyCategorized || p.Income.Value != 1 {
		t.Fatalf("uncategorized: %+v", p)
	}
}

func TestParsePnLQuery(t *testing.T) {
	q, err := ParsePnLQuery(url.Values{"start_date": {"2026-01-01"}, "end_date": {"2026-01-01"}, "tag_key": {" dept "},
		"tag_values": {"a, b", "c", ","}})
	if err != nil || q.Filter.Key != "dept" || len(q.Filter.Values) != 3 || !q.Start.Equal(q.End) {
		t.Fatalf("%+v %v", q, err)
	}
	_, err = ParsePnLQuery(url.Values{"start_date": {"x"}, "end_date": {"2026-01-01"}, "tag_values": {"a"}})
	if e := apperr.From(err); e.Type != apperr.InvalidParameters || len(e.Meta["fields"].(map[string]string)) != 2 {
		t.Fatalf("%+v", err)
	}
}

func FuzzParsePnLQuery(f *testing.F) {
	for _, s := range []string{"start_date=2026-01-01&end_date=2026-02-01", "start_date=2026-02-01&end_date=2026-01-01",
		"start_date=2026-01-01&end_date=2026-01-31&tag_key=dept&tag_values=a,b", "tag_values=%00", "reporting_basis=CASH&structure=X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParsePnLQuery(v)
		if err != nil {
			if e := apperr.From(err); e.Type != apperr.InvalidParameters || e.Enum == "" {
				t.Fatalf("error %v", err)
			}
			return
		}
		if q.End.Before(q.Start) || len(q.Filter.Values) > 0 && q.Filter.Key == "" {
			t.Fatalf("accepted %q: %+v", raw, q)
		}
	})
}
