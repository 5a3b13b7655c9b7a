package domain

import (
	"math/rand/v2"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

func TestSegments(t *testing.T) {
	m := func(lo, hi string) Segment { return Segment{Monthly: true, Lo: day(lo), Hi: day(hi)} }
	d := func(lo, hi string) Segment { return Segment{Lo: day(lo), Hi: day(hi)} }
	for _, c := range []struct {
		name     string
		from, to string
		want     []Segment
	}{
		{"days of one month", "2025-03-05", "2025-03-20", []Segment{d("2025-03-05", "2025-03-20")}},
		{"a whole month", "2025-03-01", "2025-03-31", []Segment{m("2025-03-01", "2025-03-01")}},
		{"one day", "2025-03-31", "2025-03-31", []Segment{d("2025-03-31", "2025-03-31")}},
		{"partial, whole, partial", "2025-01-15", "2025-04-10",
			[]Segment{d("2025-01-15", "2025-01-31"), m("2025-02-01", "2025-03-01"), d("2025-04-01", "2025-04-10")}},
		{"from a first day to a last day", "2025-01-01", "2025-12-31", []Segment{m("2025-01-01", "2025-12-01")}},
		{"from the beginning", "", "2025-06-15", []Segment{m("0001-01-01", "2025-05-01"), d("2025-06-01", "2025-06-15")}},
		{"end of february", "2024-02-10", "2024-02-29", []Segment{d("2024-02-10", "2024-02-29")}},
		{"two partial months", "2025-01-31", "2025-02-01", []Segment{d("2025-01-31", "2025-01-31"), d("2025-02-01", "2025-02-01")}},
		{"empty", "2025-02-02", "2025-02-01", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r DayRange
			if c.from != "" {
				r.From = day(c.from)
			}
			r.To = day(c.to)
			if got := Segments(r); !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestSegmentsCover: for random ranges, the segments cover every day of
// the range exactly once and nothing else, whole months only from a
// month's first day to its last.
func TestSegmentsCover(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := day("2023-11-01")
	for range 2000 {
		from := base.AddDate(0, 0, r.IntN(900))
		to := from.AddDate(0, 0, r.IntN(500)-20)
		covered := map[time.Time]int{}
		for _, s := range Segments(DayRange{From: from, To: to}) {
			if s.Monthly {
				if s.Lo.Day() != 1 || s.Hi.Day() != 1 || s.Hi.Before(s.Lo) {
					t.Fatalf("%s..%s: bad months %v", from, to, s)
				}
				for m := s.Lo; !m.After(s.Hi); m = m.AddDate(0, 1, 0) {
					for d := m; d.Month() == m.Month(); d = d.AddDate(0, 0, 1) {
						covered[d]++
					}
				}
				continue
			}
			if s.Lo.Month() != s.Hi.Month() || s.Lo.Year() != s.Hi.Year() || s.Hi.Before(s.Lo) {
				t.Fatalf("%s..%s: days across months %v", from, to, s)
			}
			for d := s.Lo; !d.After(s.Hi); d = d.AddDate(0, 0, 1) {
				covered[d]++
			}
		}
		n := 0
		for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
			if covered[d] != 1 {
				t.Fatalf("%s..%s: %s covered %d times", from, to, d, covered[d])
			}
			n++
		}
		if len(covered) != n {
			t.Fatalf("%s..%s: %d days covered, want %d", from, to, len(covered), n)
		}
	}
}

func TestFiscalYearStart(t *testing.T) {
	for _, c := range []struct {
		day   string
		month int
		want  string
	}{
		{"2025-06-30", 7, "2024-07-01"}, {"2025-07-01", 7, "2025-07-01"}, {"2025-12-31", 1, "2025-01-01"},
		{"2025-01-01", 1, "2025-01-01"}, {"2025-03-15", 4, "2024-04-01"}, {"2025-03-15", 0, "2025-01-01"},
		{"2025-03-15", 13, "2025-01-01"}, {"2025-12-01", 12, "2025-12-01"}, {"2025-11-30", 12, "2024-12-01"},
	} {
		if got := FiscalYearStart(day(c.day), c.month); !got.Equal(day(c.want)) {
			t.Errorf("%s, month %d: %s, want %s", c.day, c.month, got.Format(DateLayout), c.want)
		}
	}
}

func TestClassifyCashFlow(t *testing.T) {
	sub := func(s string) *string { return &s }
	bank := Account{ID: uuid.New(), StableName: sub("BANK_ACCOUNTS"), Name: "Bank accounts", Type: TypeAsset, Subtype: sub("BANK_ACCOUNTS")}
	assets := Account{ID: uuid.New(), StableName: sub("ASSETS"), Name: "Assets", Type: TypeAsset, Subtype: sub("ASSETS")}
	bank.Path = []uuid.UUID{assets.ID}
	accounts := map[uuid.UUID]Account{bank.ID: bank, assets.ID: assets}
	under := func(parent Account, typ string, subtype *string) Account {
		a := Account{ID: uuid.New(), Name: "x", Type: typ, Subtype: subtype, Path: append(slices.Clone(parent.Path), parent.ID)}
		accounts[a.ID] = a
		return a
	}
	for _, c := range []struct {
		name string
		a    Account
		want Activity
		ok   bool
	}{
		{"the bank accounts", bank, ActivityCash, true},
		{"a bank account without a subtype, below them", under(bank, TypeAsset, nil), ActivityCash, true},
		{"a bank account repeating the root's subtype", under(bank, TypeAsset, sub("ASSETS")), ActivityCash, true},
		{"receivables", Account{Type: TypeAsset, Subtype: sub("ACCOUNTS_RECEIVABLE")}, ActivityOperating, true},
		{"fixed assets", Account{Type: TypeAsset, Subtype: sub("FIXED_ASSETS")}, ActivityInvesting, true},
		{"accumulated depreciation", Account{Type: TypeAsset, Subtype: sub("ACCUMULATED_DEPRECIATION")}, ActivityOperating, true},
		{"an unlisted subtype below the bank accounts", under(bank, TypeAsset, sub("OTHER_CURRENT_ASSETS")), ActivityOperating, true},
		{"undeposited funds", Account{Type: TypeAsset, Subtype: sub("UNDEPOSITED_FUNDS")}, ActivityCash, true},
		{"the root of assets", assets, ActivityOperating, true},
		{"a credit card", Account{Type: TypeLiability, Subtype: sub("CREDIT_CARDS")}, ActivityOperating, true},
		{"a loan", Account{Type: TypeLiability, Subtype: sub("NOTES_PAYABLE")}, ActivityFinancing, true},
		{"a line of credit", Account{Type: TypeLiability, Subtype: sub("LINE_OF_CREDIT")}, ActivityFinancing, true},
		{"owner's draw", Account{Type: TypeEquity, Subtype: sub("DISTRIBUTIONS")}, ActivityFinancing, true},
		{"equity without a subtype", Account{Type: TypeEquity}, ActivityFinancing, true},
		{"revenue", Account{Type: TypeRevenue, Subtype: sub("SALES")}, "", false},
		{"an expense", Account{Type: TypeExpense}, "", false},
		{"an unknown type", Account{Type: "OTHER"}, ActivityOperating, true},
	} {
		if got, ok := ClassifyCashFlow(c.a, accounts); got != c.want || ok != c.ok {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestBuildStatementsBalance: for random balances over a small chart (the
// P&L, every balance sheet type, nested accounts with balances of their
// own), split at a fiscal year's start, the balance sheet balances, every
// line is the sum of its line items, the trial balance's debits equal its
// credits, and the statement of cash flows explains the change of cash.
func TestBuildStatementsBalance(t *testing.T) {
	sub := func(s string) *string { return &s }
	mk := func(stable, typ, subtype, normality string, parent *Account) Account {
		a := Account{ID: uuid.New(), StableName: sub(stable), Name: stable, Type: typ, Subtype: sub(subtype), Normality: sub(normality)}
		if parent != nil {
			a.Path = append(slices.Clone(parent.Path), parent.ID)
		}
		return a
	}
	assets := mk("ASSETS", TypeAsset, "ASSETS", "DEBIT", nil)
	liab := mk("LIABILITIES", TypeLiability, "LIABILITIES", "CREDIT", nil)
	eq := mk("EQUITY", TypeEquity, "EQUITY", "CREDIT", nil)
	rev := mk("REVENUE", TypeRevenue, "REVENUE", "CREDIT", nil)
	exp := mk("EXPENSES", TypeExpense, "EXPENSES", "DEBIT", nil)
	fixed := mk("FIXED_ASSETS", TypeAsset, "FIXED_ASSETS", "DEBIT", &assets)
	list := []Account{assets, liab, eq, rev, exp, fixed,
		mk("BANK_ACCOUNTS", TypeAsset, "BANK_ACCOUNTS", "DEBIT", &assets), mk("ACCOUNTS_RECEIVABLE", TypeAsset, "ACCOUNTS_RECEIVABLE", "DEBIT", &assets),
		mk("ACCUMULATED_DEPRECIATION", TypeAsset, "ACCUMULATED_DEPRECIATION", "CREDIT", &fixed),
		mk("ACCOUNTS_PAYABLE", TypeLiability, "ACCOUNTS_PAYABLE", "CREDIT", &liab), mk("NOTES_PAYABLE", TypeLiability, "NOTES_PAYABLE", "CREDIT", &liab),
		mk("CONTRIBUTIONS", TypeEquity, "CONTRIBUTIONS", "CREDIT", &eq), mk("RETAINED_EARNINGS", TypeEquity, "RETAINED_EARNINGS", "CREDIT", &eq),
		mk("SALES", TypeRevenue, "SALES", "CREDIT", &rev), mk("RENT", TypeExpense, "OPERATING_EXPENSES", "DEBIT", &exp),
	}
	accounts := map[uuid.UUID]Account{}
	for _, a := range list {
		accounts[a.ID] = a
	}
	r := rand.New(rand.NewPCG(3, 4))
	// random balanced amounts: each a transfer between two accounts.
	random := func() map[uuid.UUID]int64 {
		out := map[uuid.UUID]int64{}
		for range r.IntN(12) {
			a, b := list[r.IntN(len(list))], list[r.IntN(len(list))]
			v := r.Int64N(100_000) - 20_000
			out[a.ID] += v
			out[b.ID] -= v
		}
		return out
	}
	var sum func(li LineItem)
	sum = func(li LineItem) {
		if len(li.LineItems) == 0 {
			return
		}
		var s int64
		for _, c := range li.LineItems {
			s += c.Value
			sum(c)
		}
		if s != li.Value {
			t.Fatalf("%s: %d ≠ the sum of its line items %d", li.Name, li.Value, s)
		}
	}
	for range 2000 {
		prior, current := random(), random()
		bs := BuildBalanceSheet(accounts, prior, current)
		if bs.Assets.Value != bs.LiabilitiesAndEquity.Value {
			t.Fatalf("assets %d ≠ liabilities and equity %d (%v %v)", bs.Assets.Value, bs.LiabilitiesAndEquity.Value, prior, current)
		}
		sum(bs.Assets)
		sum(bs.LiabilitiesAndEquity)
		tb := BuildTrialBalance(accounts, prior, current)
		if tb.Debits != tb.Credits {
			t.Fatalf("trial balance: debits %d, credits %d", tb.Debits, tb.Credits)
		}
		cf := BuildCashFlow(accounts, current, prior)
		if cf.CashAtStart+cf.NetCashIncrease != cf.CashAtEnd {
			t.Fatalf("cash flows: %d + %d ≠ %d", cf.CashAtStart, cf.NetCashIncrease, cf.CashAtEnd)
		}
	}
}

func FuzzParseBalanceQuery(f *testing.F) {
	for _, s := range []string{"effective_date=2025-06-30", "effective_date=2025-06-30&reporting_basis=CASH", "", "effective_date=x",
		"reporting_basis=cash", "effective_date=2025-02-29"} {
		f.Add(s)
	}
	today := day("2026-11-27")
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseBalanceQuery(v, today)
		if err != nil {
			if ae := apperr.From(err); ae == nil || ae.Status() != 400 {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		if q.Date.IsZero() || (q.Basis != "" && q.Basis != BasisAccrual && q.Basis != BasisCash) || (v.Get("effective_date") == "" && !q.Date.Equal(today)) {
			t.Fatalf("%q: %+v", raw, q)
		}
	})
}

func FuzzParsePeriodQuery(f *testing.F) {
	for _, s := range []string{"start_date=2025-01-01&end_date=2025-12-31", "start_date=2025-02-01&end_date=2025-01-01", "start_date=x",
		"start_date=2025-01-01&end_date=2025-01-01&reporting_basis=ACCRUAL", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParsePeriodQuery(v)
		if err != nil {
			if ae := apperr.From(err); ae == nil || ae.Status() != 400 {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		if q.End.Before(q.Start) || q.Start.IsZero() {
			t.Fatalf("%q: %+v", raw, q)
		}
	})
}

func FuzzParsePnLLinesQuery(f *testing.F) {
	for _, s := range []string{"start_date=2025-01-01&end_date=2025-12-31&line_item_name=SALES",
		"start_date=2025-01-01&end_date=2025-12-31&line_item_name=FUEL&pnl_structure=TRUCKING&reporting_basis=CASH&tag_key=dept&tag_values=a,b",
		"line_item_name=", "start_date=2025-01-01&end_date=2025-12-31", "line_item_name=X&pnl_structure=BAKERY", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParsePnLLinesQuery(v)
		if err != nil {
			if ae := apperr.From(err); ae == nil || ae.Status() != 400 {
				t.Fatalf("%q: %v", raw, err)
			}
			return
		}
		if q.LineItemName == "" || q.End.Before(q.Start) {
			t.Fatalf("%q: %+v", raw, q)
		}
		if _, ok := ParseStructure(string(q.Structure)); !ok {
			t.Fatalf("%q: structure %q", raw, q.Structure)
		}
	})
}
