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
		paid              bool  // has live payments
		plain             bool  // no taxes, no tips: a refund is all CUSTOMER_REFUNDS
		writtenOff        int64 // live write-offs
		refunded          int64 // live refunds
		voided            bool
	}
	var invoices []*inv
	type pay struct {
		id     string
		fee    int64
		allocs map[*inv]int64
	}
	var payments []*pay
	var tips, fees, badDebt, refunds int64
	r := rand.New(rand.NewPCG(11, uint64(time.Now().UnixNano())))
	seed := r.Uint64()
	r = rand.New(rand.NewPCG(11, seed))
	t.Logf("seed %d", seed)

	paidOn := func(i *inv) int64 {
		var n int64
		for _, p := range payments {
			n += p.allocs[i]
		}
		return n
	}
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
		want := map[string]int64{"ACCOUNTS_RECEIVABLE": open, "TIPS": tips, "OTHER_FEES": fees, "BAD_DEBT": badDebt, "CUSTOMER_REFUNDS": refunds}
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

	done := map[string]int{}
	for step = 0; step < 48; step++ {
		switch k := r.IntN(13); {
		case k < 4 || len(invoices) == 0: // a new invoice
			lines := []map[string]any{}
			plain := r.IntN(3) == 0 // no taxes, no tips: refunds are modelled on these
			for range 1 + r.IntN(3) {
				price, quarters := 100+r.IntN(50_000), 1+r.IntN(30)
				l := map[string]any{"product": "Item", "unit_price": price,
					"quantity": strconv.FormatFloat(float64(quarters)/4, 'f', -1, 64)}
				if r.IntN(3) == 0 { // at most half the line's subtotal (price × quantity, rounded down here)
					l["discount_amount"] = r.IntN(price*quarters/8 + 1)
				}
				if !plain && r.IntN(2) == 0 {
					l["sales_taxes"] = []map[string]any{{"tax_account": map[string]any{"type": "Tax_Name", "name": "STATE"}, "amount": r.IntN(2000)}}
				}
				lines = append(lines, l)
			}
			body := map[string]any{"external_id": fmt.Sprintf("inv-%d-%d", seed%1000, step), "sent_at": "2026-03-01T10:00:00Z",
				"customer_external_id": fmt.Sprintf("cust-%d", r.IntN(3)), "line_items": lines}
			if !plain && r.IntN(3) == 0 {
				body["tips"] = r.IntN(1500)
			}
			c := jsonCall(t, http.MethodPost, base+"/invoices", tok, body)
			mustStatus("create invoice", c, http.StatusCreated)
			d := c.json["data"].(map[string]any)
			total, tip := int64(d["total_amount"].(float64)), int64(d["tips"].(float64))
			invoices = append(invoices, &inv{id: d["id"].(string), total: total, open: total, tips: tip, plain: plain})
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
			i.writtenOff += a
			badDebt += a
		case k < 9 && len(payments) > 0: // bulk-delete one or two payments of invoices without refunds
			var free []*pay
			for _, p := range payments {
				if !slices.ContainsFunc(invoices, func(i *inv) bool { return p.allocs[i] > 0 && i.refunded > 0 }) {
					free = append(free, p)
				}
			}
			n := min(len(free), 1+r.IntN(2))
			if n == 0 {
				continue
			}
			var ids []string
			for _, p := range free[:n] {
				ids = append(ids, p.id)
				for i, a := range p.allocs {
					i.open += a
				}
				fees -= p.fee // reversed with the payment
			}
			c := jsonCall(t, http.MethodPost, base+"/invoices/payments/bulk-delete", tok, map[string]any{"ids": ids})
			mustStatus("bulk delete", c, http.StatusOK)
			payments = slices.DeleteFunc(payments, func(p *pay) bool { return slices.Contains(free[:n], p) })
			for _, i := range invoices {
				i.paid = slices.ContainsFunc(payments, func(p *pay) bool { _, ok := p.allocs[i]; return ok })
			}
		case k < 10: // void or delete an invoice without payments
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
			badDebt -= i.writtenOff
			tips -= i.tips
			i.open, i.writtenOff, i.voided = 0, 0, true
		case k < 11: // refund part or all of what was paid on a plain invoice
			var paid []*inv
			for _, i := range invoices {
				if i.plain && paidOn(i) > i.refunded {
					paid = append(paid, i)
				}
			}
			if len(paid) == 0 {
				continue
			}
			i := paid[r.IntN(len(paid))]
			a := paidOn(i) - i.refunded
			body := map[string]any{"completed_at": "2026-03-07T09:00:00Z", "method": "CHECK"}
			if r.IntN(2) == 0 {
				a = 1 + r.Int64N(a)
				body["refunded_amount"] = a
			}
			c := jsonCall(t, http.MethodPost, base+"/invoices/"+i.id+"/refund", tok, body)
			mustStatus("refund", c, http.StatusCreated)
			if got := int64(c.json["data"].(map[string]any)["refunded_amount"].(float64)); got != a {
				t.Fatalf("step %d (seed %d): refunded %d, want %d", step, seed, got, a)
			}
			i.refunded += a
			refunds += a
			done["refund"]++
		case k < 12: // reset an invoice to its state at creation
			i := invoices[r.IntN(len(invoices))]
			spans := slices.ContainsFunc(payments, func(p *pay) bool { return p.allocs[i] > 0 && len(p.allocs) > 1 })
			c := jsonCall(t, http.MethodPost, base+"/invoices/"+i.id+"/reset", tok, nil)
			if spans {
				mustStatus("reset of an invoice a shared payment pays", c, http.StatusConflict)
				continue
			}
			mustStatus("reset", c, http.StatusOK)
			payments = slices.DeleteFunc(payments, func(p *pay) bool {
				if p.allocs[i] > 0 {
					fees -= p.fee
					return true
				}
				return false
			})
			if i.voided {
				tips += i.tips
			}
			badDebt -= i.writtenOff
			refunds -= i.refunded
			i.open, i.paid, i.writtenOff, i.refunded, i.voided = i.total, false, 0, 0, false
			done["reset"]++
			if got := int64(c.json["data"].(map[string]any)["outstanding_balance"].(float64)); got != i.total {
				t.Fatalf("step %d (seed %d): reset invoice owes %d, want its total %d", step, seed, got, i.total)
			}
		default: // change the amount and fee of a payment that pays one invoice
			var single []*pay
			for _, p := range payments {
				if len(p.allocs) == 1 {
					single = append(single, p)
				}
			}
			if len(single) == 0 {
				continue
			}
			p := single[r.IntN(len(single))]
			var i *inv
			var old int64
			for i, old = range p.allocs {
			}
			// What stays paid covers the refunds; at most what the invoice
			// owes without this payment.
			low, high := max(1, i.refunded-(paidOn(i)-old)), i.open+old
			a := low + r.Int64N(high-low+1)
			fee := r.Int64N(a/10 + 1)
			c := jsonCall(t, http.MethodPut, base+"/invoices/"+i.id+"/payment/"+p.id, tok, map[string]any{
				"paid_at": "2026-03-06T12:00:00Z", "method": "CHECK", "amount": a, "fee": fee})
			mustStatus("update payment", c, http.StatusOK)
			fees += fee - p.fee
			p.fee, p.allocs[i] = fee, a
			i.open += old - a
			done["payment update"]++
		}
		if step%6 == 5 {
			checkLedger()
		}
	}
	checkLedger()
	t.Logf("refunds, resets and payment updates checked: %v", done)
}
