package httpx

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/apperr"
)

// With StreamBody, the named route reads its body as it arrives, past the
// app's limit and up to its own; every other route still gets its body
// whole and bounded, whether it came with a length or chunked.
func TestStreamBody(t *testing.T) {
	const limit = 1024
	app, _ := newTestApp(t, Options{BodyLimit: limit, StreamBody: func(c *fiber.Ctx) bool { return c.Path() == "/upload" }})
	app.Post("/items", func(c *fiber.Ctx) error { return OK(c, len(c.Body())) })
	app.Post("/upload", func(c *fiber.Ctx) error {
		if c.Query("skip") != "" { // answers without reading: the rest is dropped
			return OK(c, 0)
		}
		n, err := io.Copy(io.Discard, StreamedBody(c, 4<<20))
		if errors.Is(err, ErrStreamTooLarge) {
			return apperr.New(apperr.PayloadTooLarge, "too large")
		}
		if err != nil {
			return err
		}
		return OK(c, n)
	})
	base := serve(t, app)
	client := &http.Client{}
	post := func(path string, size int, chunked bool) response {
		t.Helper()
		var body io.Reader = bytes.NewReader(bytes.Repeat([]byte("a"), size))
		if chunked {
			body = io.MultiReader(body) // no length known: sent chunked
		}
		resp, err := client.Post(base+path, "application/octet-stream", body)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return response{status: resp.StatusCode, header: resp.Header, body: b}
	}
	count := func(r response) int {
		t.Helper()
		if r.status != 200 {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(string(r.body), `{"data":`), "}"))
		if err != nil {
			t.Fatalf("body %s", r.body)
		}
		return n
	}
	for _, chunked := range []bool{false, true} {
		if n := count(post("/items", 1000, chunked)); n != 1000 {
			t.Fatalf("chunked %v: /items read %d bytes, want 1000", chunked, n)
		}
		assertErrorObject(t, post("/items", 4096, chunked), 413, apperr.PayloadTooLarge)
		if n := count(post("/upload", 3<<20, chunked)); n != 3<<20 {
			t.Fatalf("chunked %v: /upload read %d bytes, want %d", chunked, n, 3<<20)
		}
		assertErrorObject(t, post("/upload", 5<<20, chunked), 413, apperr.PayloadTooLarge)
		// A handler that leaves a large body unread: the answer arrives,
		// and the next request is served.
		if n := count(post("/upload?skip=1", 3<<20, chunked)); n != 0 {
			t.Fatalf("skip answered %d", n)
		}
		if n := count(post("/items", 10, chunked)); n != 10 {
			t.Fatalf("after a skipped upload /items read %d bytes", n)
		}
	}
}
