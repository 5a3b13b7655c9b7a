package service

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/exportfiles"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/storage/storagetest"
	"github.com/acctsuite/acct/services/reports/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// exportAt asks for the export at path (validated against the document)
// and decodes its 200 answer.
func (e *env) exportAt(token, path string) presigned {
	e.T.Helper()
	resp, body := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodGet, path, token, nil))
	return presignedData(e.T, resp.StatusCode, body)
}

// storedFile is the file of the object under key in the storage directory.
func storedFile(t *testing.T, dir, key string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, "objects", filepath.FromSlash(key)))
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestExportReuse: the same export twice within the reuse window answers
// the same stored file (same key, document id and creation time; the file
// is not written again), under exports/reports/<business>/<kind>/; a change
// of the business's data in between makes a new file with it. For the
// transactions CSV, a statement, the P&L workbook and a unified report.
func TestExportReuse(t *testing.T) {
	e, dir := newStorageEnvIn(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	e.deliver(txEvent(t, bankTx(bid, "2026-03-10", "CATEGORIZED", "RENT", 200000)),
		event(t, entry(bid, "2026-03-10", line(bid, "RENT", "DEBIT", 200000), line(bid, "CASH", "CREDIT", 200000))))

	q := period("2026-03-01", "2026-03-31")
	d1, rows1 := e.export(tok, bid, q)
	file1 := storedFile(t, dir, storagetest.DownloadKey(t, d1.PresignedURL))
	d2, rows2 := e.export(tok, bid, q)
	key := storagetest.DownloadKey(t, d1.PresignedURL)
	if !strings.HasPrefix(key, "exports/reports/"+bid.String()+"/transactions/") || !strings.HasSuffix(key, ".csv") {
		t.Fatalf("key %s", key)
	}
	if storagetest.DownloadKey(t, d2.PresignedURL) != key || d2.DocumentID != d1.DocumentID || d2.CreatedAt.Sub(d1.CreatedAt).Abs() > time.Second ||
		len(rows1) != 1 || fmt.Sprint(rows2) != fmt.Sprint(rows1) {
		t.Fatalf("second export %+v (%d rows), want the first's file %s (%+v)", d2, len(rows2), key, d1)
	}
	if !os.SameFile(file1, storedFile(t, dir, key)) {
		t.Fatalf("the second export wrote the file again")
	}
	// A new bank transaction: a new file, with it.
	e.deliver(txEvent(t, bankTx(bid, "2026-03-11", "CATEGORIZED", "RENT", 100)))
	d3, rows3 := e.export(tok, bid, q)
	if storagetest.DownloadKey(t, d3.PresignedURL) == key || d3.DocumentID == d1.DocumentID || len(rows3) != 2 {
		t.Fatalf("after a new bank transaction: %+v, %d rows; want a new file with 2 rows", d3, len(rows3))
	}

	// Statements, the P&L workbook and the A/R aging: reused until the
	// ledger moves on.
	paths := []string{
		fmt.Sprintf("/v1/businesses/%s/reports/balance-sheet/exports/csv?effective_date=2026-03-31", bid),
		fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss/exports/excel?start_date=2026-03-01&end_date=2026-03-31", bid),
		fmt.Sprintf("/v1/businesses/%s/reports/unified/%s/exports/excel?effective_date=2026-03-31", bid, domain.AgingAR.Route),
	}
	before := map[string]string{}
	for _, p := range paths {
		a, b := e.exportAt(tok, p), e.exportAt(tok, p)
		if storagetest.DownloadKey(t, a.PresignedURL) != storagetest.DownloadKey(t, b.PresignedURL) || a.DocumentID != b.DocumentID {
			t.Fatalf("%s twice: %s and %s", p, storagetest.DownloadKey(t, a.PresignedURL), storagetest.DownloadKey(t, b.PresignedURL))
		}
		before[p] = storagetest.DownloadKey(t, a.PresignedURL)
	}
	e.deliver(event(t, entry(bid, "2026-03-12", line(bid, "CASH", "DEBIT", 5000), line(bid, "SALES", "CREDIT", 5000))))
	for _, p := range paths {
		if k := storagetest.DownloadKey(t, e.exportAt(tok, p).PresignedURL); k == before[p] {
			t.Errorf("%s after a new entry: the file before it (%s)", p, k)
		}
	}
}

// TestExportWrittenOnce: within the reuse window an identical export of
// any kind writes nothing and builds nothing; any change of the business's
// read model makes every kind write again; with a window of 0 every
// export writes.
func TestExportWrittenOnce(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	e.deliver(txEvent(t, bankTx(bid, "2026-03-10", "CATEGORIZED", "RENT", 200000)))
	fsStore, err := storage.NewFS(storage.FSOptions{Dir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:1", SigningKey: bytes.Repeat([]byte("k"), storage.MinSigningKeyLength)})
	if err != nil {
		t.Fatal(err)
	}
	files := &storagetest.CountingPuts{Store: fsStore}
	newExports := func(p exportfiles.Policy) *app.Exports {
		x := app.NewExports(postgres.Snapshot{DB: e.DB}, postgres.New(e.DB), e.S.Reports, e.Svc.Kit.Businesses(), files)
		x.UsePolicy(p)
		return x
	}
	x := newExports(exportfiles.Policy{TTL: 24 * time.Hour, ReuseWindow: 5 * time.Minute})
	ctx := context.Background()
	q := url.Values{"start_date": {"2026-03-01"}, "end_date": {"2026-03-31"}}
	sheet := domain.BalanceQuery{Date: time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)}
	exports := []func() (app.Download, error){
		func() (app.Download, error) { return x.TransactionsCSV(ctx, bid, q) },
		func() (app.Download, error) { return x.TransactionsXLSX(ctx, bid, q) },
		func() (app.Download, error) { return x.BalanceSheetCSV(ctx, bid, sheet) },
		func() (app.Download, error) {
			p, err := e.S.Reports.PlanUnified(ctx, bid, domain.AgingAP.Route, url.Values{})
			if err != nil {
				return app.Download{}, err
			}
			return x.UnifiedPlanXLSX(ctx, bid, p)
		},
	}
	ids := map[uuid.UUID]bool{}
	round := func(wantPuts int64) {
		t.Helper()
		for i, export := range exports {
			a, err := export()
			if err != nil {
				t.Fatalf("export %d: %v", i, err)
			}
			b, err := export()
			if err != nil {
				t.Fatalf("export %d again: %v", i, err)
			}
			if a.ID != b.ID || a.URL == "" {
				t.Fatalf("export %d twice: %+v and %+v", i, a, b)
			}
			ids[a.ID] = true
		}
		if files.Puts() != wantPuts {
			t.Fatalf("%d writes, want %d", files.Puts(), wantPuts)
		}
	}
	round(4)
	// A new bank transaction: every export of the business is made again.
	e.deliver(txEvent(t, bankTx(bid, "2026-03-11", "PENDING", "", 100)))
	round(8)
	if len(ids) != 8 {
		t.Fatalf("%d distinct files, want 8", len(ids))
	}

	never := newExports(exportfiles.Policy{TTL: 24 * time.Hour})
	for range 2 {
		if _, err := never.TransactionsCSV(ctx, bid, q); err != nil {
			t.Fatal(err)
		}
	}
	if files.Puts() != 10 {
		t.Fatalf("with no reuse window: %d writes, want 10", files.Puts())
	}
}

// TestExportSweep: the export files older than EXPORT_TTL go, and those of
// the former layout (reports/...); younger exports, another service's
// exports and anything else in the bucket (receipts) stay, whatever their
// age; an expired file's URL then downloads nothing.
func TestExportSweep(t *testing.T) {
	e, dir := newStorageEnvIn(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	old, _ := e.export(tok, bid, period("2026-03-01", "2026-03-31"))
	young := e.exportAt(tok, fmt.Sprintf("/v1/businesses/%s/reports/balance-sheet/exports/csv?effective_date=2026-03-31", bid))
	oldKey, youngKey := storagetest.DownloadKey(t, old.PresignedURL), storagetest.DownloadKey(t, young.PresignedURL)

	fsStore, err := storage.NewFS(storage.FSOptions{Dir: dir, PublicBaseURL: "http://127.0.0.1:1", SigningKey: bytes.Repeat([]byte("k"), storage.MinSigningKeyLength)})
	if err != nil {
		t.Fatal(err)
	}
	legacy := "reports/" + bid.String() + "/transactions/" + uuid.NewString() + ".csv"
	receipt := bid.String() + "/receipts/" + uuid.NewString() + "/" + uuid.NewString()
	otherService := "exports/transactions/" + bid.String() + "/ledger-entries/abc.csv"
	for _, k := range []string{legacy, receipt, otherService} {
		if err := fsStore.Put(t.Context(), k, strings.NewReader("x"), 1, "text/csv"); err != nil {
			t.Fatal(err)
		}
	}
	objects := filepath.Join(dir, "objects")
	twoDays := time.Now().Add(-48 * time.Hour)
	err = filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.ToSlash(p) == filepath.ToSlash(filepath.Join(objects, youngKey)) {
			return err
		}
		return os.Chtimes(p, twoDays, twoDays)
	})
	if err != nil {
		t.Fatal(err)
	}

	n, err := e.S.Exports.SweepFiles(t.Context())
	if err != nil || n != 2 {
		t.Fatalf("SweepFiles = %d, %v; want the old export and the old-layout one", n, err)
	}
	for key, want := range map[string]bool{oldKey: false, legacy: false, youngKey: true, receipt: true, otherService: true} {
		if _, err := fsStore.Stat(t.Context(), key); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", key, err == nil, want)
		}
	}
	resp, err := http.Get(old.PresignedURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// (The test's download server renders the handler's 404 as its own
	// error; the gateway answers the error object.)
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("URL of a swept file: %d, want the file gone", resp.StatusCode)
	}
	download(t, young, "text/csv")
}
