package service

import (
	"testing"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// TestArchiveAndRestore: DELETE /bank-transactions/{id} reverses the live
// entry (a reversal, nothing deleted), hides the transaction from the
// listing unless include_archived=true, keeps it readable by id, refuses
// changes until restored, and is idempotent; restore posts the
// categorization again; a bank feed's transaction cannot be archived.
func TestArchiveAndRestore(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("archive-a", "US")
	bank := s.account["ledger_account_id"].(string)
	id := s.txn(4200, "DEBIT", "2026-05-01")
	keep := s.txn(100, "DEBIT", "2026-05-02")
	s.categorize(e, "PUT", id, single(stable("MEALS")), 200)
	listed := func(query string) map[string]bool {
		out := map[string]bool{}
		for _, x := range e.Do(req("GET", base(s.bid)+"/bank-transactions"+query, s.tok, nil), 200)["data"].([]any) {
			out[x.(map[string]any)["id"].(string)] = true
		}
		return out
	}

	got := data(e.Do(req("DELETE", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
	if got["id"] != id || got["archived_at"] == nil || got["categorization_status"] != "CATEGORIZED" {
		t.Fatalf("archived = %v", got)
	}
	if b := e.balances(s.bid, s.tok, ""); b["MEALS"] != 0 || b[bank] != -100 {
		t.Fatalf("after archiving: MEALS %d, bank %d", b["MEALS"], b[bank])
	}
	// The uncategorized entry and its reversal, the MEALS entry and its
	// reversal: nothing deleted, nothing live.
	entries := s.view([]string{id})[0].Entries
	if entries != 4 || e.liveEntries(s.bid, id) != 0 {
		t.Fatalf("%d entries, %d live after archiving", entries, e.liveEntries(s.bid, id))
	}
	if l := listed(""); l[id] || !l[keep] {
		t.Fatalf("default listing %v", l)
	}
	if l := listed("?include_archived=true"); !l[id] || !l[keep] {
		t.Fatalf("include_archived listing %v", l)
	}
	if snap := e.txnSnapshots(s.bid)[id]; snap.ArchivedAt == nil {
		t.Fatalf("snapshot %+v has no archived_at", snap)
	}
	again := data(e.Do(req("DELETE", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200))
	if again["archived_at"] != got["archived_at"] || s.view([]string{id})[0].Entries != entries {
		t.Fatalf("archiving again changed %v", again)
	}
	e.DoInvalid(req("PUT", base(s.bid)+"/bank-transactions/"+id+"/categorize", s.tok, single(stable("RENT"))), 409, banking.EnumTransactionArchived)
	e.DoInvalid(req("POST", base(s.bid)+"/bank-transactions/"+id+"/uncategorize", s.tok, nil), 409, banking.EnumTransactionArchived)
	e.DoInvalid(req("POST", base(s.bid)+"/bank-transactions/bulk-categorize", s.tok, map[string]any{"transactions": []any{
		map[string]any{"transaction_id": id, "categorization": single(stable("RENT"))}}}), 409, banking.EnumTransactionArchived)
	if g := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200)); g["archived_at"] == nil {
		t.Fatalf("read by id: %v", g)
	}

	restored := data(e.Do(req("POST", base(s.bid)+"/bank-transactions/"+id+"/restore", s.tok, nil), 200))
	if restored["archived_at"] != nil || restored["categorization_status"] != "CATEGORIZED" || e.liveEntries(s.bid, id) != 1 {
		t.Fatalf("restored = %v, live entries %d", restored, e.liveEntries(s.bid, id))
	}
	if b := e.balances(s.bid, s.tok, ""); b["MEALS"] != 4200 || b[bank] != -4300 {
		t.Fatalf("after restoring: MEALS %d, bank %d", b["MEALS"], b[bank])
	}
	if l := listed(""); !l[id] {
		t.Fatal("a restored transaction is not listed")
	}
	entries = s.view([]string{id})[0].Entries
	e.Do(req("POST", base(s.bid)+"/bank-transactions/"+id+"/restore", s.tok, nil), 200)
	if s.view([]string{id})[0].Entries != entries {
		t.Fatal("restoring a live transaction posted")
	}

	t.Run("uncategorized and restored", func(t *testing.T) {
		e := e.with(t)
		data(e.Do(req("DELETE", base(s.bid)+"/bank-transactions/"+keep, s.tok, nil), 200))
		if b := e.balances(s.bid, s.tok, ""); b["UNCATEGORIZED_EXPENSES"] != 0 {
			t.Fatalf("UNCATEGORIZED_EXPENSES %d", b["UNCATEGORIZED_EXPENSES"])
		}
		got := data(e.Do(req("POST", base(s.bid)+"/bank-transactions/"+keep+"/restore", s.tok, nil), 200))
		if got["categorization_status"] != "READY_FOR_INPUT" || e.liveEntries(s.bid, keep) != 1 {
			t.Fatalf("restored = %v", got)
		}
		if b := e.balances(s.bid, s.tok, ""); b["UNCATEGORIZED_EXPENSES"] != 100 {
			t.Fatalf("UNCATEGORIZED_EXPENSES %d", b["UNCATEGORIZED_EXPENSES"])
		}
	})

	t.Run("a bank feed's transaction", func(t *testing.T) {
		e := e.with(t)
		rows := e.importTxns(s.bid, s.tok, []any{imported("PROVIDER_1", "feed-1", "acc-1", 500, "DEBIT", "2026-05-03")}, 201)
		fid := rows[0].(map[string]any)["id"].(string)
		e.DoInvalid(req("DELETE", base(s.bid)+"/bank-transactions/"+fid, s.tok, nil), 409, banking.EnumNotArchivable)
		api := e.importTxns(s.bid, s.tok, []any{imported("API", "api-1", "acc-1", 500, "DEBIT", "2026-05-03")}, 201)
		e.Do(req("DELETE", base(s.bid)+"/bank-transactions/"+api[0].(map[string]any)["id"].(string), s.tok, nil), 200)
	})
}
