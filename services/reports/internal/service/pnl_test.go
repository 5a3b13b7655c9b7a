package service

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// flatten is a section as "path=value" lines (" contra" marks a contra
// account), depth first.
func flatten(prefix string, li domain.LineItem) []string {
	s := fmt.Sprintf("%s=%d", prefix, li.Value)
	if li.IsContra {
		s += " contra"
	}
	out := []string{s}
	for _, c := range li.LineItems {
		out = append(out, flatten(prefix+"/"+c.Name, c)...)
	}
	return out
}

type figures struct {
	income, cogs, gross, expenses, pbt, taxes, net int64
	fully                                          bool
}

func figuresOf(r pnlResponse) figures {
	d := r.Data
	return figures{d.Income.Value, d.CostOfGoodsSold.Value, d.GrossProfit, d.Expenses.Value, d.ProfitBeforeTaxes,
		d.Taxes.Value, d.NetProfit, d.FullyCategorized}
}

// goldenHistory is a small business history: two sales (two dept
// values), a discount, materials, rent, a rent posted by mistake and its
// reversal, income tax, and in April a sale and an uncategorized expense.
func goldenHistory(bid uuid.UUID) []events.LedgerEntryPosted {
	wrongRent := entry(bid, "2026-03-12", line(bid, "RENT", "DEBIT", 700), line(bid, "CASH", "CREDIT", 700))
	return []events.LedgerEntryPosted{
		entry(bid, "2026-03-02", line(bid, "CASH", "DEBIT", 10000, "dept", "retail"), line(bid, "SALES", "CREDIT", 10000, "dept", "retail")),
		entry(bid, "2026-03-05", line(bid, "CASH", "DEBIT", 5000, "dept", "wholesale"), line(bid, "SALES", "CREDIT", 5000, "dept", "wholesale")),
		entry(bid, "2026-03-06", line(bid, "DISCOUNTS", "DEBIT", 500, "dept", "retail"), line(bid, "CASH", "CREDIT", 500, "dept", "retail")),
		entry(bid, "2026-03-07", line(bid, "MATERIALS", "DEBIT", 3000, "dept", "retail"), line(bid, "CASH", "CREDIT", 3000, "dept", "retail")),
		entry(bid, "2026-03-10", line(bid, "RENT", "DEBIT", 2000), line(bid, "CASH", "CREDIT", 2000)),
		wrongRent,
		reversal(wrongRent, "2026-03-13"),
		entry(bid, "2026-03-20", line(bid, "INCOME_TAXES", "DEBIT", 1000), line(bid, "CASH", "CREDIT", 1000)),
		entry(bid, "2026-04-02", line(bid, "CASH", "DEBIT", 9999), line(bid, "SALES", "CREDIT", 9999)),
		entry(bid, "2026-04-03", line(bid, "UNCATEGORIZED_EXPENSES", "DEBIT", 100), line(bid, "CASH", "CREDIT", 100)),
	}
}

// TestProfitAndLossGolden checks the report of the golden history against
// hand-computed figures, per period and tag filter, delivered once and
// then every event again.
func TestProfitAndLossGolden(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")

	empty := e.pnl(tok, bid, period("2026-03-01", "2026-03-31"))
	if figuresOf(empty) != (figures{fully: true}) || empty.Meta.LastEventAt != nil {
		t.Fatalf("before any event: %+v", empty)
	}

	var evts []events.Event
	for _, p := range goldenHistory(bid) {
		evts = append(evts, event(t, p))
	}
	e.deliver(evts...)
	txEvts := goldenTxEvents(t, bid)
	e.deliver(txEvts...)
	last := txEvts[len(txEvts)-1].Time // the last event applied is a bank transaction's

	march := e.pnl(tok, bid, period("2026-03-01", "2026-03-31"))
	d := march.Data
	if d.BusinessID != bid || d.StartDate.Format("2006-01-02T15:04:05Z07:00") != "2026-03-01T00:00:00Z" ||
		d.EndDate.Format("2006-01-02") != "2026-03-31" || d.OtherOutflows != nil || d.PersonalExpenses != nil {
		t.Fatalf("header: %+v", d)
	}
	if march.Meta.ReportingBasis != "ACCRUAL" || march.Meta.LastEventAt == nil || !march.Meta.LastEventAt.Equal(last) {
		t.Fatalf("meta: %+v, want last event at %s", march.Meta, last)
	}
	// Income 15000 − 500 discount; COGS 3000; rent 2000 (700 reversed);
	// income tax 1000.
	tree := slices.Concat(flatten("income", d.Income), flatten("cogs", d.CostOfGoodsSold),
		flatten("expenses", d.Expenses), flatten("taxes", d.Taxes))
	want := []string{
		"income=14500",
		"income/RETURNS_AND_ALLOWANCES=-500",
		"income/RETURNS_AND_ALLOWANCES/DISCOUNTS=-500 contra",
		"income/SALES=15000",
		"cogs=3000",
		"cogs/MATERIALS=3000",
		"expenses=2000",
		"expenses/OPERATING_EXPENSES=2000",
		"expenses/OPERATING_EXPENSES/RENT=2000",
		"taxes=1000",
		"taxes/INCOME_TAXES=1000",
	}
	if !slices.Equal(tree, want) {
		t.Fatalf("March tree:\n%s\nwant:\n%s", strings.Join(tree, "\n"), strings.Join(want, "\n"))
	}
	if d.Income.Name != "INCOME" || d.Income.DisplayName != "Income" || d.Income.LineItems[1].DisplayName != "Sales" {
		t.Fatalf("names: %+v", d.Income)
	}

	cases := []struct {
		name string
		q    url.Values
		want figures
	}{
		{"March", period("2026-03-01", "2026-03-31"), figures{14500, 3000, 11500, 2000, 9500, 1000, 8500, true}},
		{"March, retail", period("2026-03-01", "2026-03-31", "tag_key", "dept", "tag_values", "retail"),
			figures{9500, 3000, 6500, 0, 6500, 0, 6500, true}},
		{"March, wholesale", period("2026-03-01", "2026-03-31", "tag_key", "dept", "tag_values", "wholesale"),
			figures{5000, 0, 5000, 0, 5000, 0, 5000, true}},
		{"March, both values comma-separated", period("2026-03-01", "2026-03-31", "tag_key", "dept", "tag_values", "retail,wholesale"),
			figures{14500, 3000, 11500, 0, 11500, 0, 11500, true}},
		{"March, both values repeated", period("2026-03-01", "2026-03-31", "tag_key", "dept", "tag_values", "retail", "tag_values", "wholesale"),
			figures{14500, 3000, 11500, 0, 11500, 0, 11500, true}},
		{"March, any dept", period("2026-03-01", "2026-03-31", "tag_key", "dept"),
			figures{14500, 3000, 11500, 0, 11500, 0, 11500, true}},
		{"March, unknown value", period("2026-03-01", "2026-03-31", "tag_key", "dept", "tag_values", "online"),
			figures{fully: true}},
		{"the mistaken rent's day only", period("2026-03-12", "2026-03-12"), figures{0, 0, 0, 700, -700, 0, -700, true}},
		{"its reversal's day only", period("2026-03-13", "2026-03-13"), figures{0, 0, 0, -700, 700, 0, 700, true}},
		{"April: uncategorized", period("2026-04-01", "2026-04-30"), figures{9999, 0, 9999, 100, 9899, 0, 9899, false}},
		{"March and April", period("2026-03-01", "2026-04-30", "reporting_basis", "ACCRUAL", "structure", "DEFAULT", "include_uncategorized", "true"),
			figures{24499, 3000, 21499, 2100, 19399, 1000, 18399, false}},
		{"February", period("2026-02-01", "2026-02-28"), figures{fully: true}},
	}
	check := func(round string) {
		for _, c := range cases {
			if got := figuresOf(e.pnl(tok, bid, c.q)); got != c.want {
				t.Errorf("%s: %s: %+v, want %+v", round, c.name, got, c.want)
			}
		}
	}
	check("delivered once")
	e.deliver(evts...)
	check("every event delivered twice")
	if got := e.pnl(tok, bid, period("2026-03-01", "2026-03-31")); !slices.Equal(slices.Concat(flatten("income", got.Data.Income),
		flatten("cogs", got.Data.CostOfGoodsSold), flatten("expenses", got.Data.Expenses), flatten("taxes", got.Data.Taxes)), want) {
		t.Fatalf("tree changed by redelivery: %+v", got.Data)
	}
	// The same entries redelivered under new event ids (a republish) are
	// still applied once.
	var again []events.Event
	for _, evt := range evts {
		var p events.LedgerEntryPosted
		if err := evt.Decode(&p); err != nil {
			t.Fatal(err)
		}
		again = append(again, event(t, p))
	}
	e.deliver(again...)
	check("republished under new event ids")

	n, err := e.S.Reports.Rebuild(t.Context(), bid)
	if err != nil || n != len(evts) {
		t.Fatalf("rebuild: %d, %v", n, err)
	}
	check("after rebuild")
}

// TestProfitAndLossTenancy: another client's business is 404, no token
// 401, and a business token sees only its own business.
func TestProfitAndLossTenancy(t *testing.T) {
	e := newEnv(t)
	a := e.Svc.SeedBusiness(t, "client-a")
	b := e.Svc.SeedBusiness(t, "client-b")
	e.deliver(event(t, entry(a, "2026-03-02", line(a, "CASH", "DEBIT", 100), line(a, "SALES", "CREDIT", 100))))
	q := period("2026-03-01", "2026-03-31")
	for _, c := range []struct {
		name  string
		token string
		bid   uuid.UUID
		want  int
	}{
		{"other client's business", e.Svc.Tokens.Platform(t, "client-b"), a, http.StatusNotFound},
		{"business token of another business", e.Svc.Tokens.Business(t, "client-a", b), a, http.StatusNotFound},
		{"unknown business", e.Svc.Tokens.Platform(t, "client-a"), uuid.New(), http.StatusNotFound},
		{"no token", "", a, http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet, pnlPath(c.bid, q), c.token, nil))
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.want, body)
			}
		})
	}
	if got := e.pnl(e.Svc.Tokens.Business(t, "client-a", a), a, q); got.Data.Income.Value != 100 {
		t.Fatalf("own business: %+v", got.Data)
	}
	if got := e.pnl(e.Svc.Tokens.Platform(t, "client-b"), b, q); got.Data.Income.Value != 0 || got.Meta.LastEventAt != nil {
		t.Fatalf("client-b sees client-a's figures: %+v", got)
	}
}

// TestProfitAndLossBadRequests: every parameter rule is a 400 error
// object with its enum.
func TestProfitAndLossBadRequests(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	for _, c := range []struct {
		name  string
		q     url.Values
		field string
		enum  string
	}{
		{"no start_date", url.Values{"end_date": {"2026-03-31"}}, "start_date", domain.EnumInvalidDateRange},
		{"no end_date", url.Values{"start_date": {"2026-03-01"}}, "end_date", domain.EnumInvalidDateRange},
		{"bad start_date", period("2026-3-01", "2026-03-31"), "start_date", domain.EnumInvalidDateRange},
		{"month 13", period("2026-03-01", "2026-13-01"), "end_date", domain.EnumInvalidDateRange},
		{"a timestamp", period("2026-03-01T00:00:00Z", "2026-03-31"), "start_date", domain.EnumInvalidDateRange},
		{"end before start", period("2026-03-31", "2026-03-01"), "end_date", domain.EnumInvalidDateRange},
		{"tag_values without tag_key", period("2026-03-01", "2026-03-31", "tag_values", "retail"), "tag_values", domain.EnumInvalidTagFilter},
		{"unknown basis", period("2026-03-01", "2026-03-31", "reporting_basis", "accrual"), "reporting_basis", domain.EnumUnsupportedReportingBasis},
		{"unknown structure", period("2026-03-01", "2026-03-31", "structure", "BAKERY"), "structure", domain.EnumUnsupportedStructure},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := openapitest.Request(http.MethodGet, pnlPath(bid, c.q), tok, nil)
			var body map[string]any
			if c.q.Has("start_date") && c.q.Has("end_date") && !c.q.Has("structure") {
				body = e.V.Expect(t, e.HTTP, req, http.StatusBadRequest)
			} else { // the document requires both dates and lists the structures: only the answer can be checked
				body = e.V.ExpectError(t, e.HTTP, req, http.StatusBadRequest)
			}
			meta, _ := body["meta"].(map[string]any)
			fields, _ := meta["fields"].(map[string]any)
			if body["type"] != "InvalidParameters" || body["error_enum"] != c.enum || fields[c.field] == nil {
				t.Fatalf("error %v, want enum %s on %s", body, c.enum, c.field)
			}
		})
	}
}
