package service

import (
	"context"
	"testing"

	"github.com/google/uuid"

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
	routes := []struct {
		method, path string
		body         any
	}{
		{"GET", b + "/ledger/chart", nil},
		{"GET", b + "/ledger/accounts/" + account, nil},
		{"POST", b + "/ledger/accounts", map[string]any{"name": "X", "account_type": "EXPENSE"}},
		{"PUT", b + "/ledger/accounts/" + account, map[string]any{"name": "X"}},
		{"POST", b + "/ledger/accounts/" + account + "/archive", nil},
		{"GET", b + "/categories", nil},
		{"GET", b + "/ledger/entries", nil},
		{"GET", b + "/ledger/entries/" + entry, nil},
		{"POST", b + "/ledger/entries/" + entry + "/reverse", nil},
		{"POST", b + "/ledger/journal-entries", map[string]any{"line_items": []any{line(stable("CASH"), 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")}}},
		{"GET", b + "/ledger/balances", nil},
		{"POST", b + "/custom-accounts", map[string]any{"account_name": "Petty cash", "account_type": "DEPOSITORY"}},
		{"GET", b + "/custom-accounts", nil},
		{"POST", b + "/bank-transactions/bulk", map[string]any{"transactions": []any{imported("API", "t", "a", 1, "DEBIT", "2026-01-01")}}},
		{"GET", b + "/bank-transactions", nil},
		{"POST", b + "/categorization-rules", map[string]any{"category": stable("MEALS")}},
		{"GET", b + "/categorization-rules", nil},
		{"DELETE", b + "/categorization-rules/" + uuid.NewString(), nil},
		{"POST", b + "/bank-transactions/tags", map[string]any{"transaction_ids": []any{txn}, "key_values": []any{map[string]any{"key": "k", "value": "v"}}}},
		{"DELETE", b + "/bank-transactions/tags", map[string]any{"tag_ids": []any{uuid.NewString()}}},
		{"GET", b + "/bank-transactions/" + txn, nil},
		{"PUT", b + "/bank-transactions/" + txn + "/categorize", map[string]any{"type": "Category", "category": stable("MEALS")}},
		{"POST", b + "/bank-transactions/" + txn + "/categorize", map[string]any{"type": "Category", "category": stable("MEALS")}},
		{"POST", b + "/custom-accounts/" + custom + "/transactions", map[string]any{"transactions": []any{map[string]any{"amount": 1, "direction": "DEBIT", "date": "2026-01-01"}}}},
	}
	strangers := map[string]string{
		"another client's platform token":   e.Token("client-b"),
		"a business token of another one":   e.Svc.Tokens.Business(t, "client-a", mine),
		"the other client's business token": e.Svc.Tokens.Business(t, "client-b", e.business("client-b", "US")),
	}
	before := e.counts()
	for who, tok := range strangers {
		for _, r := range routes {
			t.Run(who+" "+r.method+" "+r.path[len(b):], func(t *testing.T) {
				e := e.with(t)
				m := e.DoInvalid(req(r.method, r.path, tok, r.body), 404, "BusinessNotFound")
				if m["type"] != "NotFound" {
					t.Fatalf("error = %v", m)
				}
			})
		}
	}
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
		{"PUT", other + "/ledger/accounts/" + account, map[string]any{"name": "X"}, domain.EnumAccountNotFound},
		{"POST", other + "/ledger/accounts/" + account + "/archive", nil, domain.EnumAccountNotFound},
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
