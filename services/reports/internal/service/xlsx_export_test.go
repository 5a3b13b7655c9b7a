package service

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/reports/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

func xlsxPath(bid uuid.UUID, q url.Values) string {
	return fmt.Sprintf("/v1/businesses/%s/reports/transactions/exports/excel?%s", bid, q.Encode())
}

func (e *env) xlsxStatus(token string, bid uuid.UUID, q url.Values) (int, []byte) {
	e.T.Helper()
	resp, body := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodGet, xlsxPath(bid, q), token, nil))
	return resp.StatusCode, body
}

// xlsxSheet is a downloaded workbook's sheet: its rows as shown (number
// formats applied) and as stored (raw values), and its cells' types.
type xlsxSheet struct {
	shown, raw [][]string
	file       *excelize.File
}

func openXLSX(t *testing.T, b []byte) xlsxSheet {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("open xlsx: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	if got := f.GetSheetList(); !reflect.DeepEqual(got, []string{app.TransactionsXLSXSheet}) {
		t.Fatalf("sheets %v", got)
	}
	shown, err := f.GetRows(app.TransactionsXLSXSheet)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := f.GetRows(app.TransactionsXLSXSheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) == 0 || !reflect.DeepEqual(shown[0], domain.ExportHeader) {
		t.Fatalf("header %q", shown)
	}
	return xlsxSheet{shown: shown, raw: raw, file: f}
}

// exportXLSX asks for the XLSX export, downloads the workbook through its
// URL and opens it.
func (e *env) exportXLSX(token string, bid uuid.UUID, q url.Values) (presigned, xlsxSheet) {
	e.T.Helper()
	code, body := e.xlsxStatus(token, bid, q)
	d := presignedData(e.T, code, body)
	if d.FileType != "xlsx" || !strings.HasPrefix(d.FileName, "transactions_") || !strings.HasSuffix(d.FileName, ".xlsx") ||
		d.DocumentType != "TRANSACTIONS_EXCEL" {
		e.T.Fatalf("answer: %+v", d)
	}
	return d, openXLSX(e.T, download(e.T, d, xlsxType))
}

// excelDay is the spreadsheet serial number of a YYYY-MM-DD day (days
// since 1899-12-30).
func excelDay(s string) string {
	d, _ := time.Parse(domain.DateLayout, s)
	return fmt.Sprint(int(d.Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24))
}

// TestTransactionsXLSXExport: the CSV export's rows for every filter, as
// a workbook: dates are date cells, amounts number cells in dollars with
// a currency format, texts string cells, a formula-looking memo a string
// too (not a formula, no apostrophe); the defaults; every 400;
// cross-tenant 404; 401.
func TestTransactionsXLSXExport(t *testing.T) {
	e := newStorageEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")

	rent := bankTx(bid, "2026-03-10", "CATEGORIZED", "RENT", 200000)
	rent.Memo, rent.ReferenceNumber = ptr(`=HYPERLINK("http://x","rent")`), ptr("REF-1")
	rent.Tags = []events.LedgerTag{{Key: "dept", Value: "retail"}, {Key: "proj", Value: "x"}}
	old := rent
	old.Version, old.Memo = 0, ptr("stale")
	sale := bankTx(bid, "2026-03-11", "MATCHED", "SALES", 12345)
	sale.Direction, sale.SignedAmount, sale.CounterpartyName = "CREDIT", 12345, nil
	pending := bankTx(bid, "2026-03-12", "PENDING", "", 1)
	review := bankTx(bid, "2026-04-01", "SERVICE_REVIEW", "", 99)
	split := bankTx(bid, "2026-03-15", "SPLIT", "", 1000)
	split.Splits = []events.BankSplit{{Amount: 600, Category: events.BankCategory{StableName: ptr("RENT"), DisplayName: "Rent"}},
		{Amount: 400, Category: events.BankCategory{StableName: ptr("BANK_FEES"), DisplayName: "Bank fees"}}}
	today := bankTx(bid, time.Now().UTC().Format(domain.DateLayout), "READY_FOR_INPUT", "", 5)
	var evts []events.Event
	for _, p := range []events.BankTransactionUpserted{rent, old, sale, pending, review, split, today} {
		evts = append(evts, txEvent(t, p))
	}
	e.deliver(evts...)

	// As shown (GetRows applies the formats) and as stored (serial
	// days, dollars).
	type row struct{ shown, raw []string }
	rentRow := row{
		[]string{"2026-03-10", "Payment 2026-03-10", "Acme", "Checking", "DEBIT", "$2,000.00", "Rent", "CATEGORIZED", "dept:retail, proj:x", `=HYPERLINK("http://x","rent")`, "REF-1"},
		[]string{excelDay("2026-03-10"), "Payment 2026-03-10", "Acme", "Checking", "DEBIT", "2000", "Rent", "CATEGORIZED", "dept:retail, proj:x", `=HYPERLINK("http://x","rent")`, "REF-1"},
	}
	saleRow := row{
		[]string{"2026-03-11", "Payment 2026-03-11", "", "Checking", "CREDIT", "$123.45", "Sales", "MATCHED"},
		[]string{excelDay("2026-03-11"), "Payment 2026-03-11", "", "Checking", "CREDIT", "123.45", "Sales", "MATCHED"},
	}
	pendingRow := row{
		[]string{"2026-03-12", "Payment 2026-03-12", "Acme", "Checking", "DEBIT", "$0.01", "", "PENDING"},
		[]string{excelDay("2026-03-12"), "Payment 2026-03-12", "Acme", "Checking", "DEBIT", "0.01", "", "PENDING"},
	}
	splitRow := row{
		[]string{"2026-03-15", "Payment 2026-03-15", "Acme", "Checking", "DEBIT", "$10.00", "Rent; Bank fees", "SPLIT"},
		[]string{excelDay("2026-03-15"), "Payment 2026-03-15", "Acme", "Checking", "DEBIT", "10", "Rent; Bank fees", "SPLIT"},
	}
	reviewRow := row{
		[]string{"2026-04-01", "Payment 2026-04-01", "Acme", "Checking", "DEBIT", "$0.99", "", "SERVICE_REVIEW"},
		[]string{excelDay("2026-04-01"), "Payment 2026-04-01", "Acme", "Checking", "DEBIT", "0.99", "", "SERVICE_REVIEW"},
	}
	march := func(kv ...string) url.Values { return period("2026-03-01", "2026-04-30", kv...) }
	cases := []struct {
		name string
		q    url.Values
		want []row
	}{
		{"all", march(), []row{rentRow, saleRow, pendingRow, splitRow, reviewRow}},
		{"categorized", march("categorized", "true"), []row{rentRow, saleRow, splitRow}},
		{"not categorized", march("categorized", "false"), []row{pendingRow, reviewRow}},
		{"status UNCATEGORIZED", march("categorization_status", "UNCATEGORIZED"), []row{pendingRow, reviewRow}},
		{"status PENDING", march("categorization_status", "PENDING"), []row{pendingRow}},
		{"category RENT (a split entry too)", march("category", "RENT"), []row{rentRow, splitRow}},
		{"category and categorized", march("category", "SALES", "categorized", "false"), nil},
		{"ISO timestamps", period("2026-03-12T00:00:00Z", "2026-03-15T23:00:00Z"), []row{pendingRow, splitRow}},
	}
	for _, c := range cases {
		d, s := e.exportXLSX(tok, bid, c.q)
		var shown, raw [][]string
		for _, r := range c.want {
			shown, raw = append(shown, r.shown), append(raw, r.raw)
		}
		if got := s.shown[1:]; !reflect.DeepEqual(got, shown) && !(len(got) == 0 && shown == nil) {
			t.Errorf("%s: rows\n%q\nwant\n%q", c.name, got, shown)
		}
		if got := s.raw[1:]; !reflect.DeepEqual(got, raw) && !(len(got) == 0 && raw == nil) {
			t.Errorf("%s: raw rows\n%q\nwant\n%q", c.name, got, raw)
		}
		if c.name == "all" {
			if d.FileName != "transactions_2026-03-01_2026-04-30.xlsx" {
				t.Errorf("file name %q", d.FileName)
			}
			// Types: A date and F number cells (no t attribute), texts
			// inline strings; the memo is no formula.
			for cell, want := range map[string]excelize.CellType{"A2": excelize.CellTypeUnset, "F2": excelize.CellTypeUnset,
				"B2": excelize.CellTypeInlineString, "J2": excelize.CellTypeInlineString, "H2": excelize.CellTypeInlineString} {
				if got, err := s.file.GetCellType(app.TransactionsXLSXSheet, cell); err != nil || got != want {
					t.Errorf("%s: type %v %v, want %v", cell, got, err, want)
				}
			}
			if f, err := s.file.GetCellFormula(app.TransactionsXLSXSheet, "J2"); err != nil || f != "" {
				t.Errorf("memo formula %q %v", f, err)
			}
		}
	}
	// Defaults: from the activation date (today, for the seeded business) to today.
	if _, s := e.exportXLSX(tok, bid, url.Values{}); len(s.shown) != 2 || s.shown[1][7] != "READY_FOR_INPUT" ||
		s.shown[1][0] != time.Now().UTC().Format(domain.DateLayout) {
		t.Errorf("defaults: %q", s.shown)
	}

	for _, c := range []struct {
		q     url.Values
		field string
	}{
		{period("2026-13-01", "2026-03-01"), "start_date"},
		{period("2026-03-01", "yesterday"), "end_date"},
		{period("2026-03-02", "2026-03-01"), "end_date"},
		{march("categorized", "maybe"), "categorized"},
		{march("categorization_status", "SPLIT"), "categorization_status"},
		{march("category", ""), "category"},
	} {
		code, body := e.xlsxStatus(tok, bid, c.q)
		if code != http.StatusBadRequest || !strings.Contains(string(body), `"`+c.field+`"`) {
			t.Errorf("%s: %d %s", c.q.Encode(), code, body)
		}
	}
	other := e.Svc.SeedBusiness(t, "client-b")
	if code, body := e.xlsxStatus(tok, other, march()); code != http.StatusNotFound {
		t.Errorf("another client's business: %d %s", code, body)
	}
	if code, _ := e.xlsxStatus("", bid, march()); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
}

// TestTransactionsXLSXWithoutStorage: 503 StorageNotConfigured.
func TestTransactionsXLSXWithoutStorage(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	if code, body := e.xlsxStatus(tok, bid, url.Values{}); code != http.StatusServiceUnavailable || !strings.Contains(string(body), "export storage is not configured") {
		t.Fatalf("%d %s", code, body)
	}
}

// memFiles is storage keeping the one object put, with its content type.
type memFiles struct {
	storage.Store
	data        []byte
	contentType string
}

func (f *memFiles) Put(_ context.Context, _ string, r io.Reader, _ int64, ct string) error {
	b, err := io.ReadAll(r)
	f.data, f.contentType = b, ct
	return err
}

func (f *memFiles) PresignGet(context.Context, string, time.Duration, storage.PresignOptions) (string, error) {
	return "http://example.invalid/x", nil
}

// TestTransactionsXLSXLarge: 20,000 transactions with 1 KB memos, more sheet XML than
// excelize keeps in memory (16 MiB: the rest goes to its temporary
// file), zipped into the pipe storage reads: the workbook opens with
// every row, the first and last as written.
func TestTransactionsXLSXLarge(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	const n = 20000
	if _, err := e.DB.NewRaw(`INSERT INTO bank_transactions (business_id, transaction_id, version, day, date_time, description,
			counterparty, account_name, ledger_account_id, direction, amount, categorization_status, categorized, memo, event_time)
		SELECT ?, gen_random_uuid(), 1, DATE '2026-01-01' + (i % 300), now(), 'Transaction ' || i, 'Acme Corporation Limited', 'Operating checking',
			gen_random_uuid(), 'DEBIT', i, 'CATEGORIZED', true, repeat('memo ', 200), now()
		FROM generate_series(1, ?) AS i`, bid, n).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	files := &memFiles{}
	x := app.NewExports(postgres.Snapshot{DB: e.DB}, postgres.New(e.DB), e.S.Reports, e.Svc.Kit.Businesses(), files)
	if _, err := x.TransactionsXLSX(t.Context(), bid, url.Values{"start_date": {"2026-01-01"}, "end_date": {"2026-12-31"}}); err != nil {
		t.Fatal(err)
	}
	if files.contentType != xlsxType {
		t.Fatalf("content type %q", files.contentType)
	}
	// More sheet XML than excelize's in-memory chunk: the temporary file was used.
	zr, err := zip.NewReader(bytes.NewReader(files.data), int64(len(files.data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, zf := range zr.File {
		if strings.HasPrefix(zf.Name, "xl/worksheets/") && zf.UncompressedSize64 <= excelize.StreamChunkSize {
			t.Fatalf("%s: %d bytes, not more than excelize's %d in memory", zf.Name, zf.UncompressedSize64, excelize.StreamChunkSize)
		}
	}
	f, err := excelize.OpenReader(bytes.NewReader(files.data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.Rows(app.TransactionsXLSXSheet)
	if err != nil {
		t.Fatal(err)
	}
	var count int
	var first, last []string
	for rows.Next() {
		r, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		if count == 1 {
			first = r
		}
		last, count = r, count+1
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if count != n+1 || first[0] != excelDay("2026-01-01") || last[0] != excelDay("2026-10-27") || len(last[9]) != 1000 {
		t.Fatalf("%d rows; first %q; last %q", count, first, last)
	}
	t.Logf("%d rows, %d bytes of xlsx", n, len(files.data))
}
