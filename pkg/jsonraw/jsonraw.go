// Package jsonraw reads the shape of raw JSON values, for request parsers
// that look at a property before decoding it (absent, null, a string, an
// object) so that each mistake gets its own error.
package jsonraw

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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

// StorableReason says why PostgreSQL's jsonb cannot hold raw, a valid JSON
// value (as json.Valid accepts it), or "" when it can: jsonb (and text)
// refuse invalid UTF-8, the escape \u0000 (NUL) and an unpaired UTF-16
// surrogate escape, all of which encoding/json lets through. Parsers of
// caller-supplied JSON stored as jsonb (metadata) refuse such a value with
// a 400 naming the field instead of letting the database fail (500).
func StorableReason(raw []byte) string {
	if !utf8.Valid(raw) {
		return "must be valid UTF-8"
	}
	// In valid JSON a backslash only appears inside a string, starting an
	// escape: \uXXXX or a two-character one (\\ included).
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+1 >= len(raw) || raw[i+1] != 'u' {
			i++
			continue
		}
		r, ok := hex4(raw, i+2)
		if !ok {
			return "must be valid JSON"
		}
		switch {
		case r == 0:
			return `must not contain NUL (\u0000)`
		case utf16.IsSurrogate(r):
			lo, ok := rune(0), false
			if r < 0xdc00 && i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				lo, ok = hex4(raw, i+8)
			}
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return "must not contain an unpaired UTF-16 surrogate escape"
			}
			i += 11
		default:
			i += 5
		}
	}
	return ""
}

// hex4 reads the four hex digits of a \u escape at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// TextReason says why PostgreSQL text (or a jsonb string) cannot hold s, a
// caller's text, or "" when it can: it refuses NUL (which a JSON string
// carries as \u0000) and invalid UTF-8. Parsers refuse such text with a 400
// naming the field rather than letting the insert fail (500).
func TextReason(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "must not contain NUL (\\u0000)"
	}
	return ""
}
