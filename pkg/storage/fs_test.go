package storage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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

// fakeClock is a clock tests move; safe for the server goroutines.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Set(t time.Time)         { c.ns.Store(t.UnixNano()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

type fsFixture struct {
	dir   string
	base  string
	clock *fakeClock
	store *storage.FSStore
}

func newFSFixture(t *testing.T) fsFixture {
	t.Helper()
	dir, key := t.TempDir(), randomKey(t)
	clock := newFakeClock(time.Unix(1_800_000_000, 250_000_000))
	base := gateway(t, storage.DownloadOptions{Dir: dir, SigningKey: key, Now: clock.Now})
	store, err := storage.NewFS(storage.FSOptions{Dir: dir, PublicBaseURL: base, SigningKey: key, Now: clock.Now})
	if err != nil {
		t.Fatalf("NewFS: %v", err)
	}
	return fsFixture{dir: dir, base: base, clock: clock, store: store}
}

func (f fsFixture) put(t *testing.T, key, body, contentType string) {
	t.Helper()
	if err := f.store.Put(context.Background(), key, strings.NewReader(body), int64(len(body)), contentType); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func (f fsFixture) presign(t *testing.T, key string, expiry time.Duration, filename string) string {
	t.Helper()
	u, err := f.store.PresignGet(context.Background(), key, expiry, storage.PresignOptions{Filename: filename})
	if err != nil {
		t.Fatalf("PresignGet(%q): %v", key, err)
	}
	return u
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, method, rawURL string) response {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		t.Fatalf("request %s: %v", rawURL, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, rawURL, err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

func errorEnum(t *testing.T, r response) string {
	t.Helper()
	var b apperr.Body
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatalf("body %q is not an error object: %v", r.body, err)
	}
	return b.ErrorEnum
}

func TestDownloadHandler(t *testing.T) {
	f := newFSFixture(t)
	f.put(t, "receipts/b1/r1.html", "<script>alert(1)</script>", "text/html; charset=utf-8")
	f.put(t, "receipts/b1/dir/inner", "x", "")
	good := f.presign(t, "receipts/b1/r1.html", 10*time.Second, "receipt one.html")

	t.Run("GET streams the object with its headers", func(t *testing.T) {
		r := do(t, http.MethodGet, good)
		if r.status != http.StatusOK || string(r.body) != "<script>alert(1)</script>" {
			t.Fatalf("GET: %d %q", r.status, r.body)
		}
		// HTML an API client uploaded is served as opaque bytes.
		want := map[string]string{
			"Content-Type":            "application/octet-stream",
			"Content-Length":          "25",
			"Content-Disposition":     `attachment; filename="receipt one.html"`,
			"X-Content-Type-Options":  "nosniff",
			"Content-Security-Policy": "sandbox",
			"Cache-Control":           "private, no-store",
		}
		for h, v := range want {
			if got := r.header.Get(h); got != v {
				t.Errorf("%s = %q, want %q", h, got, v)
			}
		}
		if etag := r.header.Get("ETag"); len(etag) < 3 || etag[0] != '"' {
			t.Errorf("ETag = %q, want a quoted entity tag", etag)
		}
		if _, err := http.ParseTime(r.header.Get("Last-Modified")); err != nil {
			t.Errorf("Last-Modified %q: %v", r.header.Get("Last-Modified"), err)
		}
	})
	t.Run("HEAD answers the headers without the body", func(t *testing.T) {
		r := do(t, http.MethodHead, good)
		if r.status != http.StatusOK || len(r.body) != 0 || r.header.Get("Content-Length") != "25" || r.header.Get("Content-Type") != "application/octet-stream" {
			t.Fatalf("HEAD: %d, %d body bytes, headers %v", r.status, len(r.body), r.header)
		}
	})

	t.Run("GET and HEAD close the file", func(t *testing.T) {
		// No GC meanwhile: an *os.File's finalizer would hide a leak.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		before := openFiles(t)
		for range 20 {
			do(t, http.MethodGet, good)
			do(t, http.MethodHead, good)
		}
		// The server closes the file after writing the response, which
		// can be just after the client has read it.
		deadline := time.Now().Add(5 * time.Second)
		for openFiles(t) > before+2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if after := openFiles(t); after > before+2 {
			t.Fatalf("open files went from %d to %d over 40 downloads", before, after)
		}
	})

	u, _ := url.Parse(good)
	q := u.Query()
	with := func(edit func(v url.Values)) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = append([]string(nil), vs...)
		}
		edit(v)
		c := *u
		c.RawQuery = v.Encode()
		return c.String()
	}
	refused := []struct{ name, url string }{
		{"no query", f.base + storage.DownloadPathPrefix + "receipts/b1/r1.html"},
		{"expiry extended", with(func(v url.Values) { v.Set("expires", fmt.Sprint(f.clock.Now().Unix()+3600)) })},
		{"expiry not a number", with(func(v url.Values) { v.Set("expires", "soon") })},
		{"expiry with a leading zero", with(func(v url.Values) { v.Set("expires", "0"+v.Get("expires")) })},
		{"filename removed", with(func(v url.Values) { v.Del("filename") })},
		{"signature not base64url", with(func(v url.Values) { v.Set("sig", "***") })},
		{"signature empty", with(func(v url.Values) { v.Set("sig", "") })},
		{"signature with non-zero padding bits", with(func(v url.Values) { v.Set("sig", nonCanonical(v.Get("sig"))) })},
	}
	for _, tc := range refused {
		t.Run("403 "+tc.name, func(t *testing.T) {
			r := do(t, http.MethodGet, tc.url)
			if r.status != http.StatusForbidden || errorEnum(t, r) != storage.EnumInvalidSignature {
				t.Fatalf("status %d body %s, want 403 InvalidSignature", r.status, r.body)
			}
		})
	}

	t.Run("404 for a missing object and for a key prefix", func(t *testing.T) {
		for _, key := range []string{"receipts/b1/none", "receipts/b1/dir"} {
			r := do(t, http.MethodGet, f.presign(t, key, time.Minute, ""))
			if r.status != http.StatusNotFound || errorEnum(t, r) != "NotFound" {
				t.Fatalf("%s: status %d body %s, want 404 NotFound", key, r.status, r.body)
			}
		}
	})

	t.Run("valid until the expiry, 403 UrlExpired from it", func(t *testing.T) {
		start := f.clock.Now()
		url := f.presign(t, "receipts/b1/r1.html", 10*time.Second, "")
		f.clock.Advance(10 * time.Second) // the deadline is rounded up to the next second
		if r := do(t, http.MethodGet, url); r.status != http.StatusOK {
			t.Fatalf("just before expiry: %d %s", r.status, r.body)
		}
		f.clock.Advance(time.Second)
		r := do(t, http.MethodGet, url)
		if r.status != http.StatusForbidden || errorEnum(t, r) != storage.EnumURLExpired {
			t.Fatalf("after expiry: status %d body %s, want 403 UrlExpired", r.status, r.body)
		}
		f.clock.Set(start)
	})
}

// nonCanonical changes only the unused low bits of a 256-bit base64url
// value's last character (43 characters carry 258 bits): a lenient decoder
// would read the same bytes.
func nonCanonical(sig string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, sig[len(sig)-1])
	return sig[:len(sig)-1] + string(alphabet[last^1])
}

// openFiles counts the process's open file descriptors (Linux).
func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("count open files: %v", err)
	}
	return len(entries)
}

// TestDownloadRefusesPathTraversal sends raw request lines (an HTTP client
// would clean them) that try to leave the store's directory.
func TestDownloadRefusesPathTraversal(t *testing.T) {
	f := newFSFixture(t)
	if err := os.WriteFile(filepath.Join(f.dir, "secret.txt"), []byte("TOP SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.put(t, "a/b", "fine", "")
	good, _ := url.Parse(f.presign(t, "a/b", time.Minute, ""))
	for _, path := range []string{
		storage.DownloadPathPrefix + "../secret.txt",
		storage.DownloadPathPrefix + "a/../../secret.txt",
		storage.DownloadPathPrefix + "%2e%2e/secret.txt",
		storage.DownloadPathPrefix + "a%2f..%2f..%2fsecret.txt",
		storage.DownloadPathPrefix + "/etc/passwd",
	} {
		t.Run(path, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, f.base, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = path // sent as is
			req.URL.RawQuery = good.RawQuery
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || bytes.Contains(body, []byte("SECRET")) || bytes.Contains(body, []byte("root:")) {
				t.Fatalf("GET %s: %d %q, want a refusal", path, resp.StatusCode, body)
			}
		})
	}
}

// TestFSPutIsAtomic overwrites one key while readers check that every Get
// sees one whole version: content, size and content type that belong
// together.
func TestFSPutIsAtomic(t *testing.T) {
	f := newFSFixture(t)
	ctx := context.Background()
	versions := map[string][]byte{
		"text/a": bytes.Repeat([]byte("a"), 300_000),
		"text/b": bytes.Repeat([]byte("b"), 200_001),
	}
	f.put(t, "race/key", string(versions["text/a"]), "text/a")
	var stop atomic.Bool
	var readers sync.WaitGroup
	var reads atomic.Int64
	for range 2 {
		readers.Go(func() {
			for !stop.Load() {
				rc, obj, err := f.store.Get(ctx, "race/key")
				if err != nil {
					t.Errorf("Get during overwrites: %v", err)
					return
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Errorf("read during overwrites: %v", err)
					return
				}
				if want := versions[obj.ContentType]; !bytes.Equal(got, want) || obj.Size != int64(len(want)) {
					t.Errorf("Get saw %d bytes starting %q with content type %q and size %d: a mixed or partial version", len(got), got[:min(len(got), 3)], obj.ContentType, obj.Size)
					return
				}
				reads.Add(1)
			}
		})
	}
	for i := range 40 {
		ct := []string{"text/a", "text/b"}[i%2]
		if err := f.store.Put(ctx, "race/key", bytes.NewReader(versions[ct]), -1, ct); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	stop.Store(true)
	readers.Wait()
	if reads.Load() == 0 {
		t.Fatalf("readers made no read while the writer ran")
	}
}

func TestFSFailedPutLeavesNoFiles(t *testing.T) {
	f := newFSFixture(t)
	ctx := context.Background()
	for _, r := range []struct {
		body io.Reader
		size int64
	}{
		{strings.NewReader("short"), 100},
		{strings.NewReader("too long"), 2},
		{io.MultiReader(strings.NewReader("partial"), errReader{}), -1},
	} {
		if err := f.store.Put(ctx, "left/over", r.body, r.size, ""); err == nil {
			t.Fatalf("Put succeeded, want an error")
		}
	}
	for _, sub := range []string{"tmp", "objects"} {
		entries, err := os.ReadDir(filepath.Join(f.dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Fatalf("%s/ holds %d entries after failed Puts, want none", sub, len(entries))
		}
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestFSKeyConflict(t *testing.T) {
	f := newFSFixture(t)
	ctx := context.Background()
	f.put(t, "c/file", "1", "")
	f.put(t, "d/dir/inner", "2", "")
	for _, key := range []string{"c/file/below", "d/dir"} {
		err := f.store.Put(ctx, key, strings.NewReader("x"), 1, "")
		if !errors.Is(err, storage.ErrKeyConflict) {
			t.Fatalf("Put(%q) = %v, want ErrKeyConflict", key, err)
		}
	}
	// Nothing was lost.
	for key, want := range map[string]string{"c/file": "1", "d/dir/inner": "2"} {
		rc, _, err := f.store.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != want {
			t.Fatalf("Get(%q) = %q, want %q", key, b, want)
		}
	}
}

func TestFSDeletePrunesEmptyDirectories(t *testing.T) {
	f := newFSFixture(t)
	f.put(t, "x/y/z/obj", "1", "")
	f.put(t, "x/keep", "2", "")
	if err := f.store.Delete(context.Background(), "x/y/z/obj"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "objects", "x", "y")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("emptied directory x/y still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "objects", "x", "keep")); err != nil {
		t.Fatalf("sibling object removed: %v", err)
	}
	if err := f.store.Delete(context.Background(), "x/keep"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "objects")); err != nil {
		t.Fatalf("the objects root itself must stay: %v", err)
	}
}

func TestNewFSRemovesStaleUploads(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		t.Fatal(err)
	}
	for name, age := range map[string]time.Duration{"put-old": 48 * time.Hour, "put-recent": time.Minute} {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := storage.NewFS(storage.FSOptions{Dir: dir, PublicBaseURL: "http://127.0.0.1:8080", SigningKey: randomKey(t)}); err != nil {
		t.Fatalf("NewFS: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "put-old")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("abandoned upload kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "put-recent")); err != nil {
		t.Fatalf("an upload possibly in progress was removed: %v", err)
	}
}

func TestNewFSAndHandlerRejectBadOptions(t *testing.T) {
	key := randomKey(t)
	cases := []struct {
		name string
		opts storage.FSOptions
	}{
		{"no dir", storage.FSOptions{PublicBaseURL: "http://x", SigningKey: key}},
		{"short key", storage.FSOptions{Dir: t.TempDir(), PublicBaseURL: "http://x", SigningKey: key[:31]}},
		{"relative base URL", storage.FSOptions{Dir: t.TempDir(), PublicBaseURL: "/v1", SigningKey: key}},
		{"base URL with query", storage.FSOptions{Dir: t.TempDir(), PublicBaseURL: "http://x/?a=b", SigningKey: key}},
		{"ftp base URL", storage.FSOptions{Dir: t.TempDir(), PublicBaseURL: "ftp://x", SigningKey: key}},
	}
	for _, tc := range cases {
		if _, err := storage.NewFS(tc.opts); err == nil {
			t.Errorf("NewFS with %s succeeded", tc.name)
		}
	}
	if _, err := storage.NewDownloadHandler(storage.DownloadOptions{Dir: t.TempDir(), SigningKey: key[:16]}); err == nil {
		t.Errorf("NewDownloadHandler with a 16-byte key succeeded")
	}
	if _, err := storage.NewDownloadHandler(storage.DownloadOptions{SigningKey: key}); err == nil {
		t.Errorf("NewDownloadHandler without a directory succeeded")
	}
}

func TestPresignedURLShape(t *testing.T) {
	f := newFSFixture(t)
	u, err := url.Parse(f.presign(t, "exports/b/pnl.csv", 0, "pnl.csv"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	// Default expiry: 3600 s from now, rounded up to the second.
	if want := fmt.Sprint(f.clock.Now().Unix() + 3601); q.Get("expires") != want {
		t.Errorf("expires = %s, want %s", q.Get("expires"), want)
	}
	if u.Path != storage.DownloadPathPrefix+"exports/b/pnl.csv" || q.Get("filename") != "pnl.csv" || len(q.Get("sig")) != 43 {
		t.Errorf("URL %s: want the download route, the filename and a 256-bit base64url signature", u)
	}
}

// TestFSListSkipsUploadsAndStrays: an upload in progress (its file in
// tmp/) is not listed until its Put returns, nor is anything in the object
// tree that no key names (a dot file, a name with a space, a symlink).
func TestFSListSkipsUploadsAndStrays(t *testing.T) {
	f := newFSFixture(t)
	ctx := context.Background()
	f.put(t, "l/done.csv", "a,b\n", "text/csv")
	objects := filepath.Join(f.dir, "objects")
	for _, name := range []string{"l/.partial", "l/bad name", ".hidden"} {
		if err := os.WriteFile(filepath.Join(objects, filepath.FromSlash(name)), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(objects, "l", "done.csv"), filepath.Join(objects, "l", "link")); err != nil {
		t.Fatal(err)
	}
	keys := func() []string {
		var out []string
		if err := f.store.List(ctx, "", func(o storage.Object) error { out = append(out, o.Key); return nil }); err != nil {
			t.Fatalf("List: %v", err)
		}
		return out
	}

	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- f.store.Put(ctx, "l/upload.bin", pr, -1, "") }()
	if _, err := pw.Write(bytes.Repeat([]byte("u"), 100_000)); err != nil { // the upload is under way
		t.Fatal(err)
	}
	if got := keys(); !slices.Equal(got, []string{"l/done.csv"}) {
		t.Fatalf("List during an upload = %q, want only the stored object", got)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatalf("Put: %v", err)
	}
	if got := keys(); !slices.Equal(got, []string{"l/done.csv", "l/upload.bin"}) {
		t.Fatalf("List after the upload = %q", got)
	}
}
