// Package jsonraw reads the shape of raw JSON values, for request parsers
// that look at a property before decoding it (absent, null, a string, an
// object) so that each mistake gets its own error.
package jsonraw

import (
	"bytes"
	"encoding/json"
)

// IsObject reports whether raw is a JSON object (after white space).
func IsObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// IsNull reports whether raw is absent or null.
func IsNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// String reads raw as a JSON string; absent, null and other types are not
// strings.
func String(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
