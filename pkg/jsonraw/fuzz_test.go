package jsonraw

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzShape checks the shape readers the request parsers branch on
// against encoding/json on valid JSON: IsObject, IsNull and String agree
// with what json.Unmarshal makes of the value, and String's result
// renders back to an equal string.
func FuzzShape(f *testing.F) {
	for _, s := range []string{`{}`, ` {"a":1}`, `null`, ` null `, ``, `"x"`, `"\u00e9\n"`, `"\ud800"`, `1`, `[]`,
		`nul`, `"unterminated`, "\"\xff\"", `{`, `  `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		obj, null := IsObject(raw), IsNull(raw)
		s, isStr := String(raw)
		if obj && (null || isStr) || null && isStr {
			t.Fatalf("%q is more than one shape: object %v null %v string %v", raw, obj, null, isStr)
		}
		if len(bytes.TrimSpace(raw)) == 0 && !null {
			t.Fatalf("absent value %q is not null", raw)
		}
		if !json.Valid(raw) {
			return
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		_, isMap := v.(map[string]any)
		str, isJSONStr := v.(string)
		if obj != isMap || null != (v == nil) || isStr != isJSONStr || isStr && s != str {
			t.Fatalf("%q: object %v null %v string %v(%q); encoding/json says %T %v", raw, obj, null, isStr, s, v, v)
		}
		if isStr {
			out, _ := json.Marshal(s)
			if back, ok := String(out); !ok || back != s {
				t.Fatalf("String(%s) = %q, %v; want %q", out, back, ok, s)
			}
		}
	})
}
