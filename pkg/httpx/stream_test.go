package httpx

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

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

// slowBody sends n pieces of 1 KiB, every gap, then ends.
type slowBody struct {
	n   int
	gap time.Duration
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.n == 0 {
		return 0, io.EOF
	}
	time.Sleep(b.gap)
	b.n--
	return copy(p, bytes.Repeat([]byte("a"), min(len(p), 1024))), nil
}

// A streamed body may arrive for longer than the read timeout as long as
// it keeps coming; a pause longer than the read timeout, or an upload
// longer than StreamTimeout in all, still ends it.
func TestStreamBodyDeadlineFollowsProgress(t *testing.T) {
	app, _ := newTestApp(t, Options{
		BodyLimit: 1024, ReadTimeout: 400 * time.Millisecond, StreamTimeout: 3 * time.Second,
		StreamBody: func(c *fiber.Ctx) bool { return c.Path() == "/upload" },
	})
	app.Post("/upload", func(c *fiber.Ctx) error {
		n, err := io.Copy(io.Discard, StreamedBody(c, 4<<20))
		if err != nil {
			return apperr.Wrap(apperr.InvalidPayload, err, "body")
		}
		return OK(c, n)
	})
	base := serve(t, app)
	post := func(body io.Reader) (int, string, error) {
		resp, err := http.Post(base+"/upload", "application/octet-stream", body)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}

	// 1.5 s of steady arrival, nearly four read timeouts.
	start := time.Now()
	status, body, err := post(&slowBody{n: 30, gap: 50 * time.Millisecond})
	if err != nil || status != 200 || body != `{"data":30720}` {
		t.Fatalf("a slow steady upload: %d %s %v", status, body, err)
	}
	if took := time.Since(start); took < time.Second {
		t.Fatalf("the slow upload took only %v: the test proves nothing", took)
	}

	// A pause of 1 s (over the read timeout) ends the upload.
	status, body, err = post(io.MultiReader(&slowBody{n: 3, gap: 50 * time.Millisecond}, &slowBody{n: 1, gap: time.Second}))
	if err == nil && status == 200 {
		t.Fatalf("an upload that stalled past the read timeout was read whole: %s", body)
	}

	// Steady but longer than StreamTimeout in all.
	start = time.Now()
	status, body, err = post(&slowBody{n: 100, gap: 50 * time.Millisecond})
	if err == nil && status == 200 {
		t.Fatalf("an upload of 5 s was read whole under a 3 s stream timeout: %s", body)
	}
	if took := time.Since(start); took > 4500*time.Millisecond {
		t.Fatalf("the over-long upload ended only after %v", took)
	}
}
