package http

import (
	"bytes"
	"mime/multipart"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// FuzzParseDocument feeds arbitrary multipart bodies to the bank
// transaction document upload (parseDocument, which re-frames its file
// part for banking.ParseRecordRequest) and to the record endpoints'
// parseRecord: refusals are 4xx error objects; an accepted upload holds
// exactly one file and a document type of 1 to 100 bytes, storable as
// PostgreSQL text (no NUL, valid UTF-8), when given.
func FuzzParseDocument(f *testing.F) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.SetBoundary("fuzzboundary")
	fw, _ := w.CreateFormFile("file", `scan "1".pdf`)
	_, _ = fw.Write([]byte("%PDF-1.4\nreceipt\n%%EOF"))
	_ = w.WriteField("documentType", "RECEIPT")
	_ = w.Close()
	good := b.Bytes()
	ct := "multipart/form-data; boundary=fuzzboundary"
	f.Add(ct, good)
	f.Add(ct, bytes.Replace(good, []byte("RECEIPT"), []byte(""), 1))
	f.Add(ct, bytes.Replace(good, []byte(`name="file"`), []byte(`name="files"`), 1))
	f.Add(ct, bytes.Replace(good, []byte(`filename="scan \"1\".pdf"`), []byte("filename=\"a\\\\\r\nb\""), 1))
	f.Add(ct, []byte("--fuzzboundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\n%PDF-"))
	f.Add(ct, []byte("--fuzzboundary\r\n\r\n--fuzzboundary--"))
	f.Add("application/json", []byte(`{"transaction":{}}`))
	f.Add("multipart/form-data", good)
	f.Add(ct, []byte(""))
	// A NUL in the document type was a 500 (the insert failed): found by
	// contract fuzzing (CONTRACT_FUZZ_SEED=1795638063083426556).
	f.Add(ct, bytes.Replace(good, []byte("RECEIPT"), []byte("\x00nul"), 1))
	f.Add(ct, bytes.Replace(good, []byte("RECEIPT"), []byte("\xff\xfe"), 1))
	fapp := fiber.New()
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		rc := &fasthttp.RequestCtx{}
		rc.Request.Header.SetMethod(fiber.MethodPost)
		rc.Request.Header.Set(fiber.HeaderContentType, contentType)
		rc.Request.SetBody(body)
		c := fapp.AcquireCtx(rc)
		defer fapp.ReleaseCtx(c)
		rq, docType, err := parseDocument(c, banking.NewSpoolBudget(64<<20, time.Second))
		if err != nil {
			apperrtest.Require4xx(t, err)
		} else {
			if len(rq.Files) != 1 || docType != nil && (len(*docType) == 0 || len(*docType) > 100 || jsonraw.TextReason(*docType) != "") {
				t.Fatalf("accepted %d files, document type %v", len(rq.Files), docType)
			}
			if err := rq.Close(); err != nil {
				t.Fatal(err)
			}
		}
		for _, mode := range []banking.RecordMode{banking.RecordCreate, banking.RecordUpdate} {
			rq, err := (&handlers{spool: banking.NewSpoolBudget(64<<20, time.Second)}).parseRecord(c, mode)
			if err != nil {
				apperrtest.Require4xx(t, err)
				continue
			}
			if err := rq.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
