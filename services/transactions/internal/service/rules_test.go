package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

func TestCategorizationRules(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	path := base(s.bid) + "/categorization-rules"
	broad := data(e.Do(req("POST", path, s.tok, map[string]any{
		"name": "coffee", "counterparty": map[string]any{"match": "CONTAINS", "pattern": "cafe"}, "category": stable("MEALS"),
	}), 201))
	narrow := data(e.Do(req("POST", path, s.tok, map[string]any{
		"direction": "DEBIT", "counterparty": map[string]any{"match": "REGEX", "pattern": "^cafe nero"},
		"amount_min": 1000, "category": stable("OFFICE_EXPENSES"),
	}), 201))
	if broad["category"].(map[string]any)["stable_name"] != "MEALS" || narrow["direction"] != "DEBIT" || cents(narrow["amount_min"]) != 1000 {
		t.Fatalf("rules = %v / %v", broad, narrow)
	}
	list := e.Do(req("GET", path, s.tok, nil), 200)["data"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["id"] != narrow["id"] {
		t.Fatalf("list = %v (the most specific first)", list)
	}

	t.Run("applied on import", func(t *testing.T) {
		e := e.with(t)
		rows := e.customTxns(s.bid, s.tok, s.account["id"].(string), []any{
			map[string]any{"amount": 1500, "direction": "DEBIT", "date": "2026-07-01", "counterparty_name": "Cafe Nero #12"},
			map[string]any{"amount": 500, "direction": "DEBIT", "date": "2026-07-01", "counterparty_name": "Little Cafe"},
			map[string]any{"amount": 700, "direction": "DEBIT", "date": "2026-07-01", "counterparty_name": "Hardware"},
		}, 201)
		want := []string{"OFFICE_EXPENSES", "MEALS", ""}
		for i, r := range rows {
			id := r.(map[string]any)["id"].(string)
			got := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
			if want[i] == "" {
				if got["categorization_status"] != "READY_FOR_INPUT" || e.liveEntries(s.bid, id) != 1 {
					t.Fatalf("unmatched transaction = %v", got)
				}
				continue
			}
			if got["categorization_method"] != "SERVICE_AUTO" || got["category"].(map[string]any)["stable_name"] != want[i] || e.liveEntries(s.bid, id) != 1 {
				t.Fatalf("transaction %d = %v, want %s by SERVICE_AUTO", i, got, want[i])
			}
		}
		if b := e.balances(s.bid, s.tok, ""); b["OFFICE_EXPENSES"] != 1500 || b["MEALS"] != 500 || b["UNCATEGORIZED_EXPENSES"] != 700 {
			t.Fatalf("OFFICE_EXPENSES %d, MEALS %d, UNCATEGORIZED_EXPENSES %d", b["OFFICE_EXPENSES"], b["MEALS"], b["UNCATEGORIZED_EXPENSES"])
		}
	})

	t.Run("invalid", func(t *testing.T) {
		e := e.with(t)
		e.DoInvalid(req("POST", path, s.tok, map[string]any{"counterparty": map[string]any{"match": "REGEX", "pattern": "("}, "category": stable("MEALS")}), 400, banking.EnumInvalidRule)
		e.DoInvalid(req("POST", path, s.tok, map[string]any{"amount_min": 500, "amount_max": 100, "category": stable("MEALS")}), 400, banking.EnumInvalidRule)
		e.DoInvalid(req("POST", path, s.tok, map[string]any{"direction": "DEBIT", "category": stable("NO_SUCH_ACCOUNT")}), 400, domain.EnumUnknownAccount)
		e.DoInvalid(req("DELETE", path+"/"+uuid.NewString(), s.tok, nil), 404, app.EnumRuleNotFound)
		other := e.business("client-a", "US")
		e.DoInvalid(req("DELETE", base(other)+"/categorization-rules/"+broad["id"].(string), s.tok, nil), 404, app.EnumRuleNotFound)
	})

	t.Run("delete", func(t *testing.T) {
		e := e.with(t)
		resp, _ := e.V.Do(t, e.HTTP, req("DELETE", path+"/"+broad["id"].(string), s.tok, nil))
		if resp.StatusCode != 204 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if list := e.Do(req("GET", path, s.tok, nil), 200)["data"].([]any); len(list) != 1 {
			t.Fatalf("%d rules left", len(list))
		}
	})
}
