package bill

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/tags"
)

// patchBody is a PATCH body being read (bills, payments, vendor credits):
// its properties and the field errors found so far.
type patchBody struct {
	m   map[string]json.RawMessage
	bad map[string]string
}

// readPatchBody decodes body as a JSON object (else a 400 of enum naming
// body) and notes every property not in allowed as an error.
func readPatchBody(body []byte, allowed map[string]bool, enum string) (*patchBody, error) {
	b := &patchBody{bad: map[string]string{}}
	if !jsonraw.IsObject(bytes.TrimSpace(body)) || json.Unmarshal(body, &b.m) != nil {
		return nil, apperr.PayloadField("body", "must be a JSON object").WithEnum(enum)
	}
	for k := range b.m {
		if !allowed[k] {
			b.bad[k] = "unknown or immutable property"
		}
	}
	return b, nil
}

// text reads nullable text property k into dst (trimmed); max > 0 also
// checks its length and characters.
func (b *patchBody) text(k string, dst *Optional[*string], max int) {
	raw, ok := b.m[k]
	if !ok {
		return
	}
	dst.Set = true
	if err := json.Unmarshal(raw, &dst.Value); err != nil {
		b.bad[k] = "must be a string or null"
	}
	dst.Value = trimmed(dst.Value)
	if max > 0 {
		checkText(k, dst.Value, max, b.bad)
	}
}

// instant reads required date-time property k into dst (UTC, to the
// microsecond); it cannot be cleared.
func (b *patchBody) instant(k string, dst *Optional[time.Time]) {
	raw, ok := b.m[k]
	if !ok {
		return
	}
	dst.Set = true
	if err := json.Unmarshal(raw, &dst.Value); err != nil || dst.Value.IsZero() {
		b.bad[k] = "must be an ISO 8601 date-time (it cannot be cleared)"
	}
	dst.Value = dst.Value.UTC().Truncate(time.Microsecond)
}

// metadataAndTags reads metadata (at most 1 KB) and tags (pkg/tags rules)
// when present; their errors are their own (not the body's field errors).
func (b *patchBody) metadataAndTags(md *Optional[json.RawMessage], ts *Optional[[]tags.KeyValue]) error {
	if raw, ok := b.m["metadata"]; ok {
		v, err := CheckMetadata("metadata", raw)
		if err != nil {
			return err
		}
		*md = Optional[json.RawMessage]{Set: true, Value: v}
	}
	if raw, ok := b.m["tags"]; ok {
		var kvs []tags.KeyValue
		if err := json.Unmarshal(raw, &kvs); err != nil {
			return apperr.PayloadField("tags", "must be a list of {key, value}").WithEnum(tags.EnumInvalidTags)
		}
		n, err := tags.NormalizeList("tags", kvs)
		if err != nil {
			return err
		}
		*ts = Optional[[]tags.KeyValue]{Set: true, Value: n}
	}
	return nil
}
