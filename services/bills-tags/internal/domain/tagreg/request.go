package tagreg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/tags"
)

// CreateInput is a POST /tags/dimensions body, normalised.
type CreateInput struct {
	Key         string
	DisplayName *string
	Strictness  tags.Strictness
	Values      []ValueInput
}

// Patch is a PATCH /tags/dimensions/{id} body: nil fields stay unchanged;
// ClearDisplayName resets the display name to the key.
type Patch struct {
	DisplayName      *string
	ClearDisplayName bool
	Strictness       *tags.Strictness
	UserVisible      *bool
}

// Empty reports whether the patch changes nothing.
func (p Patch) Empty() bool {
	return p.DisplayName == nil && !p.ClearDisplayName && p.Strictness == nil && p.UserVisible == nil
}

// object decodes body as a JSON object into its properties, refusing any
// property not in allowed (named in meta.fields).
func object(body []byte, enum string, allowed ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if !jsonraw.IsObject(bytes.TrimSpace(body)) || json.Unmarshal(body, &m) != nil {
		return nil, apperr.PayloadField("body", "must be a JSON object").WithEnum(enum)
	}
	bad := map[string]string{}
	for k := range m {
		known := false
		for _, a := range allowed {
			known = known || k == a
		}
		if !known {
			bad[k] = "unknown property"
		}
	}
	if len(bad) > 0 {
		return nil, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(enum)
	}
	return m, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// displayName reads an optional display name: absent, null or blank is
// nil; otherwise the tag text rules (at most tags.MaxDisplayNameLength
// characters, no control characters).
func displayName(field string, raw json.RawMessage, bad map[string]string) *string {
	if raw == nil || isNull(raw) {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		bad[field] = "must be a string or null"
		return nil
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	n, err := tags.NormalizeValue(s) // the same rules and length as a display name
	if err != nil {
		bad[field] = err.Error()
		return nil
	}
	return &n
}

func strictness(field string, raw json.RawMessage, bad map[string]string) *tags.Strictness {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || !tags.Strictness(s).Valid() {
		bad[field] = "must be BALANCING or NON_BALANCING"
		return nil
	}
	st := tags.Strictness(s)
	return &st
}

// valueInput reads one value definition: a string (the SDK's form) or an
// object {value, display_name} (displayName, the SDK's spelling, too).
func valueInput(field string, raw json.RawMessage, enum string, bad map[string]string) (ValueInput, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		v, err := tags.NormalizeValue(s)
		if err != nil {
			bad[field] = err.Error()
			return ValueInput{}, false
		}
		return ValueInput{Value: v}, true
	}
	m, err := object(raw, enum, "value", "display_name", "displayName")
	if err != nil {
		bad[field] = "must be a string or an object {value, display_name}"
		return ValueInput{}, false
	}
	return valueFields(field+".", m, bad)
}

func valueFields(prefix string, m map[string]json.RawMessage, bad map[string]string) (ValueInput, bool) {
	var in ValueInput
	var s string
	raw, ok := m["value"]
	switch {
	case !ok || isNull(raw):
		bad[prefix+"value"] = "is required"
	case json.Unmarshal(raw, &s) != nil:
		bad[prefix+"value"] = "must be a string"
	default:
		v, err := tags.NormalizeValue(s)
		if err != nil {
			bad[prefix+"value"] = err.Error()
		}
		in.Value = v
	}
	if _, both := m["display_name"]; both && m["displayName"] != nil {
		bad[prefix+"displayName"] = "give display_name or displayName, not both"
	}
	dn, name := m["display_name"], prefix+"display_name"
	if dn == nil {
		dn, name = m["displayName"], prefix+"displayName"
	}
	in.DisplayName = displayName(name, dn, bad)
	return in, len(bad) == 0
}

// ParseCreate reads a POST /tags/dimensions body: `key` (required),
// `strictness` (BALANCING or NON_BALANCING; NON_BALANCING when absent),
// `display_name` and `defined_values` (strings, as the SDK sends them, or
// {value, display_name}; at most MaxDefinedValues, duplicates collapse).
func ParseCreate(body []byte) (CreateInput, error) {
	m, err := object(body, EnumInvalidDimension, "key", "strictness", "display_name", "defined_values")
	if err != nil {
		return CreateInput{}, err
	}
	bad := map[string]string{}
	in := CreateInput{Strictness: tags.NonBalancing}
	var key string
	if raw, ok := m["key"]; !ok || isNull(raw) {
		bad["key"] = "is required"
	} else if json.Unmarshal(raw, &key) != nil {
		bad["key"] = "must be a string"
	} else if in.Key, err = tags.NormalizeKey(key); err != nil {
		bad["key"] = err.Error()
	}
	if raw, ok := m["strictness"]; ok && !isNull(raw) {
		if st := strictness("strictness", raw, bad); st != nil {
			in.Strictness = *st
		}
	}
	in.DisplayName = displayName("display_name", m["display_name"], bad)
	if raw, ok := m["defined_values"]; ok && !isNull(raw) {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			bad["defined_values"] = "must be an array"
		} else if len(list) > MaxDefinedValues {
			bad["defined_values"] = fmt.Sprintf("at most %d values, got %d", MaxDefinedValues, len(list))
		} else {
			seen := map[string]bool{}
			for i, r := range list {
				v, ok := valueInput(fmt.Sprintf("defined_values[%d]", i), r, EnumInvalidDimension, bad)
				if ok && !seen[v.Value] {
					seen[v.Value] = true
					in.Values = append(in.Values, v)
				}
			}
		}
	}
	if len(bad) > 0 {
		return CreateInput{}, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidDimension)
	}
	return in, nil
}

// ParsePatch reads a PATCH /tags/dimensions/{id} body: `display_name`
// (null resets it to the key), `strictness`, `user_visible`.
func ParsePatch(body []byte) (Patch, error) {
	m, err := object(body, EnumInvalidDimension, "display_name", "strictness", "user_visible")
	if err != nil {
		return Patch{}, err
	}
	bad := map[string]string{}
	var p Patch
	if raw, ok := m["display_name"]; ok {
		p.DisplayName = displayName("display_name", raw, bad)
		p.ClearDisplayName = p.DisplayName == nil && bad["display_name"] == ""
	}
	if raw, ok := m["strictness"]; ok {
		p.Strictness = strictness("strictness", raw, bad)
	}
	if raw, ok := m["user_visible"]; ok {
		var b bool
		if json.Unmarshal(raw, &b) != nil || isNull(raw) {
			bad["user_visible"] = "must be true or false"
		} else {
			p.UserVisible = &b
		}
	}
	if len(bad) > 0 {
		return Patch{}, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidDimension)
	}
	return p, nil
}

// ParseValue reads a POST /tags/dimensions/{id}/values body: `value`
// (required) and `display_name` (or the SDK's `displayName`).
func ParseValue(body []byte) (ValueInput, error) {
	m, err := object(body, EnumInvalidValue, "value", "display_name", "displayName")
	if err != nil {
		return ValueInput{}, err
	}
	bad := map[string]string{}
	in, _ := valueFields("", m, bad)
	if len(bad) > 0 {
		return ValueInput{}, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidValue)
	}
	return in, nil
}

// EntityType is what generic tagging tags.
type EntityType string

// The entity types of POST /tags.
const (
	BankTransaction EntityType = "BANK_TRANSACTION"
	Invoice         EntityType = "INVOICE"
	InvoicePayment  EntityType = "INVOICE_PAYMENT"
	Bill            EntityType = "BILL"
	BillPayment     EntityType = "BILL_PAYMENT"
)

// Valid reports whether t is one of the entity types.
func (t EntityType) Valid() bool {
	switch t {
	case BankTransaction, Invoice, InvoicePayment, Bill, BillPayment:
		return true
	}
	return false
}

// MaxEntities bounds the entities one tagging request changes (the
// transactions service's own bound).
const MaxEntities = 500

// TagRequest is a POST /tags body, normalised: tags (1 to tags.MaxTags,
// duplicates collapsed) for entities (1 to MaxEntities, sorted, without
// duplicates) of one type.
type TagRequest struct {
	KeyValues  []tags.KeyValue
	EntityIDs  []uuid.UUID
	EntityType EntityType
}

// ParseTagRequest reads a POST /tags body: `key_values` (tag inputs),
// `entity_ids` (uuids) and `entity_type`.
func ParseTagRequest(body []byte) (TagRequest, error) {
	m, err := object(body, EnumInvalidTagging, "key_values", "entity_ids", "entity_type")
	if err != nil {
		return TagRequest{}, err
	}
	bad := map[string]string{}
	var r TagRequest
	var kvs []tags.KeyValue
	if raw, ok := m["key_values"]; !ok || isNull(raw) {
		bad["key_values"] = "is required"
	} else if json.Unmarshal(raw, &kvs) != nil {
		bad["key_values"] = "must be an array of {key, value}"
	} else if len(kvs) == 0 {
		bad["key_values"] = "must hold at least one tag"
	} else if r.KeyValues, err = tags.NormalizeList("key_values", kvs); err != nil {
		if ae, ok := err.(*apperr.Error); ok {
			if fs, ok := ae.Meta["fields"].(map[string]string); ok {
				for k, v := range fs {
					bad[k] = v
				}
			}
		}
	}
	var ids []string
	if raw, ok := m["entity_ids"]; !ok || isNull(raw) {
		bad["entity_ids"] = "is required"
	} else if json.Unmarshal(raw, &ids) != nil {
		bad["entity_ids"] = "must be an array of uuids"
	} else if len(ids) == 0 || len(ids) > MaxEntities {
		bad["entity_ids"] = fmt.Sprintf("must hold 1 to %d ids", MaxEntities)
	} else {
		seen := map[uuid.UUID]bool{}
		for i, s := range ids {
			id, err := uuid.Parse(s)
			if err != nil {
				bad[fmt.Sprintf("entity_ids[%d]", i)] = "must be a uuid"
				continue
			}
			if !seen[id] {
				seen[id] = true
				r.EntityIDs = append(r.EntityIDs, id)
			}
		}
	}
	var t string
	if raw, ok := m["entity_type"]; !ok || isNull(raw) {
		bad["entity_type"] = "is required"
	} else if json.Unmarshal(raw, &t) != nil || !EntityType(t).Valid() {
		bad["entity_type"] = "must be BANK_TRANSACTION, INVOICE, INVOICE_PAYMENT, BILL or BILL_PAYMENT"
	} else {
		r.EntityType = EntityType(t)
	}
	if len(bad) > 0 {
		return TagRequest{}, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidTagging)
	}
	return r, nil
}
