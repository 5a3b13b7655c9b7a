package service

import (
	"fmt"
	"testing"
	"time"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// TestBulkCategorizeAtTheLimit: 500 transactions, the most one call takes,
// are categorized in one call (and 501 are refused by the parser tests).
func TestBulkCategorizeAtTheLimit(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("bulk-limit", "US")
	var items, batch []any
	for i := range banking.MaxBulkTransactions {
		items = append(items, map[string]any{"amount": 100 + i, "direction": "DEBIT", "date": "2026-02-01", "counterparty_name": fmt.Sprint("Vendor ", i%7)})
	}
	var ids []string
	for _, r := range e.customTxns(s.bid, s.tok, s.account["id"].(string), items, 201) {
		ids = append(ids, r.(map[string]any)["id"].(string))
	}
	for i, id := range ids {
		body := single(stable("MEALS"))
		if i%3 == 0 {
			body = map[string]any{"type": "Split", "entries": []any{
				map[string]any{"category": stable("RENT"), "amount": 50}, map[string]any{"category": stable("TRAVEL"), "amount": 50 + i}}}
		}
		batch = append(batch, map[string]any{"transaction_id": id, "categorization": body})
	}
	start := time.Now()
	res := data(e.Do(req("POST", base(s.bid)+"/bank-transactions/bulk-categorize", s.tok, map[string]any{"transactions": batch}), 200))
	t.Logf("500 categorizations in one call: %v", time.Since(start))
	if n := len(res["categorized_results"].([]any)); n != banking.MaxBulkTransactions {
		t.Fatalf("%d results", n)
	}
	var want int64
	for i := range ids {
		want += int64(100 + i)
	}
	b := e.balances(s.bid, s.tok, "")
	if got := b["MEALS"] + b["RENT"] + b["TRAVEL"]; got != want || b["UNCATEGORIZED_EXPENSES"] != 0 {
		t.Fatalf("categorized %d of %d, uncategorized %d", got, want, b["UNCATEGORIZED_EXPENSES"])
	}
}
