package jsonraw

import "testing"

func TestShapes(t *testing.T) {
	tests := []struct {
		raw          string
		object, null bool
		str          string
		isStr        bool
	}{
		{``, false, true, "", false},
		{` null `, false, true, "", false},
		{` {"a":1}`, true, false, "", false},
		{`"x\u0041"`, false, false, "xA", true},
		{`"unterminated`, false, false, "", false},
		{`12`, false, false, "", false},
		{`["a"]`, false, false, "", false},
	}
	for _, tt := range tests {
		if got := IsObject([]byte(tt.raw)); got != tt.object {
			t.Errorf("IsObject(%q) = %v", tt.raw, got)
		}
		if got := IsNull([]byte(tt.raw)); got != tt.null {
			t.Errorf("IsNull(%q) = %v", tt.raw, got)
		}
		if s, ok := String([]byte(tt.raw)); ok != tt.isStr || s != tt.str {
			t.Errorf("String(%q) = %q, %v", tt.raw, s, ok)
		}
	}
}

// StorableReason refuses what PostgreSQL's jsonb refuses (the contract
// fuzzer's PATCH of a vendor credit with metadata {"k":"\u0000"} was a 500,
// SQLSTATE 22P05) and accepts the rest, escaped backslashes included.
func TestTextReason(t *testing.T) {
	for s, ok := range map[string]bool{"": true, "café\n\t": true, "a\x00b": false, "\xff": false} {
		if got := TextReason(s) == ""; got != ok {
			t.Errorf("%q: accepted = %v, want %v", s, got, ok)
		}
	}
}

func TestStorableReason(t *testing.T) {
	for _, ok := range []string{`{}`, `{"a":"b"}`, `{"a":"\\u0000"}`, `{"a":"\\\\u0000"}`, `{"a":"\u00e9\ud83d\ude00"}`,
		`{"a":"\n\"\\"}`, `{"été":"\u0001"}`, `[1,"x"]`} {
		if r := StorableReason([]byte(ok)); r != "" {
			t.Errorf("%s: %q, want accepted", ok, r)
		}
	}
	for _, bad := range []string{`{"a":"\u0000"}`, `{"\u0000":1}`, `{"a":"x\\\u0000"}`, `{"a":"\ud83d"}`, `{"a":"\ude00"}`,
		`{"a":"\ud83d\u0041"}`, `{"a":"\ud83d"}` + "", "{\"a\":\"\xff\"}"} {
		if r := StorableReason([]byte(bad)); r == "" {
			t.Errorf("%s: accepted", bad)
		}
	}
}
