package stacktest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// walkCalls makes, in one fresh business, the client's calls that the
// suite's other tests do not make, as the client makes them (its query
// parameters and bodies); observeShape checks each answer against
// client-shapes.md like every other.
func walkCalls(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "walk-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	must := func(what string, r reply, want int) map[string]any {
		t.Helper()
		if r.status != want {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
		d, _ := r.json["data"].(map[string]any)
		return d
	}
	var acct reply
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		acct = jsonCall(t, http.MethodPost, base+"/custom-accounts", tok, map[string]any{
			"account_name": "Operating", "institution_name": "Test Bank", "mask": "4321",
			"account_type": "DEPOSITORY", "account_subtype": "CHECKING", "external_id": "walk-op",
		})
		inv := jsonCall(t, http.MethodGet, base+"/invoices", tok, nil)
		if acct.status == http.StatusCreated && inv.status == http.StatusOK || time.Now().After(deadline) {
			break
		}
	}
	acctID := must("custom account", acct, http.StatusCreated)["id"].(string)

	// The ledger: an account renamed with PUT.
	created := must("ledger account", jsonCall(t, http.MethodPost, base+"/ledger/accounts", tok,
		map[string]any{"name": "Walk supplies", "account_type": "EXPENSE"}), http.StatusCreated)
	must("rename ledger account", jsonCall(t, http.MethodPut, base+"/ledger/accounts/"+created["id"].(string), tok,
		map[string]any{"name": "Walk supplies and tools"}), http.StatusOK)

	// A transaction recorded as the client records one (multipart).
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="transaction"`)
	h.Set("Content-Type", "application/json")
	part, _ := w.CreatePart(h)
	_ = json.NewEncoder(part).Encode(map[string]any{"external_id": "walk-rec-1", "amount": 1250, "direction": "DEBIT",
		"date": "2026-03-02", "description": "Printer paper", "categorization": map[string]any{"type": "Category", "category": map[string]any{"type": "StableName", "stable_name": "OFFICE_EXPENSES"}}})
	_ = w.Close()
	recorded := must("record", call(t, http.MethodPost, base+"/custom-accounts/"+acctID+"/transactions/record", tok, w.FormDataContentType(), form.Bytes(), true), http.StatusCreated)
	recID := recorded["id"].(string)

	// Changed as the client changes a recorded transaction (multipart PATCH).
	recordPatch(t, base+"/custom-accounts/"+acctID+"/transactions/"+recID+"/record", tok, map[string]any{"description": "Printer paper, A4"})

	// Its memo changed (the client's metadata PATCH), then archived (the
	// client's DELETE: out of the listing) and restored.
	if m := must("metadata", jsonCall(t, http.MethodPatch, base+"/bank-transactions/"+recID+"/metadata", tok, map[string]any{"memo": "for the office"}), http.StatusOK); m["memo"] != "for the office" {
		t.Fatalf("metadata answer: %v", m)
	}
	if a := must("archive", jsonCall(t, http.MethodDelete, base+"/bank-transactions/"+recID, tok, nil), http.StatusOK); a["id"] != recID {
		t.Fatalf("archive answer: %v", a)
	}
	listed := func() bool {
		l := jsonCall(t, http.MethodGet, base+"/bank-transactions?limit=200&sort_by=date&sort_order=DESC", tok, nil)
		for _, it := range l.json["data"].([]any) {
			if it.(map[string]any)["id"] == recID {
				return true
			}
		}
		return false
	}
	if listed() {
		t.Fatal("an archived transaction is listed")
	}
	must("restore", jsonCall(t, http.MethodPost, base+"/bank-transactions/"+recID+"/restore", tok, nil), http.StatusOK)
	if !listed() {
		t.Fatal("a restored transaction is not listed")
	}
	// Tagged in bulk, as the client tags transactions (the tags property
	// test makes this call only when its random steps pick it).
	if r := jsonCall(t, http.MethodPost, base+"/bank-transactions/tags", tok, map[string]any{"transaction_ids": []string{recID},
		"key_values": []map[string]any{{"key": "walk", "value": "tagged"}}}); r.status != http.StatusOK {
		t.Fatalf("bulk tags: %d %s", r.status, r.body)
	}

	// An invoice, changed with PATCH, paid; the deposit of the payment
	// confirmed as its match (PUT, the client's verb).
	inv := must("invoice", jsonCall(t, http.MethodPost, base+"/invoices", tok, map[string]any{
		"external_id": "walk-inv-1", "sent_at": "2026-03-01T10:00:00Z", "customer_external_id": "walk-cust",
		"line_items": []map[string]any{{"product": "Consulting", "unit_price": 10000, "quantity": "1"}},
	}), http.StatusCreated)
	invID := inv["id"].(string)
	must("patch invoice", jsonCall(t, http.MethodPatch, base+"/invoices/"+invID, tok, map[string]any{"memo": "Thank you"}), http.StatusOK)
	must("payment", jsonCall(t, http.MethodPost, base+"/invoices/payments", tok, map[string]any{
		"paid_at": "2026-03-05T12:00:00Z", "method": "ACH", "amount": 10000,
		"invoice_payments": []map[string]any{{"invoice_id": invID, "amount": 10000}}}), http.StatusCreated)
	imported := jsonCall(t, http.MethodPost, base+"/custom-accounts/"+acctID+"/transactions", tok, map[string]any{
		"transactions": []map[string]any{{"external_id": "walk-dep-1", "amount": 10000, "direction": "CREDIT", "date": "2026-03-06", "description": "ACH deposit"}},
	})
	if imported.status != http.StatusCreated {
		t.Fatalf("import: %d %s", imported.status, imported.body)
	}
	depID := imported.json["data"].([]any)[0].(map[string]any)["id"].(string)
	var matchID string
	for deadline := time.Now().Add(30 * time.Second); matchID == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		d := must("deposit", jsonCall(t, http.MethodGet, base+"/bank-transactions/"+depID, tok, nil), http.StatusOK)
		if ms, _ := d["suggested_matches"].([]any); len(ms) > 0 {
			matchID = ms[0].(map[string]any)["id"].(string)
		}
	}
	if matchID == "" {
		t.Fatal("the deposit was never offered the invoice payment as a match")
	}
	must("match", jsonCall(t, http.MethodPut, base+"/bank-transactions/"+depID+"/match", tok,
		map[string]any{"type": "Confirm_Match", "match_id": matchID}), http.StatusOK)

	// A statement CSV and the categorization rules (walk_rules_test.go).
	walkRulesAndStatements(t, base, tok, acctID)

	// The counterparties the client lists, with its query.
	cps := jsonCall(t, http.MethodGet, base+"/counterparties?q=walk&sort_by=name&sort_order=ASC&show_total_count=true&limit=50", tok, nil)
	if cps.status != http.StatusOK {
		t.Fatalf("counterparties: %d %s", cps.status, cps.body)
	}

	// A second invoice: paid through the client's single-invoice URL (its
	// trailing slash), the payment changed (PUT), partly refunded, its PDF
	// and page rendered, then reset to its state at creation.
	inv2 := must("invoice", jsonCall(t, http.MethodPost, base+"/invoices", tok, map[string]any{
		"external_id": "walk-inv-2", "sent_at": "2026-03-02T10:00:00Z", "customer_external_id": "walk-cust", "invoice_number": "W-2",
		"line_items": []map[string]any{{"product": "Design", "description": "Logo design", "unit_price": 5000, "quantity": "1"}},
	}), http.StatusCreated)
	inv2ID := inv2["id"].(string)
	paid := jsonCall(t, http.MethodPost, base+"/invoices/"+inv2ID+"/payment/", tok, map[string]any{"amount": 5000, "method": "CASH", "paid_at": "2026-03-03T09:00:00Z"})
	if paid.status != http.StatusCreated && paid.status != http.StatusOK {
		t.Fatalf("payment: %d %s", paid.status, paid.body)
	}
	payID := paid.json["data"].(map[string]any)["id"].(string)
	if p := must("update payment", jsonCall(t, http.MethodPut, base+"/invoices/"+inv2ID+"/payment/"+payID, tok,
		map[string]any{"amount": 5000, "method": "CHECK", "paid_at": "2026-03-04T09:00:00Z", "reference_number": "CHK-7"}), http.StatusOK); p["method"] != "CHECK" {
		t.Fatalf("updated payment: %v", p)
	}
	refund := jsonCall(t, http.MethodPost, base+"/invoices/"+inv2ID+"/refund", tok,
		map[string]any{"refunded_amount": 2000, "completed_at": "2026-03-10T12:00:00Z", "method": "CHECK", "memo": "partial refund"})
	if refund.status != http.StatusCreated && refund.status != http.StatusOK {
		t.Fatalf("refund: %d %s", refund.status, refund.body)
	}
	if r := refund.json["data"].(map[string]any); r["refunded_amount"] != 2000.0 {
		t.Fatalf("refund answer: %v", r)
	}
	pdf := must("pdf", jsonCall(t, http.MethodGet, base+"/invoices/"+inv2ID+"/pdf", tok, nil), http.StatusOK)
	resp, err := http.Get(pdf["presignedUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 5)
	_, _ = io.ReadFull(resp.Body, head)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(head) != "%PDF-" {
		t.Fatalf("the invoice PDF download: %d %q", resp.StatusCode, head)
	}
	page := call(t, http.MethodGet, base+"/invoices/"+inv2ID+"/html", tok, "", nil, true)
	if page.status != http.StatusOK || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") || !bytes.Contains(page.body, []byte("Logo design")) {
		t.Fatalf("the invoice page: %d %s", page.status, page.header.Get("Content-Type"))
	}
	if r := must("reset", jsonCall(t, http.MethodPost, base+"/invoices/"+inv2ID+"/reset", tok, nil), http.StatusOK); r["outstanding_balance"] != 5000.0 {
		t.Fatalf("a reset invoice owes its total again: %v", r)
	}
	// Nothing paid any more: it can be voided.
	if v := must("void", jsonCall(t, http.MethodPost, base+"/invoices/"+inv2ID+"/void", tok, nil), http.StatusOK); v["status"] != "VOIDED" {
		t.Fatalf("a voided invoice: %v", v)
	}

	// A tag value added as the client adds one (camelCase displayName).
	dim := jsonCall(t, http.MethodPost, base+"/tags/dimensions", tok, map[string]any{"key": "walk-project"})
	if dim.status != http.StatusCreated && dim.status != http.StatusOK {
		t.Fatalf("dimension: %d %s", dim.status, dim.body)
	}
	dimID := dim.json["data"].(map[string]any)["id"].(string)
	must("tag value", jsonCall(t, http.MethodPost, base+"/tags/dimensions/"+dimID+"/values", tok,
		map[string]any{"value": "apollo", "displayName": "Apollo"}), http.StatusCreated)

	// The reports the client reads, with its queries, once the ledger
	// reached them.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		p := must("pnl", jsonCall(t, http.MethodGet, base+"/reports/profit-and-loss?start_date=2026-03-01&end_date=2026-03-31", tok, nil), http.StatusOK)
		if inc, _ := p["income"].(map[string]any); inc != nil && inc["value"].(float64) == 10000 || time.Now().After(deadline) {
			break
		}
	}
	for _, q := range []string{
		"/reports/profit-and-loss-summaries?start_year=2026&start_month=1&end_year=2026&end_month=12&reporting_basis=ACCRUAL",
		"/reports/profit-and-loss/lines?start_date=2026-03-01&end_date=2026-03-31&line_item_name=INCOME&reporting_basis=ACCRUAL",
		"/reports/profit-and-loss/exports/excel?start_date=2026-03-01&end_date=2026-03-31&money_format=DOLLAR_STRING",
		"/reports/profit-and-loss/lines/exports/excel?start_date=2026-03-01&end_date=2026-03-31&line_item_name=INCOME",
		"/reports/cashflow-statement/exports/csv?start_date=2026-03-01&end_date=2026-03-31",
	} {
		must(q, jsonCall(t, http.MethodGet, base+q, tok, nil), http.StatusOK)
	}
}
