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
