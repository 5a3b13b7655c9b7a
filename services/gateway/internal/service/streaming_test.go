package service

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"
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
