package stacktest

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestBillsThroughTheSuite: a bill recorded in the bills & tags service
// reaches the ledger (transactions posts its acct.bills.v1 posting:
// expenses against ACCOUNTS_PAYABLE) and the reports service (the
// accrual basis counts it on its received date, the cash basis as it is
// paid: half a payment recognizes half, deleting it takes that back);
// voiding it reverses both.
func TestBillsThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "bills-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if jsonCall(t, http.MethodGet, base+"/vendors", tok, nil).status == http.StatusOK &&
			jsonCall(t, http.MethodGet, base+"/ledger/chart", tok, nil).status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the business never reached the services")
		}
	}
	stable := func(name string) map[string]any { return map[string]any{"type": "StableName", "stable_name": name} }
	r := jsonCall(t, http.MethodPost, base+"/bills", tok, map[string]any{
		"external_id": "bill-1", "bill_number": "A-100", "received_at": "2026-07-03T00:00:00Z", "bill_terms": "NET_30",
		"vendor_external_id": "vendor-acme",
		"line_items": []map[string]any{
			{"product_name": "July rent", "unit_price": 150000, "quantity": "1", "account_identifier": stable("RENT")},
			{"product_name": "Power", "unit_price": 12000, "quantity": "2", "account_identifier": stable("UTILITIES"),
				"tags": []map[string]any{{"key": "site", "value": "north"}}},
		},
	})
	if r.status != http.StatusCreated {
		t.Fatalf("bill: %d %s", r.status, r.body)
	}
	bill := r.json["data"].(map[string]any)
	if bill["total_amount"] != 174000.0 || bill["outstanding_balance"] != 174000.0 || bill["status"] != "RECEIVED" || bill["terms"] != "NET_30" {
		t.Fatalf("bill = %v", bill)
	}
	waitBalances := func(what string, want map[string]float64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			b := jsonCall(t, http.MethodGet, base+"/ledger/balances", tok, nil)
			if b.status != http.StatusOK {
				t.Fatalf("balances: %d %s", b.status, b.body)
			}
			nodes := b.json["data"].(map[string]any)["accounts"].([]any)
			ok := true
			for k, v := range want {
				if findBalance(nodes, k) != v {
					ok = false
				}
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: balances %s, want %v", what, b.body, want)
			}
		}
	}
	waitReport := func(what, basis string, want float64) {
		t.Helper()
		var got any
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			r := jsonCall(t, http.MethodGet, fmt.Sprintf("%s/reports/profit-and-loss?start_date=2026-07-01&end_date=2026-07-31&reporting_basis=%s", base, basis), tok, nil)
			if r.status == http.StatusOK {
				got = r.json["data"].(map[string]any)["expenses"].(map[string]any)["value"]
				if got == want {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s expenses %v, want %v", what, basis, got, want)
			}
		}
	}
	waitBalances("the bill", map[string]float64{"ACCOUNTS_PAYABLE": 174000, "RENT": 150000, "UTILITIES": 24000})
	waitReport("the bill", "ACCRUAL", 174000)
	waitReport("the unpaid bill", "CASH", 0)

	// Half paid in July: A/P halves, the cash basis recognizes half of
	// each line; the payment deleted, both come back.
	p := jsonCall(t, http.MethodPost, base+"/bills/bill-payments", tok, map[string]any{
		"paid_at": "2026-07-20T12:00:00Z", "method": "ACH", "amount": 87000, "external_id": "pay-1",
		"bill_payment_allocations": []map[string]any{{"bill_id": bill["id"], "amount": 87000}},
	})
	if p.status != http.StatusCreated {
		t.Fatalf("bill payment: %d %s", p.status, p.body)
	}
	waitBalances("the payment", map[string]float64{"ACCOUNTS_PAYABLE": 87000, "RENT": 150000})
	waitReport("the half-paid bill", "CASH", 87000)
	waitReport("the half-paid bill", "ACCRUAL", 174000)
	if d := call(t, http.MethodDelete, base+"/bills/bill-payments/"+p.json["data"].(map[string]any)["id"].(string), tok, "", nil, true); d.status != http.StatusNoContent {
		t.Fatalf("delete payment: %d %s", d.status, d.body)
	}
	waitBalances("the deleted payment", map[string]float64{"ACCOUNTS_PAYABLE": 174000})
	waitReport("the deleted payment", "CASH", 0)

	if v := jsonCall(t, http.MethodPost, base+"/bills/"+bill["id"].(string)+"/void", tok, nil); v.status != http.StatusOK {
		t.Fatalf("void: %d %s", v.status, v.body)
	}
	waitBalances("the voided bill", map[string]float64{"ACCOUNTS_PAYABLE": 0, "RENT": 0, "UTILITIES": 0})
	waitReport("the voided bill", "ACCRUAL", 0)
}
