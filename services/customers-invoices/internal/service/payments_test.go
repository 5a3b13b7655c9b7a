package service

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// alloc is an invoice_payments item by id (or, with ext, by external id).
func alloc(id any, amount int, ext ...string) map[string]any {
	if len(ext) > 0 {
		return map[string]any{"invoice_external_id": ext[0], "amount": amount}
	}
	return map[string]any{"invoice_id": id, "amount": amount}
}

func payment(amount int, allocs ...map[string]any) map[string]any {
	items := make([]any, len(allocs))
	for i, a := range allocs {
		items[i] = a
	}
	return map[string]any{"paid_at": "2026-03-10T09:00:00Z", "method": "CHECK", "amount": amount, "invoice_payments": items}
}

func TestPayments(t *testing.T) {
	iv := newInvoicing(t)
	a := iv.create(with(simple("crm-1", 10000), "external_id", "pa-1"), 201)
	b := iv.create(with(simple("crm-1", 5000), "external_id", "pb-1"), 201)
	aid, bid := a["id"].(string), b["id"].(string)

	seq := iv.lastSeq()
	before := iv.rowCounts()
	p := iv.pay(with(payment(12000, alloc(aid, 10000), alloc(nil, 2000, "pb-1")),
		"external_id", "pay-1", "fee", 300, "reference_number", "CHK-1", "memo", "March checks",
		"tags", []any{map[string]any{"key": "channel", "value": "mail"}}), 201)
	pid := p["id"].(string)
	if p["type"] != "Payment" || num(t, p["amount"]) != 12000 || num(t, p["fee"]) != 300 || p["method"] != "CHECK" ||
		p["paid_at"] != "2026-03-10T09:00:00Z" || p["at"] != p["paid_at"] || p["reference_number"] != "CHK-1" ||
		p["memo"] != "March checks" || p["external_id"] != "pay-1" || p["processor"] != nil {
		t.Fatalf("payment = %v", p)
	}
	als := list(p["allocations"])
	if len(als) != 2 {
		t.Fatalf("allocations = %v", als)
	}
	byInvoice := map[string]map[string]any{}
	for _, x := range als {
		byInvoice[obj(x)["invoice_id"].(string)] = obj(x)
	}
	if num(t, byInvoice[aid]["amount"]) != 10000 || byInvoice[aid]["invoice_external_id"] != "pa-1" || num(t, byInvoice[bid]["amount"]) != 2000 {
		t.Fatalf("allocations = %v", als)
	}
	if tg := list(p["transaction_tags"]); len(tg) != 1 || obj(tg[0])["key"] != "channel" {
		t.Fatalf("tags = %v", tg)
	}
	after := iv.rowCounts()
	if after["invoice_payments"] != before["invoice_payments"]+1 || after["payment_allocations"] != before["payment_allocations"]+2 {
		t.Fatalf("rows %v -> %v", before, after)
	}

	ga, gb := iv.get(aid), iv.get(bid)
	if ga["status"] != "PAID" || ga["paid_at"] != "2026-03-10T09:00:00Z" || num(t, ga["outstanding_balance"]) != 0 {
		t.Fatalf("invoice a = %v", ga)
	}
	if gb["status"] != "PARTIALLY_PAID" || gb["paid_at"] != nil || num(t, gb["outstanding_balance"]) != 3000 {
		t.Fatalf("invoice b = %v", gb)
	}
	pa := obj(list(gb["payment_allocations"])[0])
	if pa["payment_id"] != pid || num(t, pa["amount"]) != 2000 || pa["method"] != "CHECK" || pa["paid_at"] != "2026-03-10T09:00:00Z" {
		t.Fatalf("b's allocation = %v", pa)
	}

	// Events: each invoice's new snapshot (its entry unchanged), then the payment with its entry.
	evs := iv.outbox(iv.bid, seq)
	if len(evs) != 3 || evs[2].Type != events.TypeInvoicePaymentUpserted {
		t.Fatalf("events = %v", evs)
	}
	for _, ev := range ofType(evs, events.TypeInvoiceUpserted) {
		up := decode[events.InvoiceUpserted](t, ev)
		if up.Posting != nil || up.Invoice.Version != 2 {
			t.Fatalf("invoice event = %+v", up)
		}
	}
	pu := decode[events.InvoicePaymentUpserted](t, evs[2])
	if pu.Payment.Deposit != 11700 || pu.Payment.DepositAccount != invoice.UndepositedFunds || len(pu.Payment.Allocations) != 2 {
		t.Fatalf("payment snapshot = %+v", pu.Payment)
	}
	if debits := checkPosting(t, pu.Posting, "INVOICE_PAYMENT", pid, 1, true); debits != 12000 {
		t.Fatalf("debits %d", debits)
	}
	if lineOf(pu.Posting, invoice.UndepositedFunds, "DEBIT") != 11700 || lineOf(pu.Posting, invoice.PaymentFees, "DEBIT") != 300 ||
		lineOf(pu.Posting, invoice.AccountsReceivable, "CREDIT") != 12000 {
		t.Fatalf("posting = %+v", pu.Posting.Lines)
	}

	t.Run("the same external_id again answers the stored payment", func(t *testing.T) {
		iv := iv.with(t)
		before := iv.rowCounts()
		again := iv.pay(with(payment(999, alloc(bid, 999)), "external_id", "pay-1"), 200)
		if again["id"] != pid || num(t, again["amount"]) != 12000 {
			t.Fatalf("again = %v", again)
		}
		iv.sameCounts(before)
	})

	t.Run("GET and tags", func(t *testing.T) {
		iv := iv.with(t)
		got := data(iv.Do(req("GET", iv.path("/invoices/payments/%s", pid), iv.tok, nil), 200))
		if !equalJSON(got, p) {
			t.Fatalf("GET = %v\ncreate answered %v", got, p)
		}
		tg := iv.Do(req("GET", iv.path("/invoices/payments/%s/tags", pid), iv.tok, nil), 200)["data"].([]any)
		if len(tg) != 1 || obj(tg[0])["value"] != "mail" || !equalJSON(tg, p["transaction_tags"]) {
			t.Fatalf("tags = %v", tg)
		}
		iv.DoInvalid(req("GET", iv.path("/invoices/payments/%s", uuid.NewString()), iv.tok, nil), 404, app.EnumPaymentNotFound)
		iv.DoInvalid(req("GET", iv.path("/invoices/payments/%s/tags", uuid.NewString()), iv.tok, nil), 404, app.EnumPaymentNotFound)
		iv.DoInvalid(req("GET", iv.path("/invoices/payments/x"), iv.tok, nil), 400, "")
	})

	t.Run("the single-invoice shortcut answers the SDK's fields", func(t *testing.T) {
		iv := iv.with(t)
		// The SDK's URL, with its trailing slash, and its method name "Other".
		sp := data(iv.Do(req("POST", iv.path("/invoices/%s/payment/", bid), iv.tok, map[string]any{
			"amount": 3000, "method": "Other", "paid_at": "2026-03-20T00:00:00Z", "reference_number": "R-2", "memo": "the rest",
		}), 201))
		if num(t, sp["amount"]) != 3000 || sp["method"] != "OTHER" || sp["at"] != "2026-03-20T00:00:00Z" ||
			sp["reference_number"] != "R-2" || sp["memo"] != "the rest" || len(list(sp["allocations"])) != 1 ||
			obj(list(sp["allocations"])[0])["invoice_id"] != bid {
			t.Fatalf("payment = %v", sp)
		}
		gb := iv.get(bid)
		if gb["status"] != "PAID" || gb["paid_at"] != "2026-03-20T00:00:00Z" || len(list(gb["payment_allocations"])) != 2 {
			t.Fatalf("invoice b = %v", gb)
		}
		// Without the slash, idempotent on external_id too.
		c := iv.create(simple("crm-1", 700), 201)
		body := map[string]any{"amount": 700, "method": "CASH", "paid_at": "2026-03-21T00:00:00Z", "external_id": "short-1"}
		first := data(iv.Do(req("POST", iv.path("/invoices/%s/payment", c["id"]), iv.tok, body), 201))
		if first["method"] != "CASH" || first["reference_number"] != nil || first["memo"] != nil {
			t.Fatalf("payment = %v", first)
		}
		before := iv.rowCounts()
		if again := data(iv.Do(req("POST", iv.path("/invoices/%s/payment", c["id"]), iv.tok, body), 200)); again["id"] != first["id"] {
			t.Fatalf("again = %v", again)
		}
		iv.sameCounts(before)
		// The same external_id for another invoice is not a retry: 400.
		other := iv.create(simple("crm-1", 700), 201)
		iv.DoInvalid(req("POST", iv.path("/invoices/%s/payment", other["id"]), iv.tok, body), 400, invoice.EnumDuplicateExternalID)
		before = iv.rowCounts()
		// An unknown invoice in the path is 404.
		iv.DoInvalid(req("POST", iv.path("/invoices/%s/payment", uuid.NewString()), iv.tok, with(body, "external_id", nil)), 404, app.EnumInvoiceNotFound)
		iv.sameCounts(before)
	})

	t.Run("the answer lists the allocations as GET does", func(t *testing.T) {
		iv := iv.with(t)
		x := iv.create(simple("crm-1", 1000), 201)
		y := iv.create(simple("crm-1", 1000), 201)
		// The later invoice first, and a paid_at beyond microseconds.
		p := iv.pay(with(payment(300, alloc(y["id"], 200), alloc(x["id"], 100)), "paid_at", "2026-03-10T09:00:00.1234567Z"), 201)
		got := data(iv.Do(req("GET", iv.path("/invoices/payments/%s", p["id"]), iv.tok, nil), 200))
		if !equalJSON(got, p) || p["paid_at"] != "2026-03-10T09:00:00.123456Z" {
			t.Fatalf("GET = %v\ncreate answered %v", got, p)
		}
	})

	t.Run("deposit accounts", func(t *testing.T) {
		iv := iv.with(t)
		c := iv.create(simple("crm-1", 2000), 201)
		seq := iv.lastSeq()
		p1 := iv.pay(with(payment(1000, alloc(c["id"], 1000)), "processor", "stripe", "fee", 59, "method", "CREDIT_CARD"), 201)
		p2 := iv.pay(with(payment(1000, alloc(c["id"], 1000)), "method", "CREDIT_BALANCE"), 201)
		pays := ofType(iv.outbox(iv.bid, seq), events.TypeInvoicePaymentUpserted)
		if len(pays) != 2 {
			t.Fatalf("payment events = %v", pays)
		}
		e1, e2 := decode[events.InvoicePaymentUpserted](t, pays[0]), decode[events.InvoicePaymentUpserted](t, pays[1])
		checkPosting(t, e1.Posting, "INVOICE_PAYMENT", p1["id"].(string), 1, true)
		checkPosting(t, e2.Posting, "INVOICE_PAYMENT", p2["id"].(string), 1, true)
		if lineOf(e1.Posting, invoice.ProcessorClearing, "DEBIT") != 941 || lineOf(e1.Posting, invoice.PaymentFees, "DEBIT") != 59 ||
			lineOf(e2.Posting, invoice.UnearnedRevenue, "DEBIT") != 1000 || p1["processor"] != "stripe" {
			t.Fatalf("postings %+v / %+v", e1.Posting.Lines, e2.Posting.Lines)
		}
	})
}

func TestPaymentsInvalid(t *testing.T) {
	iv := newInvoicing(t)
	a := iv.create(with(simple("crm-1", 5000), "external_id", "ia-1"), 201)
	b := iv.create(with(simple("crm-1", 3000), "external_id", "ib-1"), 201)
	v := iv.create(simple("crm-1", 3000), 201)
	iv.Do(req("POST", iv.path("/invoices/%s/void", v["id"]), iv.tok, nil), 200)
	theirs := iv.Business("client-b")
	foreign := data(iv.Do(req("POST", base(theirs)+"/invoices", iv.Token("client-b"), simple("x", 100)), 201))
	aid, bid := a["id"], b["id"]
	tests := []struct {
		name  string
		body  map[string]any
		valid bool // the document allows the request (the rule is the service's)
		enum  string
		field string
	}{
		{"allocations do not sum to the amount", payment(1000, alloc(aid, 600), alloc(bid, 300)), true, invoice.EnumAllocationMismatch, "invoice_payments"},
		{"overpaying an invoice", payment(6000, alloc(aid, 5001), alloc(bid, 999)), true, invoice.EnumOverpaid, "invoice_payments[0].amount"},
		{"overpaying by external id", payment(3001, alloc(nil, 3001, "ib-1")), true, invoice.EnumOverpaid, "invoice_payments[0].amount"},
		{"a voided invoice", payment(100, alloc(v["id"], 100)), true, invoice.EnumInvoiceVoided, "invoice_payments[0].invoice_id"},
		{"an unknown invoice", payment(100, alloc(uuid.NewString(), 100)), true, app.EnumInvoiceNotFound, "invoice_payments[0]"},
		{"another business's invoice", payment(100, alloc(aid, 50), alloc(foreign["id"], 50)), true, app.EnumInvoiceNotFound, "invoice_payments[1]"},
		{"an unknown external id", payment(100, alloc(nil, 100, "nope")), true, app.EnumInvoiceNotFound, "invoice_payments[0].invoice_external_id"},
		{"id and external id disagree", payment(100, map[string]any{"invoice_id": aid, "invoice_external_id": "ib-1", "amount": 100}), true, app.EnumInvoiceNotFound, "invoice_payments[0].invoice_external_id"},
		{"no invoice named", payment(100, map[string]any{"amount": 100}), true, app.EnumInvoiceNotFound, "invoice_payments[0].invoice_id"},
		{"the same invoice twice", payment(200, alloc(aid, 100), alloc(aid, 100)), true, invoice.EnumInvalidAmount, "invoice_payments[1].invoice_id"},
		{"fee over the amount", with(payment(100, alloc(aid, 100)), "fee", 101), true, invoice.EnumInvalidAmount, "fee"},
		{"zero amount", payment(0, alloc(aid, 0)), true, invoice.EnumInvalidAmount, "amount"},
		{"no allocations", payment(100), false, invoice.EnumInvalidAmount, "invoice_payments"},
		{"bad method", with(payment(100, alloc(aid, 100)), "method", "BITCOIN"), false, invoice.EnumInvalidInvoice, "method"},
		{"no method", with(payment(100, alloc(aid, 100)), "method", nil), false, invoice.EnumInvalidInvoice, "method"},
		{"no paid_at", with(payment(100, alloc(aid, 100)), "paid_at", nil), false, invoice.EnumInvalidInvoice, "paid_at"},
		{"fractional amount", with(payment(100, alloc(aid, 100)), "amount", 1.5), false, invoice.EnumInvalidInvoice, "amount"},
		{"unknown property", with(payment(100, alloc(aid, 100)), "currency", "USD"), false, "", "currency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iv := iv.with(t)
			before := iv.rowCounts()
			r := req("POST", iv.path("/invoices/payments"), iv.tok, tt.body)
			var m map[string]any
			if tt.valid {
				m = iv.Do(r, 400)
			} else {
				m = iv.DoInvalid(r, 400, "")
			}
			if tt.enum != "" && m["error_enum"] != tt.enum {
				t.Fatalf("error_enum %v, want %s: %v", m["error_enum"], tt.enum, m)
			}
			if fieldsOf(m)[tt.field] == nil {
				t.Fatalf("error does not name %s: %v", tt.field, m)
			}
			iv.sameCounts(before)
		})
	}
	t.Run("the shortcut takes no invoice_payments", func(t *testing.T) {
		iv := iv.with(t)
		before := iv.rowCounts()
		m := iv.DoInvalid(req("POST", iv.path("/invoices/%s/payment", aid), iv.tok, payment(100, alloc(aid, 100))), 400, invoice.EnumInvalidInvoice)
		if fieldsOf(m)["invoice_payments"] == nil {
			t.Fatalf("error = %v", m)
		}
		iv.sameCounts(before)
	})
	t.Run("the shortcut overpaying", func(t *testing.T) {
		iv := iv.with(t)
		before := iv.rowCounts()
		m := iv.Do(req("POST", iv.path("/invoices/%s/payment/", bid), iv.tok, map[string]any{"amount": 3001, "method": "CASH", "paid_at": "2026-03-10T00:00:00Z"}), 400)
		if m["error_enum"] != invoice.EnumOverpaid {
			t.Fatalf("error = %v", m)
		}
		iv.sameCounts(before)
	})
	t.Run("body too large, not JSON", func(t *testing.T) {
		iv := iv.with(t)
		before := iv.rowCounts()
		iv.DoInvalid(req("POST", iv.path("/invoices/payments"), iv.tok, `{"memo":"`+strings.Repeat("m", 70_000)+`"}`), 413, "")
		iv.DoInvalid(req("POST", iv.path("/invoices/%s/write-off", aid), iv.tok, `{"memo":"`+strings.Repeat("m", 17_000)+`"}`), 413, "")
		r := req("POST", iv.path("/invoices/payments/bulk-delete"), iv.tok, `{"ids":[]}`)
		r.Header.Set("Content-Type", "text/plain")
		iv.DoInvalid(r, 415, "")
		iv.DoInvalid(req("POST", iv.path("/invoices/payments"), "", payment(100, alloc(aid, 100))), 401, "")
		iv.sameCounts(before)
	})
	// Nothing was paid.
	for _, id := range []any{aid, bid} {
		if got := iv.get(id.(string)); got["status"] != "SENT" || len(list(got["payment_allocations"])) != 0 {
			t.Fatalf("invoice = %v", got)
		}
	}
}

func TestBulkDeletePayments(t *testing.T) {
	iv := newInvoicing(t)
	a := iv.create(simple("crm-1", 10000), 201)
	b := iv.create(simple("crm-1", 5000), 201)
	aid, bid := a["id"].(string), b["id"].(string)
	p1 := iv.pay(payment(12000, alloc(aid, 10000), alloc(bid, 2000)), 201)
	p2 := iv.pay(payment(1000, alloc(bid, 1000)), 201)
	keep := iv.pay(payment(500, alloc(bid, 500)), 201)
	wo := iv.writeOff(bid, map[string]any{"amount": 1500}, 201)
	_ = wo
	if got := iv.get(bid); got["status"] != "WRITTEN_OFF" || num(t, got["outstanding_balance"]) != 0 {
		t.Fatalf("b = %v", got)
	}
	path := iv.path("/invoices/payments/bulk-delete")

	t.Run("ids: 1 to 100, distinct", func(t *testing.T) {
		many := make([]any, 101)
		for i := range many {
			many[i] = uuid.NewString()
		}
		for name, body := range map[string]any{
			"none":      map[string]any{"ids": []any{}},
			"101":       map[string]any{"ids": many},
			"missing":   map[string]any{},
			"duplicate": map[string]any{"ids": []any{p1["id"], p1["id"]}},
		} {
			t.Run(name, func(t *testing.T) {
				iv := iv.with(t)
				before := iv.rowCounts()
				m := iv.DoInvalid(req("POST", path, iv.tok, body), 400, invoice.EnumInvalidBulkDelete)
				if m["description"] == "" || fieldsOf(m)["ids"] == nil {
					t.Fatalf("error = %v", m)
				}
				iv.sameCounts(before)
			})
		}
		iv := iv.with(t)
		iv.DoInvalid(req("POST", path, iv.tok, map[string]any{"ids": []any{"not-a-uuid"}}), 400, "")
	})

	t.Run("an unknown id: 404, nothing deleted", func(t *testing.T) {
		iv := iv.with(t)
		before := iv.rowCounts()
		unknown := uuid.NewString()
		m := iv.Do(req("POST", path, iv.tok, map[string]any{"ids": []any{p1["id"], unknown}}), 404)
		if m["error_enum"] != app.EnumPaymentNotFound {
			t.Fatalf("error = %v", m)
		}
		if u := obj(m["meta"])["unknown_ids"].([]any); len(u) != 1 || u[0] != unknown {
			t.Fatalf("unknown ids = %v", m["meta"])
		}
		iv.sameCounts(before)
		iv.Do(req("GET", iv.path("/invoices/payments/%s", p1["id"]), iv.tok, nil), 200)
	})

	t.Run("another business's payment is unknown", func(t *testing.T) {
		iv := iv.with(t)
		other := iv.Business("client-a")
		before := iv.rowCounts()
		iv.Do(req("POST", base(other)+"/invoices/payments/bulk-delete", iv.tok, map[string]any{"ids": []any{p1["id"]}}), 404)
		iv.sameCounts(before)
	})

	t.Run("balances and statuses are restored", func(t *testing.T) {
		iv := iv.with(t)
		seq := iv.lastSeq()
		before := iv.rowCounts()
		got := data(iv.Do(req("POST", path, iv.tok, map[string]any{"ids": []any{p1["id"], p2["id"]}}), 200))
		if got["type"] != "BulkDeleteResponse" || num(t, got["deleted_count"]) != 2 || len(got) != 2 {
			t.Fatalf("answer = %v", got)
		}
		after := iv.rowCounts()
		if after["invoice_payments"] != before["invoice_payments"]-2 || after["payment_allocations"] != before["payment_allocations"]-3 {
			t.Fatalf("rows %v -> %v", before, after)
		}
		ga, gb := iv.get(aid), iv.get(bid)
		if ga["status"] != "SENT" || ga["paid_at"] != nil || num(t, ga["outstanding_balance"]) != 10000 || len(list(ga["payment_allocations"])) != 0 {
			t.Fatalf("a = %v", ga)
		}
		// b keeps the 5.00 payment and the 15.00 write-off: 30.00 outstanding.
		if gb["status"] != "PARTIALLY_WRITTEN_OFF" || num(t, gb["outstanding_balance"]) != 3000 || len(list(gb["payment_allocations"])) != 1 ||
			obj(list(gb["payment_allocations"])[0])["payment_id"] != keep["id"] {
			t.Fatalf("b = %v", gb)
		}
		iv.DoInvalid(req("GET", iv.path("/invoices/payments/%s", p1["id"]), iv.tok, nil), 404, app.EnumPaymentNotFound)

		evs := iv.outbox(iv.bid, seq)
		dels := ofType(evs, events.TypeInvoicePaymentDeleted)
		if len(dels) != 2 || len(ofType(evs, events.TypeInvoiceUpserted)) != 2 || len(evs) != 4 {
			t.Fatalf("events = %v", evs)
		}
		seen := map[string]bool{}
		for _, ev := range dels {
			d := decode[events.InvoicePaymentDeleted](t, ev)
			checkPosting(t, d.Posting, "INVOICE_PAYMENT", d.PaymentID.String(), 2, false)
			seen[d.PaymentID.String()] = true
		}
		if !seen[p1["id"].(string)] || !seen[p2["id"].(string)] {
			t.Fatalf("deleted events for %v", seen)
		}
		for _, ev := range ofType(evs, events.TypeInvoiceUpserted) {
			if up := decode[events.InvoiceUpserted](t, ev); up.Posting != nil {
				t.Fatalf("a balance change re-posted the invoice: %+v", up)
			}
		}
		// Deleted once: a second call finds nothing.
		iv.Do(req("POST", path, iv.tok, map[string]any{"ids": []any{p1["id"]}}), 404)
	})
}
