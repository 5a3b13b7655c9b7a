package service

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// summaryBody is one month of the summaries' answer.
type summaryBody struct {
	Year, Month               int
	Income                    int64 `json:"income"`
	CostOfGoodsSold           int64 `json:"costOfGoodsSold"`
	GrossProfit               int64 `json:"grossProfit"`
	OperatingExpenses         int64 `json:"operatingExpenses"`
	ProfitBeforeTaxes         int64 `json:"profitBeforeTaxes"`
	Taxes                     int64 `json:"taxes"`
	NetProfit                 int64 `json:"netProfit"`
	FullyCategorized          bool  `json:"fullyCategorized"`
	TotalExpenses             int64 `json:"totalExpenses"`
	UncategorizedInflows      int64 `json:"uncategorizedInflows"`
	UncategorizedOutflows     int64 `json:"uncategorizedOutflows"`
	UncategorizedTransactions int   `json:"uncategorized_transactions"`
	CategorizedTransactions   int   `json:"categorized_transactions"`
}

func (e *env) summaries(tok string, bid fmt.Stringer, q url.Values) (out struct {
	Data struct {
		Type   string        `json:"type"`
		Months []summaryBody `json:"months"`
	} `json:"data"`
}) {
	e.T.Helper()
	path := "/v1/businesses/" + bid.String() + "/reports/profit-and-loss-summaries?" + q.Encode()
	resp, body := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodGet, path, tok, nil))
	if resp.StatusCode != http.StatusOK {
		e.T.Fatalf("GET %s: %d %s", q.Encode(), resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &out); err != nil {
		e.T.Fatal(err)
	}
	return out
}

// TestProfitAndLossSummariesProperty: over random histories (January and
// February 2026) and bank transactions, each month's summary is the P&L
// of that month (as GET /reports/profit-and-loss answers it and as the
// naive recomputation gives it), with and without a tag filter;
// totalExpenses = income − netProfit; the uncategorized flows are the
// uncategorized accounts' amounts; the counts are the month's
// transactions by categorization.
func TestProfitAndLossSummariesProperty(t *testing.T) {
	e := newEnv(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 21))
	bid := e.Svc.SeedBusiness(t, "client-s")
	tok := e.Svc.Tokens.Platform(t, "client-s")
	entries := randomHistory(r, bid, 60)
	var evts []events.Event
	for _, p := range entries {
		evts = append(evts, event(t, p))
	}
	counts := map[int][2]int{} // month → uncategorized, categorized
	for range 12 {
		m := 1 + r.IntN(2)
		day := time.Date(2026, time.Month(m), 1+r.IntN(28), 0, 0, 0, 0, time.UTC).Format(domain.DateLayout)
		c := counts[m]
		if r.IntN(2) == 0 {
			evts = append(evts, txEvent(t, bankTx(bid, day, "READY_FOR_INPUT", "", 100)))
			c[0]++
		} else {
			evts = append(evts, txEvent(t, bankTx(bid, day, "CATEGORIZED", "RENT", 100)))
			c[1]++
		}
		counts[m] = c
	}
	e.deliver(evts...)

	for _, filter := range []url.Values{{}, {"tag_key": {"dept"}, "tag_values": {"retail"}}, {"tag_key": {"proj"}}} {
		q := url.Values{"start_year": {"2025"}, "start_month": {"12"}, "end_year": {"2026"}, "end_month": {"2"}}
		for k, v := range filter {
			q[k] = v
		}
		got := e.summaries(tok, bid, q).Data
		if got.Type != "Profit_And_Loss_Summaries" || len(got.Months) != 3 {
			t.Fatalf("%s: answer %+v", q.Encode(), got)
		}
		for i, s := range got.Months {
			start := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC).AddDate(0, i, 0)
			end := start.AddDate(0, 1, -1)
			if s.Year != start.Year() || s.Month != int(start.Month()) {
				t.Fatalf("%s: month %d is %d-%d", q.Encode(), i, s.Year, s.Month)
			}
			p := period(start.Format(domain.DateLayout), end.Format(domain.DateLayout))
			for k, v := range filter {
				p[k] = v
			}
			pnl := e.pnl(tok, bid, p).Data
			pq, err := domain.ParsePnLQuery(p)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := naive(entries, pq)
			if s.Income != pnl.Income.Value || s.CostOfGoodsSold != pnl.CostOfGoodsSold.Value || s.GrossProfit != pnl.GrossProfit ||
				s.OperatingExpenses != pnl.Expenses.Value || s.ProfitBeforeTaxes != pnl.ProfitBeforeTaxes || s.Taxes != pnl.Taxes.Value ||
				s.NetProfit != pnl.NetProfit || s.FullyCategorized != pnl.FullyCategorized || s.NetProfit != want.NetProfit || s.Income != want.Income.Value {
				t.Fatalf("%s %d-%02d: summary %+v, P&L %+v, naive net %d", q.Encode(), s.Year, s.Month, s, pnl, want.NetProfit)
			}
			if s.TotalExpenses != s.Income-s.NetProfit {
				t.Fatalf("%d-%02d: totalExpenses %d, income − net profit %d", s.Year, s.Month, s.TotalExpenses, s.Income-s.NetProfit)
			}
			var in, out int64
			for _, l := range lineItems(pnl.Income) {
				if l.Name == "UNCATEGORIZED_REVENUE" {
					in = l.Value
				}
			}
			for _, l := range lineItems(pnl.Expenses) {
				if l.Name == "UNCATEGORIZED_EXPENSES" {
					out = l.Value
				}
			}
			if s.UncategorizedInflows != in || s.UncategorizedOutflows != out {
				t.Fatalf("%d-%02d: uncategorized flows %d/%d, P&L lines %d/%d", s.Year, s.Month, s.UncategorizedInflows, s.UncategorizedOutflows, in, out)
			}
			c := counts[s.Month]
			if s.Year == 2025 {
				c = [2]int{}
			}
			if s.UncategorizedTransactions != c[0] || s.CategorizedTransactions != c[1] {
				t.Fatalf("%d-%02d: counts %d/%d, want %v", s.Year, s.Month, s.UncategorizedTransactions, s.CategorizedTransactions, c)
			}
		}
	}

	for _, bad := range []url.Values{
		{},
		{"start_year": {"2026"}, "start_month": {"13"}, "end_year": {"2026"}, "end_month": {"1"}},
		{"start_year": {"2026"}, "start_month": {"3"}, "end_year": {"2026"}, "end_month": {"1"}},
		{"start_year": {"2020"}, "start_month": {"1"}, "end_year": {"2026"}, "end_month": {"1"}},
		{"start_year": {"2026"}, "start_month": {"1"}, "end_year": {"2026"}, "end_month": {"1"}, "tag_values": {"x"}},
		{"start_year": {"2026"}, "start_month": {"1"}, "end_year": {"2026"}, "end_month": {"1"}, "reporting_basis": {"MODIFIED"}},
	} {
		path := "/v1/businesses/" + bid.String() + "/reports/profit-and-loss-summaries?" + bad.Encode()
		if m := e.DoInvalid(openapitest.Request(http.MethodGet, path, tok, nil), http.StatusBadRequest, ""); m["type"] != "InvalidParameters" {
			t.Fatalf("%s: %v", bad.Encode(), m)
		}
	}
}

// lineItems are the section's items and all below them.
func lineItems(l domain.LineItem) []domain.LineItem {
	var out []domain.LineItem
	for _, c := range l.LineItems {
		out = append(out, c)
		out = append(out, lineItems(c)...)
	}
	return out
}
