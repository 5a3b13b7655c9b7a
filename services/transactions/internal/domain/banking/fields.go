package banking

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr"

	"github.com/acctsuite/acct/pkg/jsonraw"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// Bounds of the text fields of a bank transaction, in characters.
const (
	MaxExternalIDLength      = 255 // source_transaction_id, source_account_id, external_id
	MaxAccountNameLength     = 255
	MaxCounterpartyLength    = 255
	MaxDescriptionLength     = 1000
	MaxReferenceNumberLength = 255
	// MaxTransactionTypeLength bounds a transaction's transaction_type (the
	// bank's or provider's kind of transaction, e.g. "Book").
	MaxTransactionTypeLength = 64
	MaxMemoLength            = 2000
	MaxMerchantNameLength    = 255
)

// MaxMetadataBytes is the largest caller-defined metadata: 1 KB of its
// compact JSON (the spec's limit).
const MaxMetadataBytes = 1024

// The dates a transaction may carry. Anything outside is a typing mistake
// (a year 20255, a zero date), not a bank transaction.
var (
	minDate = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDate = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// ParseDate reads a transaction date: `YYYY-MM-DD` (midnight UTC that
// day) or an RFC 3339 timestamp (kept as the instant it names), from
// 1900-01-01 up to, not including, 2200-01-01.
func ParseDate(s string) (time.Time, error) {
	var t time.Time
	var err error
	if len(s) == len(time.DateOnly) {
		t, err = time.Parse(time.DateOnly, s)
	} else {
		t, err = time.Parse(time.RFC3339Nano, s)
	}
	if err != nil {
		return time.Time{}, errors.New("must be a date YYYY-MM-DD or an RFC 3339 timestamp")
	}
	if t.Before(minDate) || !t.Before(maxDate) {
		return time.Time{}, errors.New("must be between 1900-01-01 and 2199-12-31")
	}
	return t, nil
}

// textRule says how a text field is checked.
type textRule struct {
	max       int    // characters
	required  bool   // absent, null or blank is a violation
	multiline bool   // newlines and tabs allowed
	enum      string // of a violation; EnumInvalidTransaction when empty
}

// decodeText reads an optional string field; nil means absent, null or
// blank (surrounding white space is trimmed).
func decodeText(raw json.RawMessage, f string, r textRule, v *apperr.Violations) *string {
	enum := r.enum
	if enum == "" {
		enum = EnumInvalidTransaction
	}
	if jsonraw.IsNull(raw) {
		if r.required {
			v.Add(f, enum, "is required")
		}
		return nil
	}
	s, ok := jsonraw.String(raw)
	if !ok {
		v.Add(f, enum, "must be a string")
		return nil
	}
	s = strings.TrimSpace(s)
	if s == "" {
		if r.required {
			v.Add(f, enum, "must not be empty")
		}
		return nil
	}
	if reason := checkText(s, r); reason != "" {
		v.Add(f, enum, reason)
		return nil
	}
	return &s
}

// checkText returns why s breaks r, or "".
func checkText(s string, r textRule) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	if n := utf8.RuneCountInString(s); n > r.max {
		return fmt.Sprintf("must be at most %d characters, got %d", r.max, n)
	}
	bad := strings.IndexFunc(s, func(c rune) bool {
		if r.multiline && (c == '\n' || c == '\t' || c == '\r') {
			return false
		}
		return unicode.IsControl(c) || c == utf8.RuneError
	})
	if bad >= 0 {
		return "must not contain control characters"
	}
	return ""
}

// decodeAmount reads a positive amount of whole cents, sent as a JSON
// number or a string of digits.
func decodeAmount(raw json.RawMessage, f string, v *apperr.Violations) money.Cents {
	if jsonraw.IsNull(raw) {
		v.Add(f, EnumInvalidTransaction, "is required: a positive number of cents")
		return 0
	}
	amt, err := money.ParseJSONCents(raw)
	switch {
	case errors.Is(err, money.ErrOverflow):
		v.Add(f, EnumAmountOutOfRange, "is out of the int64 cents range")
	case err != nil:
		v.Add(f, EnumInvalidTransaction, "must be a positive whole number of cents")
	case amt <= 0:
		v.Add(f, EnumInvalidTransaction, "must be a positive number of cents")
	default:
		return amt
	}
	return 0
}

// decodeDirection reads a direction in any accepted spelling.
func decodeDirection(raw json.RawMessage, f string, v *apperr.Violations) Direction {
	s, ok := jsonraw.String(raw)
	if !ok {
		v.Add(f, EnumInvalidTransaction, "is required: "+directionChoices)
		return ""
	}
	d, ok := ParseDirection(s)
	if !ok {
		v.Add(f, EnumInvalidTransaction, "must be "+directionChoices)
	}
	return d
}

// decodeDate reads a required date (see ParseDate).
func decodeDate(raw json.RawMessage, f string, v *apperr.Violations) time.Time {
	s, ok := jsonraw.String(raw)
	if !ok {
		v.Add(f, EnumInvalidTransaction, "is required: a date YYYY-MM-DD or an RFC 3339 timestamp")
		return time.Time{}
	}
	t, err := ParseDate(s)
	if err != nil {
		v.Add(f, EnumInvalidTransaction, err.Error())
	}
	return t
}

// CheckMetadata accepts absent or null metadata (nil) or a JSON object of
// at most MaxMetadataBytes in compact form, which it returns.
func CheckMetadata(raw json.RawMessage) (json.RawMessage, string, bool) {
	if jsonraw.IsNull(raw) {
		return nil, "", true
	}
	if !jsonraw.IsObject(raw) || !json.Valid(raw) {
		return nil, "must be a JSON object", false
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, "must be a JSON object", false
	}
	if compact.Len() > MaxMetadataBytes {
		return nil, fmt.Sprintf("must be at most %d bytes of compact JSON, got %d", MaxMetadataBytes, compact.Len()), false
	}
	if reason := jsonraw.StorableReason(compact.Bytes()); reason != "" { // stored as jsonb
		return nil, reason, false
	}
	return compact.Bytes(), "", true
}

func decodeMetadata(raw json.RawMessage, f string, v *apperr.Violations) json.RawMessage {
	m, reason, ok := CheckMetadata(raw)
	if !ok {
		enum := EnumInvalidTransaction
		if strings.HasPrefix(reason, "must be at most") {
			enum = EnumMetadataTooLarge
		}
		v.Add(f, enum, reason)
	}
	return m
}

// decodeTags reads an optional tag list (pkg/tags rules); absent and null
// are none. ok is false when a violation was recorded.
func decodeTags(raw json.RawMessage, f string, v *apperr.Violations) (kvs []tags.KeyValue, ok bool) {
	if jsonraw.IsNull(raw) {
		return nil, true
	}
	if raw = bytes.TrimSpace(raw); raw[0] != '[' || json.Unmarshal(raw, &kvs) != nil {
		v.Add(f, tags.EnumInvalidTags, "must be an array of {key, value}")
		return nil, false
	}
	out, err := tags.NormalizeList(f, kvs)
	if err != nil {
		if err := v.Merge(err); err != nil {
			v.Add(f, tags.EnumInvalidTags, "invalid tags")
		}
		return nil, false
	}
	return out, true
}

// decodeUUID reads an optional canonical UUID string; nil when absent or
// null.
func decodeUUID(raw json.RawMessage, f string, v *apperr.Violations) *uuid.UUID {
	if jsonraw.IsNull(raw) {
		return nil
	}
	s, ok := jsonraw.String(raw)
	id, err := uuid.Parse(s)
	if !ok || err != nil || len(s) != 36 {
		v.Add(f, EnumInvalidTransaction, "must be a UUID")
		return nil
	}
	return &id
}
