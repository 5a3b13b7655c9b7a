package service

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// txnSnapshots returns the acct.transactions.v1 snapshots enqueued for
// the business, by transaction id (the latest version of each).
func (e *env) txnSnapshots(bid uuid.UUID) map[string]events.BankTransactionUpserted {
	e.T.Helper()
	var rows [][]byte
	if err := e.DB.NewRaw("SELECT data FROM outbox WHERE topic = ? AND type = ? AND subject = ? ORDER BY seq",
		events.TopicTransactions, events.TypeBankTransactionUpserted, bid.String()).Scan(context.Background(), &rows); err != nil {
		e.T.Fatalf("outbox rows: %v", err)
	}
	out := map[string]events.BankTransactionUpserted{}
	for _, raw := range rows {
		var p events.BankTransactionUpserted
		if err := json.Unmarshal(raw, &p); err != nil {
			e.T.Fatal(err)
		}
		if p.Version > out[p.TransactionID.String()].Version {
			out[p.TransactionID.String()] = p
		}
	}
	return out
}

func (e *env) countRows(table string) int {
	e.T.Helper()
	var n int
	if err := e.DB.NewRaw("SELECT count(*) FROM "+table).Scan(context.Background(), &n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// customTxns posts transactions to a custom account and returns the rows.
func (e *env) customTxns(bid uuid.UUID, token, accountID string, txns []any, want int) []any {
	e.T.Helper()
	path := base(bid) + "/custom-accounts/" + accountID + "/transactions"
	return e.Do(req("POST", path, token, map[string]any{"transactions": txns}), want)["data"].([]any)
}

func TestCustomTransactions(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	other := e.business("client-a", "US")
	acct := e.customAccount(bid, tok, map[string]any{"account_name": "Cash box", "account_type": "DEPOSITORY", "mask": "0042"}, 201)
	acctID := acct["id"].(string)
	otherAcct := e.customAccount(other, tok, map[string]any{"account_name": "Other", "account_type": "DEPOSITORY"}, 201)["id"].(string)

	t.Run("create", func(t *testing.T) {
		e := e.with(t)
		rows := e.customTxns(bid, tok, acctID, []any{
			map[string]any{"external_id": "c-1", "amount": 11300, "direction": "DEBIT", "date": "2026-03-02",
				"description": "Lunch", "counterparty_name": "Cafe", "reference_number": "R-1", "memo": "team", "transaction_type": "Book",
				"metadata": map[string]any{"k": "v"}, "tags": []any{map[string]any{"key": "project", "value": "alpha"}}},
			map[string]any{"amount": 500, "direction": "INFLOW", "date": "2026-03-03T10:00:00Z"},
		}, 201)
		if len(rows) != 2 {
			t.Fatalf("answered %d rows", len(rows))
		}
		first, second := rows[0].(map[string]any), rows[1].(map[string]any)
		if first["source"] != "CUSTOM" || first["source_transaction_id"] != "c-1" || first["external_id"] != "c-1" ||
			cents(first["amount"]) != 11300 || first["direction"] != "DEBIT" || first["account_name"] != "Cash box" ||
			first["categorization_status"] != "READY_FOR_INPUT" || first["date"] != "2026-03-02T00:00:00Z" {
			t.Fatalf("first = %v", first)
		}
		if first["transaction_type"] != "Book" || second["transaction_type"] != nil {
			t.Fatalf("transaction_type = %v / %v", first["transaction_type"], second["transaction_type"])
		}
		if second["direction"] != "CREDIT" || second["source_transaction_id"] != second["id"] {
			t.Fatalf("second = %v (a CUSTOM transaction without external_id has its id as source_transaction_id)", second)
		}
		snaps := e.txnSnapshots(bid)
		s, ok := snaps[first["id"].(string)]
		if !ok {
			t.Fatalf("no snapshot of %v in %d", first["id"], len(snaps))
		}
		if s.Version != 1 || s.Date != "2026-03-02" || s.Amount != 11300 || s.SignedAmount != -11300 ||
			*s.Description != "Lunch" || *s.CounterpartyName != "Cafe" || *s.ReferenceNumber != "R-1" || *s.Memo != "team" ||
			*s.AccountName != "Cash box" || *s.AccountMask != "0042" || s.Status != "READY_FOR_INPUT" ||
			len(s.Tags) != 1 || s.Tags[0].Key != "project" || s.Tags[0].Value != "alpha" ||
			s.LedgerAccountID.String() != acct["ledger_account_id"] || s.CustomAccountID.String() != acctID {
			t.Fatalf("snapshot = %+v", s)
		}
		if snaps[second["id"].(string)].SignedAmount != 500 {
			t.Fatalf("money-in snapshot = %+v", snaps[second["id"].(string)])
		}
		stored, err := e.S.Banking.BankTransaction(context.Background(), bid, uuid.MustParse(first["id"].(string)))
		if err != nil || len(stored.Tags) != 1 || stored.Tags[0].CreatedAt.IsZero() {
			t.Fatalf("stored = %+v (%v)", stored, err)
		}
	})

	t.Run("idempotent on external_id", func(t *testing.T) {
		e := e.with(t)
		body := []any{
			map[string]any{"external_id": "i-1", "amount": 100, "direction": "DEBIT", "date": "2026-04-01"},
			map[string]any{"external_id": "i-2", "amount": 200, "direction": "DEBIT", "date": "2026-04-01"},
		}
		first := e.customTxns(bid, tok, acctID, body, 201)
		before, txns := e.counts(), e.countRows("bank_transactions")
		// A retry, with one new item: only the new one is created.
		again := e.customTxns(bid, tok, acctID, append(body, map[string]any{"external_id": "i-3", "amount": 300, "direction": "DEBIT", "date": "2026-04-01"}), 201)
		for i := range first {
			if again[i].(map[string]any)["id"] != first[i].(map[string]any)["id"] {
				t.Fatalf("retry answered %v, want %v", again[i], first[i])
			}
		}
		if n := e.countRows("bank_transactions"); n != txns+1 {
			t.Fatalf("%d transactions after the retry, want %d", n, txns+1)
		}
		// One snapshot and one ledger entry (the new transaction's
		// uncategorized posting).
		if c := e.counts(); c[2] != before[2]+2 || c[0] != before[0]+1 {
			t.Fatalf("outbox grew by %d, entries by %d; want 2 and 1", c[2]-before[2], c[0]-before[0])
		}
	})

	t.Run("a thousand in one call", func(t *testing.T) {
		e := e.with(t)
		items := make([]any, app.MaxCustomTransactions)
		for i := range items {
			items[i] = map[string]any{"external_id": fmt.Sprintf("bulk-%d", i), "amount": i + 1, "direction": "DEBIT", "date": "2026-05-01",
				"tags": []any{map[string]any{"key": "batch", "value": "b1"}}}
		}
		rows := e.customTxns(bid, tok, acctID, items, 201)
		if len(rows) != len(items) || rows[999].(map[string]any)["source_transaction_id"] != "bulk-999" {
			t.Fatalf("answered %d rows", len(rows))
		}
	})

	t.Run("invalid", func(t *testing.T) {
		valid := map[string]any{"amount": 1, "direction": "DEBIT", "date": "2026-01-01"}
		tooMany := make([]any, app.MaxCustomTransactions+1)
		for i := range tooMany {
			tooMany[i] = valid
		}
		for _, tt := range []struct {
			name string
			body any
			enum string
		}{
			{"not an object", `[]`, banking.EnumInvalidTransaction},
			{"no transactions", map[string]any{"transactions": []any{}}, banking.EnumNoTransactions},
			{"too many", map[string]any{"transactions": tooMany}, banking.EnumTooManyTransactions},
			{"missing amount", map[string]any{"transactions": []any{valid, map[string]any{"direction": "DEBIT", "date": "2026-01-01"}}}, banking.EnumInvalidTransaction},
			{"bad direction", map[string]any{"transactions": []any{map[string]any{"amount": 1, "direction": "UP", "date": "2026-01-01"}}}, banking.EnumInvalidTransaction},
			{"bad date", map[string]any{"transactions": []any{map[string]any{"amount": 1, "direction": "DEBIT", "date": "01/02/2026"}}}, banking.EnumInvalidTransaction},
			{"duplicate external_id", map[string]any{"transactions": []any{
				map[string]any{"external_id": "d", "amount": 1, "direction": "DEBIT", "date": "2026-01-01"},
				map[string]any{"external_id": "d", "amount": 2, "direction": "DEBIT", "date": "2026-01-01"}}}, banking.EnumDuplicateExternalID},
		} {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				before, txns := e.counts(), e.countRows("bank_transactions")
				e.DoInvalid(req("POST", base(bid)+"/custom-accounts/"+acctID+"/transactions", tok, tt.body), 400, tt.enum)
				if e.counts() != before || e.countRows("bank_transactions") != txns {
					t.Fatal("a refused call wrote rows")
				}
			})
		}
		for name, path := range map[string]string{
			"unknown custom account":     base(bid) + "/custom-accounts/" + uuid.NewString() + "/transactions",
			"another business's account": base(bid) + "/custom-accounts/" + otherAcct + "/transactions",
		} {
			t.Run(name, func(t *testing.T) {
				e := e.with(t)
				e.DoInvalid(req("POST", path, tok, map[string]any{"transactions": []any{valid}}), 404, app.EnumCustomAccountNotFound)
			})
		}
		t.Run("bad custom account id", func(t *testing.T) {
			e := e.with(t)
			e.DoInvalid(req("POST", base(bid)+"/custom-accounts/nope/transactions", tok, map[string]any{"transactions": []any{valid}}), 400, "")
		})
	})
}
