package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// The client SDK's rule calls: a draft with a counterparty, applied
// retroactively; PATCH; archive; the list's query; and rule suggestions.
func TestCategorizationRulesClient(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	acct := s.account["id"].(string)
	path := base(s.bid) + "/categorization-rules"
	rows := e.customTxns(s.bid, s.tok, acct, []any{
		map[string]any{"amount": 1200, "direction": "DEBIT", "date": "2026-05-01", "counterparty_name": "Blue Bottle #1212", "description": "coffee"},
		map[string]any{"amount": 900, "direction": "DEBIT", "date": "2026-05-02", "counterparty_name": "BLUE BOTTLE 0044", "description": "coffee"},
		map[string]any{"amount": 90000, "direction": "DEBIT", "date": "2026-05-03", "counterparty_name": "Blue Bottle", "description": "catering"},
		map[string]any{"amount": 500, "direction": "CREDIT", "date": "2026-05-04", "counterparty_name": "Blue Bottle", "description": "refund"},
		map[string]any{"amount": 700, "direction": "DEBIT", "date": "2026-05-05", "counterparty_name": "Hardware store"},
	}, 201)
	id := func(i int) string { return rows[i].(map[string]any)["id"].(string) }
	cp := banking.CounterpartyID(s.bid, "blue bottle").String()

	rule := data(e.Do(req("POST", path, s.tok, map[string]any{
		"name": "Coffee", "category": stable("MEALS"), "counterparty_filter": cp, "bank_direction_filter": "MONEY_OUT",
		"amount_max_filter": 5000, "apply_retroactively": true, "external_id": "rule-1",
		"suggestion_1": stable("OFFICE_EXPENSES"), "mcc_filter": nil, "bank_transaction_type_filter": nil,
	}), 201))
	if rule["business_id"] != s.bid.String() || rule["bank_direction_filter"] != "MONEY_OUT" || rule["direction"] != "DEBIT" ||
		cents(rule["amount_max_filter"]) != 5000 || rule["counterparty_filter"].(map[string]any)["id"] != cp ||
		rule["suggestion_1"].(map[string]any)["stable_name"] != "OFFICE_EXPENSES" || rule["archived_at"] != nil || rule["updated_at"] == nil {
		t.Fatalf("rule = %v", rule)
	}
	// Retroactively: the two small coffee debits, not the catering (above
	// the max), the refund (money in) nor another counterparty.
	for i, want := range []string{"MEALS", "MEALS", "", "", ""} {
		got := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id(i), s.tok, nil), 200))
		cat, _ := got["category"].(map[string]any)
		if (want == "") != (cat == nil) || (cat != nil && (cat["stable_name"] != want || got["categorization_method"] != "SERVICE_AUTO")) {
			t.Fatalf("transaction %d = %v, want %q", i, got, want)
		}
		if e.liveEntries(s.bid, id(i)) != 1 {
			t.Fatalf("transaction %d has %d live entries", i, e.liveEntries(s.bid, id(i)))
		}
	}
	// The same external id answers the rule, unchanged.
	again := data(e.Do(req("POST", path, s.tok, map[string]any{"external_id": "rule-1", "category": stable("MEALS"), "bank_direction_filter": "MONEY_IN"}), 200))
	if again["id"] != rule["id"] || again["bank_direction_filter"] != "MONEY_OUT" {
		t.Fatalf("again = %v", again)
	}
	ruleID := rule["id"].(string)

	t.Run("patch", func(t *testing.T) {
		e := e.with(t)
		p := data(e.Do(req("PATCH", path+"/"+ruleID, s.tok, map[string]any{"amount_max_filter": nil, "transaction_description_filter": "coffee", "name": "Coffee shops"}), 200))
		if p["amount_max_filter"] != nil || p["readable_transaction_description_filter"] != "coffee" || p["name"] != "Coffee shops" || p["bank_direction_filter"] != "MONEY_OUT" {
			t.Fatalf("patched = %v", p)
		}
		e.DoInvalid(req("PATCH", path+"/"+ruleID, s.tok, map[string]any{"bank_direction_filter": "UP"}), 400, banking.EnumInvalidRule)
		e.DoInvalid(req("PATCH", path+"/"+ruleID, s.tok, map[string]any{"apply_retroactively": true}), 400, banking.EnumInvalidRule)
		e.DoInvalid(req("PATCH", path+"/"+uuid.NewString(), s.tok, map[string]any{"name": "x"}), 404, app.EnumRuleNotFound)
	})

	t.Run("invalid", func(t *testing.T) {
		e := e.with(t)
		e.DoInvalid(req("POST", path, s.tok, map[string]any{"category": stable("MEALS"), "counterparty_filter": uuid.NewString()}), 400, banking.EnumInvalidRule)
		e.DoInvalid(req("POST", path, s.tok, map[string]any{"category": stable("MEALS")}), 400, banking.EnumInvalidRule)
		e.DoInvalid(req("POST", path, s.tok, map[string]any{"category": stable("MEALS"), "bank_direction_filter": "MONEY_IN", "mcc_filter": "5812"}), 400, banking.EnumInvalidRule)
	})

	t.Run("list and archive", func(t *testing.T) {
		e := e.with(t)
		second := data(e.Do(req("POST", path, s.tok, map[string]any{"category": stable("OFFICE_EXPENSES"), "business_name_filter": "hardware", "external_id": "rule-2"}), 201))
		list := e.Do(req("GET", path+"?sort_by=created_at&sort_order=DESC&show_total_count=true&limit=1", s.tok, nil), 200)
		items := list["data"].([]any)
		pg := list["meta"].(map[string]any)["pagination"].(map[string]any)
		if len(items) != 1 || items[0].(map[string]any)["id"] != second["id"] || pg["total_count"].(float64) != 2 || pg["has_more"] != true {
			t.Fatalf("list = %v", list)
		}
		next := e.Do(req("GET", path+"?sort_by=created_at&sort_order=DESC&limit=1&show_total_count=true&cursor="+pg["cursor"].(string), s.tok, nil), 200)
		if items := next["data"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != ruleID {
			t.Fatalf("page 2 = %v", next)
		}
		arch := data(e.Do(req("POST", path+"/"+second["id"].(string)+"/archive", s.tok, nil), 200))
		if arch["archived_at"] == nil {
			t.Fatalf("archived = %v", arch)
		}
		if items := e.Do(req("GET", path, s.tok, nil), 200)["data"].([]any); len(items) != 1 {
			t.Fatalf("%d rules listed without include_archived", len(items))
		}
		if items := e.Do(req("GET", path+"?include_archived=true&external_ids=rule-2&external_ids=nope", s.tok, nil), 200)["data"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != second["id"] {
			t.Fatalf("include_archived list = %v", items)
		}
		if items := e.Do(req("GET", path+"?q=coffee", s.tok, nil), 200)["data"].([]any); len(items) != 1 {
			t.Fatalf("q list = %v", items)
		}
		// An archived rule no longer applies on import.
		got := e.customTxns(s.bid, s.tok, acct, []any{map[string]any{"amount": 100, "direction": "DEBIT", "date": "2026-05-06", "counterparty_name": "Hardware store"}}, 201)
		if got[0].(map[string]any)["categorization_status"] != "READY_FOR_INPUT" {
			t.Fatalf("archived rule applied: %v", got[0])
		}
	})

	t.Run("suggestions", func(t *testing.T) {
		e := e.with(t)
		more := e.customTxns(s.bid, s.tok, acct, []any{
			map[string]any{"amount": 4000, "direction": "DEBIT", "date": "2026-06-01", "counterparty_name": "Office Depot"},
			map[string]any{"amount": 2500, "direction": "DEBIT", "date": "2026-06-02", "counterparty_name": "OFFICE DEPOT #7777"},
			map[string]any{"amount": 3000, "direction": "DEBIT", "date": "2026-06-03", "counterparty_name": "Office Depot"},
			map[string]any{"amount": 100, "direction": "DEBIT", "date": "2026-06-01", "counterparty_name": "Staples"},
			map[string]any{"amount": 200, "direction": "DEBIT", "date": "2026-06-02", "counterparty_name": "Staples"},
		}, 201)
		mid := func(i int) string { return more[i].(map[string]any)["id"].(string) }
		got := s.categorize(e, "PUT", mid(0), single(stable("OFFICE_EXPENSES")), 200)
		sg, _ := got["update_categorization_rules_suggestion"].(map[string]any)
		if sg == nil || sg["type"] != "Create_Categorization_Rule_For_Counterparty" || len(sg["transactions_that_will_be_affected"].([]any)) != 2 {
			t.Fatalf("suggestion = %v", got["update_categorization_rules_suggestion"])
		}
		newRule := sg["new_rule"].(map[string]any)
		if newRule["counterparty_filter"] != banking.CounterpartyID(s.bid, "office depot").String() || newRule["created_by_suggestion_id"] != sg["id"] {
			t.Fatalf("new_rule = %v", newRule)
		}
		// Accepting: POST the new_rule; the others are categorized.
		data(e.Do(req("POST", path, s.tok, newRule), 201))
		for _, i := range []int{1, 2} {
			if c := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+mid(i), s.tok, nil), 200))["category"]; c == nil {
				t.Fatalf("transaction %d left uncategorized", i)
			}
		}
		if again := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+mid(0), s.tok, nil), 200)); again["update_categorization_rules_suggestion"] != nil {
			t.Fatalf("accepted suggestion still offered: %v", again["update_categorization_rules_suggestion"])
		}
		// Rejecting: not offered again for that counterparty.
		got = s.categorize(e, "PUT", mid(3), single(stable("OFFICE_EXPENSES")), 200)
		sg = got["update_categorization_rules_suggestion"].(map[string]any)
		e.NoContent(req("DELETE", path+"/suggestions/"+sg["id"].(string), s.tok, nil))
		e.NoContent(req("DELETE", path+"/suggestions/"+sg["id"].(string), s.tok, nil))
		if got := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+mid(3), s.tok, nil), 200)); got["update_categorization_rules_suggestion"] != nil {
			t.Fatalf("rejected suggestion offered: %v", got)
		}
		e.DoInvalid(req("DELETE", path+"/suggestions/"+uuid.NewString(), s.tok, nil), 404, app.EnumRuleSuggestionNotFound)
	})
}
