package tags

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/acctsuite/acct/pkg/apperr"
)

// EnumInvalidTags is the error_enum of a rejected tag list.
const EnumInvalidTags = "InvalidTags"

// The reasons a key, value or display name is rejected; the text of each
// is written for API clients.
var (
	ErrEmpty       = errors.New("must not be empty")
	ErrTooLong     = errors.New("too long")
	ErrInvalidText = errors.New("must be valid UTF-8 without control characters")
)

// NormalizeText is the canonical form of a tag key, value or display name:
// surrounding white space removed and Unicode NFC, so that "Québec" typed
// with a precomposed "é" and with "e" + combining accent is one value.
// Case is kept: keys and values are case-sensitive. Ids are computed over
// this form.
func NormalizeText(s string) string {
	return strings.TrimSpace(norm.NFC.String(s))
}

// checkText normalises s and applies the shared rules; max is in
// characters.
func checkText(s string, max int) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrInvalidText
	}
	s = NormalizeText(s)
	if s == "" {
		return "", ErrEmpty
	}
	if n := utf8.RuneCountInString(s); n > max {
		return "", fmt.Errorf("%w: at most %d characters, got %d", ErrTooLong, max, n)
	}
	for i, r := range []rune(s) {
		if forbidden(r) {
			return "", fmt.Errorf("%w: U+%04X at character %d", ErrInvalidText, r, i+1)
		}
	}
	return s, nil
}

// forbidden: control characters (tabs and newlines included), line and
// paragraph separators, and the bidirectional embedding, override and
// isolate controls, which make a tag display as something it is not.
func forbidden(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// NormalizeKey checks a dimension key (non-empty after trimming, at most
// MaxKeyLength characters, valid UTF-8, no control characters) and returns
// its canonical form. The error's text is the reason, for a query
// parameter such as tag_key: apperr.Field("tag_key", err.Error()).
func NormalizeKey(key string) (string, error) { return checkText(key, MaxKeyLength) }

// NormalizeValue is NormalizeKey for a value (at most MaxValueLength
// characters).
func NormalizeValue(value string) (string, error) { return checkText(value, MaxValueLength) }

// normalizeDisplayName trims and normalises an optional display name; an
// empty one is absent (nil), since clients read it as a non-empty string or
// null.
func normalizeDisplayName(p *string) *string {
	if p == nil {
		return nil
	}
	s := NormalizeText(*p)
	if s == "" {
		return nil
	}
	return &s
}

// checkDisplayName is normalizeDisplayName with the text rules.
func checkDisplayName(p *string) (*string, error) {
	if p == nil {
		return nil, nil
	}
	if strings.TrimSpace(*p) == "" {
		return nil, nil
	}
	s, err := checkText(*p, MaxDisplayNameLength)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// normalize checks one tag input and records each offending field under
// prefix ("tags[2]") in fields.
func normalize(prefix string, kv KeyValue, fields map[string]string) KeyValue {
	var out KeyValue
	var err error
	if out.Key, err = NormalizeKey(kv.Key); err != nil {
		fields[prefix+".key"] = err.Error()
	}
	if out.Value, err = NormalizeValue(kv.Value); err != nil {
		fields[prefix+".value"] = err.Error()
	}
	if out.DimensionDisplayName, err = checkDisplayName(kv.DimensionDisplayName); err != nil {
		fields[prefix+".dimension_display_name"] = err.Error()
	}
	if out.ValueDisplayName, err = checkDisplayName(kv.ValueDisplayName); err != nil {
		fields[prefix+".value_display_name"] = err.Error()
	}
	return out
}

func invalid(fields map[string]string) error {
	return apperr.FieldErrors(apperr.InvalidPayload, fields).WithEnum(EnumInvalidTags)
}

// Normalize checks one tag input sent as the body field `field` and
// returns it in canonical form: key and value normalised by NormalizeKey
// and NormalizeValue, display names trimmed (an empty one becomes absent,
// at most MaxDisplayNameLength characters, no control characters). The
// error is a 400 InvalidPayload whose meta.fields names every offending
// field, e.g. "tag.key".
func Normalize(field string, kv KeyValue) (KeyValue, error) {
	fields := map[string]string{}
	out := normalize(field, kv, fields)
	if len(fields) > 0 {
		return KeyValue{}, invalid(fields)
	}
	return out, nil
}

// NormalizeList checks the tag list sent as the body field `field`
// ("tags", "key_values"...) and returns it in canonical form (see
// Normalize). Every offending field is named with its index
// ("tags[2].key") in one 400 InvalidPayload error. More than MaxTags
// entries is rejected as a whole. Duplicates, the same key and value after
// normalisation, collapse to their first occurrence (display names
// included), because tagging twice with the same tag means the same thing
// as tagging once; the same key with different values is kept (a tag list
// is a set of key/value pairs). A nil or empty list is valid and returns an
// empty list.
func NormalizeList(field string, in []KeyValue) ([]KeyValue, error) {
	if len(in) > MaxTags {
		return nil, invalid(map[string]string{field: fmt.Sprintf("at most %d tags, got %d", MaxTags, len(in))})
	}
	fields := map[string]string{}
	out := make([]KeyValue, 0, len(in))
	type pair struct{ key, value string }
	seen := make(map[pair]bool, len(in))
	for i, kv := range in {
		n := normalize(fmt.Sprintf("%s[%d]", field, i), kv, fields)
		if p := (pair{n.Key, n.Value}); !seen[p] {
			seen[p] = true
			out = append(out, n)
		}
	}
	if len(fields) > 0 {
		return nil, invalid(fields)
	}
	return out, nil
}
