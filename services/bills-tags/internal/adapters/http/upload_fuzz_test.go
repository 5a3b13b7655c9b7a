package http

import (
	"bytes"
	"mime/multipart"
	"testing"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/receipt"
)

// FuzzParseUpload feeds arbitrary multipart bodies and content types to
// the receipt import's multipart parser: refusals are 4xx error objects
// (415, 413 or 400), and an accepted upload holds the one file part, at
// most MaxReceiptBytes, with a valid UTF-8 name and context.
func FuzzParseUpload(f *testing.F) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.SetBoundary("fuzzboundary")
	fw, _ := w.CreateFormFile("file", "receipt.pdf")
	_, _ = fw.Write([]byte("%PDF-1.4\nTOTAL 12.00\n%%EOF"))
	_ = w.WriteField("context", "team lunch")
	_ = w.Close()
	good := b.Bytes()
	ct := "multipart/form-data; boundary=fuzzboundary"
	f.Add(ct, good)
	f.Add("multipart/form-data", good)
	f.Add("application/json", []byte(`{}`))
	f.Add(ct, bytes.Replace(good, []byte(`name="file"`), []byte(`name="files"`), 1))
	f.Add(ct, bytes.Replace(good, []byte("team lunch"), []byte("\xff\xfe"), 1))
	f.Add(ct, []byte("--fuzzboundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\n%PDF-"))
	f.Add(ct, []byte("--fuzzboundary\r\n\r\n--fuzzboundary--"))
	f.Add(ct, []byte(""))
	f.Add("multipart/form-data; boundary=\"\"", good)
	fapp := fiber.New()
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		rc := &fasthttp.RequestCtx{}
		rc.Request.Header.SetMethod(fiber.MethodPost)
		rc.Request.Header.Set(fiber.HeaderContentType, contentType)
		rc.Request.SetBody(body)
		c := fapp.AcquireCtx(rc)
		defer fapp.ReleaseCtx(c)
		up, err := parseUpload(c)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if int64(len(up.Data)) > app.MaxReceiptBytes || !utf8.ValidString(up.FileName) ||
			up.Context != nil && (!utf8.ValidString(*up.Context) || utf8.RuneCountInString(*up.Context) > receipt.MaxContextChars) {
			t.Fatalf("accepted upload breaks the limits: %d bytes, name %q", len(up.Data), up.FileName)
		}
	})
}
