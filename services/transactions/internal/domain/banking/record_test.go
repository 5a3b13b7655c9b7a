package banking

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
)

// part is one part of a test multipart body.
type part struct {
	name, filename, contentType string
	body                        string
}

func jsonPart(body string) part {
	return part{name: "transaction", contentType: "application/json", body: body}
}

func filePart(name, body string) part {
	return part{name: "files", filename: name, contentType: "image/png", body: body}
}

// multipartBody encodes parts and returns the body and its Content-Type.
func multipartBody(parts ...part) ([]byte, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := fmt.Sprintf(`form-data; name=%q`, p.name)
		if p.filename != "" {
			cd += fmt.Sprintf(`; filename=%q`, p.filename)
		}
		h.Set("Content-Disposition", cd)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			panic(err)
		}
		if _, err := io.WriteString(pw, p.body); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

func parseRecord(t *testing.T, mode RecordMode, parts ...part) (*RecordRequest, error) {
	t.Helper()
	body, ct := multipartBody(parts...)
	return ParseRecordRequest(bytes.NewReader(body), ct, RecordOptions{Mode: mode, SpoolDir: tempDir(t), MaxFileBytes: 1024})
}

func readAll(t *testing.T, f *ReceiptFile) string {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseRecordRequestUpdate(t *testing.T) {
	docA, docB := uuid.New(), uuid.New()
	cust := uuid.New()
	req, err := parseRecord(t, RecordUpdate,
		part{name: "transaction", body: `{
			"amount": "2599", "direction": "MONEY_OUT", "date": "2025-03-04", "description": "  lunch ",
			"merchant_name": null, "memo": "", "reference_number": "R-7", "metadata": {"a": 1},
			"customer_id": "` + cust.String() + `", "customer_external_id": null, "vendor_id": null, "vendor_external_id": "v-1",
			"categorization": {"type": "Category", "category": {"type": "StableName", "stable_name": "MEALS"}, "tax_code": "HST_ON"},
			"document_ids": ["` + docA.String() + `", "` + docB.String() + `", "` + docA.String() + `"],
			"tags": [{"key": "project", "value": "alpha"}]}`},
		filePart("receipt.png", "png-bytes"),
		part{name: "files", filename: "scan.pdf", body: "%PDF"},
	)
	if err != nil {
		t.Fatalf("ParseRecordRequest: %v", err)
	}
	defer req.Close()
	p := req.Transaction
	if p == nil || !p.HasChanges() {
		t.Fatal("no transaction patch")
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"amount", p.Amount == Optional[money.Cents]{Set: true, Value: 2599}},
		{"direction", p.Direction.Set && p.Direction.Value == Debit},
		{"date", p.Date.Set && p.Date.Value.Equal(day("2025-03-04"))},
		{"description", p.Description.Set && p.Description.Value == "lunch"},
		{"merchant_name null", p.MerchantName.Set && p.MerchantName.Null},
		{"memo blank clears", p.Memo.Set && p.Memo.Null},
		{"reference_number", p.ReferenceNumber == Nullable[string]{Set: true, Value: "R-7"}},
		{"metadata", p.Metadata.Set && string(p.Metadata.Value) == `{"a":1}`},
		{"customer_id", p.CustomerID == Nullable[uuid.UUID]{Set: true, Value: cust}},
		{"customer_external_id null", p.CustomerExternalID.Set && p.CustomerExternalID.Null},
		{"vendor_id null", p.VendorID.Set && p.VendorID.Null},
		{"vendor_external_id", p.VendorExternalID == Nullable[string]{Set: true, Value: "v-1"}},
		{"categorization", p.Categorization.Set && p.Categorization.Value.Category.StableName == "MEALS" && p.Categorization.Value.TaxCode == "HST_ON"},
		{"document_ids deduplicated", p.DocumentIDs.Set && len(p.DocumentIDs.Value) == 2 && p.DocumentIDs.Value[1] == docB},
		{"tags", p.Tags.Set && len(p.Tags.Value) == 1},
		{"external_id absent", !p.ExternalID.Set},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: patch = %+v", c.name, p)
		}
	}
	if len(req.Files) != 2 {
		t.Fatalf("%d files, want 2", len(req.Files))
	}
	f0, f1 := req.Files[0], req.Files[1]
	if f0.Filename != "receipt.png" || f0.ContentType != "image/png" || f0.Size != 9 || readAll(t, f0) != "png-bytes" {
		t.Errorf("file 0 = %+v", f0)
	}
	if f1.Filename != "scan.pdf" || f1.ContentType != "application/octet-stream" || readAll(t, f1) != "%PDF" {
		t.Errorf("file 1 = %+v", f1)
	}
	if err := req.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f0.Open(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close the spooled file is still there: %v", err)
	}
}

func TestRecordCategorizationIsValidatedAtItsField(t *testing.T) {
	p, err := DecodeRecordPatch([]byte(`{"amount":100,"categorization":{"type":"Category","category":{"type":"StableName","stable_name":"MEALS"},"tax_code":"HST_ON"}}`), RecordUpdate)
	if err != nil {
		t.Fatal(err)
	}
	tgt := american
	tgt.Amount = p.Amount.Value
	_, err = p.Categorization.Value.ValidateAt(tgt, "transaction.categorization")
	want400(t, err, EnumTaxCodeNotAllowed, "transaction.categorization.tax_code")
	tgt = ontario
	tgt.Amount = p.Amount.Value
	c, err := p.Categorization.Value.ValidateAt(tgt, "transaction.categorization")
	if err != nil || c.TaxCode() != "HST_ON" || c.Amount() != 100 {
		t.Errorf("ValidateAt = %+v, %v", c, err)
	}
}

func TestParseRecordRequestShapes(t *testing.T) {
	five := []part{jsonPart(`{"amount":1,"direction":"DEBIT","date":"2025-01-01"}`)}
	for i := range 5 {
		five = append(five, filePart(fmt.Sprintf("r%d.png", i), "x"))
	}
	tests := []struct {
		name  string
		mode  RecordMode
		parts []part
		files int
		tx    bool
	}{
		{"update with only a transaction", RecordUpdate, []part{jsonPart(`{"memo":"x"}`)}, 0, true},
		{"update with only files", RecordUpdate, []part{filePart("a.png", "1"), filePart("b.png", "2")}, 2, false},
		{"update with only tags", RecordUpdate, []part{jsonPart(`{"tags":[]}`)}, 0, true},
		{"update with only document_ids", RecordUpdate, []part{jsonPart(`{"document_ids":[]}`)}, 0, true},
		{"transaction without a content type", RecordUpdate, []part{{name: "transaction", body: `{"memo":"x"}`}}, 0, true},
		{"transaction with a charset", RecordUpdate, []part{{name: "transaction", contentType: "application/json; charset=utf-8", body: `{"memo":"x"}`}}, 0, true},
		{"transaction as a +json type", RecordUpdate, []part{{name: "transaction", contentType: "application/vnd.acct+json", body: `{"memo":"x"}`}}, 0, true},
		{"create with five files", RecordCreate, five, 5, true},
		{"create with an external id", RecordCreate, []part{jsonPart(`{"external_id":"e-1","amount":1,"direction":"CREDIT","date":"2025-01-01T10:00:00Z"}`)}, 0, true},
		{"the same filename in another request is fine", RecordUpdate, []part{filePart("a.png", "1"), filePart("A.png", "2")}, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := parseRecord(t, tt.mode, tt.parts...)
			if err != nil {
				t.Fatalf("ParseRecordRequest: %v", err)
			}
			defer req.Close()
			if len(req.Files) != tt.files || (req.Transaction != nil) != tt.tx {
				t.Errorf("files %d, transaction %v; want %d, %v", len(req.Files), req.Transaction != nil, tt.files, tt.tx)
			}
		})
	}
}

func TestParseRecordRequestRejects(t *testing.T) {
	six := []part{}
	for i := range 6 {
		six = append(six, filePart(fmt.Sprintf("r%d.png", i), "x"))
	}
	big := strings.Repeat("x", 1025)
	tests := []struct {
		name   string
		mode   RecordMode
		parts  []part
		status int
		enum   string
		field  string
	}{
		{"no parts", RecordUpdate, nil, 400, EnumEmptyRecordRequest, "body"},
		{"unknown part", RecordUpdate, []part{{name: "file", filename: "a.png", body: "x"}}, 400, EnumUnknownPart, "file"},
		{"unnamed part", RecordUpdate, []part{{name: "", body: "x"}}, 400, EnumUnknownPart, "part"},
		{"two transaction parts", RecordUpdate, []part{jsonPart(`{"memo":"a"}`), jsonPart(`{"memo":"b"}`)}, 400, EnumInvalidMultipart, "transaction"},
		{"transaction as text", RecordUpdate, []part{{name: "transaction", contentType: "text/plain", body: `{"memo":"a"}`}}, 400, EnumUnsupportedMediaType, "transaction"},
		{"transaction with a bad content type", RecordUpdate, []part{{name: "transaction", contentType: ";;", body: `{"memo":"a"}`}}, 400, EnumUnsupportedMediaType, "transaction"},
		{"transaction not JSON", RecordUpdate, []part{jsonPart(`{"memo":`)}, 400, EnumInvalidTransaction, "transaction"},
		{"transaction an array", RecordUpdate, []part{jsonPart(`[{"memo":"a"}]`)}, 400, EnumInvalidTransaction, "transaction"},
		{"transaction empty", RecordUpdate, []part{jsonPart(`{}`)}, 400, EnumEmptyRecordRequest, "transaction"},
		{"transaction too large", RecordUpdate, []part{jsonPart(`{"memo":"` + strings.Repeat("m", MaxTransactionPartBytes) + `"}`)}, 413, EnumTransactionTooLarge, "transaction"},
		{"unknown property", RecordUpdate, []part{jsonPart(`{"memo":"a","amout":5}`)}, 400, EnumInvalidTransaction, "transaction.amout"},
		{"null amount", RecordUpdate, []part{jsonPart(`{"amount":null}`)}, 400, EnumInvalidTransaction, "transaction.amount"},
		{"zero amount", RecordUpdate, []part{jsonPart(`{"amount":0}`)}, 400, EnumInvalidTransaction, "transaction.amount"},
		{"huge amount", RecordUpdate, []part{jsonPart(`{"amount":1e19}`)}, 400, EnumInvalidTransaction, "transaction.amount"},
		{"overflowing amount", RecordUpdate, []part{jsonPart(`{"amount":99999999999999999999}`)}, 400, EnumAmountOutOfRange, "transaction.amount"},
		{"bad direction", RecordUpdate, []part{jsonPart(`{"direction":"UP"}`)}, 400, EnumInvalidTransaction, "transaction.direction"},
		{"bad date", RecordUpdate, []part{jsonPart(`{"date":"2025-02-29"}`)}, 400, EnumInvalidTransaction, "transaction.date"},
		{"null description", RecordUpdate, []part{jsonPart(`{"description":null}`)}, 400, EnumInvalidTransaction, "transaction.description"},
		{"description a number", RecordUpdate, []part{jsonPart(`{"description":5}`)}, 400, EnumInvalidTransaction, "transaction.description"},
		{"long merchant name", RecordUpdate, []part{jsonPart(`{"merchant_name":"` + strings.Repeat("m", 256) + `"}`)}, 400, EnumInvalidTransaction, "transaction.merchant_name"},
		{"metadata over 1 KB", RecordUpdate, []part{jsonPart(`{"metadata":{"k":"` + big + `"}}`)}, 400, EnumMetadataTooLarge, "transaction.metadata"},
		{"metadata an array", RecordUpdate, []part{jsonPart(`{"metadata":[]}`)}, 400, EnumInvalidTransaction, "transaction.metadata"},
		{"bad customer id", RecordUpdate, []part{jsonPart(`{"customer_id":"c-1"}`)}, 400, EnumInvalidTransaction, "transaction.customer_id"},
		{"bad vendor id", RecordUpdate, []part{jsonPart(`{"vendor_id":7}`)}, 400, EnumInvalidTransaction, "transaction.vendor_id"},
		{"split categorization", RecordUpdate, []part{jsonPart(`{"categorization":{"type":"Split","entries":[]}}`)}, 400, EnumInvalidCategorization, "transaction.categorization.type"},
		{"bad categorization", RecordUpdate, []part{jsonPart(`{"categorization":{"type":"Category","category":{"type":"Other"}}}`)}, 400, EnumInvalidCategorization, "transaction.categorization.category.type"},
		{"null categorization", RecordUpdate, []part{jsonPart(`{"categorization":null}`)}, 400, EnumInvalidTransaction, "transaction.categorization"},
		{"document ids not an array", RecordUpdate, []part{jsonPart(`{"document_ids":"x"}`)}, 400, EnumInvalidTransaction, "transaction.document_ids"},
		{"bad document id", RecordUpdate, []part{jsonPart(`{"document_ids":["` + uuid.NewString() + `","nope"]}`)}, 400, EnumInvalidTransaction, "transaction.document_ids[1]"},
		{"null document id", RecordUpdate, []part{jsonPart(`{"document_ids":[null]}`)}, 400, EnumInvalidTransaction, "transaction.document_ids[0]"},
		{"document ids when creating", RecordCreate, []part{jsonPart(`{"amount":1,"direction":"DEBIT","date":"2025-01-01","document_ids":[]}`)}, 400, EnumInvalidTransaction, "transaction.document_ids"},
		{"external id on update", RecordUpdate, []part{jsonPart(`{"external_id":"e"}`)}, 400, EnumInvalidTransaction, "transaction.external_id"},
		{"bad tags", RecordUpdate, []part{jsonPart(`{"tags":[{"key":"","value":"v"}]}`)}, 400, "InvalidTags", "transaction.tags[0].key"},
		{"null tags", RecordUpdate, []part{jsonPart(`{"tags":null}`)}, 400, EnumInvalidTransaction, "transaction.tags"},
		{"create without a transaction", RecordCreate, []part{filePart("a.png", "x")}, 400, EnumEmptyRecordRequest, "transaction"},
		{"create without an amount", RecordCreate, []part{jsonPart(`{"direction":"DEBIT","date":"2025-01-01"}`)}, 400, EnumInvalidTransaction, "transaction.amount"},
		{"six files", RecordUpdate, six, 400, EnumTooManyFiles, "files"},
		{"duplicate filename", RecordUpdate, []part{filePart("a.png", "1"), filePart("a.png", "2")}, 400, EnumDuplicateFilename, "files[1]"},
		{"duplicate after the path is dropped", RecordUpdate, []part{filePart("a.png", "1"), filePart("dir/a.png", "2")}, 400, EnumDuplicateFilename, "files[1]"},
		{"file without a filename", RecordUpdate, []part{{name: "files", body: "x"}}, 400, EnumMissingFilename, "files[0]"},
		{"file named dot-dot", RecordUpdate, []part{filePart("..", "x")}, 400, EnumInvalidMultipart, "files[0]"},
		{"file with a control character", RecordUpdate, []part{filePart("a\x01.png", "x")}, 400, EnumInvalidMultipart, "files[0]"},
		{"file too large", RecordUpdate, []part{filePart("a.png", big)}, 413, EnumFileTooLarge, "files[0]"},
		{"empty file", RecordUpdate, []part{filePart("a.png", "")}, 400, EnumInvalidMultipart, "files[0]"},
		{"a bad part after good files", RecordUpdate, []part{filePart("a.png", "1"), filePart("b.png", "2"), {name: "extra", body: "x"}}, 400, EnumUnknownPart, "extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := parseRecord(t, tt.mode, tt.parts...)
			if req != nil {
				t.Errorf("a request came back with the error")
			}
			wantErr(t, err, tt.status, tt.enum, tt.field)
		})
	}
}

func TestParseRecordRequestBadEnvelopes(t *testing.T) {
	valid, ct := multipartBody(jsonPart(`{"memo":"x"}`))
	tests := []struct {
		name        string
		body        []byte
		contentType string
		status      int
		enum        string
	}{
		{"JSON content type", []byte(`{"memo":"x"}`), "application/json", 415, EnumUnsupportedMediaType},
		{"multipart/mixed", valid, strings.Replace(ct, "form-data", "mixed", 1), 415, EnumUnsupportedMediaType},
		{"no content type", valid, "", 415, EnumUnsupportedMediaType},
		{"no boundary", valid, "multipart/form-data", 400, EnumInvalidMultipart},
		{"boundary too long", valid, "multipart/form-data; boundary=" + strings.Repeat("b", 71), 400, EnumInvalidMultipart},
		{"wrong boundary", valid, "multipart/form-data; boundary=nope", 400, EnumInvalidMultipart},
		{"empty body", nil, ct, 400, EnumInvalidMultipart},
		{"truncated body", valid[:len(valid)/2], ct, 400, EnumInvalidMultipart},
		{"garbage", []byte("\x00\x01garbage--\r\n"), ct, 400, EnumInvalidMultipart},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRecordRequest(bytes.NewReader(tt.body), tt.contentType, RecordOptions{Mode: RecordUpdate, SpoolDir: tempDir(t)})
			wantErr(t, err, tt.status, tt.enum, "")
		})
	}
}

// failingReader yields some bytes and then a read error, like a dropped
// connection.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestParseRecordRequestBodyReadFailure(t *testing.T) {
	body, ct := multipartBody(filePart("a.png", strings.Repeat("x", 600)), filePart("b.png", strings.Repeat("y", 600)))
	cause := errors.New("connection reset by peer")
	dir := tempDir(t)
	_, err := ParseRecordRequest(&failingReader{data: body[:len(body)-300], err: cause}, ct, RecordOptions{Mode: RecordUpdate, SpoolDir: dir, MaxFileBytes: 1024})
	if !errors.Is(err, cause) || apperr.From(err).Status() < 500 {
		t.Errorf("error = %v, want the read failure, not a client error", err)
	}
}

func TestParseRecordRequestStreamsFiles(t *testing.T) {
	// A receipt far larger than any buffer the parser holds still spools
	// whole, and the default size cap applies when none is given.
	payload := bytes.Repeat([]byte("0123456789abcdef"), 256<<10) // 4 MiB
	body, ct := multipartBody(part{name: "files", filename: "big.pdf", contentType: "application/pdf", body: string(payload)})
	req, err := ParseRecordRequest(bytes.NewReader(body), ct, RecordOptions{Mode: RecordUpdate, SpoolDir: tempDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer req.Close()
	if req.Files[0].Size != int64(len(payload)) || readAll(t, req.Files[0]) != string(payload) {
		t.Errorf("spooled %d bytes, want %d", req.Files[0].Size, len(payload))
	}
}

// FuzzParseRecordRequest: any body and boundary either parse into a
// request that keeps every rule (at most five files, unique non-empty
// filenames, a transaction part with changes) or are refused with a 4xx
// error object; nothing is left on disk either way.
func FuzzParseRecordRequest(f *testing.F) {
	add := func(parts ...part) {
		body, ct := multipartBody(parts...)
		f.Add(body, strings.TrimPrefix(ct, "multipart/form-data; boundary="))
	}
	add(jsonPart(`{"amount":2599,"memo":null,"tags":[{"key":"k","value":"v"}]}`), filePart("a.png", "x"))
	seven := []part{jsonPart(`{"memo":"m"}`)}
	for i := range 7 {
		seven = append(seven, filePart(fmt.Sprintf("%d.png", i), "x"))
	}
	add(seven...)
	add(filePart("same.png", "1"), filePart("same.png", "2"))
	add(part{name: "files", body: "no filename"})
	add(jsonPart(`{}`))
	add()
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"transaction\"\r\n\r\n{\"memo\":\"x\"}\r\n--b--\r\n"), "b")
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"transaction\"\r\n\r\n{\"memo\":\"x\"}\r\n--c--\r\n"), "b")
	f.Add([]byte("--\r\n--\r\n"), "")
	f.Add([]byte("garbage"), "\x00\"; boundary=x")
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		dir := t.TempDir()
		ct := "multipart/form-data; boundary=\"" + strings.ReplaceAll(boundary, `"`, `\"`) + "\""
		req, err := ParseRecordRequest(bytes.NewReader(body), ct, RecordOptions{Mode: RecordUpdate, SpoolDir: dir, MaxFileBytes: 4096})
		if err != nil {
			if !is4xx(err) {
				t.Fatalf("refusal is not a 4xx error object: %v", err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("%d spooled files left after an error", len(left))
			}
			return
		}
		if len(req.Files) > MaxReceiptFiles {
			t.Fatalf("%d files accepted", len(req.Files))
		}
		names := map[string]bool{}
		for _, rf := range req.Files {
			if rf.Filename == "" || names[rf.Filename] || rf.Size <= 0 || rf.Size > 4096 {
				t.Fatalf("file accepted: %+v", rf)
			}
			names[rf.Filename] = true
		}
		if req.Transaction == nil && len(req.Files) == 0 {
			t.Fatal("an empty request was accepted")
		}
		if req.Transaction != nil && !req.Transaction.HasChanges() {
			t.Fatal("a transaction part without changes was accepted")
		}
		if err := req.Close(); err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("%d spooled files left after Close", len(left))
		}
	})
}

// TestSpoolBudget: requests sharing a budget spool together up to it; one
// that finds no room within its wait is refused 503 ReceiptSpoolBusy with
// Retry-After, leaving nothing on disk and its room given back; room a
// closed request frees is taken by the next.
func TestSpoolBudget(t *testing.T) {
	dir := tempDir(t)
	budget := NewSpoolBudget(300<<10, 200*time.Millisecond)
	spool := func(name string, size int) (*RecordRequest, error) {
		body, ct := multipartBody(part{name: "files", filename: name, contentType: "application/pdf", body: strings.Repeat("x", size)})
		return ParseRecordRequest(bytes.NewReader(body), ct, RecordOptions{Mode: RecordUpdate, SpoolDir: dir, Spool: budget})
	}
	files := func() int {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}

	first, err := spool("a.pdf", 200<<10)
	if err != nil {
		t.Fatal(err)
	}
	small, err := spool("b.pdf", 50<<10)
	if err != nil {
		t.Fatalf("a request that fits beside the first: %v", err)
	}
	start := time.Now()
	_, err = spool("c.pdf", 200<<10)
	ae := apperr.From(err)
	if ae.Status() != 503 || ae.Enum != EnumReceiptSpoolBusy || ae.Meta[apperr.RetryAfterMeta] != SpoolRetryAfter {
		t.Fatalf("a request over the budget: %v, want 503 %s with Retry-After", err, EnumReceiptSpoolBusy)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Fatalf("refused after %s, want after waiting for room (200ms)", waited)
	}
	if n := files(); n != 2 {
		t.Fatalf("%d spooled files after the refusal, want the 2 held", n)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	third, err := spool("c.pdf", 200<<10)
	if err != nil {
		t.Fatalf("after the first request closed: %v (its room and the refused one's were not given back)", err)
	}
	for _, r := range []*RecordRequest{small, third} {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := files(); n != 0 {
		t.Fatalf("%d spooled files left", n)
	}
	// Every byte is back: the whole budget fits one request again.
	whole, err := spool("d.pdf", 290<<10)
	if err != nil {
		t.Fatalf("the whole budget after everything closed: %v", err)
	}
	_ = whole.Close()
}
