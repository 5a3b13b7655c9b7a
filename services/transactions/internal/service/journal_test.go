package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// counts are the rows a failed request must not have written.
func (e *env) counts() [6]int {
	e.T.Helper()
	var c [6]int
	for i, table := range []string{"ledger_entries", "ledger_journal_entries", "outbox", "ledger_accounts", "custom_accounts", "bank_transactions"} {
		if err := e.DB.NewRaw("SELECT count(*) FROM "+table).Scan(context.Background(), &c[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return c
}

func TestJournalEntries(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	other := e.business("client-a", "US")
	path := base(bid) + "/ledger/journal-entries"
	opening := map[string]any{
		"external_id": "open-1", "entry_at": "2026-01-01T00:00:00Z", "created_by": "Ann Bookkeeper", "memo": "Opening balances",
		"entry_type": "OPENING_BALANCE", "reference_number": "OB-2026", "metadata": map[string]any{"source": "migration"},
		"tags": []any{map[string]any{"key": "project", "value": "alpha", "dimension_display_name": "Project"}},
		"line_items": []any{
			map[string]any{"account_identifier": stable("CASH"), "amount": "250000", "direction": "DEBIT", "memo": "till", "external_id": "l-1",
				"tags": []any{map[string]any{"key": "site", "value": "north"}}},
			line(accountID(domain.DefaultAccountID(bid, "INVENTORY").String()), 50000, "DEBIT"),
			line(stable("OPENING_BALANCE_EQUITY"), 300000, "CREDIT"),
		},
	}

	var first map[string]any
	t.Run("create", func(t *testing.T) {
		e := e.with(t)
		first = e.post(bid, tok, opening, 201)
		entry := first["entry"].(map[string]any)
		if first["type"] != "Custom_Journal_Entry" || first["external_id"] != "open-1" || first["created_by"] != "Ann Bookkeeper" ||
			first["memo"] != "Opening balances" || first["entry_id"] != entry["id"] || first["reference_number"] != "OB-2026" ||
			first["metadata"].(map[string]any)["source"] != "migration" || len(first["transaction_tags"].([]any)) != 1 {
			t.Fatalf("journal entry = %v", first)
		}
		if entry["type"] != "Ledger_Entry" || entry["entry_type"] != "OPENING_BALANCE" || entry["agent"] != "API" ||
			entry["entry_at"] != "2026-01-01T00:00:00Z" || entry["business_id"] != bid.String() ||
			entry["ledger_id"] != domain.LedgerID(bid).String() || entry["source_type"] != domain.SourceJournalEntry ||
			entry["source_id"] != first["id"] || entry["reversal_of_id"] != nil || entry["reversal_id"] != nil {
			t.Fatalf("entry = %v", entry)
		}
		lines := entry["line_items"].([]any)
		items := first["line_items"].([]any)
		if len(lines) != 3 || len(items) != 3 {
			t.Fatalf("%d lines, %d line items", len(lines), len(items))
		}
		var debits, credits int64
		for i, l := range lines {
			lm := l.(map[string]any)
			item := items[i].(map[string]any)
			if item["line_item_id"] != lm["id"] || lm["entry_id"] != entry["id"] {
				t.Fatalf("line item %d = %v for line %v", i, item, lm)
			}
			if lm["direction"] == "DEBIT" {
				debits += cents(lm["amount"])
			} else {
				credits += cents(lm["amount"])
			}
		}
		if debits != 300000 || credits != 300000 {
			t.Fatalf("debits %d credits %d", debits, credits)
		}
		cash := lines[0].(map[string]any)
		acct := cash["account"].(map[string]any)
		if acct["id"] != domain.DefaultAccountID(bid, "CASH").String() || acct["stable_name"] != "CASH" || cash["memo"] != "till" ||
			cash["transaction_tags"].([]any)[0].(map[string]any)["key"] != "site" || items[0].(map[string]any)["external_id"] != "l-1" {
			t.Fatalf("cash line = %v", cash)
		}
		tag := first["transaction_tags"].([]any)[0].(map[string]any)
		if tag["dimension_id"] != tags.DimensionID(bid, "project").String() || tag["dimension_display_name"] != "Project" {
			t.Fatalf("tag = %v", tag)
		}
		// The entry went out through the outbox in the same transaction.
		var raw []byte
		if err := e.DB.NewRaw("SELECT data FROM outbox WHERE topic = ? AND type = ? AND subject = ?",
			events.TopicLedger, events.TypeLedgerEntryPosted, bid.String()).Scan(context.Background(), &raw); err != nil {
			t.Fatalf("outbox row: %v", err)
		}
		var p events.LedgerEntryPosted
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, l := range p.Lines {
			sum += l.SignedAmount
		}
		if p.EntryID.String() != entry["id"] || p.Date != "2026-01-01" || len(p.Lines) != 3 || sum != 0 ||
			*p.Lines[0].StableName != "CASH" || p.Lines[0].AccountType != "ASSET" || p.Lines[0].AccountSubtype != "CASH" ||
			len(p.Lines[0].Tags) != 2 || p.SourceType != domain.SourceJournalEntry {
			t.Fatalf("event payload = %+v", p)
		}
	})

	t.Run("external_id is idempotent", func(t *testing.T) {
		e := e.with(t)
		before := e.counts()
		again := e.post(bid, tok, opening, 200)
		if again["id"] != first["id"] || again["entry_id"] != first["entry_id"] {
			t.Fatalf("replay gave %v, want %v", again["id"], first["id"])
		}
		if e.counts() != before {
			t.Fatal("a replay wrote rows")
		}
		changed := map[string]any{}
		for k, v := range opening {
			changed[k] = v
		}
		changed["memo"] = "Opening balances, corrected"
		if m := e.DoInvalid(req("POST", path, tok, changed), 409, domain.EnumDuplicateExternalID); m["meta"].(map[string]any)["id"] != first["id"] {
			t.Fatalf("conflict = %v", m)
		}
		// The same external id in another business is another entry.
		otherBody := map[string]any{"external_id": "open-1", "line_items": []any{
			line(stable("CASH"), 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")}}
		if got := e.post(other, tok, otherBody, 201); got["id"] == first["id"] {
			t.Fatal("external ids leak across businesses")
		}
		if e.counts() == before {
			t.Fatal("the other business's entry was not written")
		}
	})

	t.Run("Idempotency-Key", func(t *testing.T) {
		e := e.with(t)
		body := map[string]any{"line_items": []any{line(stable("CASH"), 5, "DEBIT"), line(stable("SALES"), 5, "CREDIT")}}
		send := func(b any, want int) map[string]any {
			rq := req("POST", path, tok, b)
			rq.Header.Set("Idempotency-Key", "k-1")
			return e.Do(rq, want)
		}
		a := data(send(body, 201))
		b := data(send(body, 201))
		if a["id"] != b["id"] {
			t.Fatal("Idempotency-Key replay posted again")
		}
		body["memo"] = "other"
		send(body, 409)
	})

	t.Run("defaults", func(t *testing.T) {
		e := e.with(t)
		j := e.post(bid, tok, map[string]any{"line_items": []any{line(stable("CASH"), 7, "DEBIT"), line(stable("SALES"), "7", "CREDIT")}}, 201)
		entry := j["entry"].(map[string]any)
		if j["created_by"] != "client-a" || j["memo"] != "" || j["external_id"] != nil || entry["entry_type"] != "MANUAL" || entry["memo"] != nil {
			t.Fatalf("defaults = %v", j)
		}
	})

	t.Run("refused, nothing written", func(t *testing.T) {
		e := e.with(t)
		body := func(lines ...any) map[string]any { return map[string]any{"line_items": append([]any{}, lines...)} }
		huge := map[string]any{"line_items": []any{line(stable("CASH"), 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")},
			"metadata": map[string]any{"k": strings.Repeat("x", 1100)}}
		tests := []struct {
			name     string
			body     any
			wantEnum string
		}{
			{"unbalanced", body(line(stable("CASH"), 100, "DEBIT"), line(stable("SALES"), 99, "CREDIT")), domain.EnumUnbalancedEntry},
			{"one line", body(line(stable("CASH"), 100, "DEBIT")), domain.EnumTooFewLines},
			{"no lines", body(), domain.EnumTooFewLines},
			{"zero amount", body(line(stable("CASH"), 0, "DEBIT"), line(stable("SALES"), 0, "CREDIT")), domain.EnumInvalidLine},
			{"negative amount", body(line(stable("CASH"), -5, "DEBIT"), line(stable("SALES"), -5, "CREDIT")), domain.EnumInvalidLine},
			{"amount out of range", body(line(stable("CASH"), "9223372036854775808", "DEBIT"), line(stable("SALES"), 1, "CREDIT")), money.EnumOutOfRange},
			{"total out of range", body(line(stable("CASH"), "9223372036854775807", "DEBIT"), line(stable("INVENTORY"), 1, "DEBIT"),
				line(stable("SALES"), 1, "CREDIT")), money.EnumOutOfRange},
			{"fractional cents", body(line(stable("CASH"), 1.5, "DEBIT"), line(stable("SALES"), 1.5, "CREDIT")), money.EnumTooManyDecimals},
			{"unknown stable name", body(line(stable("NOPE"), 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")), domain.EnumUnknownAccount},
			{"unknown account id", body(line(accountID(uuid.NewString()), 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")), domain.EnumUnknownAccount},
			{"another business's account", body(line(accountID(domain.DefaultAccountID(other, "CASH").String()), 1, "DEBIT"),
				line(stable("SALES"), 1, "CREDIT")), domain.EnumUnknownAccount},
			{"bad account uuid", body(line(accountID("nope"), 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")), "InvalidPayload"},
			{"unknown identifier type", body(line(map[string]any{"type": "Name", "name": "Cash"}, 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")), "InvalidPayload"},
			{"bad direction", body(line(stable("CASH"), 1, "LEFT"), line(stable("SALES"), 1, "CREDIT")), "InvalidPayload"},
			{"metadata over 1 KB", huge, domain.EnumMetadataTooLarge},
			{"empty tag key", map[string]any{"line_items": []any{line(stable("CASH"), 1, "DEBIT"), line(stable("SALES"), 1, "CREDIT")},
				"tags": []any{map[string]any{"key": " ", "value": "v"}}}, tags.EnumInvalidTags},
			{"bad entry type", map[string]any{"entry_type": "BANK", "line_items": []any{}}, "InvalidPayload"},
			{"bad entry_at", map[string]any{"entry_at": "31/01/2026", "line_items": []any{}}, "InvalidPayload"},
			{"malformed JSON", `{"line_items": [`, "InvalidPayload"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				before := e.counts()
				e.DoInvalid(req("POST", path, tok, tt.body), 400, tt.wantEnum)
				if after := e.counts(); after != before {
					t.Fatalf("rows %v → %v", before, after)
				}
			})
		}
		m := e.DoInvalid(req("POST", path, tok, body(line(stable("CASH"), 100, "DEBIT"), line(stable("SALES"), 99, "CREDIT"))), 400, domain.EnumUnbalancedEntry)
		if meta := m["meta"].(map[string]any); meta["debits"] != float64(100) || meta["credits"] != float64(99) {
			t.Fatalf("unbalanced meta = %v", m)
		}
	})
}

func TestLedgerEntries(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	entries := base(bid) + "/ledger/entries"
	post := func(date string, debit, credit string, amount int64) string {
		return e.post(bid, tok, map[string]any{"entry_at": date, "line_items": []any{
			line(stable(debit), amount, "DEBIT"), line(stable(credit), amount, "CREDIT")}}, 201)["entry_id"].(string)
	}
	jan := post("2026-01-15", "CASH", "SALES", 100)
	feb := post("2026-02-15", "BANK_FEES", "CASH", 200)
	mar := post("2026-03-15", "RENT", "CASH", 300)
	apr := post("2026-04-15", "OTHER_FEES", "CASH", 400)
	opening := e.post(bid, tok, map[string]any{"entry_at": "2025-12-31", "entry_type": "OPENING_BALANCE", "line_items": []any{
		line(stable("CASH"), 1000, "DEBIT"), line(stable("OPENING_BALANCE_EQUITY"), 1000, "CREDIT")}}, 201)["entry_id"].(string)

	t.Run("get", func(t *testing.T) {
		e := e.with(t)
		got := data(e.Do(req("GET", entries+"/"+feb, tok, nil), 200))
		l := got["line_items"].([]any)[0].(map[string]any)
		if got["id"] != feb || got["entry_type"] != "MANUAL" || got["source"] != nil || len(got["transaction_tags"].([]any)) != 0 ||
			l["account"].(map[string]any)["stable_name"] != "BANK_FEES" || l["amount"] != float64(200) || l["createdAt"] == nil {
			t.Fatalf("entry = %v", got)
		}
		e.DoInvalid(req("GET", entries+"/"+uuid.NewString(), tok, nil), 404, domain.EnumEntryNotFound)
		e.DoInvalid(req("GET", entries+"/12345", tok, nil), 400, "InvalidParameters")
	})

	ids := func(m map[string]any) []string {
		var out []string
		for _, x := range m["data"].([]any) {
			out = append(out, x.(map[string]any)["id"].(string))
		}
		return out
	}
	list := func(query string) map[string]any { return e.Do(req("GET", entries+query, tok, nil), 200) }
	same := func(t *testing.T, got []string, want ...string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("ids = %v, want %v", got, want)
		}
	}

	t.Run("pages", func(t *testing.T) {
		e := e.with(t)
		p1 := list("?limit=2&show_total_count=true")
		meta := p1["meta"].(map[string]any)["pagination"].(map[string]any)
		same(t, ids(p1), opening, jan)
		if meta["has_more"] != true || meta["total_count"] != float64(5) || meta["sort_by"] != "entry_at" {
			t.Fatalf("meta = %v", meta)
		}
		p2 := list("?limit=2&show_total_count=true&cursor=" + meta["cursor"].(string))
		same(t, ids(p2), feb, mar)
		p3 := list("?limit=2&show_total_count=true&cursor=" + p2["meta"].(map[string]any)["pagination"].(map[string]any)["cursor"].(string))
		same(t, ids(p3), apr)
		if p3["meta"].(map[string]any)["pagination"].(map[string]any)["has_more"] != false {
			t.Fatal("last page has more")
		}
		same(t, ids(list("?sort_by=entry_number&sort_order=DESC")), opening, apr, mar, feb, jan)
		byNumber := list("?sort_by=entry_number&sort_order=DESC&limit=3")
		same(t, ids(byNumber), opening, apr, mar)
		next := byNumber["meta"].(map[string]any)["pagination"].(map[string]any)["cursor"].(string)
		same(t, ids(list("?sort_by=entry_number&sort_order=DESC&limit=3&cursor="+next)), feb, jan)
		e.DoInvalid(req("GET", entries+"?sort_by=entry_at&limit=3&cursor="+next, tok, nil), 400, "InvalidParameters")
		same(t, ids(list("?sort_by=created_at")), jan, feb, mar, apr, opening)
		// A cursor only works with the filters it was issued for.
		e.DoInvalid(req("GET", entries+"?limit=2&entry_type=MANUAL&cursor="+meta["cursor"].(string), tok, nil), 400, "InvalidParameters")
	})

	t.Run("filters", func(t *testing.T) {
		same(t, ids(list("?start_date=2026-02-01&end_date=2026-03-15")), feb, mar)
		same(t, ids(list("?end_date=2026-01-15T00:00:00Z")), opening, jan)
		same(t, ids(list("?account=FEES")), feb, apr) // the account and the ones below it
		same(t, ids(list("?account="+domain.DefaultAccountID(bid, "BANK_FEES").String())), feb)
		same(t, ids(list("?account=SALES&account=RENT")), jan) // the first account parameter counts
		same(t, ids(list("?entry_type=OPENING_BALANCE")), opening)
		same(t, ids(list("?entry_type=MANUAL,OPENING_BALANCE&start_date=2026-04-01")), apr)
		same(t, ids(list("?entry_type=MANUAL&entry_type=OPENING_BALANCE&end_date=2025-12-31")), opening)
		same(t, ids(list("?entry_type=BILL")))
	})

	t.Run("refused", func(t *testing.T) {
		e := e.with(t)
		for query, enum := range map[string]string{
			"?sort_by=amount":       "InvalidParameters",
			"?sort_order=UP":        "InvalidParameters",
			"?limit=501":            "InvalidParameters",
			"?cursor=forged":        "InvalidParameters",
			"?start_date=yesterday": "InvalidParameters",
			"?start_date=2026-03-01&end_date=2026-02-01": "InvalidParameters",
			"?account=NO_SUCH_ACCOUNT":                   domain.EnumUnknownAccount,
			"?account=" + uuid.NewString():               domain.EnumUnknownAccount,
			"?entry_type=SOMETHING":                      "InvalidParameters",
		} {
			e.DoInvalid(req("GET", entries+query, tok, nil), 400, enum)
		}
	})
}

func TestReverseEntry(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	entries := base(bid) + "/ledger/entries/"
	j := e.post(bid, tok, map[string]any{"entry_at": "2026-05-05T12:00:00Z", "memo": "Owner paid rent", "line_items": []any{
		line(stable("RENT"), 1500, "DEBIT"), line(stable("CONTRIBUTIONS"), 1500, "CREDIT")},
		"tags": []any{map[string]any{"key": "project", "value": "alpha"}}}, 201)
	id := j["entry_id"].(string)

	rev := data(e.Do(req("POST", entries+id+"/reverse", tok, nil), 201))
	if rev["reversal_of_id"] != id || rev["reversal_id"] != nil || rev["entry_at"] != "2026-05-05T12:00:00Z" ||
		rev["entry_type"] != "MANUAL" || rev["memo"] != "Owner paid rent" || rev["id"] == id ||
		cents(rev["entry_number"]) <= cents(j["entry"].(map[string]any)["entry_number"]) {
		t.Fatalf("reversal = %v", rev)
	}
	orig := j["entry"].(map[string]any)["line_items"].([]any)
	for i, l := range rev["line_items"].([]any) {
		rl, ol := l.(map[string]any), orig[i].(map[string]any)
		if rl["account"].(map[string]any)["id"] != ol["account"].(map[string]any)["id"] || rl["amount"] != ol["amount"] ||
			rl["direction"] == ol["direction"] || rl["entry_reversal_of"] != id {
			t.Fatalf("reversal line %v mirrors %v badly", rl, ol)
		}
	}
	if tg := rev["transaction_tags"].([]any); len(tg) != 1 || tg[0].(map[string]any)["value"] != "alpha" {
		t.Fatalf("reversal tags = %v", tg)
	}
	after := data(e.Do(req("GET", entries+id, tok, nil), 200))
	if after["reversal_id"] != rev["id"] || after["line_items"].([]any)[0].(map[string]any)["entry_reversed_by"] != rev["id"] {
		t.Fatalf("original after reversal = %v", after)
	}
	bal := e.balances(bid, tok, "")
	if bal["RENT"] != 0 || bal["CONTRIBUTIONS"] != 0 {
		t.Fatalf("balances after reversal = %v", bal)
	}

	e.DoInvalid(req("POST", entries+id+"/reverse", tok, nil), 409, domain.EnumAlreadyReversed)
	e.DoInvalid(req("POST", entries+rev["id"].(string)+"/reverse", tok, nil), 409, domain.EnumReversalOfReversal)
	e.DoInvalid(req("POST", entries+uuid.NewString()+"/reverse", tok, nil), 404, domain.EnumEntryNotFound)
	e.DoInvalid(req("POST", entries+"nope/reverse", tok, nil), 400, "InvalidParameters")

	// An entry a source posted (here a bank transaction) is reversed by that source, not here.
	bank := e.postBank(bid, "txn-1", "1", "MEALS", 900)
	e.DoInvalid(req("POST", entries+bank.ID.String()+"/reverse", tok, nil), 409, domain.EnumEntryOwnedBySource)
	if got := data(e.Do(req("GET", entries+bank.ID.String(), tok, nil), 200)); got["reversal_id"] != nil {
		t.Fatal("the refused reversal changed the entry")
	}
}
