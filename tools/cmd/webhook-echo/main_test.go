package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/acctsuite/acct/pkg/webhooksig"
)

type echo struct {
	t   *testing.T
	srv *httptest.Server
	rc  *receiver
	out *testkit.SyncBuffer
}

func startEcho(t *testing.T, cfg config) *echo {
	t.Helper()
	if cfg.Status == 0 {
		cfg.Status = http.StatusNoContent
	}
	out := &testkit.SyncBuffer{}
	rc := newReceiver(cfg, out)
	srv := httptest.NewServer(rc.routes())
	t.Cleanup(srv.Close)
	return &echo{t: t, srv: srv, rc: rc, out: out}
}

// post sends body as delivery id, signed with secrets (unsigned when none).
func (e *echo) post(id string, body string, secrets ...string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+"/hooks/acme", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	now := time.Now()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhooksig.HeaderID, id)
	req.Header.Set(webhooksig.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	if len(secrets) > 0 {
		sig, err := webhooksig.SignatureHeader(secrets, id, now, []byte(body))
		if err != nil {
			e.t.Fatal(err)
		}
		req.Header.Set(webhooksig.HeaderSignature, sig)
	}
	return e.do(req)
}

func (e *echo) do(req *http.Request) (*http.Response, []byte) {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp, b
}

func (e *echo) received() receivedBody {
	e.t.Helper()
	resp, err := http.Get(e.srv.URL + "/received")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("GET /received: %s", resp.Status)
	}
	var r receivedBody
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		e.t.Fatal(err)
	}
	return r
}

func wantReceived(t *testing.T, got receivedBody, count int, ids []string, duplicates, rejected int) {
	t.Helper()
	if ids == nil {
		ids = []string{}
	}
	want := receivedBody{Count: count, IDs: ids, Duplicates: duplicates, Rejected: rejected}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("received %+v, want %+v", got, want)
	}
}

func newSecret(t *testing.T) string {
	t.Helper()
	s, err := webhooksig.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const invoiceCreated = `{"type":"invoice.created","timestamp":"2026-03-14T09:26:53Z","data":{"business_id":"0190c4c4-0000-7000-8000-000000000002","invoice_id":"inv_1"}}`

func TestDeliveriesAreVerifiedAndCounted(t *testing.T) {
	secret := newSecret(t)
	e := startEcho(t, config{Secrets: []string{secret}})
	wantReceived(t, e.received(), 0, nil, 0, 0)

	// A good delivery.
	resp, body := e.post("msg_1", invoiceCreated, secret)
	if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("good delivery: %s %q, want 204 without body", resp.Status, body)
	}
	wantReceived(t, e.received(), 1, []string{"msg_1"}, 0, 0)
	line := e.out.String()
	for _, part := range []string{"id=msg_1", "type=invoice.created", "business_id=0190c4c4-0000-7000-8000-000000000002", "verified=yes"} {
		if !strings.Contains(line, part) {
			t.Fatalf("line %q lacks %q", line, part)
		}
	}
	if strings.Count(line, "\n") != 1 {
		t.Fatalf("want exactly one line per delivery, got %q", line)
	}

	// A delivery signed with another secret.
	resp, body = e.post("msg_2", invoiceCreated, newSecret(t))
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad signature: %s, want 401", resp.Status)
	}
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err != nil || eb.Code != "bad_signature" || eb.Error == "" {
		t.Fatalf("bad signature answer %q (%v), want a JSON error with code bad_signature", body, err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("401 Content-Type %q", ct)
	}
	wantReceived(t, e.received(), 1, []string{"msg_1"}, 0, 1)
	if !strings.Contains(e.out.String(), "id=msg_2 type=invoice.created business_id=0190c4c4-0000-7000-8000-000000000002 verified=no rejected=bad_signature") {
		t.Fatalf("no rejection line in %q", e.out.String())
	}

	// The same delivery again (a retry): counted, as a duplicate.
	resp, _ = e.post("msg_1", invoiceCreated, secret)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("duplicate delivery: %s, want 204", resp.Status)
	}
	wantReceived(t, e.received(), 2, []string{"msg_1"}, 1, 1)

	// A new id during a secret rotation: two signatures, one ours.
	resp, _ = e.post("msg_3", `{"type":"bill.paid","business_id":"b-42"}`, newSecret(t), secret)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("rotated delivery: %s, want 204", resp.Status)
	}
	wantReceived(t, e.received(), 3, []string{"msg_1", "msg_3"}, 1, 1)
	if !strings.Contains(e.out.String(), "id=msg_3 type=bill.paid business_id=b-42 verified=yes") {
		t.Fatalf("no line for msg_3 in %q", e.out.String())
	}

	// Unsigned, tampered and stale deliveries are refused.
	resp, body = e.post("msg_4", invoiceCreated)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "missing_headers") {
		t.Fatalf("unsigned delivery: %s %s, want 401 missing_headers", resp.Status, body)
	}
	req := signedRequest(t, e.srv.URL, secret, "msg_5", time.Now(), invoiceCreated)
	req.Body = io.NopCloser(strings.NewReader(strings.Replace(invoiceCreated, "inv_1", "inv_2", 1)))
	if resp, body = e.do(req); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "bad_signature") {
		t.Fatalf("tampered delivery: %s %s, want 401 bad_signature", resp.Status, body)
	}
	req = signedRequest(t, e.srv.URL, secret, "msg_6", time.Now().Add(-time.Hour), invoiceCreated)
	if resp, body = e.do(req); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `"timestamp"`) {
		t.Fatalf("stale delivery: %s %s, want 401 timestamp", resp.Status, body)
	}
	wantReceived(t, e.received(), 3, []string{"msg_1", "msg_3"}, 1, 4)
}

func signedRequest(t *testing.T, url, secret, id string, at time.Time, body string) *http.Request {
	t.Helper()
	sig, err := webhooksig.Sign(secret, id, at, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(webhooksig.HeaderID, id)
	req.Header.Set(webhooksig.HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(webhooksig.HeaderSignature, sig)
	return req
}

func TestSeveralReceiverSecrets(t *testing.T) {
	oldSecret, newSecretValue := newSecret(t), newSecret(t)
	e := startEcho(t, config{Secrets: []string{oldSecret, newSecretValue}})
	for i, s := range []string{oldSecret, newSecretValue} {
		if resp, body := e.post("msg_"+strconv.Itoa(i), `{}`, s); resp.StatusCode != http.StatusNoContent {
			t.Fatalf("delivery signed with secret %d: %s %s", i, resp.Status, body)
		}
	}
	wantReceived(t, e.received(), 2, []string{"msg_0", "msg_1"}, 0, 0)
}

func TestWithoutSecretEverythingIsAccepted(t *testing.T) {
	e := startEcho(t, config{Status: http.StatusAccepted})
	resp, body := e.post("msg_1", "not json")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("unsigned delivery: %s, want 202", resp.Status)
	}
	var ans struct {
		ID       string `json:"id"`
		Verified bool   `json:"verified"`
	}
	if err := json.Unmarshal(body, &ans); err != nil || ans.ID != "msg_1" || ans.Verified {
		t.Fatalf("answer %q (%v)", body, err)
	}
	// Signed deliveries are accepted but not reported as verified: there
	// is nothing to verify them with.
	e.post("msg_2", invoiceCreated, newSecret(t))
	wantReceived(t, e.received(), 2, []string{"msg_1", "msg_2"}, 0, 0)
	out := e.out.String()
	if !strings.Contains(out, "id=msg_1 type=- business_id=- verified=no\n") || !strings.Contains(out, "id=msg_2 type=invoice.created") || strings.Contains(out, "verified=yes") {
		t.Fatalf("lines %q", out)
	}
}

func TestBodyOverOneMiB(t *testing.T) {
	secret := newSecret(t)
	e := startEcho(t, config{Secrets: []string{secret}})
	big := `{"type":"x","pad":"` + strings.Repeat("a", maxBody) + `"}`
	resp, _ := e.post("msg_big", big, secret)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("big delivery: %s, want 413", resp.Status)
	}
	// Without a Content-Length the limit still holds.
	req := signedRequest(t, e.srv.URL, secret, "msg_big2", time.Now(), big)
	req.ContentLength = -1
	req.Body = io.NopCloser(strings.NewReader(big))
	if resp, _ = e.do(req); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked big delivery: %s, want 413", resp.Status)
	}
	// Exactly 1 MiB is accepted.
	exact := `{"pad":"` + strings.Repeat("a", maxBody-len(`{"pad":""}`)) + `"}`
	if resp, body := e.post("msg_exact", exact, secret); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("1 MiB delivery: %s %s, want 204", resp.Status, body)
	}
	wantReceived(t, e.received(), 1, []string{"msg_exact"}, 0, 0)
}

func TestIDsAreBounded(t *testing.T) {
	e := startEcho(t, config{Quiet: true})
	e.rc.maxIDs = 3
	for _, id := range []string{"a", "b", "c", "d", "b", "e", "a"} {
		e.post(id, `{}`)
	}
	// "b" was still remembered (a duplicate); "a" had been forgotten when
	// it came back, so it counts as new.
	wantReceived(t, e.received(), 7, []string{"d", "e", "a"}, 1, 0)
	if out := e.out.String(); out != "" {
		t.Fatalf("quiet printed %q", out)
	}
}

func TestStatusAndDelay(t *testing.T) {
	e := startEcho(t, config{Status: http.StatusServiceUnavailable, Delay: 150 * time.Millisecond, Quiet: true})
	start := time.Now()
	resp, _ := e.post("msg_1", `{}`)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status %s, want 503", resp.Status)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("answered after %s, want at least the 150ms delay", d)
	}
	// The delivery counts even though the answer asks for a retry.
	wantReceived(t, e.received(), 1, []string{"msg_1"}, 0, 0)
}

func TestHealthAndRoutes(t *testing.T) {
	e := startEcho(t, config{})
	resp, body := e.do(mustRequest(t, http.MethodGet, e.srv.URL+"/healthz"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("healthz: %s %s", resp.Status, body)
	}
	if resp, _ = e.do(mustRequest(t, http.MethodGet, e.srv.URL+"/hooks")); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET of a delivery path: %s, want 405", resp.Status)
	}
	wantReceived(t, e.received(), 0, nil, 0, 0)
}

func mustRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestLoadConfig(t *testing.T) {
	a, b, c := newSecret(t), newSecret(t), newSecret(t)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	cfg, err := loadConfig(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:8099" || cfg.Status != 204 || cfg.Delay != 0 || cfg.Quiet || len(cfg.Secrets) != 0 {
		t.Fatalf("defaults %+v", cfg)
	}

	cfg, err = loadConfig(nil, env(map[string]string{"WEBHOOK_ECHO_ADDR": "127.0.0.1:0", "WEBHOOK_SECRET": a + ", " + b}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:0" || !reflect.DeepEqual(cfg.Secrets, []string{a, b}) {
		t.Fatalf("from env %+v", cfg)
	}

	// Flags override the environment; -secret repeats and splits on commas.
	cfg, err = loadConfig([]string{"-addr", ":9000", "-secret", c, "-secret", a + "," + b, "-status", "500", "-delay", "2s", "-quiet"},
		env(map[string]string{"WEBHOOK_SECRET": a}))
	if err != nil {
		t.Fatal(err)
	}
	want := config{Addr: ":9000", Secrets: []string{c, a, b}, Status: 500, Delay: 2 * time.Second, Quiet: true}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("from flags %+v, want %+v", cfg, want)
	}

	for _, args := range [][]string{
		{"-secret", "whsec_not*base64"},
		{"-status", "99"},
		{"-addr", "nohostport"},
		{"-delay", "-1s"},
		{"extra"},
	} {
		if _, err := loadConfig(args, env(nil)); err == nil {
			t.Errorf("loadConfig(%q) accepted", args)
		}
	}
	if _, err := loadConfig(nil, env(map[string]string{"WEBHOOK_SECRET": "whsec_"})); err == nil {
		t.Error("an empty WEBHOOK_SECRET key was accepted")
	}
}

// TestRunStopsGracefully starts the real server on a free port and stops it
// through its context, as SIGINT or SIGTERM do, while a delivery waits out
// a long -delay.
func TestRunStopsGracefully(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	cfg := config{Addr: addr, Status: http.StatusNoContent, Delay: time.Minute, Quiet: true}
	go func() { done <- run(ctx, cfg, io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil))) }()

	var up bool
	for i := 0; i < 100 && !up; i++ {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			up = resp.StatusCode == http.StatusOK
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !up {
		t.Fatal("server did not come up")
	}
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader(`{}`))
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	time.Sleep(100 * time.Millisecond) // let the delivery start waiting
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop")
	}
	if code := <-answered; code != http.StatusNoContent {
		t.Fatalf("the delivery in flight got %d, want its 204 before the stop", code)
	}
	if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatal("still serving after the stop")
	}
}

func (e *echo) receivedFull() receivedBody {
	e.t.Helper()
	resp, err := http.Get(e.srv.URL + "/received?full=1")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var r receivedBody
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		e.t.Fatal(err)
	}
	return r
}

// A Standard Webhooks event as the webhooks service sends it.
func event(typ, business, businessExt, entity, entityExt string) string {
	b, _ := json.Marshal(map[string]any{"id": "ignored", "type": typ, "business_id": business, "business_external_id": businessExt,
		"created_at": "2026-11-27T14:30:05.123Z", "data": map[string]any{"entity_id": entity, "entity_external_id": entityExt}})
	return string(b)
}

// ?full=1 lists, per webhook-id, the event its first accepted delivery
// carried and how many times it was accepted; refused deliveries are not
// listed, and the plain listing stays as it was.
func TestFullListing(t *testing.T) {
	secret := newSecret(t)
	e := startEcho(t, config{Secrets: []string{secret}, Quiet: true})
	e.post("msg_1", event("Customer.created", "b-1", "biz-1", "c-1", "cust-1"), secret)
	e.post("msg_2", event("Invoice.created", "b-1", "biz-1", "i-1", ""), secret)
	e.post("msg_1", event("Customer.created", "b-1", "biz-1", "c-1", "cust-1"), secret) // a retry
	e.post("msg_3", event("Trip.created", "b-1", "biz-1", "t-1", ""), newSecret(t))     // refused
	e.post("msg_4", `["not an object"]`, secret)
	wantReceived(t, e.received(), 4, []string{"msg_1", "msg_2", "msg_4"}, 1, 1)
	got := e.receivedFull()
	want := []delivery{
		{ID: "msg_1", Type: "Customer.created", BusinessID: "b-1", BusinessExternalID: "biz-1", EntityID: "c-1", EntityExternalID: "cust-1", Count: 2},
		{ID: "msg_2", Type: "Invoice.created", BusinessID: "b-1", BusinessExternalID: "biz-1", EntityID: "i-1", Count: 1},
		{ID: "msg_4", Count: 1},
	}
	if !reflect.DeepEqual(got.Deliveries, want) || got.Count != 4 || got.Duplicates != 1 || got.Rejected != 1 {
		t.Fatalf("full listing %+v, want deliveries %+v", got, want)
	}
}

// With -record, what was received survives a restart (a new receiver on
// the same file): counts, duplicates, refusals and the full listing; a
// line cut by a crash is skipped.
func TestRecordSurvivesRestart(t *testing.T) {
	secret := newSecret(t)
	path := t.TempDir() + "/received.jsonl"
	start := func() *echo {
		t.Helper()
		e := startEcho(t, config{Secrets: []string{secret}, Quiet: true})
		f, err := e.rc.openRecord(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return e
	}
	first := start()
	first.post("msg_1", event("Bill.created", "b-1", "biz-1", "bill-1", "ext-1"), secret)
	first.post("msg_1", event("Bill.created", "b-1", "biz-1", "bill-1", "ext-1"), secret)
	first.post("msg_2", event("Trip.created", "b-1", "biz-1", "trip-1", ""), "whsec_"+strings.Repeat("A", 32))
	before := first.receivedFull()
	wantReceived(t, first.received(), 2, []string{"msg_1"}, 1, 1)
	first.srv.Close()

	// A crash in the middle of a line.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"msg_cut","type":"Bill.cre`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	second := start()
	if got := second.receivedFull(); !reflect.DeepEqual(got, before) {
		t.Fatalf("after the restart %+v, want %+v", got, before)
	}
	// The same id again is a duplicate of the one received before the restart.
	second.post("msg_1", event("Bill.created", "b-1", "biz-1", "bill-1", "ext-1"), secret)
	second.post("msg_3", event("Bill.updated", "b-1", "biz-1", "bill-1", "ext-1"), secret)
	wantReceived(t, second.received(), 4, []string{"msg_1", "msg_3"}, 2, 1)
	if d := second.receivedFull().Deliveries; len(d) != 2 || d[0].Count != 3 || d[1].Type != "Bill.updated" {
		t.Fatalf("deliveries after the restart %+v", d)
	}
}

func TestRecordAndMaxIDsFlags(t *testing.T) {
	cfg, err := loadConfig([]string{"-record", "/tmp/r.jsonl", "-max-ids", "5"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Record != "/tmp/r.jsonl" || cfg.MaxIDs != 5 || newReceiver(cfg, nil).maxIDs != 5 {
		t.Fatalf("config %+v", cfg)
	}
	if newReceiver(config{}, nil).maxIDs != maxIDs {
		t.Fatal("no default bound")
	}
	if _, err := loadConfig([]string{"-max-ids", "-1"}, func(string) string { return "" }); err == nil {
		t.Fatal("negative -max-ids accepted")
	}
}
