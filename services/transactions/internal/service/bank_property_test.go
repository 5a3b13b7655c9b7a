package service

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/acctsuite/acct/services/transactions/internal/app"
)

// TestBankLedgerProperties runs random imports, categorizations and
// recategorizations (single, split, exclusions, duplicates) and checks
// after each round that the bank account's ledger balance equals the
// signed sum of its transactions (duplicates excluded: a duplicate is not
// money), that no transaction has more than one live entry, and that
// every live entry balances.
func TestBankLedgerProperties(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-p", "US")
	bank := s.account["ledger_account_id"].(string)
	rng := rand.New(rand.NewPCG(7, 11))
	type txn struct {
		id        string
		signed    int64
		amount    int64
		duplicate bool
	}
	var txns []*txn
	cats := []string{"MEALS", "RENT", "SALES", "OFFICE_EXPENSES", "OWNERS_CAPITAL"}
	for round := range 6 {
		// Import a batch.
		var items []any
		for range 5 + rng.IntN(6) {
			amount := int64(1 + rng.IntN(50000))
			dir := "DEBIT"
			if rng.IntN(3) == 0 {
				dir = "CREDIT"
			}
			items = append(items, map[string]any{"amount": amount, "direction": dir, "date": fmt.Sprintf("2026-0%d-1%d", 1+round, rng.IntN(9))})
		}
		rows := e.customTxns(s.bid, s.tok, s.account["id"].(string), items, 201)
		for i, r := range rows {
			it := items[i].(map[string]any)
			a := it["amount"].(int64)
			signed := a
			if it["direction"] == "DEBIT" {
				signed = -a
			}
			txns = append(txns, &txn{id: r.(map[string]any)["id"].(string), signed: signed, amount: a})
		}
		// Categorize random transactions, some many times.
		for range 15 {
			x := txns[rng.IntN(len(txns))]
			var body map[string]any
			switch k := rng.IntN(10); {
			case k < 5:
				body = single(stable(cats[rng.IntN(len(cats))]))
			case k < 7 && x.amount > 1:
				part := 1 + rng.Int64N(x.amount-1)
				body = map[string]any{"type": "Split", "entries": []any{
					map[string]any{"category": stable(cats[rng.IntN(len(cats))]), "amount": part},
					map[string]any{"category": exclusion("TRANSFER_BETWEEN_ACCOUNTS"), "amount": x.amount - part}}}
			case k < 9:
				body = single(exclusion([]string{"PERSONAL_EXPENSES", "PERSONAL_INFLOWS", "TRANSFER_BETWEEN_ACCOUNTS"}[rng.IntN(3)]))
			default:
				body = single(exclusion("DUPLICATE_TRANSACTION"))
			}
			s.categorize(e, "PUT", x.id, body, 200)
			x.duplicate = body["category"] != nil && body["category"].(map[string]any)["exclusion_type"] == "DUPLICATE_TRANSACTION"
		}
		var want int64
		for _, x := range txns {
			if !x.duplicate {
				want += x.signed
			}
			if n := e.liveEntries(s.bid, x.id); n > 1 || (n == 0) != x.duplicate {
				t.Fatalf("round %d: transaction %s has %d live entries (duplicate: %v)", round, x.id, n, x.duplicate)
			}
		}
		if got := e.balances(s.bid, s.tok, "")[bank]; got != want {
			t.Fatalf("round %d: bank balance %d, signed sum of the transactions %d", round, got, want)
		}
		var unbalanced int
		err := e.DB.NewRaw(`SELECT count(*) FROM (SELECT e.id FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
			WHERE e.business_id = ? AND e.source_type = ?
			GROUP BY e.id HAVING sum(CASE WHEN l.direction = 'DEBIT' THEN l.amount ELSE -l.amount END) <> 0) u`,
			s.bid, app.SourceBankTransaction).Scan(context.Background(), &unbalanced)
		if err != nil || unbalanced != 0 {
			t.Fatalf("round %d: %d unbalanced entries (%v)", round, unbalanced, err)
		}
	}
}
