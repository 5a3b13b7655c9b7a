package service

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/storage/storagetest"
	"github.com/acctsuite/acct/services/transactions/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/transactions/internal/app"
)

// TestLedgerExportReuse: the same export twice within the reuse window is
// one file (same key and document id, the first answer's created_at); a new
// entry or a renamed account makes a new file with it; the files live under
// exports/transactions/<business>/.
func TestLedgerExportReuse(t *testing.T) {
	e := newReceiptEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	e.post(bid, tok, map[string]any{"entry_at": "2026-03-02", "line_items": []any{line(stable("CASH"), 100, "DEBIT"), line(stable("SALES"), 100, "CREDIT")}}, 201)
	entries := base(bid) + "/ledger/entries/exports/csv?start_date=2026-03-01&end_date=2026-03-31"
	balances := base(bid) + "/ledger/balances/exports/csv?end_date=2026-03-31"

	first := data(e.Do(req("GET", entries, tok, nil), 200))
	second := data(e.Do(req("GET", entries, tok, nil), 200))
	key := storagetest.DownloadKey(t, first["presignedUrl"].(string))
	if !strings.HasPrefix(key, "exports/transactions/"+bid.String()+"/ledger-entries/") || !strings.HasSuffix(key, ".csv") {
		t.Fatalf("key %s", key)
	}
	if storagetest.DownloadKey(t, second["presignedUrl"].(string)) != key || second["documentId"] != first["documentId"] || !near(t, second["createdAt"], first["createdAt"]) {
		t.Fatalf("second answer %v, want the first's file %s (%v)", second, key, first)
	}
	if rows := readCSV(t, e.Do(req("GET", entries, tok, nil), 200), "LEDGER_ENTRIES_CSV"); len(rows) != 1+2 {
		t.Fatalf("rows %v", rows)
	}

	// A new entry: a new file, with it.
	e.post(bid, tok, map[string]any{"entry_at": "2026-03-03", "line_items": []any{line(stable("CASH"), 7, "DEBIT"), line(stable("SALES"), 7, "CREDIT")}}, 201)
	third := e.Do(req("GET", entries, tok, nil), 200)
	if k := storagetest.DownloadKey(t, data(third)["presignedUrl"].(string)); k == key || data(third)["documentId"] == first["documentId"] {
		t.Fatalf("after a new entry: key %s, document %v; want a new file", k, data(third)["documentId"])
	}
	if rows := readCSV(t, third, "LEDGER_ENTRIES_CSV"); len(rows) != 1+4 {
		t.Fatalf("rows after a new entry %v", rows)
	}

	// A renamed account: a new balances file, with the new name.
	b1 := data(e.Do(req("GET", balances, tok, nil), 200))
	if b2 := data(e.Do(req("GET", balances, tok, nil), 200)); storagetest.DownloadKey(t, b2["presignedUrl"].(string)) != storagetest.DownloadKey(t, b1["presignedUrl"].(string)) {
		t.Fatalf("balances twice: two files")
	}
	created := data(e.Do(req("POST", base(bid)+"/ledger/accounts", tok, map[string]any{
		"name": "Consulting", "account_type": "REVENUE", "parent_id": stable("REVENUE"),
	}), 201))
	b3 := data(e.Do(req("GET", balances, tok, nil), 200))
	e.Do(req("PUT", base(bid)+"/ledger/accounts/"+created["id"].(string), tok, map[string]any{"name": "Consulting fees"}), 200)
	b4 := e.Do(req("GET", balances, tok, nil), 200)
	keys := map[string]bool{}
	for _, b := range []map[string]any{b1, b3, data(b4)} {
		keys[storagetest.DownloadKey(t, b["presignedUrl"].(string))] = true
	}
	if len(keys) != 3 {
		t.Fatalf("balances before and after a new account and a rename: %d files, want 3", len(keys))
	}
	found := false
	for _, r := range readCSV(t, b4, "LEDGER_BALANCES_CSV") {
		found = found || strings.Contains(strings.Join(r, ","), "Consulting fees")
	}
	if !found {
		t.Fatalf("the renamed account is not in the new balances file")
	}
}

// near reports whether two createdAt values of answers are within a second
// (the stored file's time, to the second, may straddle one).
func near(t *testing.T, a, b any) bool {
	t.Helper()
	ta, err := time.Parse(time.RFC3339Nano, a.(string))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := time.Parse(time.RFC3339Nano, b.(string))
	if err != nil {
		t.Fatal(err)
	}
	return ta.Sub(tb).Abs() <= time.Second
}

// TestLedgerExportWrittenOnce: within the reuse window an identical
// export writes nothing; a new entry makes it write again; with a window
// of 0 every export writes.
func TestLedgerExportWrittenOnce(t *testing.T) {
	e := newReceiptEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	fsStore, err := storage.NewFS(storage.FSOptions{Dir: e.dir, PublicBaseURL: "http://127.0.0.1:1", SigningKey: bytes.Repeat([]byte("k"), storage.MinSigningKeyLength)})
	if err != nil {
		t.Fatal(err)
	}
	files := &storagetest.CountingPuts{Store: fsStore}
	store := postgres.New(e.DB)
	ledger := app.NewLedger(outbox.UnitOfWork{DB: e.DB}, store, outbox.Events{DB: e.DB}, nil)
	ledger.UseExportStore(files, store, exportfiles.Policy{TTL: 24 * time.Hour, ReuseWindow: 5 * time.Minute})
	ctx := context.Background()
	from, until := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	period := app.PeriodFilter{From: &from, Until: &until}

	e.post(bid, tok, map[string]any{"entry_at": "2026-03-02", "line_items": []any{line(stable("CASH"), 100, "DEBIT"), line(stable("SALES"), 100, "CREDIT")}}, 201)
	d1, err := ledger.EntriesCSV(ctx, bid, period)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := ledger.EntriesCSV(ctx, bid, period)
	if err != nil {
		t.Fatal(err)
	}
	if files.Puts() != 1 || d1.ID != d2.ID || storagetest.DownloadKey(t, d1.URL) != storagetest.DownloadKey(t, d2.URL) || d1.CreatedAt.Sub(d2.CreatedAt).Abs() > time.Second {
		t.Fatalf("two identical exports: %d writes, %+v and %+v", files.Puts(), d1, d2)
	}
	if _, err := ledger.BalancesCSV(ctx, bid, period); err != nil || files.Puts() != 2 {
		t.Fatalf("another kind: %v, %d writes", err, files.Puts())
	}
	e.post(bid, tok, map[string]any{"entry_at": "2026-03-03", "line_items": []any{line(stable("CASH"), 7, "DEBIT"), line(stable("SALES"), 7, "CREDIT")}}, 201)
	d3, err := ledger.EntriesCSV(ctx, bid, period)
	if err != nil || files.Puts() != 3 || d3.ID == d1.ID {
		t.Fatalf("after a new entry: %v, %d writes, %+v", err, files.Puts(), d3)
	}

	never := app.NewLedger(outbox.UnitOfWork{DB: e.DB}, store, outbox.Events{DB: e.DB}, nil)
	never.UseExportStore(files, store, exportfiles.Policy{TTL: 24 * time.Hour})
	for range 2 {
		if _, err := never.EntriesCSV(ctx, bid, period); err != nil {
			t.Fatal(err)
		}
	}
	if files.Puts() != 5 {
		t.Fatalf("with no reuse window: %d writes, want 5", files.Puts())
	}
}

// TestLedgerExportSweep: export files (and those of the former layout)
// older than EXPORT_TTL are deleted; receipts and documents of the same
// age, younger exports and keys the former layout never used stay.
func TestLedgerExportSweep(t *testing.T) {
	e := newReceiptEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	acct := e.customAccount(bid, tok, map[string]any{"account_name": "Cash box", "account_type": "DEPOSITORY"}, 201)["id"].(string)
	rec := data(e.Do(multipartReq("POST", recordPath(bid, acct), tok, map[string]any{
		"amount": 4250, "direction": "DEBIT", "date": "2026-03-04", "description": "Team lunch",
	}, file{"lunch.png", "png-bytes-1"}), 201))
	txnID := rec["id"].(string)
	old := data(e.Do(req("GET", base(bid)+"/ledger/entries/exports/csv?start_date=2026-03-01", tok, nil), 200))
	young := data(e.Do(req("GET", base(bid)+"/ledger/balances/exports/csv", tok, nil), 200))
	oldKey, youngKey := storagetest.DownloadKey(t, old["presignedUrl"].(string)), storagetest.DownloadKey(t, young["presignedUrl"].(string))

	// Files of the former layout, and a key under transactions/ it never used.
	fsStore, err := storage.NewFS(storage.FSOptions{Dir: e.dir, PublicBaseURL: "http://127.0.0.1:1", SigningKey: bytes.Repeat([]byte("k"), storage.MinSigningKeyLength)})
	if err != nil {
		t.Fatal(err)
	}
	legacy := "transactions/" + bid.String() + "/ledger-entries/" + uuid.NewString() + ".csv"
	unknown := "transactions/" + bid.String() + "/notes/keep.csv"
	for _, k := range []string{legacy, unknown} {
		if err := fsStore.Put(t.Context(), k, strings.NewReader("a,b\n"), 4, "text/csv"); err != nil {
			t.Fatal(err)
		}
	}
	// Everything stored is two days old, but the young export.
	objects := filepath.Join(e.dir, "objects")
	twoDays := time.Now().Add(-48 * time.Hour)
	var receipts []string
	err = filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		key := filepath.ToSlash(strings.TrimPrefix(p, objects+string(filepath.Separator)))
		if strings.Contains(key, "/receipts/") {
			receipts = append(receipts, key)
		}
		if key == youngKey {
			return nil
		}
		return os.Chtimes(p, twoDays, twoDays)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(receipts) != 1 || !strings.HasPrefix(receipts[0], bid.String()+"/receipts/"+txnID+"/") {
		t.Fatalf("receipts stored: %q", receipts)
	}

	n, err := e.S.Ledger.SweepExports(t.Context())
	if err != nil || n != 2 {
		t.Fatalf("SweepExports = %d, %v; want the old export and the old-layout one", n, err)
	}
	exists := func(key string) bool {
		_, err := fsStore.Stat(t.Context(), key)
		return err == nil
	}
	for key, want := range map[string]bool{oldKey: false, legacy: false, youngKey: true, unknown: true, receipts[0]: true} {
		if exists(key) != want {
			t.Errorf("%s: exists %v, want %v", key, !want, want)
		}
	}
	// The receipt still downloads.
	docs := data(e.Do(req("GET", base(bid)+"/bank-transactions/"+txnID+"/documents", tok, nil), 200))
	u := docs["documentUrls"].([]any)[0].(map[string]any)["presignedUrl"].(string)
	if status, body, _ := download(t, u); status != 200 || body != "png-bytes-1" {
		t.Fatalf("receipt after the sweep: %d %q", status, body)
	}
}
