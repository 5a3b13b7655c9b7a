package stacktest

import (
	"net/http"
	"testing"
	"time"
)

// TestTagRegistryThroughTheSuite: POST /tags for a bank transaction goes
// to the bills & tags service, which has the transactions service (its
// owner) apply the tags with the caller's own token; the transaction then
// carries them, and the registry lists the dimension, learned at once and
// again from the transactions' events. Another platform's token gets 404
// and changes nothing.
func TestTagRegistryThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "tags-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	var acct reply
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		acct = jsonCall(t, http.MethodPost, base+"/custom-accounts", tok, map[string]any{
			"account_name": "Operating", "institution_name": "Test Bank", "account_type": "DEPOSITORY", "account_subtype": "CHECKING",
		})
		ready := jsonCall(t, http.MethodGet, base+"/tags/dimensions", tok, nil).status == http.StatusOK
		if (acct.status == http.StatusCreated && ready) || time.Now().After(deadline) {
			break
		}
	}
	if acct.status != http.StatusCreated {
		t.Fatalf("custom account: %d %s", acct.status, acct.body)
	}
	imported := jsonCall(t, http.MethodPost, base+"/custom-accounts/"+acct.json["data"].(map[string]any)["id"].(string)+"/transactions", tok, map[string]any{
		"transactions": []map[string]any{{"external_id": "tag-1", "amount": 1500, "direction": "DEBIT", "date": "2026-02-03", "description": "Taxi"}},
	})
	if imported.status != http.StatusCreated {
		t.Fatalf("import: %d %s", imported.status, imported.body)
	}
	txn := imported.json["data"].([]any)[0].(map[string]any)["id"].(string)
	body := map[string]any{"key_values": []map[string]any{{"key": "trip", "value": "berlin"}}, "entity_ids": []string{txn}, "entity_type": "BANK_TRANSACTION"}

	otherID, otherSecret := secondClient(t)
	other := tokenFor(t, otherID, otherSecret)
	if r := jsonCall(t, http.MethodPost, base+"/tags", other, body); r.status != http.StatusNotFound {
		t.Fatalf("another platform: %d %s", r.status, r.body)
	}
	r := jsonCall(t, http.MethodPost, base+"/tags", tok, body)
	if r.status != http.StatusOK {
		t.Fatalf("POST /tags: %d %s", r.status, r.body)
	}
	if ts, _ := r.json["tags"].([]any); len(ts) != 1 {
		t.Fatalf("POST /tags answer %s", r.body)
	}
	got := jsonCall(t, http.MethodGet, base+"/bank-transactions/"+txn, tok, nil)
	tags, _ := got.json["data"].(map[string]any)["transaction_tags"].([]any)
	if len(tags) != 1 || tags[0].(map[string]any)["key"] != "trip" {
		t.Fatalf("the transaction's tags: %s", got.body)
	}
	dims := jsonCall(t, http.MethodGet, base+"/tags/dimensions", tok, nil)
	list, _ := dims.json["data"].(map[string]any)["dimensions"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["key"] != "trip" {
		t.Fatalf("registry: %s", dims.body)
	}
	if again := jsonCall(t, http.MethodPost, base+"/tags", tok, body); again.status != http.StatusOK || len(again.json["tags"].([]any)) != 0 {
		t.Fatalf("a repeat: %d %s", again.status, again.body)
	}
}

// TestTagInvoicesThroughTheSuite: POST /tags for an invoice and an
// invoice payment goes to the bills & tags service, which has the
// customers-invoices service (their owner) apply the tags with the
// caller's own token; the invoice and the payment then carry them and the
// registry lists the dimensions. Another platform's token gets 404 and an
// unknown invoice 404 naming entity_ids.
func TestTagInvoicesThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "invtags-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	var inv reply
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		inv = jsonCall(t, http.MethodPost, base+"/invoices", tok, map[string]any{
			"customer_external_id": "tag-cust", "sent_at": "2026-03-01T10:00:00Z",
			"line_items": []any{map[string]any{"product": "Service", "unit_price": 5000, "quantity": "1"}},
		})
		ready := jsonCall(t, http.MethodGet, base+"/tags/dimensions", tok, nil).status == http.StatusOK
		if (inv.status == http.StatusCreated && ready) || time.Now().After(deadline) {
			break
		}
	}
	if inv.status != http.StatusCreated {
		t.Fatalf("invoice: %d %s", inv.status, inv.body)
	}
	invID := inv.json["data"].(map[string]any)["id"].(string)
	pay := jsonCall(t, http.MethodPost, base+"/invoices/"+invID+"/payment", tok, map[string]any{"amount": 2000, "method": "ACH", "paid_at": "2026-03-02T00:00:00Z"})
	if pay.status != http.StatusCreated {
		t.Fatalf("payment: %d %s", pay.status, pay.body)
	}
	payID := pay.json["data"].(map[string]any)["id"].(string)

	body := map[string]any{"key_values": []map[string]any{{"key": "region", "value": "west"}}, "entity_ids": []string{invID}, "entity_type": "INVOICE"}
	otherID, otherSecret := secondClient(t)
	if r := jsonCall(t, http.MethodPost, base+"/tags", tokenFor(t, otherID, otherSecret), body); r.status != http.StatusNotFound {
		t.Fatalf("another platform: %d %s", r.status, r.body)
	}
	if r := jsonCall(t, http.MethodPost, base+"/tags", tok, body); r.status != http.StatusOK || len(r.json["tags"].([]any)) != 1 {
		t.Fatalf("POST /tags INVOICE: %d %s", r.status, r.body)
	}
	got := jsonCall(t, http.MethodGet, base+"/invoices/"+invID, tok, nil)
	if tags, _ := got.json["data"].(map[string]any)["transaction_tags"].([]any); len(tags) != 1 || tags[0].(map[string]any)["key"] != "region" {
		t.Fatalf("the invoice's tags: %s", got.body)
	}
	if again := jsonCall(t, http.MethodPost, base+"/tags", tok, body); again.status != http.StatusOK || len(again.json["tags"].([]any)) != 0 {
		t.Fatalf("a repeat: %d %s", again.status, again.body)
	}

	body = map[string]any{"key_values": []map[string]any{{"key": "channel", "value": "ach"}}, "entity_ids": []string{payID}, "entity_type": "INVOICE_PAYMENT"}
	if r := jsonCall(t, http.MethodPost, base+"/tags", tok, body); r.status != http.StatusOK || len(r.json["tags"].([]any)) != 1 {
		t.Fatalf("POST /tags INVOICE_PAYMENT: %d %s", r.status, r.body)
	}
	got = jsonCall(t, http.MethodGet, base+"/invoices/payments/"+payID+"/tags", tok, nil)
	if tags, _ := got.json["data"].([]any); len(tags) != 1 || tags[0].(map[string]any)["key"] != "channel" {
		t.Fatalf("the payment's tags: %s", got.body)
	}
	dims := jsonCall(t, http.MethodGet, base+"/tags/dimensions", tok, nil)
	if list, _ := dims.json["data"].(map[string]any)["dimensions"].([]any); len(list) != 2 {
		t.Fatalf("registry: %s", dims.body)
	}

	body["entity_type"], body["entity_ids"] = "INVOICE", []string{payID} // not an invoice
	r := jsonCall(t, http.MethodPost, base+"/tags", tok, body)
	if r.status != http.StatusNotFound || r.json["error_enum"] != "InvoiceNotFound" || r.json["meta"].(map[string]any)["field"] != "entity_ids" {
		t.Fatalf("an unknown invoice: %d %s", r.status, r.body)
	}
}
