package service

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// newStorageEnv is a service with filesystem storage whose pre-signed URLs
// a test download server serves (as the gateway does).
func newStorageEnv(t *testing.T) *env {
	t.Helper()
	e, _ := newStorageEnvIn(t)
	return e
}

// newStorageEnvIn is newStorageEnv, with the storage directory.
func newStorageEnvIn(t *testing.T) (*env, string) {
	t.Helper()
	dir := t.TempDir()
	key := bytes.Repeat([]byte("k"), storage.MinSigningKeyLength)
	h, err := storage.NewDownloadHandler(storage.DownloadOptions{Dir: dir, SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	dl := fiber.New()
	dl.Get(storage.DownloadRoute, h)
	baseURL := testkit.Serve(t, dl)
	return newEnvWith(t, servicetest.ServiceOptions{Env: map[string]string{
		"STORAGE_BACKEND": "fs", "STORAGE_DIR": dir, "STORAGE_PUBLIC_BASE_URL": baseURL,
		"STORAGE_SIGNING_KEY": base64.StdEncoding.EncodeToString(key),
	}}), dir
}

func exportPath(bid uuid.UUID, q url.Values) string {
	return fmt.Sprintf("/v1/businesses/%s/reports/transactions/exports/csv?%s", bid, q.Encode())
}

type presigned struct {
	Type         string    `json:"type"`
	PresignedURL string    `json:"presignedUrl"`
	FileType     string    `json:"fileType"`
	FileName     string    `json:"fileName"`
	CreatedAt    time.Time `json:"createdAt"`
	DocumentID   uuid.UUID `json:"documentId"`
	DocumentType string    `json:"document_type"`
}

// exportStatus asks for an export and validates the exchange.
func (e *env) exportStatus(token string, bid uuid.UUID, q url.Values) (int, []byte) {
	e.T.Helper()
	resp, body := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodGet, exportPath(bid, q), token, nil))
	return resp.StatusCode, body
}

// export asks for an export and downloads the CSV through its URL.
func (e *env) export(token string, bid uuid.UUID, q url.Values) (presigned, [][]string) {
	e.T.Helper()
	code, body := e.exportStatus(token, bid, q)
	if code != http.StatusOK {
		e.T.Fatalf("export %s: %d %s", q.Encode(), code, body)
	}
	var out struct{ Data presigned }
	if err := json.Unmarshal(body, &out); err != nil {
		e.T.Fatal(err)
	}
	resp, err := http.Get(out.Data.PresignedURL)
	if err != nil {
		e.T.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Disposition"), out.Data.FileName) {
		e.T.Fatalf("download: %d %v %s", resp.StatusCode, resp.Header, raw)
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		e.T.Fatalf("csv: %v\n%s", err, raw)
	}
	if len(rows) == 0 || !reflect.DeepEqual(rows[0], domain.ExportHeader) {
		e.T.Fatalf("header: %v", rows)
	}
	return out.Data, rows[1:]
}

// TestTransactionsCSVExport: the rows of every filter, downloaded through
// the pre-signed URL; the newest version of a transaction only; the
// defaults (activation date to today); every 400; cross-tenant 404; 401.
func TestTransactionsCSVExport(t *testing.T) {
	e := newStorageEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")

	rent := bankTx(bid, "2026-03-10", "CATEGORIZED", "RENT", 200000)
	rent.Memo, rent.ReferenceNumber = ptr(`March "rent", paid`), ptr("REF-1")
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
	archived := bankTx(bid, "2026-03-13", "CATEGORIZED", "RENT", 777) // out of the books: in no export
	archived.ArchivedAt = ptr(time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC))
	var evts []events.Event
	for _, p := range []events.BankTransactionUpserted{rent, old, sale, pending, review, split, today, archived} {
		evts = append(evts, txEvent(t, p))
	}
	e.deliver(evts...)

	rentRow := []string{"2026-03-10", "Payment 2026-03-10", "Acme", "Checking", "DEBIT", "2000.00", "Rent", "CATEGORIZED",
		"dept:retail, proj:x", `March "rent", paid`, "REF-1"}
	saleRow := []string{"2026-03-11", "Payment 2026-03-11", "", "Checking", "CREDIT", "123.45", "Sales", "MATCHED", "", "", ""}
	pendingRow := []string{"2026-03-12", "Payment 2026-03-12", "Acme", "Checking", "DEBIT", "0.01", "", "PENDING", "", "", ""}
	splitRow := []string{"2026-03-15", "Payment 2026-03-15", "Acme", "Checking", "DEBIT", "10.00", "Rent; Bank fees", "SPLIT", "", "", ""}
	reviewRow := []string{"2026-04-01", "Payment 2026-04-01", "Acme", "Checking", "DEBIT", "0.99", "", "SERVICE_REVIEW", "", "", ""}
	march := func(kv ...string) url.Values { return period("2026-03-01", "2026-04-30", kv...) }
	cases := []struct {
		name string
		q    url.Values
		want [][]string
	}{
		{"all", march(), [][]string{rentRow, saleRow, pendingRow, splitRow, reviewRow}},
		{"categorized", march("categorized", "true"), [][]string{rentRow, saleRow, splitRow}},
		{"not categorized", march("categorized", "false"), [][]string{pendingRow, reviewRow}},
		{"status CATEGORIZED", march("categorization_status", "CATEGORIZED"), [][]string{rentRow, saleRow, splitRow}},
		{"status UNCATEGORIZED", march("categorization_status", "UNCATEGORIZED"), [][]string{pendingRow, reviewRow}},
		{"status PENDING", march("categorization_status", "PENDING"), [][]string{pendingRow}},
		{"category RENT (a split entry too)", march("category", "RENT"), [][]string{rentRow, splitRow}},
		{"category and categorized", march("category", "SALES", "categorized", "false"), nil},
		{"one day", period("2026-03-11", "2026-03-11"), [][]string{saleRow}},
		{"ISO timestamps", period("2026-03-12T00:00:00Z", "2026-03-15T23:00:00Z"), [][]string{pendingRow, splitRow}},
	}
	for _, c := range cases {
		d, rows := e.export(tok, bid, c.q)
		if len(rows) == 0 {
			rows = nil
		}
		if !reflect.DeepEqual(rows, c.want) {
			t.Errorf("%s: rows\n%q\nwant\n%q", c.name, rows, c.want)
		}
		if d.Type != "Storage_Presigned_Url" || d.FileType != "csv" || d.DocumentID == uuid.Nil || d.CreatedAt.IsZero() ||
			!strings.HasPrefix(d.FileName, "transactions_") || d.DocumentType != "TRANSACTIONS_CSV" {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
	// Defaults: from the activation date (today, for the seeded business) to today.
	if _, rows := e.export(tok, bid, url.Values{}); len(rows) != 1 || rows[0][7] != "READY_FOR_INPUT" {
		t.Errorf("defaults: %q", rows)
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
		code, body := e.exportStatus(tok, bid, c.q)
		if code != http.StatusBadRequest || !strings.Contains(string(body), `"`+c.field+`"`) {
			t.Errorf("%s: %d %s", c.q.Encode(), code, body)
		}
	}
	other := e.Svc.SeedBusiness(t, "client-b")
	if code, body := e.exportStatus(tok, other, march()); code != http.StatusNotFound {
		t.Errorf("another client's business: %d %s", code, body)
	}
	if code, _ := e.exportStatus("", bid, march()); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
}

// TestTransactionsCSVWithoutStorage: 503 StorageNotConfigured.
func TestTransactionsCSVWithoutStorage(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	if code, body := e.exportStatus(tok, bid, url.Values{}); code != http.StatusServiceUnavailable || !strings.Contains(string(body), "export storage is not configured") {
		t.Fatalf("%d %s", code, body)
	}
}
