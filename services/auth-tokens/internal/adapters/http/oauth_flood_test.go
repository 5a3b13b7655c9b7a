package http_test

import (
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/services/auth-tokens/internal/credentials"
)

// TestTokenFloodBoundedMemory fires 500 concurrent wrong-secret requests at
// the real app over loopback while sampling the heap. Unbounded, each would
// hold argon2id's memory at once (up to 500 × m); bounded, the peak stays
// far below a fifth of that, wrong secrets are shed with 503 + Retry-After,
// and valid clients still get tokens during the flood: one remembered from
// before, one never seen that follows Retry-After.
func TestTokenFloodBoundedMemory(t *testing.T) {
	const flood = 500
	// 2 MiB per hash (not the production 19 MiB) keeps the unbounded case
	// (what this test catches) at about 1 GiB rather than 9.5 GiB.
	hash := credentials.Params{Memory: 2 * 1024, Time: 16, Threads: 1, SaltLen: 16, KeyLen: 32}
	s := newServer(t, serverOptions{hash: hash, checks: credentials.CheckerOptions{MaxConcurrent: 2, MaxWait: 100 * time.Millisecond}})
	base := testkit.Serve(t, s.http)
	client := &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: flood, MaxConnsPerHost: 0, DisableCompression: true},
	}
	t.Cleanup(client.CloseIdleConnections)

	type reply struct {
		status int
		header http.Header
		body   []byte
		req    *http.Request
		form   []byte
	}
	post := func(id, secret string) (reply, error) {
		form := []byte(tokenForm(id).Encode())
		rq, err := http.NewRequest("POST", base+"/oauth2/token", strings.NewReader(string(form)))
		if err != nil {
			return reply{}, err
		}
		rq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rq.SetBasicAuth(id, secret)
		resp, err := client.Do(rq)
		if err != nil {
			return reply{}, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return reply{status: resp.StatusCode, header: resp.Header, body: body, req: rq, form: form}, err
	}
	// validate checks one exchange against the OpenAPI document.
	validate := func(r reply) {
		t.Helper()
		resp := &http.Response{StatusCode: r.status, Header: r.header, Body: io.NopCloser(strings.NewReader(""))}
		if err := s.v.Validate(r.req, r.form, resp, r.body); err != nil {
			t.Errorf("%d %s: %v", r.status, r.body, err)
		}
	}

	// Open the flood's connections first, so its requests arrive together
	// instead of trickling in through the accept loop.
	var warmWG sync.WaitGroup
	for range flood {
		warmWG.Add(1)
		go func() {
			defer warmWG.Done()
			resp, err := client.Get(base + "/.well-known/jwks.json")
			if err != nil {
				t.Errorf("open connection: %v", err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}()
	}
	warmWG.Wait()

	// demo's secret is verified once before the flood: it is remembered.
	if r, err := post("demo", "demo-secret"); err != nil || r.status != 200 {
		t.Fatalf("warm-up: %v %d %s", err, r.status, r.body)
	}

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline := ms.HeapAlloc
	// A fifth of what 500 unbounded hashes would hold at once. Unbounded, a
	// run here peaked at ~400 MiB (about 200 hashes overlapping); bounded to
	// 2 slots it peaks near 50 MiB (mostly garbage awaiting the next GC).
	bound := baseline + flood*uint64(hash.Memory)*1024/5
	var peak atomic.Uint64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
		}
	}()

	// The flood: all requests released at once.
	gate := make(chan struct{})
	replies := make(chan reply, flood)
	var floodWG sync.WaitGroup
	for i := range flood {
		floodWG.Add(1)
		go func() {
			defer floodWG.Done()
			<-gate
			r, err := post("demo", "wrong-"+strconv.Itoa(i))
			if err != nil {
				t.Errorf("flood request: %v", err)
				return
			}
			replies <- r
		}()
	}
	floodDone := make(chan struct{})
	go func() { floodWG.Wait(); close(floodDone) }()

	// Valid clients during the flood.
	type outcome struct {
		tokens      int
		duringFlood int // tokens answered before the last flood reply
		attempts    int
		err         string
	}
	during := func(id, secret string, deadline time.Duration) outcome {
		var o outcome
		give := time.Now().Add(deadline)
		for time.Now().Before(give) {
			o.attempts++
			r, err := post(id, secret)
			switch {
			case err != nil:
				o.err = err.Error()
				return o
			case r.status == 200:
				o.tokens++
				select {
				case <-floodDone:
					return o
				default:
					o.duringFlood++
				}
				continue
			case r.status == 503:
				wait, err := strconv.Atoi(r.header.Get("Retry-After"))
				if err != nil || wait < 1 {
					o.err = "503 without a usable Retry-After: " + r.header.Get("Retry-After")
					return o
				}
				time.Sleep(time.Duration(wait) * time.Second)
			default:
				o.err = "status " + strconv.Itoa(r.status) + ": " + string(r.body)
				return o
			}
		}
		o.err = "no token within " + deadline.String()
		return o
	}
	var warm, cold outcome
	var validWG sync.WaitGroup
	validWG.Add(2)
	close(gate)
	go func() { defer validWG.Done(); warm = during("demo", "demo-secret", 30*time.Second) }()
	go func() { defer validWG.Done(); cold = during("other", "other-secret", 30*time.Second) }()
	<-floodDone
	close(replies)
	validWG.Wait()
	close(stopSampling)
	<-sampled

	counts := map[int]int{}
	for r := range replies {
		counts[r.status]++
		switch r.status {
		case 401:
			if counts[401] == 1 {
				validate(r)
			}
		case 503:
			var body struct{ Error string }
			_ = json.Unmarshal(r.body, &body)
			if r.header.Get("Retry-After") == "" || body.Error != "temporarily_unavailable" || r.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("503 = %v %s", r.header, r.body)
			}
			if counts[503] == 1 {
				validate(r)
			}
		default:
			t.Fatalf("wrong secret answered %d: %s", r.status, r.body)
		}
	}
	t.Logf("flood: %v; heap baseline %d MiB, peak %d MiB, bound %d MiB; warm client %+v, cold client %+v",
		counts, baseline>>20, peak.Load()>>20, bound>>20, warm, cold)
	if counts[401]+counts[503] != flood {
		t.Fatalf("answers %v, want %d", counts, flood)
	}
	if peak.Load() > bound {
		t.Fatalf("peak heap %d MiB over the bound %d MiB: argon2id work is not bounded", peak.Load()>>20, bound>>20)
	}
	if counts[503] == 0 {
		t.Fatal("no request was shed: the flood never filled the argon2id slots")
	}
	if warm.err != "" || warm.duringFlood == 0 {
		t.Fatalf("remembered client during the flood: %+v", warm)
	}
	if cold.err != "" || cold.tokens == 0 {
		t.Fatalf("new client during the flood: %+v", cold)
	}
}
