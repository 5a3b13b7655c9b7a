package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// importTxns posts a bulk import and returns the rows.
func (e *env) importTxns(bid uuid.UUID, token string, txns []any, want int) []any {
	e.T.Helper()
	return e.Do(req("POST", base(bid)+"/bank-transactions/bulk", token, map[string]any{"transactions": txns}), want)["data"].([]any)
}

func imported(source, id, account string, amount int, direction, date string) map[string]any {
	return map[string]any{"source": source, "source_transaction_id": id, "source_account_id": account,
		"amount": amount, "direction": direction, "date": date}
}

func TestImportTransactions(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")

	t.Run("external accounts per source account", func(t *testing.T) {
		e := e.with(t)
		a := imported("PROVIDER_1", "p1-1", "acc-1", 1000, "DEBIT", "2026-02-01")
		a["account_name"], a["counterparty_name"], a["description"] = "Chequing", "Hydro", "Power bill"
		a["transaction_type"] = "Book"
		rows := e.importTxns(bid, tok, []any{
			a,
			imported("PROVIDER_1", "p1-2", "acc-1", 2000, "CREDIT", "2026-02-02"),
			imported("PROVIDER_1", "p1-3", "acc-2", 3000, "DEBIT", "2026-02-03"),
			imported("API", "p1-1", "acc-1", 4000, "DEBIT", "2026-02-04"), // same ids, another source
		}, 201)
		r := func(i int) map[string]any { return rows[i].(map[string]any) }
		if r(0)["external_account_id"] == nil || r(0)["external_account_id"] != r(1)["external_account_id"] {
			t.Fatalf("one source account, two external accounts: %v / %v", r(0), r(1))
		}
		if r(2)["external_account_id"] == r(0)["external_account_id"] || r(3)["external_account_id"] == r(0)["external_account_id"] {
			t.Fatal("different source accounts share an external account")
		}
		// transaction_type is on every answer: as imported, or null.
		for i := range rows {
			if _, ok := r(i)["transaction_type"]; !ok {
				t.Fatalf("row %d has no transaction_type: %v", i, r(i))
			}
		}
		if r(0)["transaction_type"] != "Book" || r(1)["transaction_type"] != nil {
			t.Fatalf("transaction_type = %v / %v", r(0)["transaction_type"], r(1)["transaction_type"])
		}
		got := data(e.Do(req("GET", base(bid)+"/bank-transactions/"+r(0)["id"].(string), tok, nil), 200))
		if got["transaction_type"] != "Book" {
			t.Fatalf("read back transaction_type = %v", got["transaction_type"])
		}
		if r(0)["source"] != "PROVIDER_1" || r(0)["source_account_id"] != "acc-1" || r(0)["account_name"] != "Chequing" ||
			r(1)["account_name"] != "Chequing" || r(0)["counterparty_name"] != "Hydro" || r(3)["source"] != "API" {
			t.Fatalf("rows = %v", rows)
		}
		// Each external account has its ledger account under BANK_ACCOUNTS.
		if n := e.countRows("external_accounts"); n != 3 {
			t.Fatalf("%d external accounts, want 3", n)
		}
		chart := e.chart(bid, tok)
		bank := chart["BANK_ACCOUNTS"]["sub_accounts"].([]any)
		names := map[string]bool{}
		for _, n := range bank {
			names[n.(map[string]any)["name"].(string)] = true
		}
		if !names["Chequing"] || !names["acc-2"] {
			t.Fatalf("BANK_ACCOUNTS holds %v", names)
		}
		if snaps := e.txnSnapshots(bid); len(snaps) != 4 || snaps[r(0)["id"].(string)].ExternalAccountID == nil {
			t.Fatalf("%d snapshots", len(snaps))
		}
	})

	t.Run("idempotent on source and source_transaction_id", func(t *testing.T) {
		e := e.with(t)
		body := []any{imported("PROVIDER_2", "x-1", "acc-9", 100, "DEBIT", "2026-02-01")}
		first := e.importTxns(bid, tok, body, 201)
		before, accounts := e.counts(), e.countRows("external_accounts")
		again := e.importTxns(bid, tok, body, 201)
		if again[0].(map[string]any)["id"] != first[0].(map[string]any)["id"] {
			t.Fatalf("retry answered %v, want %v", again[0], first[0])
		}
		if e.counts() != before || e.countRows("external_accounts") != accounts {
			t.Fatal("the retry wrote rows")
		}
	})

	t.Run("a thousand rows", func(t *testing.T) {
		e := e.with(t)
		items := make([]any, banking.MaxImportItems)
		for i := range items {
			items[i] = imported("PROVIDER_3", fmt.Sprintf("big-%d", i), fmt.Sprintf("acc-%d", i%3), i+1, "DEBIT", "2026-03-01")
		}
		if rows := e.importTxns(bid, tok, items, 201); len(rows) != len(items) {
			t.Fatalf("answered %d rows", len(rows))
		}
	})

	t.Run("invalid", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			item map[string]any
			enum string
		}{
			{"CUSTOM is not importable", imported("CUSTOM", "a", "b", 1, "DEBIT", "2026-01-01"), banking.EnumInvalidTransaction},
			{"unknown source", imported("BANKCO", "a", "b", 1, "DEBIT", "2026-01-01"), banking.EnumInvalidTransaction},
			{"missing source_account_id", map[string]any{"source": "API", "source_transaction_id": "a", "amount": 1, "direction": "DEBIT", "date": "2026-01-01"}, banking.EnumInvalidTransaction},
			{"negative amount", imported("API", "a", "b", -5, "DEBIT", "2026-01-01"), ""},
			{"transaction_type too long", func() map[string]any {
				m := imported("API", "a", "b", 1, "DEBIT", "2026-01-01")
				m["transaction_type"] = strings.Repeat("x", banking.MaxTransactionTypeLength+1)
				return m
			}(), ""},
			{"transaction_type not a string", func() map[string]any {
				m := imported("API", "a", "b", 1, "DEBIT", "2026-01-01")
				m["transaction_type"] = 7
				return m
			}(), ""},
		} {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				before := e.counts()
				e.DoInvalid(req("POST", base(bid)+"/bank-transactions/bulk", tok, map[string]any{"transactions": []any{tt.item}}), 400, tt.enum)
				if e.counts() != before {
					t.Fatal("a refused import wrote rows")
				}
			})
		}
		t.Run("the same source id twice", func(t *testing.T) {
			e := e.with(t)
			item := imported("API", "twice", "b", 1, "DEBIT", "2026-01-01")
			e.DoInvalid(req("POST", base(bid)+"/bank-transactions/bulk", tok, map[string]any{"transactions": []any{item, item}}), 400, banking.EnumDuplicateExternalID)
		})
	})
}

// TestConcurrentImportsIntoOneBusiness: imports into one business overlap
// (their events are written last, so the business's ordering lock is held
// only for the commit); every call succeeds and every row is journaled.
func TestConcurrentImportsIntoOneBusiness(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	const clients, rows = 4, 200
	var wg sync.WaitGroup
	codes := make(chan int, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			items := make([]any, rows)
			for i := range items {
				items[i] = imported("API", fmt.Sprintf("c%d-%d", c, i), "acc", 100+i, "DEBIT", "2026-04-01")
			}
			res, err := e.HTTP.Test(req("POST", base(bid)+"/bank-transactions/bulk", tok, map[string]any{"transactions": items}), -1)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			codes <- res.StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != 201 {
			t.Errorf("a concurrent import answered %d, want 201", code)
		}
	}
	var txns, entries int
	if err := e.DB.NewRaw("SELECT (SELECT count(*) FROM bank_transactions WHERE business_id = ?), (SELECT count(*) FROM ledger_entries WHERE business_id = ?)",
		bid, bid).Scan(context.Background(), &txns, &entries); err != nil {
		t.Fatal(err)
	}
	if txns != clients*rows || entries != clients*rows {
		t.Fatalf("%d transactions and %d entries, want %d of each", txns, entries, clients*rows)
	}
}

// TestContendedImportIs503: a write that waits longer than DB_LOCK_TIMEOUT
// for a lock (here the business's event-ordering lock, held by another
// transaction) changes nothing and is answered 503 Contention with
// Retry-After, not 500.
func TestContendedImportIs503(t *testing.T) {
	e := newEnvWith(t, servicetest.ServiceOptions{Env: map[string]string{"DB_LOCK_TIMEOUT": "200ms"}})
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	ctx := context.Background()
	holder, err := e.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('acct_outbox_key:' || current_schema() || ':' || ?, 0))", bid.String()); err != nil {
		t.Fatal(err)
	}
	before := e.counts()
	res, err := e.HTTP.Test(req("POST", base(bid)+"/bank-transactions/bulk", tok, map[string]any{"transactions": []any{
		imported("API", "blocked-1", "acc", 100, "DEBIT", "2026-04-01"),
	}}), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 503 || body["type"] != "Unavailable" || res.Header.Get("Retry-After") == "" {
		t.Fatalf("contended import answered %d %v (Retry-After %q), want 503 Unavailable with Retry-After", res.StatusCode, body, res.Header.Get("Retry-After"))
	}
	if e.counts() != before {
		t.Fatal("the refused import wrote rows")
	}
	_ = holder.Rollback()
	e.importTxns(bid, tok, []any{imported("API", "blocked-1", "acc", 100, "DEBIT", "2026-04-01")}, 201)
}
