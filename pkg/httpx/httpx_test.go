package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/acctsuite/acct/pkg/apperr"
)

// syncBuffer collects log output written from server goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newTestApp(t *testing.T, opts Options) (*fiber.App, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	}
	if opts.Service == "" {
		opts.Service = "test"
	}
	return New(opts), logs
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", r.body, err)
	}
	return m
}

func do(t *testing.T, app *fiber.App, method, target, contentType, body string, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// assertErrorObject checks the error object's shape: type, description,
// error_enum only for 4xx, and optionally the status and type.
func assertErrorObject(t *testing.T, r response, status int, typ apperr.Type) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d (body %s)", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("content type %q", ct)
	}
	m := r.json(t)
	if m["type"] != string(typ) {
		t.Fatalf("type = %v, want %s (body %s)", m["type"], typ, r.body)
	}
	if d, _ := m["description"].(string); d == "" {
		t.Fatalf("no description in %s", r.body)
	}
	_, hasEnum := m["error_enum"]
	if status >= 500 && hasEnum {
		t.Fatalf("5xx body carries error_enum: %s", r.body)
	}
	if status < 500 && !hasEnum {
		t.Fatalf("4xx body lacks error_enum: %s", r.body)
	}
	return m
}

func TestErrorHandlerMapping(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		status   int
		typ      apperr.Type
		enum     string
		desc     string
		noLeak   string
		logged   bool
		checkHdr func(t *testing.T, h http.Header)
	}{
		{name: "apperr not found", err: apperr.New(apperr.NotFound, "business not found"), status: 404, typ: apperr.NotFound, enum: "NotFound", desc: "business not found"},
		{name: "apperr custom enum", err: apperr.New(apperr.Conflict, "duplicate").WithEnum("DuplicateExternalId"), status: 409, typ: apperr.Conflict, enum: "DuplicateExternalId"},
		{name: "wrapped apperr", err: fmt.Errorf("find: %w", apperr.Field("limit", "too big")), status: 400, typ: apperr.InvalidParameters, enum: "InvalidParameters"},
		{name: "forbidden", err: apperr.New(apperr.Forbidden, "platform only"), status: 403, typ: apperr.Forbidden, enum: "Forbidden"},
		{name: "unauthenticated gets challenge", err: apperr.New(apperr.Unauthenticated, "missing token"), status: 401, typ: apperr.Unauthenticated, enum: "Unauthenticated",
			checkHdr: func(t *testing.T, h http.Header) {
				if h.Get("WWW-Authenticate") != "Bearer" {
					t.Errorf("WWW-Authenticate = %q", h.Get("WWW-Authenticate"))
				}
			}},
		{name: "fiber 405", err: fiber.ErrMethodNotAllowed, status: 405, typ: apperr.MethodNotAllowed, enum: "MethodNotAllowed"},
		{name: "fiber 413", err: fiber.ErrRequestEntityTooLarge, status: 413, typ: apperr.PayloadTooLarge, enum: "PayloadTooLarge"},
		{name: "fiber 404", err: fiber.ErrNotFound, status: 404, typ: apperr.NotFound, enum: "NotFound"},
		{name: "fiber 415", err: fiber.ErrUnsupportedMediaType, status: 415, typ: apperr.UnsupportedMediaType, enum: "UnsupportedMediaType"},
		{name: "fiber 503", err: fiber.ErrServiceUnavailable, status: 503, typ: apperr.Unavailable},
		{name: "plain error is internal", err: errors.New("pq: password authentication failed for user acct"), status: 500, typ: apperr.Internal, desc: "internal error", noLeak: "password", logged: true},
		{name: "apperr internal hides message", err: apperr.Wrap(apperr.Internal, errors.New("disk on fire"), "cannot write ledger row 42"), status: 500, typ: apperr.Internal, desc: "internal error", noLeak: "ledger", logged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, logs := newTestApp(t, Options{})
			app.Get("/boom", func(c *fiber.Ctx) error { return tt.err })
			Finish(app)
			r := do(t, app, "GET", "/boom", "", "", HeaderRequestID, "req-123")
			m := assertErrorObject(t, r, tt.status, tt.typ)
			if tt.enum != "" && m["error_enum"] != tt.enum {
				t.Errorf("error_enum = %v, want %s", m["error_enum"], tt.enum)
			}
			if tt.desc != "" && m["description"] != tt.desc {
				t.Errorf("description = %v, want %s", m["description"], tt.desc)
			}
			if tt.noLeak != "" && bytes.Contains(r.body, []byte(tt.noLeak)) {
				t.Errorf("body leaks %q: %s", tt.noLeak, r.body)
			}
			if tt.status >= 500 {
				if _, ok := m["meta"]; ok {
					t.Errorf("5xx body has meta: %s", r.body)
				}
			}
			if tt.logged {
				out := logs.String()
				if !strings.Contains(out, `"msg":"request failed"`) || !strings.Contains(out, `"request_id":"req-123"`) {
					t.Errorf("500 not logged with request id: %s", out)
				}
			}
			if tt.checkHdr != nil {
				tt.checkHdr(t, r.header)
			}
		})
	}
}

// TestClassify: Options.Classify names errors the handler would make a 500
// (a contended database transaction becomes a 503), and every 503 tells
// the client when to retry.
func TestClassify(t *testing.T) {
	busy := errors.New("lock timeout")
	app, logs := newTestApp(t, Options{Classify: func(err error) *apperr.Error {
		if errors.Is(err, busy) {
			return apperr.Wrap(apperr.Unavailable, err, "busy, retry").WithEnum("Contention")
		}
		return nil
	}})
	app.Get("/busy", func(c *fiber.Ctx) error { return fmt.Errorf("import: %w", busy) })
	app.Get("/other", func(c *fiber.Ctx) error { return errors.New("disk on fire") })
	app.Get("/later", func(c *fiber.Ctx) error {
		return apperr.New(apperr.Unavailable, "readers busy").WithMeta(apperr.RetryAfterMeta, 7)
	})
	Finish(app)
	if r := do(t, app, "GET", "/later", "", ""); r.status != 503 || r.header.Get("Retry-After") != "7" {
		t.Fatalf("a 503 naming its wait: %d, Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	r := do(t, app, "GET", "/busy", "", "")
	m := assertErrorObject(t, r, 503, apperr.Unavailable)
	if m["description"] != "busy, retry" || r.header.Get("Retry-After") != "1" {
		t.Fatalf("503 = %s, Retry-After %q", r.body, r.header.Get("Retry-After"))
	}
	if !strings.Contains(logs.String(), "lock timeout") {
		t.Errorf("503 not logged with its cause: %s", logs.String())
	}
	assertErrorObject(t, do(t, app, "GET", "/other", "", ""), 500, apperr.Internal)
}

func TestRateLimitedKeepsRetryAfter(t *testing.T) {
	app, _ := newTestApp(t, Options{})
	app.Get("/limited", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderRetryAfter, "7")
		return apperr.New(apperr.RateLimited, "slow down")
	})
	r := do(t, app, "GET", "/limited", "", "")
	assertErrorObject(t, r, 429, apperr.RateLimited)
	if r.header.Get("Retry-After") != "7" {
		t.Fatalf("Retry-After = %q", r.header.Get("Retry-After"))
	}
}

func TestUnknownRouteAndWrongMethod(t *testing.T) {
	app, _ := newTestApp(t, Options{})
	app.Get("/v1/items", func(c *fiber.Ctx) error { return OK(c, []string{}) })
	Finish(app)

	assertErrorObject(t, do(t, app, "GET", "/nope", "", ""), 404, apperr.NotFound)
	assertErrorObject(t, do(t, app, "DELETE", "/v1/nothing/here", "", ""), 404, apperr.NotFound)
	m := assertErrorObject(t, do(t, app, "POST", "/v1/items", "application/json", "{}"), 405, apperr.MethodNotAllowed)
	if m["error_enum"] != "MethodNotAllowed" {
		t.Fatalf("enum %v", m["error_enum"])
	}
}

type item struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Tags  []string `json:"tags"`
	Inner struct {
		Flag bool `json:"flag"`
	} `json:"inner"`
	ID *uuid.UUID `json:"id"`
}

func TestBindJSON(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        string
		status      int
		typ         apperr.Type
		field       string // expected key in meta.fields
		metaKey     string // expected key in meta
	}{
		{name: "ok", contentType: "application/json", body: `{"name":"a","count":2,"tags":["x"],"inner":{"flag":true}}`, status: 201},
		{name: "ok with charset", contentType: "application/json; charset=utf-8", body: `{"name":"a"}`, status: 201},
		{name: "ok with +json", contentType: "application/merge-patch+json", body: `{"name":"a"}`, status: 201},
		{name: "ok trailing whitespace", contentType: "application/json", body: "{\"name\":\"a\"}\n  ", status: 201},
		{name: "missing content type", contentType: "", body: `{"name":"a"}`, status: 415, typ: apperr.UnsupportedMediaType},
		{name: "wrong content type", contentType: "text/plain", body: `{"name":"a"}`, status: 415, typ: apperr.UnsupportedMediaType},
		{name: "form content type", contentType: "application/x-www-form-urlencoded", body: `name=a`, status: 415, typ: apperr.UnsupportedMediaType},
		{name: "empty body", contentType: "application/json", body: "", status: 400, typ: apperr.InvalidPayload},
		{name: "malformed", contentType: "application/json", body: `{"name": nope}`, status: 400, typ: apperr.InvalidPayload, metaKey: "offset"},
		{name: "truncated", contentType: "application/json", body: `{"name": "a"`, status: 400, typ: apperr.InvalidPayload, metaKey: "offset"},
		{name: "unknown field", contentType: "application/json", body: `{"name":"a","colour":"red"}`, status: 400, typ: apperr.InvalidPayload, field: "colour"},
		{name: "type mismatch", contentType: "application/json", body: `{"count":"two"}`, status: 400, typ: apperr.InvalidPayload, field: "count"},
		{name: "nested type mismatch", contentType: "application/json", body: `{"inner":{"flag":"yes"}}`, status: 400, typ: apperr.InvalidPayload, field: "inner.flag"},
		{name: "array element mismatch", contentType: "application/json", body: `{"tags":[1]}`, status: 400, typ: apperr.InvalidPayload, field: "tags"},
		{name: "not an object", contentType: "application/json", body: `[1,2]`, status: 400, typ: apperr.InvalidPayload},
		{name: "trailing garbage", contentType: "application/json", body: `{"name":"a"} {"name":"b"}`, status: 400, typ: apperr.InvalidPayload, metaKey: "offset"},
		{name: "bad uuid value", contentType: "application/json", body: `{"id":"xyz"}`, status: 400, typ: apperr.InvalidPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, _ := newTestApp(t, Options{})
			app.Post("/items", func(c *fiber.Ctx) error {
				var it item
				if err := BindJSON(c, &it); err != nil {
					return err
				}
				return Created(c, it)
			})
			r := do(t, app, "POST", "/items", tt.contentType, tt.body)
			if tt.status == 201 {
				if r.status != 201 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				if r.json(t)["data"].(map[string]any)["name"] != "a" {
					t.Fatalf("body %s", r.body)
				}
				return
			}
			m := assertErrorObject(t, r, tt.status, tt.typ)
			if tt.typ == apperr.InvalidPayload && m["error_enum"] != "InvalidPayload" {
				t.Errorf("error_enum = %v", m["error_enum"])
			}
			meta, _ := m["meta"].(map[string]any)
			if tt.field != "" {
				fields, _ := meta["fields"].(map[string]any)
				if _, ok := fields[tt.field]; !ok {
					t.Errorf("meta.fields lacks %q: %s", tt.field, r.body)
				}
			}
			if tt.metaKey != "" {
				if _, ok := meta[tt.metaKey]; !ok {
					t.Errorf("meta lacks %q: %s", tt.metaKey, r.body)
				}
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	app, _ := newTestApp(t, Options{BodyLimit: 1024})
	app.Post("/items", func(c *fiber.Ctx) error { return OK(c, len(c.Body())) })
	// app.Test refuses oversized bodies itself, so go through a real server.
	base := serve(t, app)
	post := func(size int) response {
		resp, err := http.Post(base+"/items", "application/json", strings.NewReader(`"`+strings.Repeat("a", size)+`"`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return response{status: resp.StatusCode, header: resp.Header, body: b}
	}
	if ok := post(500); ok.status != 200 {
		t.Fatalf("small body: %d %s", ok.status, ok.body)
	}
	assertErrorObject(t, post(4096), 413, apperr.PayloadTooLarge)
}

// serve runs app on a loopback port until the test ends.
func serve(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, app, ln, time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func TestUUIDParam(t *testing.T) {
	id := uuid.New()
	tests := []struct {
		name, param string
		status      int
	}{
		{"canonical", id.String(), 200},
		{"upper case", strings.ToUpper(id.String()), 200},
		{"garbage", "not-a-uuid", 400},
		{"no hyphens", strings.ReplaceAll(id.String(), "-", ""), 400},
		{"urn form", "urn:uuid:" + id.String(), 400},
		{"bad hex", strings.Repeat("z", 8) + id.String()[8:], 400},
	}
	app, _ := newTestApp(t, Options{})
	app.Get("/v1/businesses/:businessId", func(c *fiber.Ctx) error {
		got, err := UUIDParam(c, "businessId")
		if err != nil {
			return err
		}
		return OK(c, got)
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, app, "GET", "/v1/businesses/"+tt.param, "", "")
			if tt.status == 200 {
				if r.status != 200 || r.json(t)["data"] != id.String() {
					t.Fatalf("%d %s", r.status, r.body)
				}
				return
			}
			m := assertErrorObject(t, r, 400, apperr.InvalidParameters)
			fields, _ := m["meta"].(map[string]any)["fields"].(map[string]any)
			if fields["businessId"] != "must be a UUID" {
				t.Fatalf("meta %s", r.body)
			}
		})
	}
}

func TestQueryParams(t *testing.T) {
	app, _ := newTestApp(t, Options{})
	app.Get("/q", func(c *fiber.Ctx) error {
		b, err := QueryBool(c, "include_deleted", false)
		if err != nil {
			return err
		}
		n, err := QueryInt(c, "limit", 50, 1, 100)
		if err != nil {
			return err
		}
		return OK(c, fiber.Map{"include_deleted": b, "limit": n})
	})
	tests := []struct {
		query      string
		status     int
		wantBool   bool
		wantLimit  float64
		errorParam string
	}{
		{"", 200, false, 50, ""},
		{"?include_deleted=true&limit=10", 200, true, 10, ""},
		{"?include_deleted=1&limit=100", 200, true, 100, ""},
		{"?include_deleted=maybe", 400, false, 0, "include_deleted"},
		{"?limit=0", 400, false, 0, "limit"},
		{"?limit=101", 400, false, 0, "limit"},
		{"?limit=ten", 400, false, 0, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := do(t, app, "GET", "/q"+tt.query, "", "")
			if tt.status == 200 {
				data := r.json(t)["data"].(map[string]any)
				if r.status != 200 || data["include_deleted"] != tt.wantBool || data["limit"] != tt.wantLimit {
					t.Fatalf("%d %s", r.status, r.body)
				}
				return
			}
			m := assertErrorObject(t, r, 400, apperr.InvalidParameters)
			fields, _ := m["meta"].(map[string]any)["fields"].(map[string]any)
			if _, ok := fields[tt.errorParam]; !ok {
				t.Fatalf("meta does not name %s: %s", tt.errorParam, r.body)
			}
		})
	}
}

func TestResponseWrappers(t *testing.T) {
	app, _ := newTestApp(t, Options{})
	app.Get("/ok", func(c *fiber.Ctx) error { return OK(c, fiber.Map{"a": 1}) })
	app.Post("/created", func(c *fiber.Ctx) error { return Created(c, fiber.Map{"b": 2}) })
	app.Get("/list", func(c *fiber.Ctx) error {
		return List(c, []int{1, 2}, fiber.Map{"type": "request_metadata"})
	})
	tests := []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/ok", 200, `{"data":{"a":1}}`},
		{"POST", "/created", 201, `{"data":{"b":2}}`},
		{"GET", "/list", 200, `{"data":[1,2],"meta":{"type":"request_metadata"}}`},
	}
	for _, tt := range tests {
		r := do(t, app, tt.method, tt.path, "", "")
		if r.status != tt.status || string(r.body) != tt.want || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d %q %q", tt.method, tt.path, r.status, r.header.Get("Content-Type"), r.body)
		}
	}
}

// answerShape holds what an answer may carry that encoders are known to
// treat differently: HTML characters, invalid UTF-8, line separators,
// raw JSON with spaces, maps, large and small floats, text marshalers,
// omitempty, nil slices and pointers, embedded fields.
type answerShape struct {
	answerEmbedded
	Text    string             `json:"text"`
	ID      uuid.UUID          `json:"id"`
	IDPtr   *uuid.UUID         `json:"id_ptr"`
	At      time.Time          `json:"at"`
	Raw     json.RawMessage    `json:"raw"`
	Map     map[string]any     `json:"map"`
	Big     float64            `json:"big"`
	Small   float64            `json:"small"`
	Items   []answerItem       `json:"items"`
	None    []answerItem       `json:"none"`
	Quoted  int64              `json:"quoted,string"`
	Hidden  string             `json:"-"`
	Bytes   []byte             `json:"bytes"`
	Nothing map[string]float64 `json:"nothing"`
}

type answerEmbedded struct {
	Embedded int `json:"embedded"`
}

type answerItem struct {
	Name  string `json:"name,omitempty"`
	Count *int   `json:"count"`
}

// TestAnswersEncodedAsEncodingJSON: the app's JSON encoder (a faster
// one) writes every answer byte for byte as encoding/json does.
func TestAnswersEncodedAsEncodingJSON(t *testing.T) {
	one := 1
	id := uuid.MustParse("0b6f3c2e-8d7a-4f1e-9c55-3a1b2c3d4e5f")
	values := []any{
		answerShape{
			answerEmbedded: answerEmbedded{Embedded: 3},
			Text:           "a<b>&c \u2028 \xff\xfe é \"q\" \\ \n\t\x01",
			ID:             id, IDPtr: &id,
			At:  time.Date(2024, 1, 2, 3, 4, 5, 600, time.UTC),
			Raw: json.RawMessage(` { "x" : [1, 2 ,3], "y":"<"} `),
			Map: map[string]any{"z": 1, "a": []any{"x", nil, 2.5}, "m": map[string]any{"b": true}},
			Big: 1e21, Small: 0.000001,
			Items:  []answerItem{{Name: "x", Count: &one}, {}},
			Quoted: 12345, Hidden: "no", Bytes: []byte("hi"),
		},
		map[string]string{"b": "1", "a": "2"},
		[]float64{1, 100, 1e-7, 123456789, -0.5},
	}
	app, _ := newTestApp(t, Options{})
	for i, v := range values {
		app.Get(fmt.Sprintf("/v%d", i), func(c *fiber.Ctx) error { return OK(c, v) })
	}
	for i, v := range values {
		want, err := json.Marshal(map[string]any{"data": v})
		if err != nil {
			t.Fatal(err)
		}
		r := do(t, app, "GET", fmt.Sprintf("/v%d", i), "", "")
		if r.status != 200 || !bytes.Equal(r.body, want) {
			t.Errorf("value %d: %d\n got %s\nwant %s", i, r.status, r.body, want)
		}
	}
}

func TestRequestID(t *testing.T) {
	app, logs := newTestApp(t, Options{})
	app.Get("/id", func(c *fiber.Ctx) error {
		c.Locals(LocalClientID, "client-9")
		return OK(c, fiber.Map{"local": RequestID(c), "forwarded": c.Get(HeaderRequestID)})
	})
	tests := []struct {
		name, incoming string
		keep           bool
	}{
		{"uuid kept", "0f8fad5b-d9cb-469f-a165-70867728950e", true},
		{"token kept", "abc_DEF.123:x", true},
		{"none generated", "", false},
		{"spaces replaced", "bad id", false},
		{"too long replaced", strings.Repeat("a", 129), false},
		{"newline replaced", "a\\nb", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.incoming != "" {
				hdr = []string{HeaderRequestID, tt.incoming}
			}
			r := do(t, app, "GET", "/id", "", "", hdr...)
			got := r.header.Get(HeaderRequestID)
			data := r.json(t)["data"].(map[string]any)
			if data["local"] != got || data["forwarded"] != got {
				t.Fatalf("response id %q, locals %v, forwarded %v", got, data["local"], data["forwarded"])
			}
			if tt.keep && got != tt.incoming {
				t.Fatalf("incoming id %q replaced by %q", tt.incoming, got)
			}
			if !tt.keep {
				if _, err := uuid.Parse(got); err != nil || got == tt.incoming {
					t.Fatalf("generated id %q", got)
				}
			}
			if !strings.Contains(logs.String(), `"request_id":"`+got+`"`) {
				t.Fatalf("access log lacks request id %s: %s", got, logs.String())
			}
		})
	}
	// The access log carries the documented fields.
	line := lastLine(logs.String())
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"method", "route", "path", "status", "duration_ms", "request_id", "client_id"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("access log lacks %q: %s", k, line)
		}
	}
	if rec["client_id"] != "client-9" || rec["route"] != "/id" {
		t.Errorf("access log %s", line)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestPanicRecovery(t *testing.T) {
	app, logs := newTestApp(t, Options{})
	app.Get("/panic", func(c *fiber.Ctx) error { panic("secret internal state") })
	app.Get("/after", func(c *fiber.Ctx) error { return OK(c, "fine") })
	r := do(t, app, "GET", "/panic", "", "", HeaderRequestID, "panic-1")
	m := assertErrorObject(t, r, 500, apperr.Internal)
	if bytes.Contains(r.body, []byte("secret")) || m["description"] != "internal error" {
		t.Fatalf("panic leaked: %s", r.body)
	}
	if r.header.Get(HeaderRequestID) != "panic-1" {
		t.Fatalf("request id lost on panic")
	}
	out := logs.String()
	if !strings.Contains(out, "panic while serving request") || !strings.Contains(out, "goroutine") || !strings.Contains(out, `"request_id":"panic-1"`) {
		t.Fatalf("panic not logged with stack and request id: %s", out)
	}
	if r := do(t, app, "GET", "/after", "", ""); r.status != 200 {
		t.Fatalf("app broken after panic: %d", r.status)
	}
}

func TestHealth(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var dbOK, brokerOK atomic.Bool // read by check goroutines that outlive a timed-out probe
	app, _ := newTestApp(t, Options{})
	Health(app, map[string]func(context.Context) error{
		"database": func(context.Context) error {
			if dbOK.Load() {
				return nil
			}
			return errors.New("dial tcp 10.0.0.5:5432: connection refused")
		},
		"broker": func(context.Context) error {
			if brokerOK.Load() {
				return nil
			}
			<-release // ignores its context: must still time out
			return nil
		},
	})
	Finish(app)

	if r := do(t, app, "GET", "/healthz", "", ""); r.status != 200 || string(r.body) != `{"status":"ok"}` {
		t.Fatalf("healthz %d %s", r.status, r.body)
	}

	start := time.Now()
	r := do(t, app, "GET", "/readyz", "", "")
	if took := time.Since(start); took > ReadyTimeout+time.Second {
		t.Fatalf("readyz took %s", took)
	}
	m := assertErrorObject(t, r, 503, apperr.Unavailable)
	failed, _ := m["meta"].(map[string]any)["failed_checks"].([]any)
	if len(failed) != 2 || failed[0] != "broker" || failed[1] != "database" {
		t.Fatalf("failed_checks %s", r.body)
	}
	if bytes.Contains(r.body, []byte("10.0.0.5")) {
		t.Fatalf("check error leaked: %s", r.body)
	}

	dbOK.Store(true)
	brokerOK.Store(true)
	if r := do(t, app, "GET", "/readyz", "", ""); r.status != 200 || string(r.body) != `{"status":"ok"}` {
		t.Fatalf("readyz %d %s", r.status, r.body)
	}
}

func TestMetricsUseRoutePattern(t *testing.T) {
	reg := prometheus.NewRegistry()
	app, _ := newTestApp(t, Options{Service: "billing", Metrics: reg})
	app.Get("/v1/businesses/:businessId", func(c *fiber.Ctx) error { return OK(c, c.Params("businessId")) })
	Finish(app)
	for i := range 3 {
		do(t, app, "GET", fmt.Sprintf("/v1/businesses/%d", i), "", "")
	}
	do(t, app, "GET", "/unknown/path", "", "")

	r := do(t, app, "GET", "/metrics", "", "")
	if r.status != 200 {
		t.Fatalf("metrics %d", r.status)
	}
	text := string(r.body)
	for _, want := range []string{
		`http_requests_total{method="GET",route="/v1/businesses/:businessId",service="billing",status="200"} 3`,
		`http_requests_total{method="GET",route="unmatched",service="billing",status="404"} 1`,
		`http_request_duration_seconds_count{method="GET",route="/v1/businesses/:businessId",service="billing",status="200"} 3`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, `route="/v1/businesses/1"`) {
		t.Errorf("raw path used as label")
	}

	// A second app of the same process shares the registry.
	app2, _ := newTestApp(t, Options{Service: "billing", Metrics: reg})
	app2.Get("/x", func(c *fiber.Ctx) error { return OK(c, 1) })
	do(t, app2, "GET", "/x", "", "")
}

func TestTracingExtractsTraceparent(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	defer func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) }()

	app, _ := newTestApp(t, Options{})
	app.Get("/v1/things/:id", func(c *fiber.Ctx) error { return OK(c, "x") })
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	r := do(t, app, "GET", "/v1/things/7", "", "", "traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("spans %d", len(spans))
	}
	if got := spans[0].SpanContext.TraceID().String(); got != traceID {
		t.Fatalf("trace id %s, want %s", got, traceID)
	}
	if spans[0].Name != "GET /v1/things/:id" {
		t.Fatalf("span name %q", spans[0].Name)
	}
	attrs := map[string]string{}
	for _, kv := range spans[0].Attributes {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	if attrs["http.route"] != "/v1/things/:id" || attrs["http.response.status_code"] != "200" || attrs["url.path"] != "/v1/things/7" {
		t.Fatalf("span attributes %v", attrs)
	}
}

// TestTracingWithoutProviderPropagatesContext: with no tracer provider
// installed no span is started, but handlers (and what they call) still see
// the incoming trace context.
func TestTracingWithoutProviderPropagatesContext(t *testing.T) {
	if otel.GetTracerProvider() != defaultTracerProvider {
		t.Fatal("a tracer provider is installed; this test needs none")
	}
	prevProp := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	defer otel.SetTextMapPropagator(prevProp)

	app, _ := newTestApp(t, Options{})
	app.Get("/t", func(c *fiber.Ctx) error {
		sc := trace.SpanContextFromContext(c.UserContext())
		return OK(c, fiber.Map{"trace": sc.TraceID().String(), "recording": trace.SpanFromContext(c.UserContext()).IsRecording()})
	})
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	r := do(t, app, "GET", "/t", "", "", "traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	data := r.json(t)["data"].(map[string]any)
	if data["trace"] != traceID || data["recording"] != false {
		t.Fatalf("handler saw %v, want trace %s, not recording", data, traceID)
	}
}

func TestServeDrainsInFlightRequests(t *testing.T) {
	app, _ := newTestApp(t, Options{})
	started := make(chan struct{})
	app.Get("/slow", func(c *fiber.Ctx) error {
		close(started)
		time.Sleep(400 * time.Millisecond)
		return OK(c, "done")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeListener(ctx, app, ln, 5*time.Second) }()

	type result struct {
		status int
		body   string
		err    error
	}
	res := make(chan result, 1)
	go func() {
		resp, err := http.Get(base + "/slow")
		if err != nil {
			res <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		res <- result{status: resp.StatusCode, body: string(b)}
	}()
	<-started
	cancel()

	got := <-res
	if got.err != nil || got.status != 200 || got.body != `{"data":"done"}` {
		t.Fatalf("in-flight request: %+v", got)
	}
	if err := <-served; err != nil {
		t.Fatalf("ServeListener: %v", err)
	}
	if _, err := (&http.Client{Timeout: time.Second}).Get(base + "/slow"); err == nil {
		t.Fatal("server still accepting after shutdown")
	}
}

func TestServeReportsListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	app, _ := newTestApp(t, Options{})
	if err := Serve(context.Background(), app, ln.Addr().String(), time.Second); err == nil {
		t.Fatal("Serve on a busy address succeeded")
	}
}
