package apperr

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

func TestStatusAndRoundTrip(t *testing.T) {
	cases := []struct {
		typ    Type
		status int
	}{
		{InvalidParameters, 400}, {InvalidPayload, 400}, {Unauthenticated, 401}, {Forbidden, 403},
		{NotFound, 404}, {MethodNotAllowed, 405}, {RequestTimeout, 408}, {Conflict, 409},
		{PayloadTooLarge, 413}, {UnsupportedMediaType, 415}, {RateLimited, 429},
		{Internal, 500}, {Unavailable, 503}, {Type("Bogus"), 500},
	}
	for _, tc := range cases {
		if got := Status(tc.typ); got != tc.status {
			t.Errorf("Status(%s) = %d, want %d", tc.typ, got, tc.status)
		}
		if tc.typ == InvalidPayload || tc.typ == "Bogus" {
			continue // InvalidPayload shares 400 with InvalidParameters
		}
		if got := TypeForStatus(tc.status); got != tc.typ {
			t.Errorf("TypeForStatus(%d) = %s, want %s", tc.status, got, tc.typ)
		}
	}
	if TypeForStatus(http.StatusBadGateway) != Unavailable || TypeForStatus(418) != InvalidParameters || TypeForStatus(501) != Internal {
		t.Error("fallback mapping changed")
	}
}

func TestBody(t *testing.T) {
	cases := []struct {
		name     string
		err      *Error
		wantEnum string
		wantDesc string
		wantMeta bool
	}{
		{"enum defaults to type", New(NotFound, "business not found"), "NotFound", "business not found", false},
		{"explicit enum and meta", Field("limit", "must be 1..1000").WithEnum("InvalidLimit"), "InvalidLimit", "limit: must be 1..1000", true},
		{"5xx hides message, meta and cause", Wrap(Internal, errors.New("pq: password=hunter2"), "db exploded").WithMeta("sql", "SELECT"), "", "internal error", false},
		{"unavailable keeps its safe message", New(Unavailable, "auth-tokens is unavailable").WithEnum("X"), "", "auth-tokens is unavailable", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.err.Body()
			if b.Type != string(tc.err.Type) || b.ErrorEnum != tc.wantEnum || b.Description != tc.wantDesc || (b.Meta != nil) != tc.wantMeta {
				t.Fatalf("Body() = %+v", b)
			}
		})
	}
}

func TestFromAndIs(t *testing.T) {
	wrapped := fmt.Errorf("load: %w", New(Conflict, "duplicate"))
	if e := From(wrapped); e.Type != Conflict {
		t.Fatalf("From kept %s", e.Type)
	}
	if e := From(errors.New("boom")); e.Type != Internal || e.Body().Description != "internal error" {
		t.Fatalf("plain error not internal: %+v", e)
	}
	if From(nil) != nil {
		t.Fatal("From(nil) != nil")
	}
	if !Is(wrapped, Conflict) || Is(wrapped, NotFound) {
		t.Fatal("Is mismatch")
	}
	fe := FieldErrors(InvalidPayload, map[string]string{"a": "x", "b": "y"})
	if fe.Message != "invalid request" || len(fe.Meta["fields"].(map[string]string)) != 2 {
		t.Fatalf("FieldErrors: %+v", fe)
	}
}
