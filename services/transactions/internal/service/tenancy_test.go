package service

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// TestCrossTenant calls every route of one client's business with the
// tokens of others: each answers 404 and changes nothing. Ids of another
// business (of the same client) under the right business are 404 too.
func TestCrossTenant(t *testing.T) {
	e := newEnv(t)
	owner := e.Token("client-a")
	bid := e.business("client-a", "US")
	mine := e.business("client-a", "US") // the same client's other business
	j := e.post(bid, owner, map[string]any{"line_items": []any{line(stable("CASH"), 10, "DEBIT"), line(stable("SALES"), 10, "CREDIT")}}, 201)
	entry := j["entry_id"].(string)
	account := domain.DefaultAccountID(bid, "SALES").String()
	custom := data(e.Do(req("POST", base(bid)+"/custom-accounts", owner, map[string]any{"account_name": "Box", "account_type": "DEPOSITORY"}), 201))["id"].(string)
	txn := e.customTxns(bid, owner, custom, []any{map[string]any{"amount": 5, "direction": "DEBIT", "date": "2026-01-01"}}, 201)[0].(map[string]any)["id"].(string)
	b := base(bid)
	routes := []servicetest.Route{
		{Method: "GET", Path: b + "/ledger/chart"},
		{Method: "GET", Path: b + "/ledger/accounts/" + account},
		{Method: "POST", Path: b + "/ledger/accounts", Body: map[string]any{"name": "X", "account_type": "EXPENSE"}},
		{Method: "PUT", Path: b + "/ledger/accounts/" + account, Body: map[string]any{"name": "X"}},
		{Method: "POST", Path: b + "/ledger/accounts/" + account + "/archive"},
		{Method: "DELETE", Path: b + "/ledger/accounts/" + account},
		{Method: "GET", Path: b + "/categories"},
		{Method: "GET", Path: b + "/ledger/entries"},
		{Method: "GET", Path: b + "/ledger/entries/" + entry},
		{Method: "POST", Path: b + "/ledger/entries/" + entry + "/reverse"},
		{Method: "POST", Path: b + "/ledger/journal-entries", Body: map[string]any{"line_items": []any{line(stable("CASH"), 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")}}},
		{Method: "GET", Path: b + "/ledger/balances"},
		{Method: "GET", Path: b + "/ledger/accounts/" + account + "/lines"},
		{Method: "GET", Path: b + "/ledger/entries/exports/csv"},
		{Method: "GET", Path: b + "/ledger/balances/exports/csv"},
		{Method: "POST", Path: b + "/custom-accounts", Body: map[string]any{"account_name": "Petty cash", "account_type": "DEPOSITORY"}},
		{Method: "GET", Path: b + "/custom-accounts"},
		{Method: "POST", Path: b + "/bank-transactions/bulk", Body: map[string]any{"transactions": []any{imported("API", "t", "a", 1, "DEBIT", "2026-01-01")}}},
		{Method: "GET", Path: b + "/bank-transactions"},
		{Method: "POST", Path: b + "/categorization-rules", Body: map[string]any{"category": stable("MEALS")}},
		{Method: "GET", Path: b + "/categorization-rules"},
		{Method: "DELETE", Path: b + "/categorization-rules/" + uuid.NewString()},
		{Method: "POST", Path: b + "/bank-transactions/tags", Body: map[string]any{"transaction_ids": []any{txn}, "key_values": []any{map[string]any{"key": "k", "value": "v"}}}},
		{Method: "DELETE", Path: b + "/bank-transactions/tags", Body: map[string]any{"tag_ids": []any{uuid.NewString()}}},
		{Method: "GET", Path: b + "/bank-transactions/" + txn},
		{Method: "PUT", Path: b + "/bank-transactions/" + txn + "/categorize", Body: map[string]any{"type": "Category", "category": stable("MEALS")}},
		{Method: "POST", Path: b + "/bank-transactions/" + txn + "/categorize", Body: map[string]any{"type": "Category", "category": stable("MEALS")}},
		{Method: "POST", Path: b + "/custom-accounts/" + custom + "/transactions", Body: map[string]any{"transactions": []any{map[string]any{"amount": 1, "direction": "DEBIT", "date": "2026-01-01"}}}},
		{Method: "DELETE", Path: b + "/bank-transactions/" + txn},
		{Method: "POST", Path: b + "/bank-transactions/" + txn + "/restore"},
		{Method: "POST", Path: b + "/bank-transactions/" + txn + "/uncategorize"},
		{Method: "GET", Path: b + "/bank-transactions/" + txn + "/metadata"},
		{Method: "PATCH", Path: b + "/bank-transactions/" + txn + "/metadata", Body: map[string]any{"memo": "x"}},
		{Method: "POST", Path: b + "/bank-transactions/bulk-categorize", Body: map[string]any{"transactions": []any{map[string]any{"transaction_id": txn, "categorization": map[string]any{"type": "Category", "category": stable("MEALS")}}}}},
		{Method: "POST", Path: b + "/bank-transactions/bulk-match-or-categorize", Body: map[string]any{"transactions": map[string]any{txn: map[string]any{"type": "categorize", "categorization": map[string]any{"type": "Category", "category": stable("MEALS")}}}}},
		{Method: "POST", Path: b + "/bank-transactions/bulk-uncategorize", Body: map[string]any{"transaction_ids": []any{txn}}},
		{Method: "GET", Path: b + "/counterparties"},
	}
	// Every business exists before the counts are taken.
	strangers := e.Strangers("client-a", "client-b", mine, e.business("client-b", "US"))
	before := e.counts()
	e.RefuseStrangers(strangers, b, routes)
	if e.counts() != before {
		t.Fatal("a refused request wrote rows")
	}
	var name string
	if err := e.DB.NewRaw("SELECT name FROM ledger_accounts WHERE id = ?", account).Scan(context.Background(), &name); err != nil || name != "Sales" {
		t.Fatalf("account renamed to %q (%v)", name, err)
	}

	// The owner, addressing one business's rows through the other.
	other := base(mine)
	for _, r := range []struct {
		method, path string
		body         any
		enum         string
	}{
		{"GET", other + "/ledger/accounts/" + account, nil, domain.EnumAccountNotFound},
		{"GET", other + "/ledger/accounts/" + account + "/lines", nil, domain.EnumAccountNotFound},
		{"PUT", other + "/ledger/accounts/" + account, map[string]any{"name": "X"}, domain.EnumAccountNotFound},
		{"POST", other + "/ledger/accounts/" + account + "/archive", nil, domain.EnumAccountNotFound},
		{"DELETE", other + "/ledger/accounts/" + account, nil, domain.EnumAccountNotFound},
		{"GET", other + "/ledger/entries/" + entry, nil, domain.EnumEntryNotFound},
		{"POST", other + "/ledger/entries/" + entry + "/reverse", nil, domain.EnumEntryNotFound},
	} {
		e.DoInvalid(req(r.method, r.path, owner, r.body), 404, r.enum)
	}
	if list := e.Do(req("GET", other+"/ledger/entries", owner, nil), 200)["data"].([]any); len(list) != 0 {
		t.Fatalf("the other business lists %d entries", len(list))
	}
	if e.balances(mine, owner, "")["CASH"] != 0 {
		t.Fatal("the other business sees the balance")
	}
}
