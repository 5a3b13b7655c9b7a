package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
)

// TestInvoicesCrossTenant calls every invoice, payment and write-off route
// of one client's business with the tokens of others: each answers 404 and
// changes nothing. The owner addressing one business's documents under its
// other business gets 404 too.
func TestInvoicesCrossTenant(t *testing.T) {
	iv := newInvoicing(t)
	mine := iv.Business("client-a") // the same client's other business
	inv := iv.create(with(simple("secret-cust", 5000), "external_id", "secret-inv"), 201)
	id := inv["id"].(string)
	p := iv.pay(payment(1000, alloc(id, 1000)), 201)
	pid := p["id"].(string)
	w := iv.writeOff(id, map[string]any{"amount": 500}, 201)
	wid := w["id"].(string)
	b := base(iv.bid)
	pay := map[string]any{"amount": 100, "method": "CASH", "paid_at": "2026-03-10T00:00:00Z"}
	routes := []struct {
		method, path string
		body         any
	}{
		{"POST", b + "/invoices", with(simple("intruder", 100), "external_id", "secret-inv")},
		{"GET", b + "/invoices", nil},
		{"GET", b + "/invoices?customer_external_id=secret-cust", nil},
		{"GET", b + "/invoices/" + id, nil},
		{"PATCH", b + "/invoices/" + id, map[string]any{"memo": "hijacked"}},
		{"DELETE", b + "/invoices/" + id, nil},
		{"POST", b + "/invoices/" + id + "/void", nil},
		{"POST", b + "/invoices/" + id + "/payment", pay},
		{"POST", b + "/invoices/" + id + "/payment/", pay},
		{"POST", b + "/invoices/payments", payment(100, alloc(id, 100))},
		{"POST", b + "/invoices/payments/bulk-delete", map[string]any{"ids": []any{pid}}},
		{"GET", b + "/invoices/payments/" + pid, nil},
		{"GET", b + "/invoices/payments/" + pid + "/tags", nil},
		{"POST", b + "/invoices/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "invoice_ids": []any{id}}},
		{"POST", b + "/invoices/payments/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "payment_ids": []any{pid}}},
		{"POST", b + "/invoices/" + id + "/write-off", map[string]any{"amount": 100}},
		{"GET", b + "/invoices/" + id + "/write-offs/" + wid, nil},
	}
	strangers := map[string]string{
		"another client's platform token":   iv.Token("client-b"),
		"a business token of another one":   iv.Svc.Tokens.Business(t, "client-a", mine),
		"the other client's business token": iv.Svc.Tokens.Business(t, "client-b", iv.Business("client-b")),
		"a token of an unknown business":    iv.Svc.Tokens.Business(t, "client-a", uuid.New()),
	}
	before := iv.rowCounts()
	for who, tok := range strangers {
		for _, r := range routes {
			t.Run(who+" "+r.method+" "+r.path[len(b):], func(t *testing.T) {
				iv := iv.with(t)
				m := iv.DoInvalid(req(r.method, r.path, tok, r.body), 404, "BusinessNotFound")
				if m["type"] != "NotFound" {
					t.Fatalf("error = %v", m)
				}
			})
		}
	}
	iv.sameCounts(before)
	if got := iv.get(id); got["memo"] != nil || got["status"] != "PARTIALLY_WRITTEN_OFF" || num(t, got["outstanding_balance"]) != 3500 {
		t.Fatalf("invoice changed: %v", got)
	}

	// The owner, addressing one business's documents through the other.
	other := base(mine)
	for _, r := range []struct {
		method, path string
		body         any
		enum         string
	}{
		{"GET", other + "/invoices/" + id, nil, app.EnumInvoiceNotFound},
		{"PATCH", other + "/invoices/" + id, map[string]any{"memo": "x"}, app.EnumInvoiceNotFound},
		{"DELETE", other + "/invoices/" + id, nil, app.EnumInvoiceNotFound},
		{"POST", other + "/invoices/" + id + "/void", nil, app.EnumInvoiceNotFound},
		{"POST", other + "/invoices/" + id + "/payment", pay, app.EnumInvoiceNotFound},
		{"POST", other + "/invoices/" + id + "/write-off", map[string]any{"amount": 100}, app.EnumInvoiceNotFound},
		{"GET", other + "/invoices/" + id + "/write-offs/" + wid, nil, app.EnumWriteOffNotFound},
		{"GET", other + "/invoices/payments/" + pid, nil, app.EnumPaymentNotFound},
		{"GET", other + "/invoices/payments/" + pid + "/tags", nil, app.EnumPaymentNotFound},
		{"POST", other + "/invoices/payments/bulk-delete", map[string]any{"ids": []any{pid}}, app.EnumPaymentNotFound},
		{"POST", other + "/invoices/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "invoice_ids": []any{id}}, app.EnumInvoiceNotFound},
		{"POST", other + "/invoices/payments/tags", map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "payment_ids": []any{pid}}, app.EnumPaymentNotFound},
	} {
		iv.DoInvalid(req(r.method, r.path, iv.tok, r.body), 404, r.enum)
	}
	iv.sameCounts(before)
	if l := list(iv.Do(req("GET", other+"/invoices?show_total_count=true", iv.tok, nil), 200)["data"]); len(l) != 0 {
		t.Fatalf("the other business lists %d invoices", len(l))
	}
	// External ids are per business: the same one creates a new invoice there.
	if o := data(iv.Do(req("POST", other+"/invoices", iv.tok, with(simple("secret-cust", 100), "external_id", "secret-inv")), 201)); o["id"] == id {
		t.Fatal("the other business got the first business's invoice")
	}
}
