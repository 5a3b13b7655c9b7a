package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/acctsuite/acct/pkg/events"
)

func newBusinessEvent(t *testing.T) (events.Event, events.Business) {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	state := "CA"
	b := events.Business{
		ID: id, ClientID: "client-1", LegalName: "Acme LLC", USState: &state, Country: "US",
		DefaultReportingBasis: "ACCRUAL",
		CreatedAt:             time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		UpdatedAt:             time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	e, err := events.New(events.TopicBusiness, events.TypeBusinessCreated, "auth-tokens", id, b)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e, b
}

func TestNew(t *testing.T) {
	e, b := newBusinessEvent(t)
	if e.ID.Version() != 7 {
		t.Errorf("id version = %d, want 7", e.ID.Version())
	}
	if e.Subject != b.ID.String() || e.Key != b.ID.String() {
		t.Errorf("subject %q key %q, want business id %s", e.Subject, e.Key, b.ID)
	}
	if e.Time.Location() != time.UTC || e.Time.Nanosecond()%1000 != 0 {
		t.Errorf("time %v not UTC microseconds", e.Time)
	}
	var got events.Business
	if err := e.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.ID != b.ID || got.LegalName != b.LegalName || *got.USState != "CA" {
		t.Errorf("payload round trip = %+v", got)
	}
	if strings.Contains(string(e.Data), `"tin"`) {
		t.Errorf("payload leaks a tin field: %s", e.Data)
	}

	bad := []struct {
		name               string
		topic, typ, source string
		businessID         uuid.UUID
		payload            any
	}{
		{"no topic", "", "t", "s", b.ID, b},
		{"no type", "x", "", "s", b.ID, b},
		{"no source", "x", "t", "", b.ID, b},
		{"nil business", "x", "t", "s", uuid.Nil, b},
		{"unencodable payload", "x", "t", "s", b.ID, make(chan int)},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := events.New(tc.topic, tc.typ, tc.source, tc.businessID, tc.payload); err == nil {
				t.Fatal("want error")
			}
		})
	}
}

func TestMessageRoundTrip(t *testing.T) {
	e, _ := newBusinessEvent(t)
	e.Headers["traceparent"] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	e.Headers["ce_type"] = "stray copy that must not win"
	m := events.ToMessage(e)

	if m.Topic != events.TopicBusiness || string(m.Key) != e.Key {
		t.Errorf("topic %q key %q", m.Topic, m.Key)
	}
	want := map[string]string{
		"ce_specversion": "1.0",
		"ce_id":          e.ID.String(),
		"ce_source":      "auth-tokens",
		"ce_type":        events.TypeBusinessCreated,
		"ce_time":        e.Time.Format(time.RFC3339Nano),
		"ce_subject":     e.Subject,
		"content-type":   "application/json",
		"traceparent":    e.Headers["traceparent"],
	}
	got := map[string]string{}
	for _, h := range m.Headers {
		if _, dup := got[h.Key]; dup {
			t.Errorf("header %s appears twice", h.Key)
		}
		got[h.Key] = string(h.Value)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("header %s = %q, want %q", k, got[k], v)
		}
	}

	back, err := events.FromMessage(m)
	if err != nil {
		t.Fatalf("FromMessage: %v", err)
	}
	if back.ID != e.ID || back.Type != e.Type || back.Source != e.Source || back.Subject != e.Subject ||
		!back.Time.Equal(e.Time) || back.Topic != e.Topic || back.Key != e.Key || string(back.Data) != string(e.Data) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, e)
	}
	if back.Headers["traceparent"] != e.Headers["traceparent"] || len(back.Headers) != 1 {
		t.Errorf("extension headers = %v", back.Headers)
	}
}

func TestFromMessageMalformed(t *testing.T) {
	e, _ := newBusinessEvent(t)
	good := events.ToMessage(e)

	with := func(mutate func(h map[string]string), value []byte) kafka.Message {
		h := map[string]string{}
		for _, x := range good.Headers {
			h[x.Key] = string(x.Value)
		}
		mutate(h)
		m := kafka.Message{Topic: good.Topic, Key: good.Key, Value: good.Value}
		if value != nil {
			m.Value = value
		}
		for k, v := range h {
			m.Headers = append(m.Headers, kafka.Header{Key: k, Value: []byte(v)})
		}
		return m
	}
	del := func(k string) func(map[string]string) { return func(h map[string]string) { delete(h, k) } }
	set := func(k, v string) func(map[string]string) { return func(h map[string]string) { h[k] = v } }

	tests := []struct {
		name    string
		msg     kafka.Message
		wantErr string // "" means valid
	}{
		{"valid", with(set("x", "y"), nil), ""},
		{"no subject is allowed", with(del("ce_subject"), nil), ""},
		{"no time is allowed", with(del("ce_time"), nil), ""},
		{"json with charset", with(set("content-type", "application/json; charset=utf-8"), nil), ""},
		{"no specversion", with(del("ce_specversion"), nil), "ce_specversion"},
		{"wrong specversion", with(set("ce_specversion", "0.3"), nil), "ce_specversion"},
		{"no id", with(del("ce_id"), nil), "ce_id"},
		{"id not a uuid", with(set("ce_id", "42"), nil), "ce_id"},
		{"nil id", with(set("ce_id", uuid.Nil.String()), nil), "ce_id"},
		{"no source", with(del("ce_source"), nil), "ce_source"},
		{"empty type", with(set("ce_type", ""), nil), "ce_type"},
		{"bad time", with(set("ce_time", "yesterday"), nil), "ce_time"},
		{"not json content type", with(set("content-type", "text/plain"), nil), "content-type"},
		{"value not json", with(func(map[string]string) {}, []byte("{nope")), "not JSON"},
		{"no headers at all", kafka.Message{Value: []byte("{}")}, "ce_specversion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := events.FromMessage(tc.msg)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if got.ID != e.ID {
					t.Errorf("id = %s, want %s", got.ID, e.ID)
				}
				return
			}
			if !errors.Is(err, events.ErrMalformed) {
				t.Fatalf("error = %v, want ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not name %q", err, tc.wantErr)
			}
		})
	}
}

func TestTraceContextSurvivesTheMessage(t *testing.T) {
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })

	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	state, _ := trace.ParseTraceState("acct=1")
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled, TraceState: state, Remote: true,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)

	e, _ := newBusinessEvent(t)
	events.InjectTrace(ctx, &e)
	if e.Headers["traceparent"] == "" || e.Headers["tracestate"] != "acct=1" {
		t.Fatalf("headers after inject = %v", e.Headers)
	}
	// A second inject from another span keeps the producer's context.
	other := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled,
	}))
	events.InjectTrace(other, &e)

	back, err := events.FromMessage(events.ToMessage(e))
	if err != nil {
		t.Fatal(err)
	}
	got := trace.SpanContextFromContext(events.ExtractTrace(context.Background(), back))
	if got.TraceID() != traceID || got.SpanID() != spanID || !got.IsSampled() || got.TraceState().Get("acct") != "1" {
		t.Errorf("extracted span context = %+v", got)
	}

	// No trace in ctx: no headers are added and extraction is a no-op.
	plain, _ := newBusinessEvent(t)
	events.InjectTrace(context.Background(), &plain)
	if len(plain.Headers) != 0 {
		t.Errorf("headers without a span = %v", plain.Headers)
	}
	if trace.SpanContextFromContext(events.ExtractTrace(context.Background(), plain)).IsValid() {
		t.Error("extracted a span context from no headers")
	}
}

func TestDLQ(t *testing.T) {
	if got := events.DLQ(events.TopicLedger); got != "acct.ledger.v1.dlq" {
		t.Errorf("DLQ = %q", got)
	}
}

func TestBusinessJSONFieldNames(t *testing.T) {
	_, b := newBusinessEvent(t)
	raw, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "client_id", "external_id", "legal_name", "us_state", "country", "entity_type",
		"phone_number", "activation_at", "naics_code", "default_reporting_basis", "created_at", "updated_at"} {
		if _, ok := m[k]; !ok {
			t.Errorf("payload lacks %q", k)
		}
	}
	if len(m) != 13 {
		t.Errorf("payload has %d fields, want 13: %v", len(m), m)
	}
}

// TestCustomerUpsertedJSONFieldNames pins the customer.upserted payload:
// consumers (transactions, bills-tags) decode these names.
func TestCustomerUpsertedJSONFieldNames(t *testing.T) {
	raw, err := json.Marshal(events.CustomerUpserted{Tags: []events.LedgerTag{}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"customer_id", "business_id", "version", "external_id", "display_name", "individual_name",
		"company_name", "email", "mobile_phone", "office_phone", "address_string", "memo", "status", "tags",
		"created_at", "updated_at", "archived_at"}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("payload lacks %q", k)
		}
	}
	if len(m) != len(want) {
		t.Errorf("payload has %d fields, want %d: %v", len(m), len(want), m)
	}
	if events.TypeCustomerUpserted != "customer.upserted" {
		t.Errorf("TypeCustomerUpserted = %q", events.TypeCustomerUpserted)
	}
}
