package stacktest

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestCashBasisThroughTheSuite: invoices and payments recorded in the
// customers-invoices service reach the reports service twice over (their
// ledger entries through the transactions service on acct.ledger.v1, the
// payments' allocations on acct.invoicing.v1): the accrual basis counts an
// invoice when sent, the cash basis in proportion to what was paid and
// when; deleting a payment takes its share back; the write-off of the
// rest is an expense on the accrual basis only (untagged: a write-off
// carries its own tags).
func TestCashBasisThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "cash-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if jsonCall(t, http.MethodGet, base+"/invoices", tok, nil).status == http.StatusOK &&
			jsonCall(t, http.MethodGet, base+"/ledger/chart", tok, nil).status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the business never reached the services")
		}
	}
	cr := jsonCall(t, http.MethodPost, base+"/customers", tok, map[string]any{"external_id": "cash-cust", "company_name": "Hooli"})
	if cr.status != http.StatusCreated {
		t.Fatalf("customer: %d %s", cr.status, cr.body)
	}
	customer := cr.json["data"].(map[string]any)["id"].(string)
	invoice := func(ext, sentAt, dept string, price, tax int64) string {
		t.Helper()
		line := map[string]any{"product": "Service", "unit_price": price, "quantity": "1"}
		if tax > 0 {
			line["sales_taxes"] = []map[string]any{{"tax_account": map[string]any{"type": "Tax_Name", "name": "STATE"}, "amount": tax}}
		}
		r := jsonCall(t, http.MethodPost, base+"/invoices", tok, map[string]any{"external_id": ext, "sent_at": sentAt, "customer_id": customer,
			"tags": []map[string]any{{"key": "dept", "value": dept}}, "line_items": []map[string]any{line}})
		if r.status != http.StatusCreated {
			t.Fatalf("invoice %s: %d %s", ext, r.status, r.body)
		}
		return r.json["data"].(map[string]any)["id"].(string)
	}
	pay := func(paidAt string, fee int64, allocs map[string]int64) string {
		t.Helper()
		var list []map[string]any
		var amount int64
		for id, a := range allocs {
			list = append(list, map[string]any{"invoice_id": id, "amount": a})
			amount += a
		}
		r := jsonCall(t, http.MethodPost, base+"/invoices/payments", tok, map[string]any{"paid_at": paidAt, "method": "ACH",
			"amount": amount, "fee": fee, "invoice_payments": list})
		if r.status != http.StatusCreated {
			t.Fatalf("payment: %d %s", r.status, r.body)
		}
		return r.json["data"].(map[string]any)["id"].(string)
	}
	// A: 1000.00 + 80.00 tax (east), sent in April; B: 500.00 (west), sent
	// in April. In May one payment (with a 10.00 fee) pays half of A and
	// 200.00 of B; in June another pays 100.00 of B and is deleted; the
	// rest of B is written off in June.
	a := invoice("cash-a", "2026-04-03T10:00:00Z", "east", 100000, 8000)
	b := invoice("cash-b", "2026-04-20T10:00:00Z", "west", 50000, 0)
	pay("2026-05-06T12:00:00Z", 1000, map[string]int64{a: 54000, b: 20000})
	junePay := pay("2026-06-02T12:00:00Z", 0, map[string]int64{b: 10000})

	type figures struct{ income, expenses, net float64 }
	expect := func(when string, want map[string]figures) {
		t.Helper()
		got := map[string]figures{}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			for key := range want {
				var basis, month, tag string
				fmt.Sscanf(key, "%s %s %s", &basis, &month, &tag)
				q := fmt.Sprintf("%s/reports/profit-and-loss?start_date=2026-%s-01&end_date=2026-%s-30&reporting_basis=%s", base, month, month, basis)
				if tag != "all" {
					q += "&tag_key=dept&tag_values=" + tag
				}
				r := jsonCall(t, http.MethodGet, q, tok, nil)
				if r.status != http.StatusOK {
					t.Fatalf("%s: %d %s", q, r.status, r.body)
				}
				d := r.json["data"].(map[string]any)
				got[key] = figures{d["income"].(map[string]any)["value"].(float64), d["expenses"].(map[string]any)["value"].(float64), d["net_profit"].(float64)}
			}
			if fmt.Sprint(got) == fmt.Sprint(want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: got %v, want %v", when, got, want)
			}
		}
	}
	expect("paid", map[string]figures{
		"ACCRUAL 04 all": {150000, 0, 150000}, "ACCRUAL 05 all": {0, 1000, -1000}, "ACCRUAL 06 all": {0, 0, 0},
		// Half of A's 1080.00 is half its revenue; 200.00 of B's 500.00.
		"CASH 04 all": {0, 0, 0}, "CASH 05 all": {70000, 1000, 69000}, "CASH 05 east": {50000, 0, 50000},
		"CASH 05 west": {20000, 0, 20000}, "CASH 06 west": {10000, 0, 10000},
	})
	if r := jsonCall(t, http.MethodPost, base+"/invoices/payments/bulk-delete", tok, map[string]any{"ids": []string{junePay}}); r.status != http.StatusOK {
		t.Fatalf("bulk delete: %d %s", r.status, r.body)
	}
	if r := jsonCall(t, http.MethodPost, base+"/invoices/"+b+"/write-off", tok, map[string]any{"amount": 30000, "write_off_at": "2026-06-10T00:00:00Z"}); r.status != http.StatusCreated {
		t.Fatalf("write-off: %d %s", r.status, r.body)
	}
	expect("deleted and written off", map[string]figures{
		"CASH 06 west": {0, 0, 0}, "CASH 05 west": {20000, 0, 20000},
		// The write-off carries its own tags (none), not the invoice's.
		"ACCRUAL 06 west": {0, 0, 0}, "ACCRUAL 06 all": {0, 30000, -30000},
	})
	// The comparison on the cash basis says the same per month and tag.
	r := jsonCall(t, http.MethodPost, base+"/reports/profit-and-loss-comparison", tok, map[string]any{
		"periods":         map[string]any{"type": "Comparison_Months", "months": []map[string]any{{"year": 2026, "month": 4}, {"year": 2026, "month": 5}, {"year": 2026, "month": 6}}},
		"tag_filters":     []map[string]any{{"required_tags": []map[string]any{{"key": "dept", "value": "east"}}}, {"required_tags": []map[string]any{{"key": "dept", "value": "west"}}}},
		"reporting_basis": "CASH",
	})
	if r.status != http.StatusOK || r.json["meta"].(map[string]any)["reporting_basis"] != "CASH" {
		t.Fatalf("comparison: %d %s", r.status, r.body)
	}
	var nets []float64
	for _, p := range r.json["data"].(map[string]any)["pnls"].([]any) {
		nets = append(nets, p.(map[string]any)["pnl"].(map[string]any)["net_profit"].(float64))
	}
	if fmt.Sprint(nets) != fmt.Sprint([]float64{0, 0, 50000, 20000, 0, 0}) {
		t.Fatalf("cash comparison nets %v", nets)
	}
}
