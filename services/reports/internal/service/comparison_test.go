package service

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// comparisonResponse is the comparison's answer.
type comparisonResponse struct {
	Data struct {
		Type string `json:"type"`
		Pnls []struct {
			Period struct {
				Type      string `json:"type"`
				Year      int    `json:"year"`
				Month     int    `json:"month"`
				StartDate string `json:"start_date"`
				EndDate   string `json:"end_date"`
			} `json:"period"`
			TagFilter *struct {
				Key    string   `json:"key"`
				Value  []string `json:"value"`
				Values []string `json:"values"`
			} `json:"tag_filter"`
			Pnl pnlBody `json:"pnl"`
		} `json:"pnls"`
	} `json:"data"`
	Meta struct {
		ReportingBasis string     `json:"reporting_basis"`
		LastEventAt    *time.Time `json:"last_event_at"`
	} `json:"meta"`
}

func comparisonPath(bid uuid.UUID) string {
	return fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss-comparison", bid)
}

// compare asks for a comparison, validates the exchange and decodes it.
func (e *env) compare(token string, bid uuid.UUID, body any) comparisonResponse {
	e.T.Helper()
	resp, raw := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodPost, comparisonPath(bid), token, body))
	if resp.StatusCode != http.StatusOK {
		e.T.Fatalf("POST comparison: %d %s", resp.StatusCode, raw)
	}
	var out comparisonResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		e.T.Fatal(err)
	}
	if out.Data.Type != "Comparison_Pnl" {
		e.T.Fatalf("data: %s", raw)
	}
	return out
}

func figuresOfBody(d pnlBody) figures { return figuresOf(pnlResponse{Data: d}) }

type anyMap = map[string]any

func months(ym ...int) anyMap {
	var ms []anyMap
	for i := 0; i+1 < len(ym); i += 2 {
		ms = append(ms, anyMap{"year": ym[i], "month": ym[i+1]})
	}
	return anyMap{"type": "Comparison_Months", "months": ms}
}

func required(kv ...string) anyMap {
	var ts []anyMap
	for i := 0; i+1 < len(kv); i += 2 {
		ts = append(ts, anyMap{"key": kv[i], "value": kv[i+1]})
	}
	return anyMap{"required_tags": ts}
}

// comparisonHistory is the golden history and, in April, a sale tagged
// dept=retail and proj=x, wholesale bank fees and an uncategorized retail
// expense.
func comparisonHistory(bid uuid.UUID) []events.LedgerEntryPosted {
	return append(goldenHistory(bid),
		entry(bid, "2026-04-15", line(bid, "CASH", "DEBIT", 2500, "dept", "retail", "proj", "x"), line(bid, "SALES", "CREDIT", 2500, "dept", "retail", "proj", "x")),
		entry(bid, "2026-04-16", line(bid, "BANK_FEES", "DEBIT", 300, "dept", "wholesale"), line(bid, "CASH", "CREDIT", 300, "dept", "wholesale")),
		entry(bid, "2026-04-17", line(bid, "UNCATEGORIZED_EXPENSES", "DEBIT", 40, "dept", "retail"), line(bid, "CASH", "CREDIT", 40, "dept", "retail")),
	)
}

// TestComparisonGolden: 3 months × 2 tag filters over the golden history
// against hand-computed figures, each equal to the GET's report of the
// same period and tag; the filters' AND; no filters; years and date
// ranges.
func TestComparisonGolden(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")

	empty := e.compare(tok, bid, anyMap{"periods": months(2026, 3)})
	if got := empty.Data.Pnls; len(got) != 1 || figuresOfBody(got[0].Pnl) != (figures{fully: true}) || got[0].TagFilter != nil ||
		empty.Meta.LastEventAt != nil || empty.Meta.ReportingBasis != "ACCRUAL" {
		t.Fatalf("before any event: %+v", empty)
	}

	var evts []events.Event
	for _, p := range comparisonHistory(bid) {
		evts = append(evts, event(t, p))
	}
	e.deliver(evts...)
	txEvts := goldenTxEvents(t, bid)
	e.deliver(txEvts...)
	evts = append(evts, txEvts...)

	// As the SDK sends it: structure inside the tag filters too.
	retail, wholesale := required("dept", "retail"), required("dept", "wholesale")
	retail["structure"], wholesale["structure"] = "DEFAULT", "DEFAULT"
	got := e.compare(tok, bid, anyMap{
		"periods":         months(2026, 2, 2026, 3, 2026, 4),
		"tag_filters":     []anyMap{retail, wholesale},
		"reporting_basis": "ACCRUAL", "structure": "DEFAULT",
	})
	if got.Meta.LastEventAt == nil || !got.Meta.LastEventAt.Equal(evts[len(evts)-1].Time) {
		t.Fatalf("meta %+v", got.Meta)
	}
	want := []struct {
		month int
		value string
		f     figures
	}{
		{2, "retail", figures{fully: true}},
		{2, "wholesale", figures{fully: true}},
		// Sales 10000 − discount 500; materials 3000.
		{3, "retail", figures{9500, 3000, 6500, 0, 6500, 0, 6500, true}},
		{3, "wholesale", figures{5000, 0, 5000, 0, 5000, 0, 5000, true}},
		// Sale 2500; the uncategorized 40.
		{4, "retail", figures{2500, 0, 2500, 40, 2460, 0, 2460, false}},
		// Bank fees 300 (fully_categorized is the period's: the April
		// bank transaction is uncategorized, whatever the tag filter).
		{4, "wholesale", figures{0, 0, 0, 300, -300, 0, -300, false}},
	}
	pnls := got.Data.Pnls
	if len(pnls) != len(want) {
		t.Fatalf("%d results, want %d", len(pnls), len(want))
	}
	for i, w := range want {
		p := pnls[i]
		start := time.Date(2026, time.Month(w.month), 1, 0, 0, 0, 0, time.UTC)
		end := start.AddDate(0, 1, -1)
		if p.Period.Type != "Comparison_Months" || p.Period.Year != 2026 || p.Period.Month != w.month ||
			p.Period.StartDate != start.Format(domain.DateLayout) || p.Period.EndDate != end.Format(domain.DateLayout) {
			t.Errorf("result %d: period %+v", i, p.Period)
		}
		if tf := p.TagFilter; tf == nil || tf.Key != "dept" || !slices.Equal(tf.Value, []string{w.value}) || !slices.Equal(tf.Values, tf.Value) {
			t.Errorf("result %d: tag filter %+v", i, tf)
		}
		if f := figuresOfBody(p.Pnl); f != w.f {
			t.Errorf("2026-%02d %s: %+v, want %+v", w.month, w.value, f, w.f)
		}
		single := e.pnl(tok, bid, period(start.Format(domain.DateLayout), end.Format(domain.DateLayout), "tag_key", "dept", "tag_values", w.value))
		if !reflect.DeepEqual(p.Pnl, single.Data) {
			t.Errorf("2026-%02d %s: comparison\n%+v\nGET\n%+v", w.month, w.value, p.Pnl, single.Data)
		}
	}

	// ALL the required tags: retail and proj=x is the April sale only;
	// tags are normalised as everywhere else.
	and := e.compare(tok, bid, anyMap{
		"periods":     months(2026, 4),
		"tag_filters": []anyMap{required(" dept ", "retail", "proj", "x"), required("proj", "x", "dept", "wholesale")},
	}).Data.Pnls
	if len(and) != 2 || figuresOfBody(and[0].Pnl) != (figures{2500, 0, 2500, 0, 2500, 0, 2500, false}) ||
		figuresOfBody(and[1].Pnl) != (figures{}) {
		t.Fatalf("AND filters: %+v", and)
	}
	if tf := and[0].TagFilter; tf.Key != "dept,proj" || !slices.Equal(tf.Values, []string{"retail", "x"}) {
		t.Fatalf("AND filter echo: %+v", tf)
	}

	// No filters: everything; a year and date ranges.
	all := e.compare(tok, bid, anyMap{"periods": anyMap{"type": "Comparison_Years", "years": []anyMap{{"year": 2026}, {"year": 2025}}}}).Data.Pnls
	if len(all) != 2 || all[0].TagFilter != nil || all[0].Period.Year != 2026 || all[0].Period.StartDate != "2026-01-01" ||
		all[0].Period.EndDate != "2026-12-31" || figuresOfBody(all[1].Pnl) != (figures{fully: true}) {
		t.Fatalf("years: %+v", all)
	}
	if f, w := figuresOfBody(all[0].Pnl), (figures{24499 + 2500, 3000, 21499 + 2500, 2100 + 340, 19399 + 2500 - 340, 1000, 18399 + 2500 - 340, false}); f != w {
		t.Fatalf("2026: %+v, want %+v", f, w)
	}
	ranges := e.compare(tok, bid, anyMap{"periods": anyMap{"type": "Comparison_Date_Ranges", "date_ranges": []anyMap{
		{"start_date": "2026-03-12", "end_date": "2026-03-12"}, {"start_date": "2026-03-13", "end_date": "2026-03-13"},
		{"start_date": "2026-03-01", "end_date": "2026-04-30"}}}}).Data.Pnls
	if len(ranges) != 3 || ranges[0].Period.Type != "Comparison_Date_Ranges" || ranges[0].Period.StartDate != "2026-03-12" ||
		figuresOfBody(ranges[0].Pnl) != (figures{0, 0, 0, 700, -700, 0, -700, true}) ||
		figuresOfBody(ranges[1].Pnl) != (figures{0, 0, 0, -700, 700, 0, 700, true}) ||
		ranges[2].Period.EndDate != "2026-04-30" {
		t.Fatalf("date ranges: %+v", ranges)
	}
	if whole := e.pnl(tok, bid, period("2026-03-01", "2026-04-30")); !reflect.DeepEqual(ranges[2].Pnl, whole.Data) {
		t.Fatalf("March–April: comparison\n%+v\nGET\n%+v", ranges[2].Pnl, whole.Data)
	}
}

// TestComparisonTenancy: another client's business is 404, no token 401.
func TestComparisonTenancy(t *testing.T) {
	e := newEnv(t)
	a := e.Svc.SeedBusiness(t, "client-a")
	b := e.Svc.SeedBusiness(t, "client-b")
	e.deliver(event(t, entry(a, "2026-03-02", line(a, "CASH", "DEBIT", 100), line(a, "SALES", "CREDIT", 100))))
	body := anyMap{"periods": months(2026, 3)}
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
			resp, raw := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodPost, comparisonPath(c.bid), c.token, body))
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.want, raw)
			}
		})
	}
	if got := e.compare(e.Svc.Tokens.Business(t, "client-a", a), a, body).Data.Pnls; got[0].Pnl.Income.Value != 100 {
		t.Fatalf("own business: %+v", got)
	}
	if got := e.compare(e.Svc.Tokens.Platform(t, "client-b"), b, body); got.Data.Pnls[0].Pnl.Income.Value != 0 || got.Meta.LastEventAt != nil {
		t.Fatalf("client-b sees client-a's figures: %+v", got)
	}
}

// TestComparisonBadRequests: every body rule is a 400 InvalidPayload
// naming the field.
func TestComparisonBadRequests(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	many := func(n int) anyMap {
		var ym []int
		for i := range n {
			ym = append(ym, 2000+i/12, 1+i%12)
		}
		return months(ym...)
	}
	filters := func(n int) []anyMap {
		out := make([]anyMap, n)
		for i := range out {
			out[i] = required("dept", fmt.Sprint(i))
		}
		return out
	}
	ranges := func(s, e string) anyMap {
		return anyMap{"type": "Comparison_Date_Ranges", "date_ranges": []anyMap{{"start_date": s, "end_date": e}}}
	}
	for _, c := range []struct {
		name     string
		body     any
		field    string
		enum     string
		document bool // the document allows the request (the answer alone decides)
	}{
		{"month 13", anyMap{"periods": months(2026, 13)}, "periods.months[0].month", domain.EnumInvalidDateRange, true},
		{"month 0", anyMap{"periods": months(2026, 1, 2026, 0)}, "periods.months[1].month", domain.EnumInvalidDateRange, true},
		{"year 0", anyMap{"periods": months(0, 1)}, "periods.months[0].year", domain.EnumInvalidDateRange, true},
		{"no periods", anyMap{}, "periods", domain.EnumInvalidPeriods, false},
		{"no periods type", anyMap{"periods": anyMap{"months": []anyMap{{"year": 2026, "month": 1}}}}, "periods.type", domain.EnumInvalidPeriods, false},
		{"unknown periods type", anyMap{"periods": anyMap{"type": "Comparison_Weeks"}}, "periods.type", domain.EnumInvalidPeriods, false},
		{"no months", anyMap{"periods": anyMap{"type": "Comparison_Months"}}, "periods.months", domain.EnumInvalidPeriods, true},
		{"years with the months type", anyMap{"periods": anyMap{"type": "Comparison_Months", "months": []anyMap{{"year": 2026, "month": 1}},
			"years": []anyMap{{"year": 2026}}}}, "periods.years", domain.EnumInvalidPeriods, true},
		{"end before start", anyMap{"periods": ranges("2026-03-31", "2026-03-01")}, "periods.date_ranges[0].end_date", domain.EnumInvalidDateRange, true},
		{"bad date", anyMap{"periods": ranges("2026-3-01", "2026-03-31")}, "periods.date_ranges[0].start_date", domain.EnumInvalidDateRange, true},
		{"37 periods", anyMap{"periods": many(37)}, "periods.months", domain.EnumInvalidPeriods, true},
		{"11 tag filters", anyMap{"periods": months(2026, 1), "tag_filters": filters(11)}, "tag_filters", domain.EnumInvalidTagFilter, true},
		{"empty required_tags", anyMap{"periods": months(2026, 1), "tag_filters": []anyMap{{"required_tags": []anyMap{}}}},
			"tag_filters[0].required_tags", domain.EnumInvalidTagFilter, true},
		{"bad tag key", anyMap{"periods": months(2026, 1), "tag_filters": []anyMap{required("  ", "retail")}},
			"tag_filters[0].required_tags[0].key", tags.EnumInvalidTags, true},
		{"unknown basis", anyMap{"periods": months(2026, 1), "reporting_basis": "cash"}, "reporting_basis", domain.EnumUnsupportedReportingBasis, false},
		{"unknown structure", anyMap{"periods": months(2026, 1), "structure": "BAKERY"}, "structure", domain.EnumUnsupportedStructure, false},
		{"unknown structure in a tag filter", anyMap{"periods": months(2026, 1),
			"tag_filters": []anyMap{{"required_tags": []anyMap{{"key": "dept", "value": "a"}}, "structure": "florist"}}},
			"tag_filters[0].structure", domain.EnumUnsupportedStructure, false},
		{"a tag filter's structure other than the body's", anyMap{"periods": months(2026, 1), "structure": "TRUCKING",
			"tag_filters": []anyMap{{"required_tags": []anyMap{{"key": "dept", "value": "a"}}, "structure": "FLORIST"}}},
			"tag_filters[0].structure", domain.EnumUnsupportedStructure, true},
		{"unknown property", anyMap{"periods": months(2026, 1), "include_uncategorized": true}, "include_uncategorized", "", false},
		{"unknown property in a month", anyMap{"periods": anyMap{"type": "Comparison_Months", "months": []anyMap{{"year": 2026, "month": 1, "day": 2}}}},
			"day", "", false},
		{"month as a string", anyMap{"periods": anyMap{"type": "Comparison_Months", "months": []anyMap{{"year": 2026, "month": "1"}}}},
			"periods.months.month", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := openapitest.Request(http.MethodPost, comparisonPath(bid), tok, c.body)
			var body map[string]any
			if c.document {
				body = e.V.Expect(t, e.HTTP, req, http.StatusBadRequest)
			} else {
				body = e.V.ExpectError(t, e.HTTP, req, http.StatusBadRequest)
			}
			meta, _ := body["meta"].(map[string]any)
			fields, _ := meta["fields"].(map[string]any)
			if body["type"] != "InvalidPayload" || fields[c.field] == nil || c.enum != "" && body["error_enum"] != c.enum {
				t.Fatalf("error %v, want enum %q on %s", body, c.enum, c.field)
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		req := openapitest.Request(http.MethodPost, comparisonPath(bid), tok, "{")
		if body := e.V.ExpectError(t, e.HTTP, req, http.StatusBadRequest); body["type"] != "InvalidPayload" {
			t.Fatalf("%v", body)
		}
	})
}

// TestComparisonProperty: for random histories, every period × filter of
// random comparisons (months and date ranges, filters of one or two
// required tags) equals the naive recomputation from the entries, and
// the one-tag results equal the GET's report.
func TestComparisonProperty(t *testing.T) {
	e := newEnv(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	candidates := [][]string{{"dept", "retail"}, {"dept", "wholesale"}, {"proj", "x"}, {"dept", "retail", "proj", "x"},
		{"dept", "retail", "dept", "wholesale"}, {"dept", "online"}}
	for round := range 3 {
		client := fmt.Sprintf("client-%d", round)
		bid := e.Svc.SeedBusiness(t, client)
		tok := e.Svc.Tokens.Platform(t, client)
		entries := randomHistory(r, bid, 30+r.IntN(30))
		var evts []events.Event
		for _, p := range entries {
			evts = append(evts, event(t, p))
		}
		r.Shuffle(len(evts), func(i, j int) { evts[i], evts[j] = evts[j], evts[i] })
		e.deliver(evts...)
		for range 3 {
			var periods anyMap
			var spans [][2]time.Time
			if r.IntN(2) == 0 {
				var ym []int
				for range 1 + r.IntN(3) {
					m := 1 + r.IntN(3)
					ym = append(ym, 2026, m)
					start := time.Date(2026, time.Month(m), 1, 0, 0, 0, 0, time.UTC)
					spans = append(spans, [2]time.Time{start, start.AddDate(0, 1, -1)})
				}
				periods = months(ym...)
			} else {
				var drs []anyMap
				for range 1 + r.IntN(4) {
					a, b := r.IntN(62), r.IntN(62)
					if a > b {
						a, b = b, a
					}
					s, en := time.Date(2026, 1, 1+a, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1+b, 0, 0, 0, 0, time.UTC)
					spans = append(spans, [2]time.Time{s, en})
					drs = append(drs, anyMap{"start_date": s.Format(domain.DateLayout), "end_date": en.Format(domain.DateLayout)})
				}
				periods = anyMap{"type": "Comparison_Date_Ranges", "date_ranges": drs}
			}
			var chosen [][]string
			var tfs []anyMap
			for range r.IntN(4) {
				c := candidates[r.IntN(len(candidates))]
				chosen = append(chosen, c)
				tfs = append(tfs, required(c...))
			}
			body := anyMap{"periods": periods}
			if tfs != nil {
				body["tag_filters"] = tfs
			}
			pnls := e.compare(tok, bid, body).Data.Pnls
			nf := max(len(chosen), 1)
			if len(pnls) != len(spans)*nf {
				t.Fatalf("%d results for %d periods × %d filters", len(pnls), len(spans), nf)
			}
			for i, p := range pnls {
				span := spans[i/nf]
				var req domain.RequiredTags
				if chosen != nil {
					c := chosen[i%nf]
					for k := 0; k+1 < len(c); k += 2 {
						req = append(req, domain.Tag{Key: c[k], Value: c[k+1]})
					}
				}
				want, _ := naiveMatching(entries, span[0], span[1], req.Matches)
				got := domain.PnL{Income: p.Pnl.Income, CostOfGoodsSold: p.Pnl.CostOfGoodsSold, Expenses: p.Pnl.Expenses, Taxes: p.Pnl.Taxes,
					GrossProfit: p.Pnl.GrossProfit, ProfitBeforeTaxes: p.Pnl.ProfitBeforeTaxes, NetProfit: p.Pnl.NetProfit, FullyCategorized: p.Pnl.FullyCategorized}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, %v %v: comparison\n%+v\nnaive\n%+v", round, span, req, got, want)
				}
				if len(req) <= 1 {
					q := period(span[0].Format(domain.DateLayout), span[1].Format(domain.DateLayout))
					if len(req) == 1 {
						q.Set("tag_key", req[0].Key)
						q.Set("tag_values", req[0].Value)
					}
					if single := e.pnl(tok, bid, q); !reflect.DeepEqual(single.Data, p.Pnl) {
						t.Fatalf("round %d, %s: GET\n%+v\ncomparison\n%+v", round, q.Encode(), single.Data, p.Pnl)
					}
				}
			}
		}
	}
}
