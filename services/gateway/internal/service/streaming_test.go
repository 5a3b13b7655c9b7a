package service

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/storage"
)

// TestDownloadStreamsThroughFullApp proves the whole gateway app (httpx
// middleware, auth, rate limit, proxy) streams a large response: the client
// reads the first megabyte before the upstream writes the rest, and memory
// stays far below the body size.
func TestDownloadStreamsThroughFullApp(t *testing.T) {
	const total = 50 << 20
	const first = 1 << 20
	clientGotFirst := make(chan struct{})
	chunk := make([]byte, 64<<10)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/whoami" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Content-Length", strconv.Itoa(total))
		for sent := 0; sent < total; sent += len(chunk) {
			if sent == first {
				w.(http.Flusher).Flush()
				select {
				case <-clientGotFirst:
				case <-time.After(10 * time.Second):
					return // the gateway buffered: the client never saw the first part
				}
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer up.Close()
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, up.URL))

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	req, _ := http.NewRequest(http.MethodGet, gw+"/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+is.platform(t, "c1"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if _, err := io.CopyN(io.Discard, resp.Body, first); err != nil {
		t.Fatalf("first megabyte: %v", err)
	}
	close(clientGotFirst)
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n+first != total {
		t.Fatalf("received %d bytes (%v), want %d", n+first, err, total)
	}
	runtime.ReadMemStats(&after)
	// Client, gateway and fake upstream share this process; all of them
	// together must allocate far less than the 50 MB that went through.
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
		t.Fatalf("allocated %d MB while streaming 50 MB", grown>>20)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/csv" {
		t.Fatalf("content type = %q", ct)
	}
}

// The filesystem store's signed URLs are served by the gateway without a
// bearer token; the signature and the expiry are the credential.
func TestStorageDownloadRoute(t *testing.T) {
	fake := newFakeAuthTokens(t, nil)
	is := newIssuer(t)
	cfg := testConfig(is.jwks.URL, fake.URL)
	key := bytes.Repeat([]byte("k"), 32)
	cfg.StorageDir, cfg.StorageSigningKey = t.TempDir(), base64.StdEncoding.EncodeToString(key)
	_, gw := startGateway(t, cfg)

	store, err := storage.NewFS(storage.FSOptions{Dir: cfg.StorageDir, PublicBaseURL: gw, SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("receipt,"), 4096)
	if err := store.Put(t.Context(), "b1/receipts/r1.csv", bytes.NewReader(body), int64(len(body)), "text/csv"); err != nil {
		t.Fatal(err)
	}
	url, err := store.PresignGet(t.Context(), "b1/receipts/r1.csv", time.Minute, storage.PresignOptions{Filename: "r1.csv"})
	if err != nil {
		t.Fatal(err)
	}
	status, h, got := call(t, http.MethodGet, url, "", nil, nil)
	if status != http.StatusOK || !bytes.Equal(got, body) || h.Get("Content-Type") != "text/csv" {
		t.Fatalf("download: %d %s %d bytes", status, h.Get("Content-Type"), len(got))
	}
	tampered := strings.Replace(url, "r1.csv?", "r2.csv?", 1)
	status, _, data := call(t, http.MethodGet, tampered, "", nil, nil)
	wantError(t, status, data, http.StatusForbidden, apperr.Forbidden)
}
