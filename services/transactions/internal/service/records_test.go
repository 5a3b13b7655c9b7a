package service

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/testkit"
)

// receiptEnv is a service with fs receipt storage whose signed URLs are
// served, as the gateway serves them, by storage's download handler on a
// test server.
type receiptEnv struct {
	*env
	dir string
}

func newReceiptEnv(t *testing.T) *receiptEnv {
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
	e := newEnvWith(t, servicetest.ServiceOptions{Env: map[string]string{
		"STORAGE_BACKEND": "fs", "STORAGE_DIR": dir, "STORAGE_PUBLIC_BASE_URL": baseURL,
		"STORAGE_SIGNING_KEY": base64.StdEncoding.EncodeToString(key),
	}})
	return &receiptEnv{env: e, dir: dir}
}

// with is e reporting to t (a subtest).
func (e *receiptEnv) with(t *testing.T) *receiptEnv {
	return &receiptEnv{env: e.env.with(t), dir: e.dir}
}

// file is a receipt part of a test request.
type file struct{ name, content string }

// multipartReq builds a record request: txn (nil: no transaction part; a
// string: sent as is) and the files as `files` parts.
func multipartReq(method, path, token string, txn any, files ...file) *http.Request {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if txn != nil {
		raw, ok := txn.(string)
		if !ok {
			b, err := json.Marshal(txn)
			if err != nil {
				panic(err)
			}
			raw = string(b)
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="transaction"`)
		h.Set("Content-Type", "application/json")
		p, _ := w.CreatePart(h)
		_, _ = p.Write([]byte(raw))
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="files"; filename=%q`, f.name))
		h.Set("Content-Type", "image/png")
		p, _ := w.CreatePart(h)
		_, _ = p.Write([]byte(f.content))
	}
	_ = w.Close()
	r := httptest.NewRequest(method, path, &body)
	r.Header.Set("Content-Type", w.FormDataContentType())
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

// uploadReq builds POST /bank-transactions/{id}/documents.
func uploadReq(path, token, name, content, documentType string) *http.Request {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", name)
	_, _ = fw.Write([]byte(content))
	if documentType != "" {
		_ = w.WriteField("documentType", documentType)
	}
	_ = w.Close()
	r := httptest.NewRequest("POST", path, &body)
	r.Header.Set("Content-Type", w.FormDataContentType())
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

// storedObjects counts the objects under the storage directory.
func (e *receiptEnv) storedObjects() int {
	e.T.Helper()
	n := 0
	err := filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.Contains(p, ".tmp") && !strings.HasPrefix(d.Name(), ".") {
			n++
		}
		return nil
	})
	if err != nil {
		e.T.Fatal(err)
	}
	return n
}

// download fetches a presigned URL.
func download(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func recordPath(bid uuid.UUID, acct string) string {
	return base(bid) + "/custom-accounts/" + acct + "/transactions/record"
}

func patchPath(bid uuid.UUID, acct, txn string) string {
	return base(bid) + "/custom-accounts/" + acct + "/transactions/" + txn + "/record"
}

func docIDs(d map[string]any) []string {
	var out []string
	for _, v := range d["document_ids"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

func TestRecordTransactionWithReceipts(t *testing.T) {
	e := newReceiptEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	acct := e.customAccount(bid, tok, map[string]any{"account_name": "Cash box", "account_type": "DEPOSITORY"}, 201)["id"].(string)

	d := data(e.Do(multipartReq("POST", recordPath(bid, acct), tok, map[string]any{
		"amount": 4250, "direction": "DEBIT", "date": "2026-03-04", "description": "Team lunch", "memo": "Q1",
		"categorization": map[string]any{"type": "Category", "category": stable("MEALS")},
		"tags":           []any{map[string]any{"key": "project", "value": "apollo"}},
	}, file{"lunch.png", "png-bytes-1"}, file{"tip.png", "png-bytes-2"}), 201))
	if d["source"] != "CUSTOM" || cents(d["amount"]) != 4250 || d["categorization_status"] != "CATEGORIZED" {
		t.Fatalf("recorded = %v", d)
	}
	ids := docIDs(d)
	if len(ids) != 2 {
		t.Fatalf("document_ids = %v", ids)
	}
	// A read of the transaction (tags and documents in the same statement)
	// and a page of the listing (batched loads) agree with the answer.
	read := data(e.Do(req("GET", base(bid)+"/bank-transactions/"+d["id"].(string), tok, nil), 200))
	var listed map[string]any
	for _, it := range e.Do(req("GET", base(bid)+"/bank-transactions", tok, nil), 200)["data"].([]any) {
		if m := it.(map[string]any); m["id"] == d["id"] {
			listed = m
		}
	}
	for _, got := range []map[string]any{read, listed} {
		if fmt.Sprint(got["document_ids"]) != fmt.Sprint(d["document_ids"]) || fmt.Sprint(got["transaction_tags"]) != fmt.Sprint(d["transaction_tags"]) {
			t.Fatalf("read back documents %v tags %v, want %v %v", got["document_ids"], got["transaction_tags"], d["document_ids"], d["transaction_tags"])
		}
	}
	txnID := d["id"].(string)
	if got := e.liveEntries(bid, txnID); got != 1 {
		t.Fatalf("live entries = %d, want 1", got)
	}
	if b := e.balances(bid, tok, ""); b["MEALS"] != 4250 {
		t.Fatalf("MEALS balance = %d", b["MEALS"])
	}
	var key string
	if err := e.DB.NewRaw("SELECT storage_key FROM bank_transaction_documents WHERE id = ?", ids[0]).Scan(context.Background(), &key); err != nil {
		t.Fatal(err)
	}
	if want := bid.String() + "/receipts/" + txnID + "/" + ids[0]; key != want {
		t.Fatalf("storage key = %s, want %s", key, want)
	}

	docs := data(e.Do(req("GET", base(bid)+"/bank-transactions/"+txnID+"/documents?content_disposition=ATTACHMENT", tok, nil), 200))
	urls := docs["documentUrls"].([]any)
	if docs["type"] != "Document_Storage_Urls" || len(urls) != 2 {
		t.Fatalf("documents = %v", docs)
	}
	first := urls[0].(map[string]any)
	if first["type"] != "Storage_Presigned_Url" || first["fileName"] != "lunch.png" || first["fileType"] != "image/png" || first["documentId"] != ids[0] {
		t.Fatalf("first document = %v", first)
	}
	status, body, hdr := download(t, first["presignedUrl"].(string))
	if status != 200 || body != "png-bytes-1" || !strings.Contains(hdr.Get("Content-Disposition"), "attachment") {
		t.Fatalf("download = %d %q %v", status, body, hdr)
	}

	// The same external_id twice answers the first transaction and keeps no file.
	before := e.storedObjects()
	x := map[string]any{"external_id": "rec-1", "amount": 100, "direction": "DEBIT", "date": "2026-03-05"}
	one := data(e.Do(multipartReq("POST", recordPath(bid, acct), tok, x, file{"a.png", "a"}), 201))
	two := data(e.Do(multipartReq("POST", recordPath(bid, acct), tok, x, file{"b.png", "b"}), 201))
	if one["id"] != two["id"] || len(docIDs(two)) != 1 || e.storedObjects() != before+1 {
		t.Fatalf("retried record: %v vs %v, objects %d -> %d", one["id"], two["id"], before, e.storedObjects())
	}
}

func TestRecordTransactionRefusals(t *testing.T) {
	e := newReceiptEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	other := e.business("client-b", "US")
	acct := e.customAccount(bid, tok, map[string]any{"account_name": "Cash", "account_type": "DEPOSITORY"}, 201)["id"].(string)
	valid := map[string]any{"amount": 100, "direction": "DEBIT", "date": "2026-03-04"}
	tests := []struct {
		name   string
		rq     *http.Request
		status int
		enum   string
	}{
		{"no transaction part", multipartReq("POST", recordPath(bid, acct), tok, nil, file{"a.png", "a"}), 400, "EmptyRecordRequest"},
		{"missing amount", multipartReq("POST", recordPath(bid, acct), tok, map[string]any{"direction": "DEBIT", "date": "2026-03-04"}), 400, "InvalidTransaction"},
		{"six files", multipartReq("POST", recordPath(bid, acct), tok, valid,
			file{"1", "x"}, file{"2", "x"}, file{"3", "x"}, file{"4", "x"}, file{"5", "x"}, file{"6", "x"}), 400, "TooManyFiles"},
		{"duplicate filename", multipartReq("POST", recordPath(bid, acct), tok, valid, file{"a", "x"}, file{"a", "y"}), 400, "DuplicateFilename"},
		{"unknown custom account", multipartReq("POST", recordPath(bid, uuid.NewString()), tok, valid, file{"a", "x"}), 404, "CustomAccountNotFound"},
		{"another business's account", multipartReq("POST", recordPath(other, acct), e.Token("client-b"), valid, file{"a", "x"}), 404, "CustomAccountNotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e.with(t)
			e.DoInvalid(tt.rq, tt.status, tt.enum)
			if n := e.storedObjects(); n != 0 {
				t.Fatalf("%d objects left in storage", n)
			}
		})
	}
}

func TestUpdateRecordedTransaction(t *testing.T) {
	e := newReceiptEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	acct := e.customAccount(bid, tok, map[string]any{"account_name": "Cash", "account_type": "DEPOSITORY"}, 201)["id"].(string)
	record := func(amount int, files ...file) map[string]any {
		return data(e.Do(multipartReq("POST", recordPath(bid, acct), tok, map[string]any{
			"amount": amount, "direction": "DEBIT", "date": "2026-03-04", "description": "Supplies", "memo": "m1",
		}, files...), 201))
	}
	patch := func(txn string, body any, want int, files ...file) map[string]any {
		return data(e.Do(multipartReq("PATCH", patchPath(bid, acct, txn), tok, body, files...), want))
	}

	t.Run("omitted properties stay unchanged", func(t *testing.T) {
		e := e.with(t)
		id := record(500)["id"].(string)
		d := patch(id, map[string]any{"memo": "m2"}, 200)
		if d["memo"] != "m2" || cents(d["amount"]) != 500 || d["description"] != "Supplies" || !strings.HasPrefix(d["date"].(string), "2026-03-04") {
			t.Fatalf("patched = %v", d)
		}
		if e.liveEntries(bid, id) != 1 {
			t.Fatal("a memo change must keep one live entry")
		}
	})

	t.Run("customer and vendor links are kept, cleared by null, published", func(t *testing.T) {
		e := e.with(t)
		customer, vendor := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
		d := data(e.Do(multipartReq("POST", recordPath(bid, acct), tok, map[string]any{
			"amount": 900, "direction": "CREDIT", "date": "2026-03-05", "description": "Deposit",
			"customer_id": customer, "customer_external_id": "cus-7", "vendor_external_id": "ven-2",
		}), 201))
		id := d["id"].(string)
		if d["customer_id"] != customer || d["customer_external_id"] != "cus-7" || d["vendor_id"] != nil || d["vendor_external_id"] != "ven-2" {
			t.Fatalf("recorded links = %v %v %v %v", d["customer_id"], d["customer_external_id"], d["vendor_id"], d["vendor_external_id"])
		}
		d = patch(id, map[string]any{"customer_id": nil, "vendor_id": vendor}, 200)
		if d["customer_id"] != nil || d["customer_external_id"] != "cus-7" || d["vendor_id"] != vendor || d["vendor_external_id"] != "ven-2" {
			t.Fatalf("patched links = %v %v %v %v", d["customer_id"], d["customer_external_id"], d["vendor_id"], d["vendor_external_id"])
		}
		got := data(e.Do(req("GET", base(bid)+"/bank-transactions/"+id, tok, nil), 200))
		if got["vendor_id"] != vendor || got["customer_id"] != nil {
			t.Fatalf("read back links = %v %v", got["customer_id"], got["vendor_id"])
		}
		snap := e.txnSnapshots(bid)[id]
		if snap.VendorID == nil || snap.VendorID.String() != vendor || snap.CustomerID != nil ||
			snap.CustomerExternalID == nil || *snap.CustomerExternalID != "cus-7" {
			t.Fatalf("snapshot links = %+v", snap)
		}
	})

	t.Run("document_ids keeps those listed and archives the others; files are added", func(t *testing.T) {
		e := e.with(t)
		d := record(700, file{"a.png", "A"}, file{"b.png", "B"})
		id, ids := d["id"].(string), docIDs(d)
		d = patch(id, map[string]any{"document_ids": []string{ids[1]}}, 200, file{"c.png", "C"})
		got := docIDs(d)
		if len(got) != 2 || got[0] != ids[1] || slices.Contains(got, ids[0]) {
			t.Fatalf("document_ids = %v (had %v)", got, ids)
		}
		docs := data(e.Do(req("GET", base(bid)+"/bank-transactions/"+id+"/documents", tok, nil), 200))["documentUrls"].([]any)
		names := []string{}
		for _, u := range docs {
			names = append(names, u.(map[string]any)["fileName"].(string))
		}
		if !slices.Equal(names, []string{"b.png", "c.png"}) {
			t.Fatalf("documents = %v", names)
		}
		// Files only (no transaction part) is a valid update.
		if d := patch(id, nil, 200, file{"d.png", "D"}); len(docIDs(d)) != 3 {
			t.Fatalf("document_ids after files-only update = %v", docIDs(d))
		}
	})

	t.Run("categorization recategorizes; amount change re-posts", func(t *testing.T) {
		e := e.with(t)
		id := record(1000)["id"].(string)
		d := patch(id, map[string]any{"categorization": map[string]any{"type": "Category", "category": stable("OFFICE_EXPENSES")}}, 200)
		if d["categorization_status"] != "CATEGORIZED" {
			t.Fatalf("status = %v", d["categorization_status"])
		}
		if b := e.balances(bid, tok, ""); b["OFFICE_EXPENSES"] != 1000 {
			t.Fatalf("OFFICE_EXPENSES = %d", b["OFFICE_EXPENSES"])
		}
		d = patch(id, map[string]any{"amount": 1250, "date": "2026-03-10"}, 200)
		if cents(d["amount"]) != 1250 || !strings.HasPrefix(d["date"].(string), "2026-03-10") || d["categorization_status"] != "CATEGORIZED" {
			t.Fatalf("patched = %v", d)
		}
		if b := e.balances(bid, tok, ""); b["OFFICE_EXPENSES"] != 1250 {
			t.Fatalf("OFFICE_EXPENSES after amount change = %d", b["OFFICE_EXPENSES"])
		}
		if n := e.liveEntries(bid, id); n != 1 {
			t.Fatalf("live entries = %d", n)
		}
		// Direction change of an uncategorized one moves it to revenue.
		id2 := record(300)["id"].(string)
		patch(id2, map[string]any{"direction": "CREDIT"}, 200)
		if n := e.liveEntries(bid, id2); n != 1 {
			t.Fatalf("live entries = %d", n)
		}
	})

	t.Run("tags replace the transaction's tags", func(t *testing.T) {
		id := record(200)["id"].(string)
		patch(id, map[string]any{"tags": []any{map[string]any{"key": "a", "value": "1"}, map[string]any{"key": "b", "value": "2"}}}, 200)
		d := patch(id, map[string]any{"tags": []any{map[string]any{"key": "c", "value": "3"}}}, 200)
		tg := d["transaction_tags"].([]any)
		if len(tg) != 1 || tg[0].(map[string]any)["key"] != "c" {
			t.Fatalf("transaction_tags = %v", tg)
		}
	})

	t.Run("amount change of a split that no longer adds up is refused", func(t *testing.T) {
		e := e.with(t)
		id := record(1000)["id"].(string)
		e.Do(req("PUT", base(bid)+"/bank-transactions/"+id+"/categorize", tok, map[string]any{"type": "Split", "entries": []any{
			map[string]any{"category": stable("MEALS"), "amount": 400},
			map[string]any{"category": stable("TRAVEL"), "amount": 600},
		}}), 200)
		e.DoInvalid(multipartReq("PATCH", patchPath(bid, acct, id), tok, map[string]any{"amount": 900}), 400, "")
		d := patch(id, map[string]any{"date": "2026-04-01"}, 200)
		if cents(d["amount"]) != 1000 || d["categorization_status"] != "SPLIT" || e.liveEntries(bid, id) != 1 {
			t.Fatalf("after refused amount change and date change: %v", d)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		e := e.with(t)
		id := record(100, file{"keep.png", "K"})["id"].(string)
		otherAcct := e.customAccount(bid, tok, map[string]any{"account_name": "Other", "account_type": "DEPOSITORY"}, 201)["id"].(string)
		otherBiz := e.business("client-b", "US")
		before := e.storedObjects()
		tests := []struct {
			name   string
			rq     *http.Request
			status int
			enum   string
		}{
			{"no part", multipartReq("PATCH", patchPath(bid, acct, id), tok, nil), 400, "EmptyRecordRequest"},
			{"empty transaction", multipartReq("PATCH", patchPath(bid, acct, id), tok, map[string]any{}), 400, "EmptyRecordRequest"},
			{"invalid amount", multipartReq("PATCH", patchPath(bid, acct, id), tok, map[string]any{"amount": -5}), 400, ""},
			{"not json", multipartReq("PATCH", patchPath(bid, acct, id), tok, "{"), 400, "InvalidTransaction"},
			{"six files", multipartReq("PATCH", patchPath(bid, acct, id), tok, nil,
				file{"1", "x"}, file{"2", "x"}, file{"3", "x"}, file{"4", "x"}, file{"5", "x"}, file{"6", "x"}), 400, "TooManyFiles"},
			{"duplicate filenames", multipartReq("PATCH", patchPath(bid, acct, id), tok, nil, file{"a", "x"}, file{"a", "x"}), 400, "DuplicateFilename"},
			{"unknown document id, file discarded", multipartReq("PATCH", patchPath(bid, acct, id), tok,
				map[string]any{"document_ids": []string{uuid.NewString()}}, file{"new.png", "N"}), 400, "DocumentNotFound"},
			{"unknown custom account", multipartReq("PATCH", patchPath(bid, uuid.NewString(), id), tok, map[string]any{"memo": "x"}), 404, "CustomAccountNotFound"},
			{"unknown transaction", multipartReq("PATCH", patchPath(bid, acct, uuid.NewString()), tok, map[string]any{"memo": "x"}), 404, "RecordedTransactionNotFound"},
			{"transaction of another custom account", multipartReq("PATCH", patchPath(bid, otherAcct, id), tok, map[string]any{"memo": "x"}, file{"z", "z"}), 404, "RecordedTransactionNotFound"},
			{"another business", multipartReq("PATCH", patchPath(otherBiz, acct, id), e.Token("client-b"), map[string]any{"memo": "x"}), 404, "CustomAccountNotFound"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := e.with(t)
				e.DoInvalid(tt.rq, tt.status, tt.enum)
				if n := e.storedObjects(); n != before {
					t.Fatalf("objects %d -> %d: a failed request left files", before, n)
				}
			})
		}
		got, err := e.S.Banking.BankTransaction(context.Background(), bid, uuid.MustParse(id))
		if err != nil || got.Memo == nil || *got.Memo != "m1" || len(got.DocumentIDs) != 1 {
			t.Fatalf("after refusals: %+v %v", got, err)
		}
	})
}

func TestDocuments(t *testing.T) {
	e := newReceiptEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	otherTok := e.Token("client-b")
	other := e.business("client-b", "US")
	acct := e.customAccount(bid, tok, map[string]any{"account_name": "Cash", "account_type": "DEPOSITORY"}, 201)["id"].(string)
	txn := e.customTxns(bid, tok, acct, []any{map[string]any{"amount": 900, "direction": "DEBIT", "date": "2026-02-01"}}, 201)[0].(map[string]any)["id"].(string)
	docsPath := base(bid) + "/bank-transactions/" + txn + "/documents"

	doc := data(e.Do(uploadReq(docsPath, tok, "invoice.pdf", "PDF!", "RECEIPT"), 201))
	if doc["file_name"] != "invoice.pdf" || doc["document_type"] != "RECEIPT" {
		t.Fatalf("document = %v", doc)
	}
	docID := doc["id"].(string)
	got, err := e.S.Banking.BankTransaction(context.Background(), bid, uuid.MustParse(txn))
	if err != nil || len(got.DocumentIDs) != 1 || got.DocumentIDs[0].String() != docID {
		t.Fatalf("transaction documents = %v %v", got.DocumentIDs, err)
	}
	urls := data(e.Do(req("GET", docsPath, tok, nil), 200))["documentUrls"].([]any)
	if len(urls) != 1 {
		t.Fatalf("urls = %v", urls)
	}
	if status, body, _ := download(t, urls[0].(map[string]any)["presignedUrl"].(string)); status != 200 || body != "PDF!" {
		t.Fatalf("download = %d %q", status, body)
	}

	e.DoInvalid(req("GET", base(other)+"/bank-transactions/"+txn+"/documents", otherTok, nil), 404, "BankTransactionNotFound")
	e.DoInvalid(uploadReq(base(other)+"/bank-transactions/"+txn+"/documents", otherTok, "x.pdf", "x", ""), 404, "BankTransactionNotFound")
	e.DoInvalid(req("POST", base(other)+"/bank-transactions/"+txn+"/documents/"+docID+"/archive", otherTok, nil), 404, "BankTransactionNotFound")
	e.DoInvalid(req("POST", docsPath+"/"+uuid.NewString()+"/archive", tok, nil), 404, "DocumentNotFound")
	e.DoInvalid(req("GET", docsPath+"?content_disposition=SIDEWAYS", tok, nil), 400, "")

	rq := req("POST", docsPath+"/"+docID+"/archive", tok, nil)
	if resp, _ := e.V.Do(t, e.HTTP, rq); resp.StatusCode != 204 {
		t.Fatalf("archive status = %d", resp.StatusCode)
	}
	if urls := data(e.Do(req("GET", docsPath, tok, nil), 200))["documentUrls"].([]any); len(urls) != 0 {
		t.Fatalf("archived document still listed: %v", urls)
	}
}

func TestReceiptsWithoutStorage(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	acct := e.customAccount(bid, tok, map[string]any{"account_name": "Cash", "account_type": "DEPOSITORY"}, 201)["id"].(string)
	valid := map[string]any{"amount": 100, "direction": "DEBIT", "date": "2026-03-04"}
	// 5xx error objects carry no error_enum (pkg/apperr): the type and the
	// description say it.
	m := e.DoInvalid(multipartReq("POST", recordPath(bid, acct), tok, valid, file{"a.png", "a"}), 503, "")
	if m["type"] != "Unavailable" || m["description"] != "receipt storage is not configured" {
		t.Fatalf("error = %v", m)
	}
	// Without files a transaction is still recorded.
	d := data(e.Do(multipartReq("POST", recordPath(bid, acct), tok, valid), 201))
	e.DoInvalid(req("GET", base(bid)+"/bank-transactions/"+d["id"].(string)+"/documents", tok, nil), 503, "")
	if n := e.countRows("bank_transactions"); n != 1 {
		t.Fatalf("bank_transactions = %d, want 1", n)
	}
}
