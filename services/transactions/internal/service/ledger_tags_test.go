package service

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
)

// pnlByTag sums what the reports service would see: the signed amounts
// of the REVENUE and EXPENSE lines of every ledger.entry.posted event of
// the business, by "key=value" of each line's tags ("" for every line).
func (e *env) pnlByTag(bid uuid.UUID) map[string]int64 {
	e.T.Helper()
	var rows [][]byte
	if err := e.DB.NewRaw("SELECT data FROM outbox WHERE topic = ? AND type = ? AND subject = ? ORDER BY seq",
		events.TopicLedger, events.TypeLedgerEntryPosted, bid.String()).Scan(context.Background(), &rows); err != nil {
		e.T.Fatalf("outbox rows: %v", err)
	}
	out := map[string]int64{}
	for _, raw := range rows {
		var p events.LedgerEntryPosted
		if err := json.Unmarshal(raw, &p); err != nil {
			e.T.Fatal(err)
		}
		for _, l := range p.Lines {
			if l.AccountType != "REVENUE" && l.AccountType != "EXPENSE" {
				continue
			}
			out[""] += l.SignedAmount
			for _, tg := range l.Tags {
				out[tg.Key+"="+tg.Value] += l.SignedAmount
			}
		}
	}
	for k, v := range out {
		if v == 0 && k != "" {
			delete(out, k)
		}
	}
	return out
}

// liveLineTags is, for the transaction's live entry read through GET
// /ledger/entries, each line's account stable name (or id) with the sorted
// "key=value" of its transaction_tags; and the entry's own tags.
func (e *env) liveLineTags(bid uuid.UUID, tok, txnID string) (lines map[string][]string, entry []string) {
	e.T.Helper()
	list := e.Do(req("GET", base(bid)+"/ledger/entries?limit=100", tok, nil), 200)["data"].([]any)
	lines = map[string][]string{}
	found := 0
	for _, x := range list {
		en := x.(map[string]any)
		if en["source_id"] != txnID || en["reversal_of_id"] != nil || en["reversal_id"] != nil {
			continue
		}
		found++
		entry = kvList(en["transaction_tags"].([]any))
		for _, l := range en["line_items"].([]any) {
			line := l.(map[string]any)
			acct := line["account"].(map[string]any)
			name, _ := acct["stable_name"].(string)
			if name == "" {
				name = acct["id"].(string)
			}
			lines[name] = kvList(line["transaction_tags"].([]any))
		}
	}
	if found != 1 {
		e.T.Fatalf("%d live entries of %s in GET /ledger/entries", found, txnID)
	}
	return lines, entry
}

func kvList(ts []any) []string {
	out := []string{}
	for _, t := range ts {
		m := t.(map[string]any)
		out = append(out, m["key"].(string)+"="+m["value"].(string))
	}
	slices.Sort(out)
	return out
}

// TestTagsReachTheLedger: every path that gives a bank transaction a tag
// reaches the lines of its live journal entry, and so the P&L filtered by
// the tag; a tag change is a reversal and a new entry, never an edit.
func TestTagsReachTheLedger(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	acct := s.account["id"].(string)
	bank := s.account["ledger_account_id"].(string)
	north := map[string]any{"key": "location", "value": "north"}
	south := map[string]any{"key": "location", "value": "south"}
	proj := map[string]any{"key": "project", "value": "alpha"}
	tagged := func(amount int64, direction string, ts ...map[string]any) string {
		e.T.Helper()
		rows := e.customTxns(s.bid, s.tok, acct, []any{map[string]any{"amount": amount, "direction": direction,
			"date": "2026-05-10", "counterparty_name": "Supplier", "tags": ts}}, 201)
		return rows[0].(map[string]any)["id"].(string)
	}
	wantPnL := func(t *testing.T, want map[string]int64) {
		t.Helper()
		if got := e.pnlByTag(s.bid); !maps.Equal(got, want) {
			t.Fatalf("P&L by tag = %v, want %v", got, want)
		}
	}
	wantLines := func(t *testing.T, id string, want map[string][]string) {
		t.Helper()
		got, _ := e.liveLineTags(s.bid, s.tok, id)
		for name, tags := range want {
			if !slices.Equal(got[name], tags) {
				t.Fatalf("line %s tags = %v, want %v (all lines %v)", name, got[name], tags, got)
			}
		}
	}

	// Money out of 1,000 tagged north: uncategorized, then categorized.
	a := tagged(1000, "DEBIT", north)
	wantLines(t, a, map[string][]string{"UNCATEGORIZED_EXPENSES": {"location=north"}, bank: {"location=north"}})
	wantPnL(t, map[string]int64{"": 1000, "location=north": 1000})
	s.categorize(e, "PUT", a, single(stable("MEALS")), 200)
	wantLines(t, a, map[string][]string{"MEALS": {"location=north"}})
	wantPnL(t, map[string]int64{"": 1000, "location=north": 1000})

	t.Run("bulk import", func(t *testing.T) {
		e := e.with(t)
		item := imported("API", "tagged-bulk-1", "bulk-acc", 300, "CREDIT", "2026-05-11")
		item["tags"] = []any{proj}
		id := e.importTxns(s.bid, s.tok, []any{item}, 201)[0].(map[string]any)["id"].(string)
		wantLines(t, id, map[string][]string{"UNCATEGORIZED_REVENUE": {"project=alpha"}})
		wantPnL(t, map[string]int64{"": 700, "location=north": 1000, "project=alpha": -300})
		s.categorize(e, "POST", id, single(stable("SALES")), 200)
		wantLines(t, id, map[string][]string{"SALES": {"project=alpha"}})
		wantPnL(t, map[string]int64{"": 700, "location=north": 1000, "project=alpha": -300})
	})

	t.Run("split entries add their own tags", func(t *testing.T) {
		e := e.with(t)
		id := tagged(500, "DEBIT", north)
		s.categorize(e, "PUT", id, map[string]any{"type": "Split", "entries": []any{
			map[string]any{"category": stable("OFFICE_EXPENSES"), "amount": 200, "tags": []any{proj}},
			map[string]any{"category": stable("TRAVEL"), "amount": 300},
		}}, 200)
		wantLines(t, id, map[string][]string{"OFFICE_EXPENSES": {"location=north", "project=alpha"}, "TRAVEL": {"location=north"}})
		wantPnL(t, map[string]int64{"": 1200, "location=north": 1500, "project=alpha": -100})
	})

	t.Run("POST and DELETE /bank-transactions/tags repost the entry", func(t *testing.T) {
		e := e.with(t)
		before := e.liveEntries(s.bid, a)
		added := data(e.Do(req("POST", base(s.bid)+"/bank-transactions/tags", s.tok, map[string]any{
			"transaction_ids": []any{a}, "key_values": []any{south}}), 200))["tags"].([]any)
		if len(added) != 1 || before != 1 || e.liveEntries(s.bid, a) != 1 {
			t.Fatalf("added %v; live entries %d → %d", added, before, e.liveEntries(s.bid, a))
		}
		wantLines(t, a, map[string][]string{"MEALS": {"location=north", "location=south"}})
		wantPnL(t, map[string]int64{"": 1200, "location=north": 1500, "location=south": 1000, "project=alpha": -100})
		// The old entry stands, reversed with the tags it had: nothing was edited.
		var reversed int
		if err := e.DB.NewRaw(`SELECT count(*) FROM ledger_entries WHERE business_id = ? AND source_id = ? AND reversal_id IS NOT NULL`,
			s.bid, a).Scan(context.Background(), &reversed); err != nil || reversed != 2 {
			t.Fatalf("%d reversed entries of the transaction (uncategorized, first categorization), %v", reversed, err)
		}
		var northID string
		for _, tg := range data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+a, s.tok, nil), 200))["transaction_tags"].([]any) {
			if tg.(map[string]any)["value"] == "north" {
				northID = tg.(map[string]any)["id"].(string)
			}
		}
		e.Do(req("DELETE", base(s.bid)+"/bank-transactions/tags", s.tok, map[string]any{"tag_ids": []any{northID}}), 200)
		wantLines(t, a, map[string][]string{"MEALS": {"location=south"}})
		wantPnL(t, map[string]int64{"": 1200, "location=north": 500, "location=south": 1000, "project=alpha": -100})
	})

	t.Run("record PATCH replaces the tags", func(t *testing.T) {
		e := e.with(t)
		data(e.Do(multipartReq("PATCH", patchPath(s.bid, acct, a), s.tok, map[string]any{"tags": []any{proj}}), 200))
		wantLines(t, a, map[string][]string{"MEALS": {"project=alpha"}, bank: {"project=alpha"}})
		wantPnL(t, map[string]int64{"": 1200, "location=north": 500, "project=alpha": 900})
		// The same tags again change nothing in the journal.
		n := e.countRows("ledger_entries")
		data(e.Do(multipartReq("PATCH", patchPath(s.bid, acct, a), s.tok, map[string]any{"tags": []any{proj}}), 200))
		if e.countRows("ledger_entries") != n {
			t.Fatal("an unchanged tag set posted entries")
		}
	})

	t.Run("categorization rules", func(t *testing.T) {
		e := e.with(t)
		data(e.Do(req("POST", base(s.bid)+"/categorization-rules", s.tok, map[string]any{
			"counterparty": map[string]any{"match": "CONTAINS", "pattern": "rule target"}, "category": stable("TRAVEL"),
		}), 201))
		rows := e.customTxns(s.bid, s.tok, acct, []any{map[string]any{"amount": 250, "direction": "DEBIT",
			"date": "2026-05-12", "counterparty_name": "Rule Target Inc", "tags": []any{south}}}, 201)
		id := rows[0].(map[string]any)["id"].(string)
		if got := data(e.Do(req("GET", base(s.bid)+"/bank-transactions/"+id, s.tok, nil), 200)); got["categorization_method"] != "SERVICE_AUTO" {
			t.Fatalf("not categorized by the rule: %v", got)
		}
		wantLines(t, id, map[string][]string{"TRAVEL": {"location=south"}})
		wantPnL(t, map[string]int64{"": 1450, "location=north": 500, "location=south": 250, "project=alpha": 900})
	})
}

// TestRepairEntryTags: a tagged transaction whose live entry lacks its
// tags (journaled by an earlier version) is reposted with them by
// `transactions repair-entry-tags`; a second run reposts nothing.
func TestRepairEntryTags(t *testing.T) {
	e := newEnv(t)
	s := e.bankSetup("client-a", "US")
	other := e.bankSetup("client-a", "US")
	acct := s.account["id"].(string)
	rows := e.customTxns(s.bid, s.tok, acct, []any{
		map[string]any{"amount": 1200, "direction": "DEBIT", "date": "2026-04-02", "tags": []any{map[string]any{"key": "site", "value": "a"}}},
		map[string]any{"amount": 800, "direction": "DEBIT", "date": "2026-04-03"},
	}, 201)
	tagged, untagged := rows[0].(map[string]any)["id"].(string), rows[1].(map[string]any)["id"].(string)
	s.categorize(e, "PUT", tagged, single(stable("MEALS")), 200)
	otherID := e.customTxns(other.bid, other.tok, other.account["id"].(string), []any{
		map[string]any{"amount": 500, "direction": "DEBIT", "date": "2026-04-04", "tags": []any{map[string]any{"key": "site", "value": "b"}}},
	}, 201)[0].(map[string]any)["id"].(string)
	// The books as an earlier version journaled them: no tags on the entries.
	// (The append-only guard is a trigger: a replica session skips it.)
	err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			return err
		}
		_, err := tx.NewRaw(`UPDATE ledger_entries SET tags = '[]' WHERE source_id IN (?, ?)`, tagged, otherID).Exec(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines, entry := e.liveLineTags(s.bid, s.tok, tagged); len(entry) != 0 || len(lines["MEALS"]) != 0 {
		t.Fatalf("setup: entry %v, lines %v", entry, lines)
	}
	// The events the repair publishes: the reversal and the entry with tags.
	mark := e.countRows("outbox")
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := e.S.repairEntryTags(context.Background(), e.Svc.Kit, args, &out); err != nil {
			t.Fatalf("repair-entry-tags %v: %v", args, err)
		}
		return out.String()
	}
	if out := run("--business", s.bid.String()); !strings.Contains(out, "reposted 1 journal entries") {
		t.Fatalf("first run: %q", out)
	}
	lines, entry := e.liveLineTags(s.bid, s.tok, tagged)
	if !slices.Equal(entry, []string{"site=a"}) || !slices.Equal(lines["MEALS"], []string{"site=a"}) {
		t.Fatalf("after the repair: entry %v, lines %v", entry, lines)
	}
	var published [][]byte
	if err := e.DB.NewRaw("SELECT data FROM outbox WHERE topic = ? AND type = ? ORDER BY seq",
		events.TopicLedger, events.TypeLedgerEntryPosted).Scan(context.Background(), &published); err != nil {
		t.Fatal(err)
	}
	var meals int64 // MEALS tagged site=a, over the events of the repair
	for _, raw := range published[len(published)-2:] {
		var p events.LedgerEntryPosted
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		for _, l := range p.Lines {
			if l.StableName != nil && *l.StableName == "MEALS" && len(l.Tags) == 1 && l.Tags[0].Key == "site" {
				meals += l.SignedAmount
			}
		}
	}
	if meals != 1200 || e.countRows("outbox") <= mark {
		t.Fatalf("the repair's events move %d of MEALS onto site=a, want 1200", meals)
	}
	if e.liveEntries(s.bid, tagged) != 1 || e.liveEntries(s.bid, untagged) != 1 {
		t.Fatal("the repair left other than one live entry per transaction")
	}
	if v := e.txnSnapshots(s.bid)[tagged].Version; v != 3 {
		t.Fatalf("version %d after the repair, want 3 (import, categorize, repair)", v)
	}
	// The other business was not touched by --business; --all repairs it.
	if _, entry := e.liveLineTags(other.bid, other.tok, otherID); len(entry) != 0 {
		t.Fatalf("--business repaired another business: %v", entry)
	}
	if out := run("--all"); !strings.Contains(out, "reposted 1 journal entries") {
		t.Fatalf("--all: %q", out)
	}
	if lines, entry := e.liveLineTags(other.bid, other.tok, otherID); !slices.Equal(entry, []string{"site=b"}) ||
		!slices.Equal(lines["UNCATEGORIZED_EXPENSES"], []string{"site=b"}) {
		t.Fatalf("other business after --all: entry %v, lines %v", entry, lines)
	}
	if out := run("--all"); !strings.Contains(out, "reposted 0 journal entries") {
		t.Fatalf("a second run: %q", out)
	}
	for _, args := range [][]string{nil, {"--all", "--business", s.bid.String()}, {"--business", "nope"}} {
		if err := e.S.repairEntryTags(context.Background(), e.Svc.Kit, args, &bytes.Buffer{}); err == nil {
			t.Fatalf("repair-entry-tags %v succeeded", args)
		}
	}
}
