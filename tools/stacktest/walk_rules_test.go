package stacktest

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"
)

// walkRulesAndStatements makes the client's statement and categorization
// rule calls: a statement CSV previewed and its request imported, a
// transaction categorized so that a rule is suggested, the suggestion
// accepted (POST /categorization-rules with its new_rule), the rules
// listed with the client's query, one patched and archived, and another
// suggestion rejected.
func walkRulesAndStatements(t *testing.T, base, tok, acctID string) {
	t.Helper()
	must := func(what string, r reply, want int) map[string]any {
		t.Helper()
		if r.status != want {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
		d, _ := r.json["data"].(map[string]any)
		return d
	}
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	fw, _ := w.CreateFormFile("file", "statement.csv")
	_, _ = fw.Write([]byte("Date,Payee,Description,Amount,Reference\n" +
		"04/01/2026,Walk Supplies Co,Paper,-12.50,R-1\n04/02/2026,Walk Supplies Co,Toner,-80.00,\n04/03/2026,Walk Supplies Co,Pens,-4.25,\n" +
		"04/04/2026,Walk Movers,Boxes,-30.00,\n04/05/2026,Walk Movers,Van,-120.00,\n"))
	_ = w.Close()
	preview := must("parse-csv", call(t, http.MethodPost, base+"/custom-accounts/"+acctID+"/parse-csv", tok, w.FormDataContentType(), form.Bytes(), true), http.StatusOK)
	request, _ := preview["new_transactions_request"].(map[string]any)
	if request == nil {
		t.Fatalf("parse-csv: no request in %v", preview)
	}
	imported := jsonCall(t, http.MethodPost, base+"/custom-accounts/"+acctID+"/transactions", tok, request)
	if imported.status != http.StatusCreated {
		t.Fatalf("import the statement: %d %s", imported.status, imported.body)
	}
	rows := imported.json["data"].([]any)
	id := func(i int) string { return rows[i].(map[string]any)["id"].(string) }
	category := map[string]any{"type": "Category", "category": map[string]any{"type": "StableName", "stable_name": "OFFICE_EXPENSES"}}

	got := must("categorize", jsonCall(t, http.MethodPut, base+"/bank-transactions/"+id(0)+"/categorize", tok, category), http.StatusOK)
	suggestion, _ := got["update_categorization_rules_suggestion"].(map[string]any)
	if suggestion == nil {
		t.Fatalf("categorize: no rule suggested in %v", got)
	}
	rule := must("accept the suggestion", jsonCall(t, http.MethodPost, base+"/categorization-rules", tok, suggestion["new_rule"]), http.StatusCreated)
	ruleID := rule["id"].(string)
	list := jsonCall(t, http.MethodGet, base+"/categorization-rules?include_archived=false&sort_by=created_at&sort_order=DESC&limit=50&show_total_count=true", tok, nil)
	if list.status != http.StatusOK {
		t.Fatalf("rules: %d %s", list.status, list.body)
	}
	must("patch rule", jsonCall(t, http.MethodPatch, base+"/categorization-rules/"+ruleID, tok,
		map[string]any{"bank_direction_filter": "MONEY_OUT", "amount_max_filter": 100000}), http.StatusOK)
	must("archive rule", jsonCall(t, http.MethodPost, base+"/categorization-rules/"+ruleID+"/archive", tok, nil), http.StatusOK)

	got = must("categorize", jsonCall(t, http.MethodPut, base+"/bank-transactions/"+id(3)+"/categorize", tok, category), http.StatusOK)
	if s, _ := got["update_categorization_rules_suggestion"].(map[string]any); s != nil {
		if r := jsonCall(t, http.MethodDelete, base+"/categorization-rules/suggestions/"+s["id"].(string), tok, nil); r.status != http.StatusNoContent {
			t.Fatalf("reject the suggestion: %d %s", r.status, r.body)
		}
	}
}
