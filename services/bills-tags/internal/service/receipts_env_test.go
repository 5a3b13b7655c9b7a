package service

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/receipts"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/storage"
	billstags "github.com/acctsuite/acct/services/bills-tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/config"
)

// receiptEnv is a service with filesystem receipt storage under dir
// (without storage when dir is empty).
type receiptEnv struct {
	*env
	dir string
}

func newReceiptEnv(t testing.TB, withStorage bool) *receiptEnv {
	t.Helper()
	vars := map[string]string{}
	dir := ""
	if withStorage {
		dir = t.TempDir()
		vars = map[string]string{
			"STORAGE_BACKEND": "fs", "STORAGE_DIR": dir, "STORAGE_PUBLIC_BASE_URL": "http://127.0.0.1:1",
			"STORAGE_SIGNING_KEY": base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("k"), storage.MinSigningKeyLength)),
		}
	}
	var s *Service
	svc := servicetest.StartService(t, servicetest.Build(config.LoadFrom, New, &s), servicetest.ServiceOptions{Env: vars})
	tt, _ := t.(*testing.T)
	e := &env{&servicetest.Env[Service]{T: tt, Svc: svc, S: s, HTTP: svc.Kit.App(), V: openapitest.New(t, billstags.OpenAPI), DB: svc.Kit.DB()}}
	return &receiptEnv{env: e, dir: dir}
}

func (e *receiptEnv) with(t *testing.T) *receiptEnv {
	return &receiptEnv{env: e.env.with(t), dir: e.dir}
}

// storedObjects counts the objects under the storage directory.
func (e *receiptEnv) storedObjects() int {
	e.T.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(e.dir, "objects"), func(p string, d fs.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if !d.IsDir() {
			n++
		}
		return nil
	})
	if err != nil {
		e.T.Fatal(err)
	}
	return n
}

func (e *receiptEnv) receiptCount() int {
	e.T.Helper()
	var n int
	if err := e.DB.NewRaw("SELECT count(*) FROM receipts").Scan(context.Background(), &n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// receiptEventCount is the number of receipt.parsed rows in the outbox.
func (e *receiptEnv) receiptEventCount() int {
	e.T.Helper()
	var n int
	if err := e.DB.NewRaw("SELECT count(*) FROM outbox WHERE type = ?", events.TypeReceiptParsed).Scan(context.Background(), &n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// receiptEvent is the receipt.parsed of the imported receipt r (the
// import's answer): exactly one outbox row on acct.bills.v1 keyed by the
// business, whose payload says what the answer says and names the file.
func (e *receiptEnv) receiptEvent(bid uuid.UUID, r map[string]any, fileName, fileType string) events.ReceiptParsed {
	e.T.Helper()
	var rows []struct {
		Topic   string          `bun:"topic"`
		Key     string          `bun:"key"`
		Source  string          `bun:"source"`
		Subject string          `bun:"subject"`
		Data    json.RawMessage `bun:"data"`
	}
	err := e.DB.NewRaw("SELECT topic, key, source, subject, data FROM outbox WHERE type = ? AND data->>'receipt_id' = ? ORDER BY seq",
		events.TypeReceiptParsed, r["business_document_id"]).Scan(context.Background(), &rows)
	if err != nil {
		e.T.Fatalf("outbox rows: %v", err)
	}
	if len(rows) != 1 {
		e.T.Fatalf("%d receipt.parsed rows for receipt %v, want 1", len(rows), r["business_document_id"])
	}
	row := rows[0]
	if row.Topic != events.TopicBills || row.Key != bid.String() || row.Subject != bid.String() || row.Source != "acct/bills-tags" {
		e.T.Fatalf("event envelope: topic %s key %s subject %s source %s", row.Topic, row.Key, row.Subject, row.Source)
	}
	var m map[string]any
	var p events.ReceiptParsed
	if err := json.Unmarshal(row.Data, &m); err != nil {
		e.T.Fatal(err)
	}
	if err := json.Unmarshal(row.Data, &p); err != nil {
		e.T.Fatal(err)
	}
	var matched any
	if mv, ok := r["matched_vendor"].(map[string]any); ok {
		matched = mv["id"]
	}
	want := map[string]any{
		"receipt_id": r["business_document_id"], "business_id": bid.String(), "status": r["status"],
		"failure_reason": r["failure_reason"], "file_name": fileName, "file_type": fileType,
		"proposed_amount_cents": r["proposed_amount_cents"], "proposed_vendor_display": r["proposed_vendor_display"],
		"matched_vendor_id": matched, "created_at": r["created_at"],
	}
	for k, v := range want {
		if m[k] != v {
			e.T.Errorf("receipt.parsed %s = %v, want %v", k, m[k], v)
		}
	}
	if len(m) != len(want) {
		e.T.Errorf("receipt.parsed has %d fields, want %d: %v", len(m), len(want), m)
	}
	return p
}

// part is one part of a multipart test body (filename set: a file part).
type part struct {
	name, filename string
	data           []byte
}

func multipartBody(parts ...part) (*bytes.Buffer, string) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, p := range parts {
		var pw interface{ Write([]byte) (int, error) }
		var err error
		if p.filename != "" {
			pw, err = w.CreateFormFile(p.name, p.filename)
		} else {
			pw, err = w.CreateFormField(p.name)
		}
		if err != nil {
			panic(err)
		}
		_, _ = pw.Write(p.data)
	}
	_ = w.Close()
	return &body, w.FormDataContentType()
}

// uploadReq is a multipart request of parts.
func uploadReq(path, token string, parts ...part) *http.Request {
	body, ct := multipartBody(parts...)
	r := httptest.NewRequest("POST", path, body)
	r.Header.Set("Content-Type", ct)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// importReq imports data as a file named name with the context.
func importReq(bid uuid.UUID, token, name string, data []byte, context string) *http.Request {
	parts := []part{{name: "file", filename: name, data: data}}
	if context != "" {
		parts = append(parts, part{name: "context", data: []byte(context)})
	}
	return uploadReq(base(bid)+"/receipts/import", token, parts...)
}

// imported imports a file and returns the one receipt of the answer.
func (e *receiptEnv) imported(bid uuid.UUID, token, name string, data []byte, context string) map[string]any {
	e.T.Helper()
	list := e.Do(importReq(bid, token, name, data, context), 201)["data"].([]any)
	if len(list) != 1 {
		e.T.Fatalf("import answered %d receipts", len(list))
	}
	r := list[0].(map[string]any)
	checkReceipt(e.T, r)
	return r
}

// receiptKeys are the keys every receipt body has.
var receiptKeys = []string{"type", "business_document_id", "source_storage_document_id", "source", "status",
	"proposed_line_items", "created_at", "updated_at", "message_log_id", "bill_id", "proposed_paid_at",
	"proposed_vendor_display", "proposed_vendor_external_id", "matched_vendor", "proposed_amount_cents",
	"rejected_at", "failure_reason", "proposed_confidence", "note", "proposed_currency"}

func checkReceipt(t testing.TB, r map[string]any) {
	t.Helper()
	for _, k := range receiptKeys {
		if _, ok := r[k]; !ok {
			t.Errorf("receipt lacks %q", k)
		}
	}
	if len(r) != len(receiptKeys) || r["type"] != "Receipt_Parse_Result" || r["source"] != "BOOKKEEPER_UPLOAD" {
		t.Errorf("receipt has %d keys (want %d), type %v, source %v", len(r), len(receiptKeys), r["type"], r["source"])
	}
}

// requireOCR skips a test that needs tesseract when it is missing, or
// fails it when RECEIPTS_REQUIRE_OCR=1 (pkg/receipts' convention: CI sets
// it, so a machine without Tesseract cannot pass by skipping).
func requireOCR(t testing.TB) {
	t.Helper()
	if receipts.TesseractAvailable() {
		return
	}
	msg := "tesseract is not on PATH: apt-get install -y tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu poppler-utils"
	if os.Getenv("RECEIPTS_REQUIRE_OCR") == "1" {
		t.Fatal(msg + " (RECEIPTS_REQUIRE_OCR=1)")
	}
	t.Skip(msg + " (set RECEIPTS_REQUIRE_OCR=1 to fail instead)")
}

const corpusDir = "../../../../pkg/receipts/testdata/corpus"

// truth is a corpus receipt's ground truth (rNN.json).
type truth struct {
	File       string `json:"file"`
	Vendor     string `json:"vendor"`
	Date       string `json:"date"`
	TotalCents int64  `json:"total_cents"`
	LineItems  []struct {
		Description string `json:"description"`
		AmountCents int64  `json:"amount_cents"`
	} `json:"line_items"`
}

func corpus(t testing.TB, name string) (truth, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(corpusDir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(corpusDir, tr.File))
	if err != nil {
		t.Fatal(err)
	}
	return tr, data
}

// sameName is the corpus test's loose comparison of names read from a
// receipt: normalized, within an edit distance of 2.
func sameName(got, want string) bool {
	n := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	return receipts.EditDistance(n(got), n(want)) <= 2
}

// checkProposal compares a receipt's proposed fields with the truth.
func checkProposal(t testing.TB, r map[string]any, tr truth) {
	t.Helper()
	if r["status"] != "READY_FOR_BILL" || r["failure_reason"] != nil {
		t.Fatalf("status %v (%v)", r["status"], r["failure_reason"])
	}
	if v, _ := r["proposed_vendor_display"].(string); !sameName(v, tr.Vendor) {
		t.Errorf("proposed_vendor_display = %q, want %q", v, tr.Vendor)
	}
	if r["proposed_paid_at"] != tr.Date+"T00:00:00Z" {
		t.Errorf("proposed_paid_at = %v, want %s", r["proposed_paid_at"], tr.Date)
	}
	if r["proposed_amount_cents"] != float64(tr.TotalCents) {
		t.Errorf("proposed_amount_cents = %v, want %d", r["proposed_amount_cents"], tr.TotalCents)
	}
	lines := r["proposed_line_items"].([]any)
	if len(lines) != len(tr.LineItems) {
		t.Fatalf("%d proposed lines, want %d: %v", len(lines), len(tr.LineItems), lines)
	}
	for i, l := range lines {
		m := l.(map[string]any)
		if m["proposed_amount_cents"] != float64(tr.LineItems[i].AmountCents) || !sameName(m["description"].(string), tr.LineItems[i].Description) {
			t.Errorf("line %d = %v, want %+v", i, m, tr.LineItems[i])
		}
	}
}

// stableOf is a proposed line's account stable name ("" when none).
func stableOf(line any) string {
	a, _ := line.(map[string]any)["proposed_account"].(map[string]any)
	sn, _ := a["stable_name"].(map[string]any)
	s, _ := sn["stable_name"].(string)
	return s
}

// smallPNG is a valid w×h white PNG.
func smallPNG(w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// bombPNG is a PNG whose header claims w×h pixels (a valid IHDR, CRC
// included) followed by no image data: what a decompression bomb's header
// looks like.
func bombPNG(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit gray
	chunk := append([]byte("IHDR"), ihdr...)
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// httpRequest names the request type the receipt tests pass around.
type httpRequest = http.Request

// receiptIDs are the ids of a listing's receipts, in order.
func receiptIDs(m map[string]any) []string {
	var out []string
	for _, r := range m["data"].([]any) {
		out = append(out, r.(map[string]any)["business_document_id"].(string))
	}
	return out
}

// send sends rq to the service's real listener (what fasthttp refuses
// while reading the body never reaches app.Test's caller as a response)
// and returns the error object of the answer, which must be want.
func (e *receiptEnv) send(rq *http.Request, want int) map[string]any {
	e.T.Helper()
	post := e.post
	if want == http.StatusRequestEntityTooLarge {
		post = e.postHeadersOnly
	}
	status, body, err := post(rq)
	if err != nil {
		e.T.Fatal(err)
	}
	if status != want {
		e.T.Fatalf("%s %s: status %d, want %d: %s", rq.Method, rq.URL.Path, status, want, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		e.T.Fatalf("body %q: %v", body, err)
	}
	return m
}

// postHeadersOnly sends rq's request line and headers to the real
// listener, announcing its Content-Length but sending none of the body,
// and reads the answer: a body refused from its length alone is answered
// before it is read, and no unread bytes make the server's close a reset
// that would swallow the answer (as when a client is still writing it).
func (e *receiptEnv) postHeadersOnly(rq *http.Request) (int, []byte, error) {
	u, err := url.Parse(e.Svc.URL)
	if err != nil {
		return 0, nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", rq.Method, rq.URL.RequestURI(), u.Host, rq.ContentLength)
	for k, vs := range rq.Header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// post sends rq to the real listener.
func (e *receiptEnv) post(rq *http.Request) (int, []byte, error) {
	out, err := http.NewRequest(rq.Method, e.Svc.URL+rq.URL.RequestURI(), rq.Body)
	if err != nil {
		return 0, nil, err
	}
	out.Header = rq.Header.Clone()
	resp, err := http.DefaultClient.Do(out)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}
