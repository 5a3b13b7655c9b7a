package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/tags"
)

// Bounds of the text fields, in characters (after trimming).
const (
	MaxExternalIDLength   = 255
	MaxMakeAndModelLength = 255
	MaxLicensePlateLength = 32
	MaxAddressLength      = 1000
	MaxDescriptionLength  = 2000
)

// Optional is a request property that is either absent (Set false) or
// given a value; null is not accepted for it.
type Optional[T any] struct {
	Set   bool
	Value T
}

// Nullable is a request property that is absent (Set false), null (Set and
// Null: clear it) or given a value.
type Nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// reader reads the properties of one JSON object body, recording each
// violation under prefix+name with enum.
type reader struct {
	m      map[string]json.RawMessage
	v      *apperr.Violations
	prefix string
	enum   string
}

// newReader reads raw as an object, recording each property not in
// allowed. ok is false when raw is not an object.
func newReader(raw []byte, allowed []string, v *apperr.Violations, prefix, enum string) (*reader, bool) {
	var m map[string]json.RawMessage
	if !jsonraw.IsObject(raw) || json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	r := &reader{m: m, v: v, prefix: prefix, enum: enum}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			r.add(k, "unknown property (allowed: "+strings.Join(allowed, ", ")+")")
		}
	}
	return r, true
}

func (r *reader) add(name, reason string) { r.v.Add(r.prefix+name, r.enum, reason) }

func (r *reader) raw(name string) (json.RawMessage, bool) {
	raw, ok := r.m[name]
	return raw, ok
}

// text reads an optional string property: null or blank is Null;
// surrounding white space is trimmed; at most max characters, no control
// characters (but newlines and tabs when multiline).
func (r *reader) text(name string, max int, multiline bool) Nullable[string] {
	raw, ok := r.m[name]
	if !ok {
		return Nullable[string]{}
	}
	if jsonraw.IsNull(raw) {
		return Nullable[string]{Set: true, Null: true}
	}
	s, isString := jsonraw.String(raw)
	if !isString {
		r.add(name, "must be a string or null")
		return Nullable[string]{}
	}
	if s = strings.TrimSpace(s); s == "" {
		return Nullable[string]{Set: true, Null: true}
	}
	if reason := checkText(s, max, multiline); reason != "" {
		r.add(name, reason)
		return Nullable[string]{}
	}
	return Nullable[string]{Set: true, Value: s}
}

// boolean reads an optional boolean property (null is refused).
func (r *reader) boolean(name string) Optional[bool] {
	raw, ok := r.m[name]
	if !ok {
		return Optional[bool]{}
	}
	var b bool
	if jsonraw.IsNull(raw) || json.Unmarshal(raw, &b) != nil {
		r.add(name, "must be true or false")
		return Optional[bool]{}
	}
	return Optional[bool]{Set: true, Value: b}
}

// tagList reads a tag list (pkg/tags rules); null is refused.
func (r *reader) tagList(name string) Optional[[]tags.KeyValue] {
	raw, ok := r.m[name]
	if !ok {
		return Optional[[]tags.KeyValue]{}
	}
	var kvs []tags.KeyValue
	trimmed := strings.TrimSpace(string(raw))
	if !strings.HasPrefix(trimmed, "[") || json.Unmarshal(raw, &kvs) != nil {
		r.v.Add(r.prefix+name, tags.EnumInvalidTags, "must be an array of {key, value, dimension_display_name?, value_display_name?}")
		return Optional[[]tags.KeyValue]{}
	}
	out, err := tags.NormalizeList(r.prefix+name, kvs)
	if err != nil {
		if err := r.v.Merge(err); err != nil {
			r.v.Add(r.prefix+name, tags.EnumInvalidTags, "invalid tags")
		}
		return Optional[[]tags.KeyValue]{}
	}
	if out == nil {
		out = []tags.KeyValue{}
	}
	return Optional[[]tags.KeyValue]{Set: true, Value: out}
}

// checkText returns why s (trimmed, not empty) breaks the rule, or "".
func checkText(s string, max int, multiline bool) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Sprintf("must be at most %d characters, got %d", max, n)
	}
	bad := strings.IndexFunc(s, func(c rune) bool {
		if multiline && (c == '\n' || c == '\t' || c == '\r') {
			return false
		}
		return unicode.IsControl(c) || c == utf8.RuneError || c == '\u2028' || c == '\u2029'
	})
	if bad >= 0 {
		return "must not contain control characters"
	}
	return ""
}

// set applies a Nullable to a nullable field.
func set(dst **string, n Nullable[string]) {
	switch {
	case !n.Set:
	case n.Null:
		*dst = nil
	default:
		s := n.Value
		*dst = &s
	}
}

// ptr is n's value as a pointer (nil when absent or null).
func ptr(n Nullable[string]) *string {
	if !n.Set || n.Null {
		return nil
	}
	s := n.Value
	return &s
}

func eqStr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// notObject is the 400 of a body that is not a JSON object.
func notObject(enum string) error {
	return apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"body": "must be a JSON object"}).WithEnum(enum)
}
