package stacktest

import (
	"net/http"
	"testing"
	"time"
)

// TestLedgerThroughTheSuite follows one business through every process:
// auth-tokens creates it and publishes business.created through its outbox,
// the transactions service consumes it and seeds the chart of accounts, and
// a balanced journal entry posted through the gateway shows in the balances.
// Another platform's token gets 404 on the same ledger.
func TestLedgerThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "ledger-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid

	var chart reply
	deadline := time.Now().Add(30 * time.Second)
	for {
		chart = jsonCall(t, http.MethodGet, base+"/ledger/chart", tok, nil)
		if chart.status == http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if chart.status != http.StatusOK {
		t.Fatalf("chart never appeared: %d %s", chart.status, chart.body)
	}
	accounts, _ := chart.json["data"].(map[string]any)["accounts"].([]any)
	if len(accounts) != 5 {
		t.Fatalf("chart roots: %d, want 5 (assets, liabilities, equity, revenue, expenses): %s", len(accounts), chart.body)
	}

	entry := jsonCall(t, http.MethodPost, base+"/ledger/journal-entries", tok, map[string]any{
		"external_id": "opening-1", "entry_at": "2026-01-02T00:00:00Z", "created_by": "stacktest", "memo": "opening balance",
		"line_items": []map[string]any{
			{"account_identifier": map[string]any{"type": "StableName", "stable_name": "CASH"}, "amount": 125000, "direction": "DEBIT"},
			{"account_identifier": map[string]any{"type": "StableName", "stable_name": "OPENING_BALANCE_EQUITY"}, "amount": "125000", "direction": "CREDIT"},
		},
	})
	if entry.status != http.StatusOK && entry.status != http.StatusCreated {
		t.Fatalf("journal entry: %d %s", entry.status, entry.body)
	}
	unbalanced := jsonCall(t, http.MethodPost, base+"/ledger/journal-entries", tok, map[string]any{
		"external_id": "bad-1", "entry_at": "2026-01-02T00:00:00Z", "created_by": "stacktest", "memo": "off by a cent",
		"line_items": []map[string]any{
			{"account_identifier": map[string]any{"type": "StableName", "stable_name": "CASH"}, "amount": 100, "direction": "DEBIT"},
			{"account_identifier": map[string]any{"type": "StableName", "stable_name": "OPENING_BALANCE_EQUITY"}, "amount": 99, "direction": "CREDIT"},
		},
	})
	expectError(t, unbalanced, http.StatusBadRequest, "InvalidPayload")
	if unbalanced.json["error_enum"] != "UnbalancedEntry" {
		t.Fatalf("unbalanced entry: %s", unbalanced.body)
	}

	balances := jsonCall(t, http.MethodGet, base+"/ledger/balances", tok, nil)
	if balances.status != http.StatusOK {
		t.Fatalf("balances: %d %s", balances.status, balances.body)
	}
	if got := findBalance(balances.json["data"].(map[string]any)["accounts"].([]any), "CASH"); got != 125000 {
		t.Fatalf("CASH balance %v, want 125000: %s", got, balances.body)
	}

	// A bank transaction through the gateway: custom account, import,
	// categorize (PUT and POST both reach it), and the ledger follows.
	acct := jsonCall(t, http.MethodPost, base+"/custom-accounts", tok, map[string]any{
		"account_name": "Operating", "institution_name": "Test Bank", "mask": "1234",
		"account_type": "DEPOSITORY", "account_subtype": "CHECKING", "external_id": "op-1",
	})
	if acct.status != http.StatusCreated {
		t.Fatalf("custom account: %d %s", acct.status, acct.body)
	}
	acctID := acct.json["data"].(map[string]any)["id"].(string)
	imported := jsonCall(t, http.MethodPost, base+"/custom-accounts/"+acctID+"/transactions", tok, map[string]any{
		"transactions": []map[string]any{{"external_id": "t-1", "amount": 4250, "direction": "DEBIT", "date": "2026-02-03",
			"description": "Team lunch", "counterparty_name": "Cafe Nero"}},
	})
	if imported.status != http.StatusCreated {
		t.Fatalf("import: %d %s", imported.status, imported.body)
	}
	txnID := imported.json["data"].([]any)[0].(map[string]any)["id"].(string)
	for _, method := range []string{http.MethodPut, http.MethodPost} {
		cat := jsonCall(t, method, base+"/bank-transactions/"+txnID+"/categorize", tok, map[string]any{
			"type": "Category", "category": map[string]any{"type": "StableName", "stable_name": "MEALS"},
		})
		if cat.status != http.StatusOK || cat.json["data"].(map[string]any)["categorization_status"] != "CATEGORIZED" {
			t.Fatalf("%s categorize: %d %s", method, cat.status, cat.body)
		}
	}
	balances = jsonCall(t, http.MethodGet, base+"/ledger/balances", tok, nil)
	if got := findBalance(balances.json["data"].(map[string]any)["accounts"].([]any), "MEALS"); got != 4250 {
		t.Fatalf("MEALS balance %v after two categorizations, want 4250 (one live entry): %s", got, balances.body)
	}
	list := jsonCall(t, http.MethodGet, base+"/bank-transactions?categorized=true&limit=10", tok, nil)
	if list.status != http.StatusOK || len(list.json["data"].([]any)) != 1 {
		t.Fatalf("list: %d %s", list.status, list.body)
	}

	otherID, otherSecret := secondClient(t)
	other := tokenFor(t, otherID, otherSecret)
	expectError(t, jsonCall(t, http.MethodGet, base+"/ledger/chart", other, nil), http.StatusNotFound, "NotFound")
	expectError(t, jsonCall(t, http.MethodGet, base+"/bank-transactions/"+txnID, other, nil), http.StatusNotFound, "NotFound")
}

func findBalance(nodes []any, stable string) float64 {
	for _, n := range nodes {
		m := n.(map[string]any)
		if m["stable_name"] == stable {
			b, _ := m["balance"].(float64)
			return b
		}
		if subs, ok := m["sub_accounts"].([]any); ok {
			if b := findBalance(subs, stable); b != 0 {
				return b
			}
		}
	}
	return 0
}
