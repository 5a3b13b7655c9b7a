package stacktest

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestInvoicingKeepsTheLedgerInStep is the property over generated
// sequences of invoices, payments, write-offs, voids, deletions and bulk
// payment deletions, run through the real processes: customers-invoices
// publishes each change on acct.invoicing.v1 and the transactions
// service posts it. After every few steps, once the events have arrived,
// the ledger's ACCOUNTS_RECEIVABLE equals the sum of the invoices'
// outstanding balances, and the tips, fees and write-offs booked equal
// what the documents say.
func TestInvoicingKeepsTheLedgerInStep(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "invoicing-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		inv := jsonCall(t, http.MethodGet, base+"/invoices", tok, nil)
		chart := jsonCall(t, http.MethodGet, base+"/ledger/chart", tok, nil)
		if inv.status == http.StatusOK && chart.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the business never reached both services: invoices %d, chart %d", inv.status, chart.status)
		}
	}

	type inv struct {
		id                string
		total, open, tips int64
		paid              bool // has live payments
	}
	var invoices []*inv
	type pay struct {
		id     string
		fee    int64
		allocs map[*inv]int64
	}
	var payments []*pay
	var tips, fees, badDebt int64
	r := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	seed := r.Uint64()
	r = rand.New(rand.NewPCG(11, seed))
	t.Logf("seed %d", seed)

	openInvoices := func() []*inv {
		var out []*inv
		for _, i := range invoices {
			if i.open > 0 {
				out = append(out, i)
			}
		}
		return out
	}
	step := 0
	mustStatus := func(what string, got reply, want ...int) {
		t.Helper()
		if !slices.Contains(want, got.status) {
			t.Fatalf("step %d (seed %d) %s: %d %s", step, seed, what, got.status, got.body)
		}
	}
	checkLedger := func() {
		t.Helper()
		var open int64
		for _, i := range invoices {
			open += i.open
		}
		// The listing agrees with the model.
		var listed int64
		cursor := ""
		for {
			q := base + "/invoices?limit=500"
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			l := jsonCall(t, http.MethodGet, q, tok, nil)
			mustStatus("list invoices", l, http.StatusOK)
			for _, it := range l.json["data"].([]any) {
				listed += int64(it.(map[string]any)["outstanding_balance"].(float64))
			}
			p := l.json["meta"].(map[string]any)["pagination"].(map[string]any)
			if p["has_more"] != true {
				break
			}
			cursor = p["cursor"].(string)
		}
		if listed != open {
			t.Fatalf("step %d (seed %d): invoices list %d outstanding, the model %d", step, seed, listed, open)
		}
		want := map[string]int64{"ACCOUNTS_RECEIVABLE": open, "TIPS": tips, "OTHER_FEES": fees, "BAD_DEBT": badDebt}
		var got map[string]int64
		deadline := time.Now().Add(60 * time.Second)
		for {
			b := jsonCall(t, http.MethodGet, base+"/ledger/balances", tok, nil)
			mustStatus("balances", b, http.StatusOK)
			nodes := b.json["data"].(map[string]any)["accounts"].([]any)
			got = map[string]int64{}
			same := true
			for k, v := range want {
				got[k] = int64(findBalance(nodes, k))
				if got[k] < 0 { // whatever sign convention: the amounts are compared
					got[k] = -got[k]
				}
				same = same && got[k] == v
			}
			if same {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("step %d (seed %d): the ledger has %v, the documents say %v", step, seed, got, want)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	for step = 0; step < 36; step++ {
		switch k := r.IntN(10); {
		case k < 4 || len(invoices) == 0: // a new invoice
			lines := []map[string]any{}
			for range 1 + r.IntN(3) {
				price, quarters := 100+r.IntN(50_000), 1+r.IntN(30)
				l := map[string]any{"product": "Item", "unit_price": price,
					"quantity": strconv.FormatFloat(float64(quarters)/4, 'f', -1, 64)}
				if r.IntN(3) == 0 { // at most half the line's subtotal (price × quantity, rounded down here)
					l["discount_amount"] = r.IntN(price*quarters/8 + 1)
				}
				if r.IntN(2) == 0 {
					l["sales_taxes"] = []map[string]any{{"tax_account": map[string]any{"type": "Tax_Name", "name": "STATE"}, "amount": r.IntN(2000)}}
				}
				lines = append(lines, l)
			}
			body := map[string]any{"external_id": fmt.Sprintf("inv-%d-%d", seed%1000, step), "sent_at": "2026-03-01T10:00:00Z",
				"customer_external_id": fmt.Sprintf("cust-%d", r.IntN(3)), "line_items": lines}
			if r.IntN(3) == 0 {
				body["tips"] = r.IntN(1500)
			}
			c := jsonCall(t, http.MethodPost, base+"/invoices", tok, body)
			mustStatus("create invoice", c, http.StatusCreated)
			d := c.json["data"].(map[string]any)
			total, tip := int64(d["total_amount"].(float64)), int64(d["tips"].(float64))
			invoices = append(invoices, &inv{id: d["id"].(string), total: total, open: total, tips: tip})
			tips += tip
		case k < 7: // a payment over one or two open invoices
			open := openInvoices()
			if len(open) == 0 {
				continue
			}
			p := &pay{allocs: map[*inv]int64{}}
			var allocs []map[string]any
			var amount int64
			for _, i := range open[:min(len(open), 1+r.IntN(2))] {
				a := 1 + r.Int64N(i.open)
				if r.IntN(2) == 0 {
					a = i.open
				}
				allocs = append(allocs, map[string]any{"invoice_id": i.id, "amount": a})
				p.allocs[i] = a
				amount += a
			}
			fee := r.Int64N(amount/10 + 1)
			c := jsonCall(t, http.MethodPost, base+"/invoices/payments", tok, map[string]any{
				"paid_at": "2026-03-05T12:00:00Z", "method": []string{"CASH", "ACH", "CREDIT_CARD"}[r.IntN(3)],
				"amount": amount, "fee": fee, "invoice_payments": allocs})
			mustStatus("payment", c, http.StatusCreated)
			p.id, p.fee = c.json["data"].(map[string]any)["id"].(string), fee
			for i, a := range p.allocs {
				i.open -= a
				i.paid = true
			}
			fees += fee
			payments = append(payments, p)
		case k < 8: // a write-off of part or all of an open invoice
			open := openInvoices()
			if len(open) == 0 {
				continue
			}
			i := open[r.IntN(len(open))]
			a := 1 + r.Int64N(i.open)
			c := jsonCall(t, http.MethodPost, base+"/invoices/"+i.id+"/write-off", tok, map[string]any{"amount": a})
			mustStatus("write-off", c, http.StatusCreated)
			i.open -= a
			badDebt += a
		case k < 9 && len(payments) > 0: // bulk-delete one or two payments
			n := min(len(payments), 1+r.IntN(2))
			var ids []string
			for _, p := range payments[:n] {
				ids = append(ids, p.id)
				for i, a := range p.allocs {
					i.open += a
				}
				fees -= p.fee // reversed with the payment
			}
			c := jsonCall(t, http.MethodPost, base+"/invoices/payments/bulk-delete", tok, map[string]any{"ids": ids})
			mustStatus("bulk delete", c, http.StatusOK)
			payments = payments[n:]
			for _, i := range invoices {
				i.paid = slices.ContainsFunc(payments, func(p *pay) bool { _, ok := p.allocs[i]; return ok })
			}
		default: // void or delete an invoice without payments
			var free []*inv
			for _, i := range invoices {
				if !i.paid && i.open > 0 {
					free = append(free, i)
				}
			}
			if len(free) == 0 {
				continue
			}
			i := free[r.IntN(len(free))]
			if r.IntN(2) == 0 {
				mustStatus("void", jsonCall(t, http.MethodPost, base+"/invoices/"+i.id+"/void", tok, nil), http.StatusOK)
			} else {
				mustStatus("delete", jsonCall(t, http.MethodDelete, base+"/invoices/"+i.id, tok, nil), http.StatusNoContent)
				invoices = slices.DeleteFunc(invoices, func(x *inv) bool { return x == i })
			}
			// Its entry (tips included) and its write-offs are reversed.
			badDebt -= i.total - i.open
			tips -= i.tips
			i.open = 0
		}
		if step%6 == 5 {
			checkLedger()
		}
	}
	checkLedger()
}
