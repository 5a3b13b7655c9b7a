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
