package service

import "testing"

func TestSmoke(t *testing.T) {
	e := newEnv(t)
	bid := e.business("client-a", "CA")
	tok := e.token("client-a")
	ch := e.chart(bid, tok)
	if ch["SALES_TAXES_RECEIVABLE"] == nil || ch["MEALS"] == nil {
		t.Fatalf("chart = %v", ch)
	}
	je := e.post(bid, tok, map[string]any{
		"external_id": "x1", "entry_at": "2026-01-15", "memo": "opening",
		"line_items": []any{line(stable("CASH"), 1000, "DEBIT"), line(stable("OPENING_BALANCE_EQUITY"), "1000", "CREDIT")},
		"tags":       []any{map[string]any{"key": "project", "value": "alpha"}},
	}, 201)
	t.Logf("%v", je)
	bal := e.do(req("GET", base(bid)+"/ledger/balances", tok, nil), 200)
	t.Logf("%v", bal)
	list := e.do(req("GET", base(bid)+"/ledger/entries", tok, nil), 200)
	t.Logf("%v", list)
	cats := e.do(req("GET", base(bid)+"/categories?mode=ALL", tok, nil), 200)
	_ = cats
	rev := e.do(req("POST", base(bid)+"/ledger/entries/"+je["entry_id"].(string)+"/reverse", tok, nil), 201)
	t.Logf("%v", rev)
}
