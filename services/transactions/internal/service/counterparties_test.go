package service

import (
	"testing"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// TestCounterparties: the counterparties are the business's transactions'
// names, one per normalised name (store numbers and case do not count),
// with the id the transactions' counterparty_id carries; listed by name
// with the spec's pagination, filtered by q and external_ids; another
// business sees its own only.
func TestCounterparties(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("cp-a", "US")
	rows := e.customTxns(s.bid, s.tok, s.account["id"].(string), []any{
		map[string]any{"amount": 100, "direction": "DEBIT", "date": "2026-01-01", "counterparty_name": "TIM HORTONS #2345"},
		map[string]any{"amount": 200, "direction": "DEBIT", "date": "2026-01-02", "counterparty_name": "Tim Hortons 0917"},
		map[string]any{"amount": 300, "direction": "DEBIT", "date": "2026-01-03", "counterparty_name": "Blue Bottle"},
		map[string]any{"amount": 400, "direction": "CREDIT", "date": "2026-01-04", "counterparty_name": "Acme Corp"},
		map[string]any{"amount": 500, "direction": "CREDIT", "date": "2026-01-05"},
	}, 201)
	idOf := func(i int) any { return rows[i].(map[string]any)["counterparty_id"] }
	if idOf(0) == nil || idOf(0) != idOf(1) || idOf(0) == idOf(2) || idOf(4) != nil {
		t.Fatalf("counterparty ids %v %v %v %v", idOf(0), idOf(1), idOf(2), idOf(4))
	}
	list := func(query string) ([]map[string]any, map[string]any) {
		m := e.Do(req("GET", base(s.bid)+"/counterparties"+query, s.tok, nil), 200)
		var out []map[string]any
		for _, x := range m["data"].([]any) {
			out = append(out, x.(map[string]any))
		}
		return out, m["meta"].(map[string]any)["pagination"].(map[string]any)
	}
	all, pg := list("?show_total_count=true")
	if len(all) != 3 || cents(pg["total_count"]) != 3 || all[0]["name"] != "Acme Corp" || all[1]["name"] != "Blue Bottle" ||
		all[2]["name"] != "TIM HORTONS #2345" || all[2]["id"] != idOf(0) {
		t.Fatalf("counterparties = %v", all)
	}
	if _, has := all[0]["external_id"]; has || len(all[0]["mccs"].([]any)) != 0 || all[0]["website"] != nil {
		t.Fatalf("shape = %v", all[0])
	}
	txn := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+rows[3].(map[string]any)["id"].(string), s.tok, nil), 200))
	if txn["counterparty_id"] != all[0]["id"] {
		t.Fatalf("transaction counterparty_id %v, counterparty %v", txn["counterparty_id"], all[0]["id"])
	}
	// One at a time, newest name first.
	var walked []string
	query := "?limit=1&sort_by=name&sort_order=DESC"
	for range 5 {
		page, pg := list(query)
		for _, c := range page {
			walked = append(walked, c["name"].(string))
		}
		if pg["has_more"] != true {
			break
		}
		query = "?limit=1&sort_by=name&sort_order=DESC&cursor=" + pg["cursor"].(string)
	}
	if len(walked) != 3 || walked[0] != "TIM HORTONS #2345" || walked[2] != "Acme Corp" {
		t.Fatalf("walked %v", walked)
	}
	if got, _ := list("?q=bott"); len(got) != 1 || got[0]["name"] != "Blue Bottle" {
		t.Fatalf("q=bott: %v", got)
	}
	if got, _ := list("?external_ids=x&external_ids=y"); len(got) != 0 {
		t.Fatalf("external_ids: %v", got)
	}
	// Another business has its own.
	other := e.bankSetup("cp-b", "US")
	if got := e.Do(req("GET", base(other.bid)+"/counterparties", other.tok, nil), 200)["data"].([]any); len(got) != 0 {
		t.Fatalf("another business sees %v", got)
	}
	e.DoInvalid(req("GET", base(s.bid)+"/counterparties?sort_by=amount", s.tok, nil), 400, "")
	e.DoInvalid(req("GET", base(s.bid)+"/counterparties?q=a&q=b", s.tok, nil), 400, banking.EnumInvalidFilter)
}
