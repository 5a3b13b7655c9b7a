package service

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/acctsuite/acct/pkg/receipts/receiptpdf"
)

// FuzzReceiptImport sends random multipart bodies, boundaries, files and
// contexts to POST /receipts/import on the running service (its real
// listener, so what fasthttp refuses while reading the body is covered
// too). Every answer must be 2xx or 4xx: never a 5xx, a panic or a hang;
// and the receipts stored and the receipt.parsed events published stay
// one to one.
// raw, when not empty, is sent as the body as it is (with the boundary in
// the Content-Type); otherwise a well-formed body carries file and context.
// The seeds run with plain `go test`.
func FuzzReceiptImport(f *testing.F) {
	e := newReceiptEnv(f, true)
	tok := e.Svc.Tokens.Platform(f, "client-a")
	bid := e.Svc.SeedBusiness(f, "client-a")
	path := base(bid) + "/receipts/import"

	pdf := receiptpdf.Text("ACME HARDWARE", "Date: 2026-03-14", "Copy paper 12.00", "TOTAL 12.00")
	corpusPDF, _ := os.ReadFile(filepath.Join(corpusDir, "r27.pdf"))
	well, _ := multipartBody(part{name: "file", filename: "a.pdf", data: pdf})
	f.Add("XyZ", pdf, "team lunch", []byte(nil))
	f.Add("b", corpusPDF, "", []byte(nil))
	f.Add("b", smallPNG(40, 20), "", []byte(nil))
	f.Add("b", bombPNG(100000, 100000), "", []byte(nil))
	f.Add("b", bombPNG(0, 0), "", []byte(nil))
	f.Add("b", pdf[:len(pdf)/2], "", []byte(nil))
	f.Add("b", []byte("%PDF-1.7\n%%EOF"), "\xff", []byte(nil))
	f.Add("b", []byte("GIF89a"), "", []byte(nil))
	f.Add("", []byte{}, "", []byte(nil))
	f.Add("nope", []byte(nil), "", well.Bytes())
	f.Add("", []byte(nil), "", []byte("--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\n%PDF-"))
	f.Add("x", []byte(nil), "", []byte("--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\n%PDF-1.4\r\n--x--\r\n"))
	f.Add("x", []byte(nil), "", []byte("--x\r\n\r\n--x--"))

	f.Fuzz(func(t *testing.T, boundary string, file []byte, context string, raw []byte) {
		var body []byte
		ct := "multipart/form-data; boundary=" + boundary
		if len(raw) > 0 {
			body = raw
		} else {
			var b bytes.Buffer
			w := multipart.NewWriter(&b)
			if w.SetBoundary(boundary) != nil {
				_ = w.SetBoundary("fuzzboundary")
			}
			fw, _ := w.CreateFormFile("file", "receipt")
			_, _ = fw.Write(file)
			if context != "" {
				_ = w.WriteField("context", context)
			}
			_ = w.Close()
			body, ct = b.Bytes(), w.FormDataContentType()
		}
		rq, err := http.NewRequest("POST", path, bytes.NewReader(body))
		if err != nil {
			t.Skip(err)
		}
		rq.Header.Set("Authorization", "Bearer "+tok)
		rq.Header.Set("Content-Type", ct)
		status, answer, err := e.post(rq)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		if status >= 500 || status < 200 {
			t.Fatalf("status %d: %s", status, answer)
		}
		// Every stored receipt published its one receipt.parsed; a refused
		// import neither.
		if e := e.with(t); e.receiptCount() != e.receiptEventCount() {
			t.Fatalf("status %d: %d receipts, %d receipt.parsed rows", status, e.receiptCount(), e.receiptEventCount())
		}
	})
}
