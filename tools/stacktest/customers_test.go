package stacktest

import (
	"net/http"
	"testing"
	"time"
)

// TestCustomersThroughTheSuite follows one business into the
// customers-invoices process: auth-tokens creates it and publishes
// business.created, the service's business projection makes it known
// (tenancy), and the customer routes answer through the gateway: an
// idempotent create, a search as the client SDK sends it, a patch, an
// archive that hides the customer from the default listing. Another
// business's token gets 404.
func TestCustomersThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "customers-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid

	var list reply
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		list = jsonCall(t, http.MethodGet, base+"/customers", tok, nil)
		if list.status == http.StatusOK || time.Now().After(deadline) {
			break
		}
	}
	if list.status != http.StatusOK {
		t.Fatalf("the business never reached customers-invoices: %d %s", list.status, list.body)
	}

	body := map[string]any{"external_id": "st-cust-1", "individual_name": "Ann Lee", "company_name": "Acme Corp",
		"email": "ann@acme.example", "tags": []map[string]any{{"key": "region", "value": "west"}}}
	created := jsonCall(t, http.MethodPost, base+"/customers", tok, body)
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	c := created.json["data"].(map[string]any)
	id := c["id"].(string)
	if c["type"] != "CustomerData" || c["status"] != "ACTIVE" || c["memo"] != nil || c["notes"] != nil {
		t.Fatalf("created: %s", created.body)
	}
	if again := jsonCall(t, http.MethodPost, base+"/customers", tok, body); again.status != http.StatusOK ||
		again.json["data"].(map[string]any)["id"] != id {
		t.Fatalf("create again: %d %s", again.status, again.body)
	}

	found := jsonCall(t, http.MethodGet, base+"/customers?q=ACME&identity_status=IDENTIFIED&limit=10", tok, nil)
	if found.status != http.StatusOK || len(found.json["data"].([]any)) != 1 {
		t.Fatalf("search: %d %s", found.status, found.body)
	}
	if p := found.json["meta"].(map[string]any)["pagination"].(map[string]any); p["has_more"] != false {
		t.Fatalf("search meta: %s", found.body)
	}

	patched := jsonCall(t, http.MethodPatch, base+"/customers/"+id, tok, map[string]any{"memo": "net 30", "email": nil})
	if d, _ := patched.json["data"].(map[string]any); patched.status != http.StatusOK || d["memo"] != "net 30" || d["notes"] != "net 30" || d["email"] != nil {
		t.Fatalf("patch: %d %s", patched.status, patched.body)
	}
	archived := jsonCall(t, http.MethodPost, base+"/customers/"+id+"/archive", tok, nil)
	if d, _ := archived.json["data"].(map[string]any); archived.status != http.StatusOK || d["status"] != "ARCHIVED" {
		t.Fatalf("archive: %d %s", archived.status, archived.body)
	}
	if l := jsonCall(t, http.MethodGet, base+"/customers", tok, nil); len(l.json["data"].([]any)) != 0 {
		t.Fatalf("default listing shows the archived customer: %s", l.body)
	}
	if l := jsonCall(t, http.MethodGet, base+"/customers?include_archived=true", tok, nil); len(l.json["data"].([]any)) != 1 {
		t.Fatalf("listing with archived: %s", l.body)
	}
	// A value the document does not allow: sent without validating the request.
	expectError(t, call(t, http.MethodGet, base+"/customers?include_archived=maybe", tok, "", nil, false), http.StatusBadRequest, "InvalidParameters")

	other := createBusiness(t, tok, "customers-other-"+time.Now().Format("150405.000000"))
	stranger := businessToken(t, tok, other)
	expectError(t, jsonCall(t, http.MethodGet, base+"/customers/"+id, stranger, nil), http.StatusNotFound, "NotFound")
}
