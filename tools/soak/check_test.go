package soak

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeGateway answers the token endpoint and fixed JSON per path.
func fakeGateway(t *testing.T, answers map[string]any) *api {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/oauth2/token" {
			_, _ = w.Write([]byte(`{"access_token":"tok","token_type":"Bearer"}`))
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		a, ok := answers[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"type":"NotFound","description":"no","error_enum":"NotFound"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(a)
	}))
	t.Cleanup(srv.Close)
	return newAPI(srv.URL, "c", "s")
}

func page(items ...map[string]any) map[string]any {
	data := make([]any, len(items))
	for i, it := range items {
		data[i] = it
	}
	return map[string]any{"data": data, "meta": map[string]any{"pagination": map[string]any{"has_more": false}}}
}

func entry(id, srcType, srcID string, reversed bool, lines ...[2]any) map[string]any {
	var ls []any
	for _, l := range lines {
		ls = append(ls, map[string]any{"direction": l[0], "amount": l[1]})
	}
	e := map[string]any{"id": id, "source_type": srcType, "source_id": srcID, "source_version": "1",
		"reversal_of_id": nil, "reversal_id": nil, "line_items": ls}
	if reversed {
		e["reversal_id"] = "r-" + id
	}
	return e
}

// The journal check finds an entry posted twice for one source and an
// unbalanced entry, and ignores a reversed entry of the same source.
func TestCheckJournalFindsDuplicatesAndUnbalancedEntries(t *testing.T) {
	c := &checker{cfg: Config{UnknownBound: time.Second}, verified: map[string]bool{}}
	ok := [][2]any{{"DEBIT", 100}, {"CREDIT", 100}}
	for _, tc := range []struct {
		name          string
		entries       []map[string]any
		dup, unbalanc int
	}{
		{"clean", []map[string]any{entry("e1", "invoice", "i1", false, ok...), entry("e2", "invoice", "i2", false, ok...),
			entry("e0", "invoice", "i1", true, ok...)}, 0, 0},
		{"posted twice", []map[string]any{entry("e1", "invoice", "i1", false, ok...), entry("e2", "invoice", "i1", false, ok...)}, 1, 0},
		{"unbalanced", []map[string]any{entry("e1", "bill", "b1", false, [2]any{"DEBIT", 100}, [2]any{"CREDIT", 99})}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBusiness(fakeGateway(t, map[string]any{"/v1/businesses/b1/ledger/entries": page(tc.entries...)}), 0, "b1", "b1", 1)
			f := &findings{}
			c.checkJournal(context.Background(), b, f)
			if f.dupEntries != tc.dup || f.unbalanced != tc.unbalanc {
				t.Fatalf("duplicates %d, unbalanced %d; want %d, %d: %v", f.dupEntries, f.unbalanced, tc.dup, tc.unbalanc, f.violations)
			}
		})
	}
}

// The documents check calls an acknowledged id missing from its listing
// lost, an id nobody acknowledged duplicated, and a wrong open balance a
// violation.
func TestCheckDocumentsFindsLostDuplicatedAndWrongBalances(t *testing.T) {
	base := "/v1/businesses/b1"
	empty := page()
	answers := map[string]any{
		base + "/bank-transactions": empty, base + "/bills": empty, base + "/bills/vendor-credits": empty, base + "/mileage/trips": empty,
		base + "/customers": page(map[string]any{"id": "c1"}),
		base + "/invoices":  page(map[string]any{"id": "i1", "outstanding_balance": 70}, map[string]any{"id": "i2", "outstanding_balance": 50}),
	}
	b := newBusiness(fakeGateway(t, answers), 0, "b1", "b1", 1)
	b.customers["c1"], b.customers["c2"] = true, true // c2 acknowledged, not listed: lost
	b.invoices["i1"] = &doc{total: 100, open: 100}    // listed with 70: wrong balance; i2 listed, never acknowledged
	b.payments["p1"] = 30                             // GET 404: lost
	c := &checker{cfg: Config{UnknownBound: time.Second}, verified: map[string]bool{}}
	f := &findings{}
	c.checkDocuments(context.Background(), b, false, f)
	if f.lost != 2 || f.duplicated != 1 {
		t.Fatalf("lost %d, duplicated %d; want 2, 1: %v", f.lost, f.duplicated, f.violations)
	}
	if !strings.Contains(strings.Join(f.violations, "\n"), "outstanding 70, acknowledged writes leave 100") {
		t.Fatalf("the wrong balance went unnoticed: %v", f.violations)
	}
}

// The ledger view adds the roots by normal side (balance) and type (P&L),
// and finds A/R and A/P below them.
func TestRootSums(t *testing.T) {
	node := func(stable, normality, typ string, bal int64, subs ...any) map[string]any {
		return map[string]any{"stable_name": stable, "normality": normality, "account_type": map[string]any{"value": typ},
			"balance": bal, "sub_accounts": subs}
	}
	raw, _ := json.Marshal(map[string]any{"data": map[string]any{"accounts": []any{
		node("ASSETS", "DEBIT", "ASSET", 500, node("ACCOUNTS_RECEIVABLE", "DEBIT", "ASSET", 300)),
		node("LIABILITIES", "CREDIT", "LIABILITY", 200, node("ACCOUNTS_PAYABLE", "CREDIT", "LIABILITY", 200)),
		node("REVENUE", "CREDIT", "REVENUE", 400), node("EXPENSES", "DEBIT", "EXPENSE", 100),
	}}})
	var r reply
	_ = json.Unmarshal(raw, &r.json)
	dr, cr, byType, byStable := rootSums(r)
	if dr != 600 || cr != 600 || byType["REVENUE"] != 400 || byType["EXPENSE"] != 100 || byStable["ACCOUNTS_RECEIVABLE"] != 300 || byStable["ACCOUNTS_PAYABLE"] != 200 {
		t.Fatalf("debits %d credits %d types %v stable %v", dr, cr, byType, byStable)
	}
	b := newBusiness(nil, 0, "b", "b", 1)
	b.bills["x"] = &doc{open: 500}
	b.credits["y"] = &doc{open: 120}
	b.invoices["z"] = &doc{open: 80}
	if expectedAP(b) != 380 || expectedAR(b) != 80 {
		t.Fatalf("A/P %d, A/R %d", expectedAP(b), expectedAR(b))
	}
}

// The monthly comparison is checked month by month against the journal.
func TestCheckMonthlyComparesEveryMonth(t *testing.T) {
	node := func(normality, typ string, bal int64) map[string]any {
		return map[string]any{"stable_name": typ, "normality": normality, "account_type": map[string]any{"value": typ}, "balance": bal, "sub_accounts": []any{}}
	}
	balances := map[string]any{"data": map[string]any{"accounts": []any{node("CREDIT", "REVENUE", 400), node("DEBIT", "EXPENSE", 100)}}}
	for _, tc := range []struct {
		name  string
		wrong int
	}{{"equal", 0}, {"one month off", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			var pnls []any
			for m := 1; m <= 12; m++ {
				net := 300
				if tc.wrong == 1 && m == 7 {
					net = 299
				}
				pnls = append(pnls, map[string]any{"pnl": map[string]any{"net_profit": net}})
			}
			b := newBusiness(fakeGateway(t, map[string]any{
				"/v1/businesses/b1/ledger/balances":                    balances,
				"/v1/businesses/b1/reports/profit-and-loss-comparison": map[string]any{"data": map[string]any{"type": "Comparison_Pnl", "pnls": pnls}},
			}), 0, "b1", "b1", 1)
			f := &findings{}
			(&checker{cfg: Config{UnknownBound: time.Second}}).checkMonthly(context.Background(), b, f)
			if f.pnl != tc.wrong || len(f.violations) != tc.wrong {
				t.Fatalf("pnl mismatches %d, want %d: %v", f.pnl, tc.wrong, f.violations)
			}
		})
	}
}

// The webhooks check waits for every expected delivery at its platform's
// receiver, and counts as violations the missing ones, refused
// signatures, a creation announced under two webhook-ids and a delivery
// of another platform's business; duplicates of one webhook-id are only
// counted.
func TestCheckWebhooks(t *testing.T) {
	b0 := newBusiness(nil, 0, "biz-0", "b0", 1)
	b0.vehicleID = "veh-0"
	b0.customers["cust-1"] = true
	b0.bankTxns["txn-1"] = &bankTxn{updated: true}
	b0.invoices["inv-1"] = &doc{total: 100, open: 40}
	b0.payments["pay-1"] = 60
	b1 := newBusiness(nil, 1, "biz-1", "b1", 1)
	b1.vehicleID = "veh-1"
	b1.trips["trip-1"] = true
	d := func(id, typ, biz, entity string, count int) map[string]any {
		return map[string]any{"id": id, "type": typ, "business_id": biz, "entity_id": entity, "count": count}
	}
	complete0 := []any{
		d("w1", "Business.created", "biz-0", "biz-0", 1), d("w2", "Vehicle.created", "biz-0", "veh-0", 1),
		d("w3", "Customer.created", "biz-0", "cust-1", 2), d("w4", "BankTransaction.created", "biz-0", "txn-1", 1),
		d("w5", "BankTransaction.updated", "biz-0", "txn-1", 1), d("w6", "Invoice.created", "biz-0", "inv-1", 1),
		d("w7", "Invoice.updated", "biz-0", "inv-1", 1), d("w8", "InvoicePayment.created", "biz-0", "pay-1", 1),
		d("w9", "JournalEntry.posted", "biz-0", "je-1", 1),
	}
	complete1 := []any{d("v1", "Business.created", "biz-1", "biz-1", 1), d("v2", "Vehicle.created", "biz-1", "veh-1", 1),
		d("v3", "Trip.created", "biz-1", "trip-1", 1)}
	serve := func(t *testing.T, count, dups, rejected int, deliveries []any) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/received" || r.URL.Query().Get("full") != "1" {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"count": count, "duplicates": dups, "rejected": rejected, "deliveries": deliveries})
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	receivers := []receiver{{client: 0, name: "r0"}, {client: 1, name: "r1"}}
	bs := []*business{b0, b1}
	for _, tc := range []struct {
		name       string
		r0, r1     []any
		rejected   int
		violations []string
		missing    int
	}{
		{"complete", complete0, complete1, 0, nil, 0},
		{"a trip missing", complete0, complete1[:2], 0, []string{"MISSING webhook Trip.created for trip-1 of business biz-1 (client 1)"}, 1},
		{"the trip at the other platform", append(slices.Clone(complete0), complete1[2]), complete1[:2], 0,
			[]string{"MISSING webhook Trip.created", "FOREIGN webhook v3 Trip.created (trip-1) reached client 0"}, 1},
		{"a refused signature", complete0, complete1, 1, []string{"webhook receiver of client 1 refused 1 deliveries"}, 0},
		{"created twice", append(slices.Clone(complete0), d("w10", "Customer.created", "biz-0", "cust-1", 1)), complete1, 0,
			[]string{"DUPLICATE webhook: Customer.created/cust-1 announced under 2 webhook-ids [w3 w10] (client 0)"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			urls := map[string]string{"r0": serve(t, 10, 1, 0, tc.r0), "r1": serve(t, 3, 0, tc.rejected, tc.r1)}
			ws, violations := checkWebhooks(context.Background(), urls, receivers, bs, 200*time.Millisecond)
			if ws.Expected != 11 || ws.ExpectedByType["Business.created"] != 2 || ws.Missing != tc.missing || ws.Duplicates != 1 || ws.Rejected != tc.rejected {
				t.Fatalf("stats %+v", ws)
			}
			if len(violations) != len(tc.violations) {
				t.Fatalf("violations %q, want %d like %q", violations, len(tc.violations), tc.violations)
			}
			for i, want := range tc.violations {
				if !strings.Contains(violations[i], want) {
					t.Fatalf("violation %q, want %q", violations[i], want)
				}
			}
		})
	}
}
