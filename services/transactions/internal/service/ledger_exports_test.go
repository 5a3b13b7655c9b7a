package service

import (
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// readCSV downloads the export a 200 answer presigns and parses it.
func readCSV(t *testing.T, answer map[string]any, wantType string) [][]string {
	t.Helper()
	d := data(answer)
	if d["type"] != "Storage_Presigned_Url" || d["fileType"] != "csv" || d["document_type"] != wantType {
		t.Fatalf("download = %v", d)
	}
	status, body, hdr := download(t, d["presignedUrl"].(string))
	if status != 200 || !strings.Contains(hdr.Get("Content-Disposition"), d["fileName"].(string)) {
		t.Fatalf("download = %d %v %.200s", status, hdr, body)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return rows
}

// TestLedgerExports writes both CSV exports through storage and reads
// them back by their pre-signed URLs: the journal's lines of the period in
// chronological order (reversals included, so its debits equal its
// credits, text defused against formula injection), and the balances of
// every account as GET /ledger/balances answers them for the same period.
func TestLedgerExports(t *testing.T) {
	e := newReceiptEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	e.post(bid, tok, map[string]any{"entry_at": "2026-02-28", "memo": "before the period",
		"line_items": []any{line(stable("CASH"), 100, "DEBIT"), line(stable("SALES"), 100, "CREDIT")}}, 201)
	first := e.post(bid, tok, map[string]any{"entry_at": "2026-03-02T10:00:00Z", "memo": "=HYPERLINK(\"x\")",
		"tags": []any{map[string]any{"key": "project", "value": "alpha"}},
		"line_items": []any{
			map[string]any{"account_identifier": stable("MEALS"), "amount": 1234, "direction": "DEBIT", "memo": "lunch, with \"quotes\"",
				"tags": []any{map[string]any{"key": "site", "value": "north"}}},
			line(stable("CASH"), 1234, "CREDIT"),
		}}, 201)
	e.post(bid, tok, map[string]any{"entry_at": "2026-03-01", "line_items": []any{line(stable("CASH"), 5000, "DEBIT"), line(stable("SALES"), 5000, "CREDIT")}}, 201)
	e.post(bid, tok, map[string]any{"entry_at": "2026-04-01", "line_items": []any{line(stable("CASH"), 7, "DEBIT"), line(stable("SALES"), 7, "CREDIT")}}, 201)
	reversal := data(e.Do(req("POST", base(bid)+"/ledger/entries/"+first["entry_id"].(string)+"/reverse", tok, nil), 201))

	t.Run("entries", func(t *testing.T) {
		e := e.with(t)
		rows := readCSV(t, e.Do(req("GET", base(bid)+"/ledger/entries/exports/csv?start_date=2026-03-01&end_date=2026-03-31", tok, nil), 200), "LEDGER_ENTRIES_CSV")
		if !slices.Equal(rows[0], domain.EntriesExportHeader) {
			t.Fatalf("header = %v", rows[0])
		}
		rows = rows[1:]
		// 2026-03-01's entry, then the entry of 03-02 and its reversal (same entry_at, later number).
		if len(rows) != 6 {
			t.Fatalf("%d rows: %v", len(rows), rows)
		}
		col := func(name string) int { return slices.Index(domain.EntriesExportHeader, name) }
		var debits, credits money.Cents
		for _, r := range rows {
			if r[col("Debit")] != "" {
				d, _ := money.Parse(r[col("Debit")])
				debits += d
			}
			if r[col("Credit")] != "" {
				c, _ := money.Parse(r[col("Credit")])
				credits += c
			}
		}
		if debits != credits || debits != 5000+1234+1234 {
			t.Fatalf("debits %v, credits %v", debits, credits)
		}
		want := [][]string{
			{"2026-03-01", "", "", "MANUAL", "", "Cash", "CASH", "", "50.00", "", "", "", "", ""},
			{"2026-03-01", "", "", "MANUAL", "", "Sales", "SALES", "", "", "50.00", "", "", "", ""},
			{"2026-03-02", "", first["entry_id"].(string), "MANUAL", "", "Meals", "MEALS", "", "12.34", "", "lunch, with \"quotes\"", "site:north, project:alpha", "", reversal["id"].(string)},
			{"2026-03-02", "", first["entry_id"].(string), "MANUAL", "", "Cash", "CASH", "", "", "12.34", "'=HYPERLINK(\"x\")", "project:alpha", "", reversal["id"].(string)},
			{"2026-03-02", "", reversal["id"].(string), "MANUAL", "", "Meals", "MEALS", "", "", "12.34", "lunch, with \"quotes\"", "site:north, project:alpha", first["entry_id"].(string), ""},
			{"2026-03-02", "", reversal["id"].(string), "MANUAL", "", "Cash", "CASH", "", "12.34", "", "'=HYPERLINK(\"x\")", "project:alpha", first["entry_id"].(string), ""},
		}
		for i, w := range want {
			for j, v := range w {
				if v != "" && rows[i][j] != v {
					t.Fatalf("row %d column %s = %q, want %q (%v)", i, domain.EntriesExportHeader[j], rows[i][j], v, rows[i])
				}
			}
			if !strings.HasPrefix(rows[i][col("Source")], "CUSTOM_JOURNAL_ENTRY ") {
				t.Fatalf("row %d source %q", i, rows[i][col("Source")])
			}
		}
		if n2, n4 := atoi(t, rows[2][col("Entry number")]), atoi(t, rows[4][col("Entry number")]); n4 <= n2 {
			t.Fatalf("entry numbers out of order: %v", rows)
		}
		// Without dates: every line, the February one first.
		all := readCSV(t, e.Do(req("GET", base(bid)+"/ledger/entries/exports/csv", tok, nil), 200), "LEDGER_ENTRIES_CSV")
		if len(all) != 1+10 || all[1][0] != "2026-02-28" || all[len(all)-1][0] != "2026-04-01" {
			t.Fatalf("all = %v", all)
		}
	})

	t.Run("balances", func(t *testing.T) {
		e := e.with(t)
		for _, q := range []string{"", "?start_date=2026-03-01&end_date=2026-03-31", "?end_date=2026-03-01"} {
			rows := readCSV(t, e.Do(req("GET", base(bid)+"/ledger/balances/exports/csv"+q, tok, nil), 200), "LEDGER_BALANCES_CSV")
			if !slices.Equal(rows[0], domain.BalancesExportHeader) {
				t.Fatalf("header = %v", rows[0])
			}
			want := e.balances(bid, tok, q)
			col := func(name string) int { return slices.Index(domain.BalancesExportHeader, name) }
			for _, r := range rows[1:] {
				b, ok := want[r[col("Account ID")]]
				if !ok {
					t.Fatalf("%s: row of an account /ledger/balances does not answer: %v", q, r)
				}
				if r[col("Balance")] != money.Format(money.Cents(b)) {
					t.Fatalf("%s: %s balance %s, /ledger/balances %d", q, r[col("Account")], r[col("Balance")], b)
				}
			}
			if n := countIDs(want); len(rows)-1 != n {
				t.Fatalf("%s: %d rows, %d accounts", q, len(rows)-1, n)
			}
			if rows[1][col("Level")] != "0" || rows[1][col("Stable name")] != "ASSETS" || rows[2][col("Parent account")] != "Assets" {
				t.Fatalf("%s: first rows %v %v", q, rows[1], rows[2])
			}
		}
	})

	t.Run("bad dates are 400", func(t *testing.T) {
		e := e.with(t)
		for _, p := range []string{"/ledger/entries/exports/csv", "/ledger/balances/exports/csv"} {
			e.DoInvalid(req("GET", base(bid)+p+"?start_date=2026-02-30", tok, nil), 400, "")
			e.DoInvalid(req("GET", base(bid)+p+"?start_date=2026-03-02&end_date=2026-03-01", tok, nil), 400, "")
		}
	})
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// countIDs counts the keys of balances that are account ids (it holds
// every node by id and by stable name).
func countIDs(balances map[string]int64) int {
	n := 0
	for k := range balances {
		if len(k) == 36 && strings.Count(k, "-") == 4 {
			n++
		}
	}
	return n
}

// TestLedgerExportsWithoutStorage: a service without storage answers
// 503 Unavailable (after checking the dates).
func TestLedgerExportsWithoutStorage(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	for _, p := range []string{"/ledger/entries/exports/csv", "/ledger/balances/exports/csv"} {
		e.DoInvalid(req("GET", base(bid)+p+"?start_date=bad", tok, nil), 400, "")
		m := e.Do(req("GET", base(bid)+p, tok, nil), 503)
		if m["type"] != "Unavailable" || m["error_enum"] != nil {
			t.Fatalf("%s: %v", p, m)
		}
	}
}
