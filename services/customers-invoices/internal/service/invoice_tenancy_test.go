package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
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
	routes := []servicetest.Route{
		{Method: "POST", Path: b + "/invoices", Body: with(simple("intruder", 100), "external_id", "secret-inv")},
		{Method: "GET", Path: b + "/invoices"},
		{Method: "GET", Path: b + "/invoices?customer_external_id=secret-cust"},
		{Method: "GET", Path: b + "/invoices/" + id},
		{Method: "PATCH", Path: b + "/invoices/" + id, Body: map[string]any{"memo": "hijacked"}},
		{Method: "DELETE", Path: b + "/invoices/" + id},
		{Method: "POST", Path: b + "/invoices/" + id + "/void"},
		{Method: "POST", Path: b + "/invoices/" + id + "/payment", Body: pay},
		{Method: "POST", Path: b + "/invoices/" + id + "/payment/", Body: pay},
		{Method: "POST", Path: b + "/invoices/payments", Body: payment(100, alloc(id, 100))},
		{Method: "POST", Path: b + "/invoices/payments/bulk-delete", Body: map[string]any{"ids": []any{pid}}},
		{Method: "GET", Path: b + "/invoices/payments/" + pid},
		{Method: "GET", Path: b + "/invoices/payments/" + pid + "/tags"},
		{Method: "POST", Path: b + "/invoices/tags", Body: map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "invoice_ids": []any{id}}},
		{Method: "POST", Path: b + "/invoices/payments/tags", Body: map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "payment_ids": []any{pid}}},
		{Method: "POST", Path: b + "/invoices/" + id + "/write-off", Body: map[string]any{"amount": 100}},
		{Method: "GET", Path: b + "/invoices/" + id + "/write-offs/" + wid},
		{Method: "GET", Path: b + "/invoices/summary-stats"},
		{Method: "PUT", Path: b + "/invoices/" + id + "/finalize-invoice", Body: map[string]any{"payment_methods": []any{"ACH"}}},
		{Method: "POST", Path: b + "/invoices/" + id + "/reset"},
		{Method: "PUT", Path: b + "/invoices/" + id + "/payment/" + pid, Body: pay},
		{Method: "POST", Path: b + "/invoices/" + id + "/refund", Body: map[string]any{"completed_at": "2026-03-10T00:00:00Z", "method": "CASH"}},
		{Method: "GET", Path: b + "/invoices/" + id + "/payment-methods"},
		{Method: "GET", Path: b + "/invoices/" + id + "/pdf"},
		{Method: "GET", Path: b + "/invoices/" + id + "/html"},
	}
	// Every business exists before the counts are taken.
	strangers := iv.Strangers("client-a", "client-b", mine, iv.Business("client-b"))
	before := iv.rowCounts()
	iv.RefuseStrangers(strangers, b, routes)
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
		{"PUT", other + "/invoices/" + id + "/finalize-invoice", nil, app.EnumInvoiceNotFound},
		{"POST", other + "/invoices/" + id + "/reset", nil, app.EnumInvoiceNotFound},
		{"PUT", other + "/invoices/" + id + "/payment/" + pid, pay, app.EnumInvoiceNotFound},
		{"POST", other + "/invoices/" + id + "/refund", map[string]any{"completed_at": "2026-03-10T00:00:00Z", "method": "CASH"}, app.EnumInvoiceNotFound},
		{"GET", other + "/invoices/" + id + "/payment-methods", nil, app.EnumInvoiceNotFound},
		{"GET", other + "/invoices/" + id + "/html", nil, app.EnumInvoiceNotFound},
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
