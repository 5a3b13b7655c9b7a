package internalclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/internalclient"
)

// owner is a fake of the other service: it records each request and
// answers status and answer after delay.
type owner struct {
	mu       sync.Mutex
	status   int
	answer   string
	delay    time.Duration
	requests []*http.Request
	bodies   []string
}

func (o *owner) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	o.mu.Lock()
	o.requests = append(o.requests, r.Clone(context.Background()))
	o.bodies = append(o.bodies, string(raw))
	status, answer, delay := o.status, o.answer, o.delay
	o.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, answer)
}

// seen is what the fake received so far (read under its lock: the
// handler may still be running when a timed-out call returns).
func (o *owner) seen() ([]*http.Request, []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]*http.Request(nil), o.requests...), append([]string(nil), o.bodies...)
}

// tagCall is a call as a tagging adapter makes it: its body names the
// other service's ids field, renamed to ours in refusals.
var tagCall = internalclient.Call{
	Path:   "/v1/businesses/b1/invoices/tags",
	Body:   map[string]any{"invoice_ids": []string{"i1"}, "key_values": []any{}},
	Action: "apply the tags",
	Rename: internalclient.Rename{
		Fields:   map[string]string{"invoice_ids": "entity_ids"},
		MetaKeys: map[string]string{"invoice_id": "entity_id"},
	},
}

type tagsAnswer struct {
	Data struct {
		Tags []string `json:"tags"`
	} `json:"data"`
}

// TestDo: the request carries the caller's credentials, request id and
// trace context to the other service's route with the JSON body; each
// kind of answer becomes the result or the error its doc comment says.
func TestDo(t *testing.T) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled}))
	caller := internalclient.Caller{Authorization: "Bearer tok", RequestID: "req-1"}

	tests := []struct {
		name   string
		status int
		answer string
		delay  time.Duration
		max    int64
		call   func(internalclient.Call) internalclient.Call
		// want checks the error (and the decoded answer on success).
		want func(t *testing.T, err error, ans tagsAnswer)
	}{
		{name: "success", status: 200, answer: `{"data":{"tags":["a","b"]},"tags":["a","b"]}`,
			want: func(t *testing.T, err error, ans tagsAnswer) {
				if err != nil || len(ans.Data.Tags) != 2 || ans.Data.Tags[1] != "b" {
					t.Fatalf("err %v, answer %+v", err, ans)
				}
			}},
		{name: "success without a body to decode", status: 204,
			want: func(t *testing.T, err error, ans tagsAnswer) {
				if err != nil {
					t.Fatal(err)
				}
			}},
		{name: "400 renamed to our fields", status: 400,
			answer: `{"type":"InvalidPayload","description":"invoice_ids: must hold 1 to 500 ids","error_enum":"InvalidPayload","meta":{"fields":{"invoice_ids":"must hold 1 to 500 ids","invoice_ids[2]":"bad","key_values":"x"}}}`,
			want: refused(400, apperr.InvalidPayload, "InvalidPayload", "entity_ids: must hold 1 to 500 ids", map[string]any{
				"fields": map[string]any{"entity_ids": "must hold 1 to 500 ids", "entity_ids[2]": "bad", "key_values": "x"}})},
		{name: "400 InvalidParameters to a call with a body is InvalidPayload", status: 400,
			answer: `{"type":"InvalidParameters","description":"bad"}`,
			want:   refused(400, apperr.InvalidPayload, "", "bad", nil)},
		{name: "400 to a call without a body stays InvalidParameters", status: 400,
			answer: `{"type":"InvalidParameters","description":"bad"}`,
			call:   func(c internalclient.Call) internalclient.Call { c.Method, c.Body = http.MethodGet, nil; return c },
			want:   refused(400, apperr.InvalidParameters, "", "bad", nil)},
		{name: "401", status: 401, answer: `{"type":"Unauthenticated","description":"token expired"}`,
			want: refused(401, apperr.Unauthenticated, "", "token expired", nil)},
		{name: "403 not JSON", status: 403, answer: `not json`,
			want: refused(403, apperr.Forbidden, "", "the customers-invoices service refused to apply the tags (403)", nil)},
		{name: "404 with its meta keys renamed", status: 404,
			answer: `{"type":"NotFound","description":"invoice not found","error_enum":"InvoiceNotFound","meta":{"field":"invoice_ids","invoice_id":"i1"}}`,
			want: refused(404, apperr.NotFound, "InvoiceNotFound", "invoice not found",
				map[string]any{"field": "entity_ids", "entity_id": "i1"})},
		{name: "409", status: 409, answer: `{"type":"Conflict","description":"locked","error_enum":"Locked"}`,
			want: refused(409, apperr.Conflict, "Locked", "locked", nil)},
		{name: "another 4xx", status: 422, answer: `{}`,
			want: refused(400, apperr.InvalidPayload, "", "the customers-invoices service refused to apply the tags (422)", nil)},
		{name: "5xx", status: 500, answer: `{"type":"Internal","description":"internal error"}`, want: unavailable},
		{name: "503", status: 503, answer: `{"type":"Unavailable"}`, want: unavailable},
		{name: "2xx not JSON", status: 200, answer: `not json`, want: unavailable},
		{name: "2xx of the wrong shape", status: 200, answer: `{"data":{"tags":"x"}}`, want: unavailable},
		{name: "timeout", status: 200, answer: `{}`, delay: 2 * time.Second, want: unavailable},
		{name: "oversized answer", status: 200, answer: `{"data":{"tags":["` + strings.Repeat("x", 100) + `"]}}`, max: 64, want: unavailable},
		{name: "oversized refusal", status: 400, answer: `{"description":"` + strings.Repeat("x", 100) + `"}`, max: 64, want: unavailable},
		{name: "answer at the bound", status: 200, answer: `{"data":{"tags":["x"]}}`, max: int64(len(`{"data":{"tags":["x"]}}`)),
			want: func(t *testing.T, err error, ans tagsAnswer) {
				if err != nil || len(ans.Data.Tags) != 1 {
					t.Fatalf("err %v, answer %+v", err, ans)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &owner{status: tt.status, answer: tt.answer, delay: tt.delay}
			srv := httptest.NewServer(o)
			defer srv.Close()
			c := internalclient.New("customers-invoices", srv.URL+"/", 300*time.Millisecond, "CustomersInvoicesUnavailable")
			c.MaxAnswer = tt.max
			call := tagCall
			if tt.call != nil {
				call = tt.call(call)
			}
			var ans tagsAnswer
			start := time.Now()
			err := c.Do(ctx, caller, call, &ans)
			if d := time.Since(start); d > time.Second {
				t.Errorf("the call took %s, over its timeout", d)
			}
			tt.want(t, err, ans)

			requests, bodies := o.seen()
			if len(requests) != 1 {
				t.Fatalf("%d requests, want 1", len(requests))
			}
			r := requests[0]
			if r.Method != call.Method && !(call.Method == "" && r.Method == http.MethodPost) || r.URL.Path != call.Path {
				t.Fatalf("request %s %s, want %s", r.Method, r.URL.Path, call.Path)
			}
			h := r.Header
			if h.Get("Authorization") != "Bearer tok" || h.Get("X-Request-Id") != "req-1" || h.Get("Accept") != "application/json" ||
				!strings.Contains(h.Get("Traceparent"), "4bf92f3577b34da6a3ce929d0e0e4736") {
				t.Fatalf("headers %v", h)
			}
			if call.Body == nil {
				if bodies[0] != "" || h.Get("Content-Type") != "" {
					t.Fatalf("a call without a body sent %q (%s)", bodies[0], h.Get("Content-Type"))
				}
				return
			}
			var sent map[string]any
			if err := json.Unmarshal([]byte(bodies[0]), &sent); err != nil || h.Get("Content-Type") != "application/json" {
				t.Fatalf("sent %q (%s): %v", bodies[0], h.Get("Content-Type"), err)
			}
			if ids, _ := sent["invoice_ids"].([]any); len(ids) != 1 || ids[0] != "i1" {
				t.Fatalf("sent %v", sent)
			}
		})
	}
}

// TestDoWithoutAnswer: a service that is not there, or a context done
// before the answer, is 503 too.
func TestDoWithoutAnswer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := internalclient.New("transactions", url, time.Second, "TransactionsUnavailable")
	err := c.Do(context.Background(), internalclient.Caller{Authorization: "Bearer t"}, tagCall, nil)
	unavailableOf(t, err, "transactions", "TransactionsUnavailable")

	o := &owner{status: 200, answer: `{}`, delay: 2 * time.Second}
	live := httptest.NewServer(o)
	defer live.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = internalclient.New("transactions", live.URL, time.Minute, "TransactionsUnavailable").
		Do(ctx, internalclient.Caller{}, tagCall, nil)
	unavailableOf(t, err, "transactions", "TransactionsUnavailable")
}

// refused checks a refusal: its status, category, enum, description and
// meta (nil: none).
func refused(status int, typ apperr.Type, enum, msg string, meta map[string]any) func(*testing.T, error, tagsAnswer) {
	return func(t *testing.T, err error, _ tagsAnswer) {
		t.Helper()
		var e *apperr.Error
		if !errors.As(err, &e) {
			t.Fatalf("err %v (%T), want an *apperr.Error", err, err)
		}
		if e.Status() != status || e.Type != typ || e.Enum != enum || e.Message != msg {
			t.Fatalf("refusal %d %s %q %q, want %d %s %q %q", e.Status(), e.Type, e.Enum, e.Message, status, typ, enum, msg)
		}
		got, _ := json.Marshal(e.Meta)
		want, _ := json.Marshal(meta)
		if len(e.Meta) == 0 && meta == nil {
			return
		}
		if string(got) != string(want) {
			t.Fatalf("meta %s, want %s", got, want)
		}
	}
}

func unavailable(t *testing.T, err error, _ tagsAnswer) {
	t.Helper()
	unavailableOf(t, err, "customers-invoices", "CustomersInvoicesUnavailable")
}

func unavailableOf(t *testing.T, err error, service, enum string) {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || e.Type != apperr.Unavailable || e.Enum != enum ||
		e.Message != "the "+service+" service did not apply the tags: try again" || e.Err == nil {
		t.Fatalf("err %v, want 503 %s naming the %s service with its cause", err, enum, service)
	}
}
