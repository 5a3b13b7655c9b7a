// Package storagetest is the conformance suite every storage.Store backend
// passes (Run), and a real S3-compatible server for tests (StartVersityGW).
// The suite goes end to end: objects are downloaded through their
// pre-signed URLs with a plain HTTP client, so the filesystem backend's
// download handler and S3's signature checks are exercised for real.
package storagetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/storage"
)

// Harness is one backend under test.
type Harness struct {
	// Store is the store under test, empty or holding only keys the suite
	// does not use.
	Store storage.Store
	// Client fetches pre-signed URLs.
	Client *http.Client
	// WrongKey is a store over the same objects whose pre-signed URLs are
	// signed with another key (fs) or other credentials (S3): every one of
	// its URLs must be refused.
	WrongKey storage.Store
	// SignatureParam is the query parameter carrying a pre-signed URL's
	// signature ("sig", "X-Amz-Signature").
	SignatureParam string
}

// LargeObjectSize is the size of the object streamed in the memory test:
// large enough that holding it (or a good part of it) in memory fails the
// bound below, small enough to stay quick on two cores.
const LargeObjectSize = 128 << 20

// MaxLargeObjectHeapGrowth bounds how much the heap in use may grow while
// the large object is uploaded and downloaded, and MaxLargeObjectAlloc how
// much may be allocated in all: both far below LargeObjectSize, so a
// backend that buffers the object fails. S3 uploads legitimately hold a
// few parts (storage.DefaultS3PartSize each) in memory: measured here, the
// S3 backend peaks at about 22 MiB in use and 27 MiB allocated (39 MiB under
// the race detector, which drops sync.Pool items), the filesystem backend
// under 1 MiB, whatever the object's size.
const (
	MaxLargeObjectHeapGrowth = 48 << 20
	MaxLargeObjectAlloc      = 56 << 20
)

// Run runs the conformance suite; newHarness is called once per subtest.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, newHarness(t)) })
	t.Run("EmptyObject", func(t *testing.T) { testEmptyObject(t, newHarness(t)) })
	t.Run("Overwrite", func(t *testing.T) { testOverwrite(t, newHarness(t)) })
	t.Run("NotFound", func(t *testing.T) { testNotFound(t, newHarness(t)) })
	t.Run("Delete", func(t *testing.T) { testDelete(t, newHarness(t)) })
	t.Run("InvalidKeys", func(t *testing.T) { testInvalidKeys(t, newHarness(t)) })
	t.Run("InvalidInput", func(t *testing.T) { testInvalidInput(t, newHarness(t)) })
	t.Run("FailedPutKeepsPrevious", func(t *testing.T) { testFailedPut(t, newHarness(t)) })
	t.Run("ContentDisposition", func(t *testing.T) { testContentDisposition(t, newHarness(t)) })
	t.Run("TamperedURL", func(t *testing.T) { testTamperedURL(t, newHarness(t)) })
	t.Run("WrongKey", func(t *testing.T) { testWrongKey(t, newHarness(t)) })
	t.Run("Stat", func(t *testing.T) { testStat(t, newHarness(t)) })
	t.Run("List", func(t *testing.T) { testList(t, newHarness(t)) })
	t.Run("SweepExpired", func(t *testing.T) { testSweepExpired(t, newHarness(t)) })
	// The two slow ones overlap: one mostly sleeps.
	t.Run("slow", func(t *testing.T) {
		t.Run("ExpiredURL", func(t *testing.T) { t.Parallel(); testExpiredURL(t, newHarness(t)) })
		t.Run("LargeObjectStreamed", func(t *testing.T) { t.Parallel(); testLargeObject(t, newHarness(t)) })
	})
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func put(t *testing.T, s storage.Store, key string, body []byte, contentType string) {
	t.Helper()
	if err := s.Put(ctxFor(t), key, bytes.NewReader(body), int64(len(body)), contentType); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func get(t *testing.T, s storage.Store, key string) ([]byte, storage.Object) {
	t.Helper()
	rc, obj, err := s.Get(ctxFor(t), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%q): read: %v", key, err)
	}
	return b, obj
}

func presign(t *testing.T, s storage.Store, key string, expiry time.Duration, opts storage.PresignOptions) string {
	t.Helper()
	u, err := s.PresignGet(ctxFor(t), key, expiry, opts)
	if err != nil {
		t.Fatalf("PresignGet(%q): %v", key, err)
	}
	return u
}

// fetch GETs a URL and returns status, headers and body.
func fetch(t *testing.T, c *http.Client, rawURL string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxFor(t), http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatalf("request %s: %v", rawURL, err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", rawURL, err)
	}
	return resp.StatusCode, resp.Header, b
}

func expectStatus(t *testing.T, c *http.Client, rawURL string, want int) []byte {
	t.Helper()
	status, _, body := fetch(t, c, rawURL)
	if status != want {
		t.Fatalf("GET %s: status %d, want %d; body %.300s", rawURL, status, want, body)
	}
	return body
}

func testRoundTrip(t *testing.T, h Harness) {
	cases := []struct {
		name, key, contentType, wantType string
		body                             []byte
		size                             int64 // -1: unknown
	}{
		{"csv known size", "exports/biz-1/pnl-2024.csv", "text/csv; charset=utf-8", "text/csv; charset=utf-8", []byte("date,amount\n2024-01-01,1234\n"), 0},
		{"pdf unknown size", "receipts/biz-1/2024/01/r_1.pdf", "application/pdf", "application/pdf", bytes.Repeat([]byte{0, 1, 2, 0xff}, 5000), -1},
		{"default content type", "receipts/biz-1/blob", "", storage.DefaultContentType, []byte("x"), -1},
		{"content type normalised", "receipts/biz-1/img.png", "IMAGE/PNG", "image/png", []byte("\x89PNG"), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			size := int64(len(tc.body))
			if tc.size < 0 {
				size = -1
			}
			started := time.Now()
			if err := h.Store.Put(ctxFor(t), tc.key, bytes.NewReader(tc.body), size, tc.contentType); err != nil {
				t.Fatalf("Put: %v", err)
			}
			got, obj := get(t, h.Store, tc.key)
			if !bytes.Equal(got, tc.body) {
				t.Fatalf("Get returned %d bytes that differ from the %d put", len(got), len(tc.body))
			}
			if obj.Key != tc.key || obj.Size != int64(len(tc.body)) || obj.ContentType != tc.wantType || obj.ETag == "" {
				t.Fatalf("Get object = %+v, want key %q, size %d, content type %q and an etag", obj, tc.key, len(tc.body), tc.wantType)
			}
			// S3 keeps whole seconds; allow clock skew with the server.
			if d := obj.Modified.Sub(started); d < -5*time.Second || d > time.Minute {
				t.Fatalf("Modified %s is not near the Put at %s", obj.Modified, started)
			}

			status, hdr, body := fetch(t, h.Client, presign(t, h.Store, tc.key, 0, storage.PresignOptions{ContentType: obj.ContentType}))
			if status != http.StatusOK || !bytes.Equal(body, tc.body) {
				t.Fatalf("pre-signed GET: status %d, %d bytes (equal: %v), want 200 and the object", status, len(body), bytes.Equal(body, tc.body))
			}
			if hdr.Get("Content-Type") != tc.wantType {
				t.Fatalf("pre-signed GET Content-Type %q, want %q", hdr.Get("Content-Type"), tc.wantType)
			}
			if hdr.Get("Content-Length") != fmt.Sprint(len(tc.body)) {
				t.Fatalf("pre-signed GET Content-Length %q, want %d", hdr.Get("Content-Length"), len(tc.body))
			}
		})
	}
}

func testEmptyObject(t *testing.T, h Harness) {
	for _, size := range []int64{0, -1} {
		key := fmt.Sprintf("empty/size%d", size)
		if err := h.Store.Put(ctxFor(t), key, strings.NewReader(""), size, "text/plain"); err != nil {
			t.Fatalf("Put empty (size %d): %v", size, err)
		}
		got, obj := get(t, h.Store, key)
		if len(got) != 0 || obj.Size != 0 {
			t.Fatalf("empty object (size %d): got %d bytes, Size %d", size, len(got), obj.Size)
		}
		if body := expectStatus(t, h.Client, presign(t, h.Store, key, 0, storage.PresignOptions{}), http.StatusOK); len(body) != 0 {
			t.Fatalf("empty object download returned %d bytes", len(body))
		}
	}
}

func testOverwrite(t *testing.T, h Harness) {
	key := "receipts/overwrite.txt"
	put(t, h.Store, key, []byte("first version, rather longer than the second"), "text/plain")
	_, first := get(t, h.Store, key)
	put(t, h.Store, key, []byte(`{"v":2}`), "application/json")
	got, obj := get(t, h.Store, key)
	if string(got) != `{"v":2}` || obj.ContentType != "application/json" || obj.Size != 7 {
		t.Fatalf("after overwrite: %q %+v, want the second version", got, obj)
	}
	if obj.ETag == first.ETag {
		t.Fatalf("etag %q did not change with the content", obj.ETag)
	}
	status, hdr, body := fetch(t, h.Client, presign(t, h.Store, key, 0, storage.PresignOptions{ContentType: obj.ContentType}))
	if status != http.StatusOK || string(body) != `{"v":2}` || hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("download after overwrite: %d %q %q", status, hdr.Get("Content-Type"), body)
	}
}

func testNotFound(t *testing.T, h Harness) {
	_, _, err := h.Store.Get(ctxFor(t), "missing/object.csv")
	if !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get missing: %v, want ErrNotFound", err)
	}
	// A key below an existing object's name is missing too.
	put(t, h.Store, "nf/file", []byte("x"), "")
	if _, _, err := h.Store.Get(ctxFor(t), "nf/file/below"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get below an object: %v, want ErrNotFound", err)
	}
	if _, _, err := h.Store.Get(ctxFor(t), "nf"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get a key prefix: %v, want ErrNotFound", err)
	}
	if err := h.Store.Delete(ctxFor(t), "missing/object.csv"); err != nil {
		t.Fatalf("Delete missing: %v, want nil", err)
	}
	// Pre-signing does not look the object up; the download answers 404.
	expectStatus(t, h.Client, presign(t, h.Store, "missing/object.csv", 0, storage.PresignOptions{}), http.StatusNotFound)
}

func testDelete(t *testing.T, h Harness) {
	put(t, h.Store, "del/a/b/one", []byte("1"), "")
	put(t, h.Store, "del/a/two", []byte("2"), "")
	u := presign(t, h.Store, "del/a/b/one", 0, storage.PresignOptions{})
	if err := h.Store.Delete(ctxFor(t), "del/a/b/one"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, _, err := h.Store.Get(ctxFor(t), "del/a/b/one"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
	}
	expectStatus(t, h.Client, u, http.StatusNotFound)
	if got, _ := get(t, h.Store, "del/a/two"); string(got) != "2" {
		t.Fatalf("sibling object after Delete: %q", got)
	}
	if err := h.Store.Delete(ctxFor(t), "del/a/b/one"); err != nil {
		t.Fatalf("second Delete: %v, want nil", err)
	}
	// The key can be used again, including as a prefix.
	put(t, h.Store, "del/a/b", []byte("3"), "")
	if got, _ := get(t, h.Store, "del/a/b"); string(got) != "3" {
		t.Fatalf("re-put at a former prefix: %q", got)
	}
}

// InvalidKeys lists keys every backend must reject (path traversal, empty
// segments, bad characters, too long).
var InvalidKeys = []string{
	"",
	"/abs",
	"trailing/",
	"a//b",
	"..",
	"../escape",
	"a/../../escape",
	"a/./b",
	".hidden",
	"a/.hidden",
	`back\slash`,
	"space here",
	"percent%2e",
	"query?x",
	"hash#x",
	"nul\x00",
	"new\nline",
	"unicodé",
	strings.Repeat("s", storage.MaxKeySegmentLength+1),
	strings.Repeat("abcdefgh/", storage.MaxKeyLength/9+1) + "x",
}

func testInvalidKeys(t *testing.T, h Harness) {
	ctx := ctxFor(t)
	for _, key := range InvalidKeys {
		name := key
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			checks := map[string]error{
				"Put":        h.Store.Put(ctx, key, strings.NewReader("x"), 1, ""),
				"Delete":     h.Store.Delete(ctx, key),
				"PresignGet": func() error { _, err := h.Store.PresignGet(ctx, key, 0, storage.PresignOptions{}); return err }(),
				"Stat":       func() error { _, err := h.Store.Stat(ctx, key); return err }(),
				"Get": func() error {
					rc, _, err := h.Store.Get(ctx, key)
					if rc != nil {
						rc.Close()
					}
					return err
				}(),
			}
			for op, err := range checks {
				if !errors.Is(err, storage.ErrInvalidKey) || !apperr.Is(err, apperr.InvalidParameters) {
					t.Errorf("%s(%q) = %v, want ErrInvalidKey as a 400", op, key, err)
				}
			}
		})
	}
	// Just inside the limits.
	long := strings.Repeat("k", storage.MaxKeySegmentLength)
	put(t, h.Store, "ok/"+long, []byte("x"), "")
	if got, _ := get(t, h.Store, "ok/"+long); string(got) != "x" {
		t.Fatalf("longest segment: %q", got)
	}
	put(t, h.Store, "odd_chars/a=b/c-d.e_f", []byte("y"), "")
}

func testInvalidInput(t *testing.T, h Harness) {
	ctx := ctxFor(t)
	cases := []struct {
		name string
		err  error
	}{
		{"content type", h.Store.Put(ctx, "in/ct", strings.NewReader("x"), 1, "not a media type")},
		{"negative expiry", func() error {
			_, err := h.Store.PresignGet(ctx, "in/x", -time.Second, storage.PresignOptions{})
			return err
		}()},
		{"expiry too long", func() error {
			_, err := h.Store.PresignGet(ctx, "in/x", storage.MaxPresignExpiry+time.Second, storage.PresignOptions{})
			return err
		}()},
		{"filename with separator", func() error {
			_, err := h.Store.PresignGet(ctx, "in/x", 0, storage.PresignOptions{Filename: "../x.csv"})
			return err
		}()},
		{"filename with newline", func() error {
			_, err := h.Store.PresignGet(ctx, "in/x", 0, storage.PresignOptions{Filename: "a\r\nSet-Cookie: x"})
			return err
		}()},
	}
	for _, tc := range cases {
		if !apperr.Is(tc.err, apperr.InvalidParameters) {
			t.Errorf("%s: %v, want a 400 InvalidParameters error", tc.name, tc.err)
		}
	}
	if _, _, err := h.Store.Get(ctx, "in/ct"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a rejected Put stored something: %v", err)
	}
}

// failingReader yields n bytes, then fails.
type failingReader struct{ n int }

var errSource = errors.New("source broke")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errSource
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'z'
	}
	f.n -= k
	return k, nil
}

func testFailedPut(t *testing.T, h Harness) {
	const key = "fail/object.bin"
	const before = "the previous version"
	big := storage.DefaultS3PartSize + 1<<20 // past one S3 part: a multipart upload to abort
	cases := []struct {
		name string
		r    io.Reader
		size int64
	}{
		{"shorter than declared", strings.NewReader("abc"), 10},
		{"longer than declared", strings.NewReader("abcdefghijkl"), 10},
		{"source error", &failingReader{n: 1000}, -1},
		{"source error after a part", &failingReader{n: big}, -1},
		{"longer than declared after a part", &failingReader{n: big}, int64(big - 10)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// No previous object: nothing may appear.
			fresh := "fail/fresh-" + strings.ReplaceAll(tc.name, " ", "-")
			if err := h.Store.Put(ctxFor(t), fresh, tc.r, tc.size, "text/plain"); err == nil {
				t.Fatalf("Put succeeded, want an error")
			}
			if _, _, err := h.Store.Get(ctxFor(t), fresh); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("after a failed Put: Get = %v, want ErrNotFound", err)
			}
		})
	}
	t.Run("previous version kept", func(t *testing.T) {
		put(t, h.Store, key, []byte(before), "text/plain")
		for _, r := range []io.Reader{&failingReader{n: 5000}, &failingReader{n: big}} {
			if err := h.Store.Put(ctxFor(t), key, r, -1, "application/octet-stream"); !errors.Is(err, errSource) {
				t.Fatalf("Put from a failing source = %v, want the source's error", err)
			}
			got, obj := get(t, h.Store, key)
			if string(got) != before || obj.ContentType != "text/plain" {
				t.Fatalf("after a failed overwrite: %q (%s), want the previous version", got, obj.ContentType)
			}
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := h.Store.Put(ctx, key, strings.NewReader("new"), 3, "text/plain"); err == nil {
			t.Fatalf("Put with a cancelled context succeeded")
		}
		if got, _ := get(t, h.Store, key); string(got) != before {
			t.Fatalf("after a cancelled Put: %q, want the previous version", got)
		}
	})
}

func testContentDisposition(t *testing.T, h Harness) {
	put(t, h.Store, "exports/pnl.csv", []byte("a,b\n"), "text/csv")
	cases := []struct{ filename, want string }{
		{"P&L 2024.csv", `filename="P&L 2024.csv"`},
		{"bilan-été.csv", `filename*=utf-8''bilan-%C3%A9t%C3%A9.csv`},
	}
	for _, tc := range cases {
		status, hdr, body := fetch(t, h.Client, presign(t, h.Store, "exports/pnl.csv", time.Minute, storage.PresignOptions{Filename: tc.filename}))
		cd := hdr.Get("Content-Disposition")
		if status != http.StatusOK || string(body) != "a,b\n" {
			t.Fatalf("download with filename %q: %d %q", tc.filename, status, body)
		}
		if !strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, tc.want) {
			t.Fatalf("Content-Disposition %q, want attachment with %s", cd, tc.want)
		}
	}
	// Without a file name: inline only for what a browser merely displays
	// (raster images, PDF); anything else an attachment, and a type that
	// could run as a page (HTML, SVG) served as opaque bytes.
	served := []struct{ key, stored, wantType, wantDisposition string }{
		{"view/r.png", "image/png", "image/png", ""},
		{"view/r.pdf", "application/pdf", "application/pdf", ""},
		{"view/e.csv", "text/csv", "text/csv", "attachment"},
		{"view/x.html", "text/html; charset=utf-8", storage.DefaultContentType, "attachment"},
		{"view/x.svg", "image/svg+xml", storage.DefaultContentType, "attachment"},
		{"view/x.xml", "application/xhtml+xml", storage.DefaultContentType, "attachment"},
	}
	for _, tc := range served {
		put(t, h.Store, tc.key, []byte("<html><script>alert(1)</script></html>"), tc.stored)
		status, hdr, _ := fetch(t, h.Client, presign(t, h.Store, tc.key, 0, storage.PresignOptions{ContentType: tc.stored}))
		if status != http.StatusOK || hdr.Get("Content-Type") != tc.wantType || hdr.Get("Content-Disposition") != tc.wantDisposition {
			t.Fatalf("%s stored as %s: %d, Content-Type %q, Content-Disposition %q; want %q, %q", tc.key, tc.stored,
				status, hdr.Get("Content-Type"), hdr.Get("Content-Disposition"), tc.wantType, tc.wantDisposition)
		}
	}
}

// expectRefused checks that a URL is refused with 403 (and, for the
// filesystem backend, the error object naming why).
func expectRefused(t *testing.T, c *http.Client, rawURL, wantEnum string) {
	t.Helper()
	checkRefusal(t, rawURL, expectStatus(t, c, rawURL, http.StatusForbidden), wantEnum)
}

// checkRefusal checks an error object when the backend answers one (the
// filesystem backend's route does; S3 answers XML).
func checkRefusal(t *testing.T, rawURL string, body []byte, wantEnum string) {
	t.Helper()
	var obj apperr.Body
	if json.Unmarshal(body, &obj) == nil && obj.Type != "" {
		if obj.Type != string(apperr.Forbidden) || obj.ErrorEnum != wantEnum {
			t.Fatalf("GET %s: error object %+v, want Forbidden/%s", rawURL, obj, wantEnum)
		}
	}
}

func withQuery(t *testing.T, rawURL string, edit func(q url.Values)) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("parse %s: %v", rawURL, err)
	}
	q := u.Query()
	edit(q)
	u.RawQuery = q.Encode()
	return u.String()
}

func testTamperedURL(t *testing.T, h Harness) {
	put(t, h.Store, "tamper/mine.csv", []byte("mine"), "text/csv")
	put(t, h.Store, "tamper/theirs.csv", []byte("theirs"), "text/csv")
	good := presign(t, h.Store, "tamper/mine.csv", time.Hour, storage.PresignOptions{Filename: "mine.csv"})
	if body := expectStatus(t, h.Client, good, http.StatusOK); string(body) != "mine" {
		t.Fatalf("untampered URL: %q", body)
	}
	sig := func() string {
		u, _ := url.Parse(good)
		s := u.Query().Get(h.SignatureParam)
		if s == "" {
			t.Fatalf("URL %s has no %s parameter", good, h.SignatureParam)
		}
		return s
	}()
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	cases := []struct{ name, url string }{
		{"signature first char", withQuery(t, good, func(q url.Values) { q.Set(h.SignatureParam, flip(sig, 0)) })},
		{"signature last char", withQuery(t, good, func(q url.Values) { q.Set(h.SignatureParam, flip(sig, len(sig)-1)) })},
		{"signature truncated", withQuery(t, good, func(q url.Values) { q.Set(h.SignatureParam, sig[:len(sig)-2]) })},
		{"other object", strings.Replace(good, "tamper/mine.csv", "tamper/theirs.csv", 1)},
		{"other file name", replaceLast(good, "mine.csv", "evil.exe")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.url == good {
				t.Fatalf("tampering did not change the URL")
			}
			expectRefused(t, h.Client, tc.url, storage.EnumInvalidSignature)
		})
	}
	// Without a signature the URL is malformed rather than wrong: S3
	// answers 400 AuthorizationQueryParametersError, the filesystem route
	// 403. Either way nothing is served.
	t.Run("signature removed", func(t *testing.T) {
		u := withQuery(t, good, func(q url.Values) { q.Del(h.SignatureParam) })
		status, _, body := fetch(t, h.Client, u)
		if status != http.StatusForbidden && status != http.StatusBadRequest {
			t.Fatalf("GET %s: status %d, want 403 or 400; body %.300s", u, status, body)
		}
		if status == http.StatusForbidden {
			checkRefusal(t, u, body, storage.EnumInvalidSignature)
		}
	})
}

// replaceLast replaces the last occurrence of old (in a URL: in the query,
// after the path).
func replaceLast(s, old, repl string) string {
	i := strings.LastIndex(s, old)
	if i < 0 {
		return s
	}
	return s[:i] + repl + s[i+len(old):]
}

func testWrongKey(t *testing.T, h Harness) {
	put(t, h.Store, "wrongkey/object.csv", []byte("secret"), "text/csv")
	expectStatus(t, h.Client, presign(t, h.Store, "wrongkey/object.csv", 0, storage.PresignOptions{}), http.StatusOK)
	expectRefused(t, h.Client, presign(t, h.WrongKey, "wrongkey/object.csv", 0, storage.PresignOptions{}), storage.EnumInvalidSignature)
}

func testExpiredURL(t *testing.T, h Harness) {
	put(t, h.Store, "expiry/object.csv", []byte("soon gone"), "text/csv")
	u := presign(t, h.Store, "expiry/object.csv", time.Second, storage.PresignOptions{})
	long := presign(t, h.Store, "expiry/object.csv", time.Hour, storage.PresignOptions{})
	// Both backends carry whole seconds: one second may last up to two.
	time.Sleep(2500 * time.Millisecond)
	expectRefused(t, h.Client, u, storage.EnumURLExpired)
	expectStatus(t, h.Client, long, http.StatusOK)
}

// generator yields a deterministic pseudo-random stream of n bytes without
// ever holding it, hashing what it yields.
type generator struct {
	src  io.Reader
	left int64
	sum  io.Writer
}

func newGenerator(n int64, sum io.Writer) *generator {
	return &generator{src: rand.NewChaCha8([32]byte{1, 2, 3}), left: n, sum: sum}
}

func (g *generator) Read(p []byte) (int, error) {
	if g.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n, err := g.src.Read(p)
	g.left -= int64(n)
	g.sum.Write(p[:n])
	return n, err
}

// memWatch samples the heap while work runs.
type memWatch struct {
	base, end runtime.MemStats
	peak      uint64
	gcPercent int
	stop      chan struct{}
	done      sync.WaitGroup
}

func watchMemory() *memWatch {
	w := &memWatch{stop: make(chan struct{})}
	// Collect garbage sooner than GOGC=100 would, so the heap in use
	// tracks live memory (what a leak or a buffered object shows as)
	// rather than the collector's pacing.
	w.gcPercent = debug.SetGCPercent(50)
	runtime.GC()
	runtime.ReadMemStats(&w.base)
	w.peak = w.base.HeapInuse
	w.done.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				w.peak = max(w.peak, m.HeapInuse)
			}
		}
	})
	return w
}

// finish returns the peak heap growth and the bytes allocated meanwhile.
func (w *memWatch) finish() (growth, alloc uint64) {
	close(w.stop)
	w.done.Wait()
	debug.SetGCPercent(w.gcPercent)
	runtime.ReadMemStats(&w.end)
	w.peak = max(w.peak, w.end.HeapInuse)
	return w.peak - min(w.peak, w.base.HeapInuse), w.end.TotalAlloc - w.base.TotalAlloc
}

func testLargeObject(t *testing.T, h Harness) {
	const key = "large/object.bin"
	want, got := sha256.New(), sha256.New()
	mem := watchMemory()
	started := time.Now()
	// Unknown size: the hardest case for bounded memory.
	if err := h.Store.Put(ctxFor(t), key, newGenerator(LargeObjectSize, want), -1, "application/octet-stream"); err != nil {
		t.Fatalf("Put %d MiB: %v", LargeObjectSize>>20, err)
	}
	uploaded := time.Since(started)
	req, err := http.NewRequestWithContext(ctxFor(t), http.MethodGet, presign(t, h.Store, key, 0, storage.PresignOptions{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	n, err := io.Copy(got, resp.Body)
	resp.Body.Close()
	growth, alloc := mem.finish()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("download: status %d after %d bytes: %v", resp.StatusCode, n, err)
	}
	if n != LargeObjectSize || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Fatalf("downloaded %d bytes (sha256 equal: %v), want the %d bytes put", n, bytes.Equal(got.Sum(nil), want.Sum(nil)), LargeObjectSize)
	}
	t.Logf("%d MiB: upload %s, download %s; peak heap growth %.1f MiB, allocated %.1f MiB",
		LargeObjectSize>>20, uploaded.Round(time.Millisecond), (time.Since(started) - uploaded).Round(time.Millisecond),
		float64(growth)/(1<<20), float64(alloc)/(1<<20))
	if growth > MaxLargeObjectHeapGrowth || alloc > MaxLargeObjectAlloc {
		t.Fatalf("streaming %d MiB grew the heap by %.1f MiB and allocated %.1f MiB; want at most %d and %d MiB",
			LargeObjectSize>>20, float64(growth)/(1<<20), float64(alloc)/(1<<20), MaxLargeObjectHeapGrowth>>20, MaxLargeObjectAlloc>>20)
	}
	rc, obj, err := h.Store.Get(ctxFor(t), key)
	if err != nil {
		t.Fatalf("Get large object: %v", err)
	}
	rc.Close()
	if obj.Size != LargeObjectSize {
		t.Fatalf("Get large object: size %d, want %d", obj.Size, LargeObjectSize)
	}
	if err := h.Store.Delete(ctxFor(t), key); err != nil {
		t.Fatalf("Delete large object: %v", err)
	}
}

func testStat(t *testing.T, h Harness) {
	const key = "stat/dir/object.csv"
	put(t, h.Store, key, []byte("a,b\n1,2\n"), "text/csv; charset=utf-8")
	_, want := get(t, h.Store, key)
	got, err := h.Store.Stat(ctxFor(t), key)
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if got != want {
		t.Fatalf("Stat = %+v, want Get's %+v", got, want)
	}
	put(t, h.Store, key, []byte("longer content now"), "text/plain")
	if got, err = h.Store.Stat(ctxFor(t), key); err != nil || got.Size != 18 || got.ContentType != "text/plain" || got.ETag == want.ETag {
		t.Fatalf("Stat after overwrite = %+v, %v; want the second version", got, err)
	}
	put(t, h.Store, "stat/empty", nil, "")
	if got, err = h.Store.Stat(ctxFor(t), "stat/empty"); err != nil || got.Size != 0 || got.ContentType != storage.DefaultContentType {
		t.Fatalf("Stat empty = %+v, %v", got, err)
	}
	for _, missing := range []string{"stat/missing", "stat/dir", "stat", key + "/below"} {
		if _, err := h.Store.Stat(ctxFor(t), missing); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Stat(%q) = %v, want ErrNotFound", missing, err)
		}
	}
	if err := h.Store.Delete(ctxFor(t), key); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Store.Stat(ctxFor(t), key); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Stat after Delete = %v, want ErrNotFound", err)
	}
}

// list collects what List calls back with.
func list(t *testing.T, s storage.Store, prefix string) []storage.Object {
	t.Helper()
	var out []storage.Object
	if err := s.List(ctxFor(t), prefix, func(o storage.Object) error {
		out = append(out, o)
		return nil
	}); err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	return out
}

func listedKeys(objs []storage.Object) []string {
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	return keys
}

func testList(t *testing.T, h Harness) {
	started := time.Now()
	// Sizes tell the objects apart; the names cover S3's bytewise order
	// across directory levels ('-' and '.' sort before '/', '0' after).
	objects := map[string]int{
		"list/a/1": 1, "list/a/2.csv": 2, "list/a-b/3": 3, "list/a/sub/4": 4, "list/a0": 5, "list/b": 0,
		"list/a.c": 6, "listx/6": 7, "other/7": 8,
	}
	for key, size := range objects {
		put(t, h.Store, key, bytes.Repeat([]byte("x"), size), "text/plain")
	}
	cases := []struct {
		prefix string
		want   []string
	}{
		{"list/", []string{"list/a-b/3", "list/a.c", "list/a/1", "list/a/2.csv", "list/a/sub/4", "list/a0", "list/b"}},
		{"list/a", []string{"list/a-b/3", "list/a.c", "list/a/1", "list/a/2.csv", "list/a/sub/4", "list/a0"}},
		{"list/a/", []string{"list/a/1", "list/a/2.csv", "list/a/sub/4"}},
		{"list/a/1", []string{"list/a/1"}},
		{"list", []string{"list/a-b/3", "list/a.c", "list/a/1", "list/a/2.csv", "list/a/sub/4", "list/a0", "list/b", "listx/6"}},
		{"list/a/sub/4/", nil},
		{"nothing/", nil},
		{"lis/", nil},
	}
	for _, tc := range cases {
		objs := list(t, h.Store, tc.prefix)
		if got := listedKeys(objs); !slices.Equal(got, tc.want) {
			t.Errorf("List(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
		for _, o := range objs {
			if o.Size != int64(objects[o.Key]) {
				t.Errorf("List(%q): %s has size %d, want %d", tc.prefix, o.Key, o.Size, objects[o.Key])
			}
			if d := o.Modified.Sub(started); d < -5*time.Second || d > time.Minute {
				t.Errorf("List(%q): %s modified %s, not near the Put at %s", tc.prefix, o.Key, o.Modified, started)
			}
		}
	}
	// Everything: at least the objects above, in order.
	all := listedKeys(list(t, h.Store, ""))
	if !slices.IsSorted(all) {
		t.Errorf("List(\"\") is not in key order: %q", all)
	}
	for key := range objects {
		if !slices.Contains(all, key) {
			t.Errorf("List(\"\") lacks %s", key)
		}
	}
	// fn's error stops the listing and comes back as is.
	stop := errors.New("enough")
	calls := 0
	err := h.Store.List(ctxFor(t), "list/", func(storage.Object) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Errorf("List with a failing callback: %v after %d calls, want the callback's error after 1", err, calls)
	}
	// A deleted object is no longer listed.
	if err := h.Store.Delete(ctxFor(t), "list/a/sub/4"); err != nil {
		t.Fatal(err)
	}
	if got := listedKeys(list(t, h.Store, "list/a/")); !slices.Equal(got, []string{"list/a/1", "list/a/2.csv"}) {
		t.Errorf("List after Delete = %q", got)
	}
	for _, prefix := range []string{"/", "/list", "list//", "a//b", ".hidden/", "a/../b", "space here/", "unicodé"} {
		err := h.Store.List(ctxFor(t), prefix, func(storage.Object) error { return nil })
		if !errors.Is(err, storage.ErrInvalidKey) || !apperr.Is(err, apperr.InvalidParameters) {
			t.Errorf("List(%q) = %v, want ErrInvalidKey as a 400", prefix, err)
		}
	}
}

func testSweepExpired(t *testing.T, h Harness) {
	for _, key := range []string{"sweep/a/1", "sweep/a/2", "sweep/b/3", "sweep/keep/4", "sweepx/5"} {
		put(t, h.Store, key, []byte(key), "text/plain")
	}
	ctx := ctxFor(t)
	// Nothing was modified an hour ago.
	if n, err := storage.SweepExpired(ctx, h.Store, "sweep/", time.Now().Add(-time.Hour), storage.SweepOptions{}); err != nil || n != 0 {
		t.Fatalf("sweep of fresh objects: %d, %v; want 0", n, err)
	}
	// A minute from now, everything is older: at most Limit per run, only
	// under the prefix and what Match accepts.
	later := time.Now().Add(time.Minute)
	notKept := func(key string) bool { return !strings.HasPrefix(key, "sweep/keep/") }
	if n, err := storage.SweepExpired(ctx, h.Store, "sweep/", later, storage.SweepOptions{Match: notKept, Limit: 2}); err != nil || n != 2 {
		t.Fatalf("first sweep: %d, %v; want 2 (the limit)", n, err)
	}
	if n, err := storage.SweepExpired(ctx, h.Store, "sweep/", later, storage.SweepOptions{Match: notKept, Limit: 2}); err != nil || n != 1 {
		t.Fatalf("second sweep: %d, %v; want the 1 left", n, err)
	}
	if got := listedKeys(list(t, h.Store, "sweep")); !slices.Equal(got, []string{"sweep/keep/4", "sweepx/5"}) {
		t.Fatalf("after the sweeps: %q, want the kept object and the one outside the prefix", got)
	}
	if _, err := storage.SweepExpired(ctx, h.Store, "", later, storage.SweepOptions{}); err == nil {
		t.Fatalf("a sweep without a prefix succeeded")
	}
}

// DownloadKey is the key of the object a pre-signed URL of the filesystem
// store downloads (the path after storage.DownloadPathPrefix).
func DownloadKey(t testing.TB, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	key, ok := strings.CutPrefix(u.Path, storage.DownloadPathPrefix)
	if !ok {
		t.Fatalf("URL %s is not on the download route", rawURL)
	}
	return key
}

// CountingPuts is a store that counts its Puts (to prove something was
// written once, or not at all).
type CountingPuts struct {
	storage.Store
	puts atomic.Int64
}

// Put counts and puts.
func (s *CountingPuts) Put(ctx context.Context, key string, r io.Reader, size int64, ct string) error {
	s.puts.Add(1)
	return s.Store.Put(ctx, key, r, size, ct)
}

// Puts is how many Puts there were.
func (s *CountingPuts) Puts() int64 { return s.puts.Load() }
