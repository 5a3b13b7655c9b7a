package banking

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
)

// EnumEmptyMetadataUpdate is the 400 of a metadata update that sets
// nothing.
const EnumEmptyMetadataUpdate = "EmptyMetadataUpdate"

// MetadataPatch is a body of PATCH /bank-transactions/{id}/metadata: the
// descriptive fields of a transaction that are not accounting (nothing of
// the journal changes with them). An absent property stays unchanged; null
// (or blank text) clears it.
type MetadataPatch struct {
	Memo               Nullable[string]
	ReferenceNumber    Nullable[string]
	Metadata           Nullable[json.RawMessage]
	CustomerID         Nullable[uuid.UUID]
	CustomerExternalID Nullable[string]
	VendorID           Nullable[uuid.UUID]
	VendorExternalID   Nullable[string]
}

// metadataProperties are the properties a metadata update may carry.
var metadataProperties = []string{
	"memo", "reference_number", "metadata", "customer_id", "customer_external_id", "vendor_id", "vendor_external_id",
}

// DecodeMetadataPatch reads a metadata update: a JSON object with at least
// one of memo (≤ 2,000 characters), reference_number, metadata (a JSON
// object of at most 1 KB, compact), customer_id and vendor_id (UUIDs),
// customer_external_id and vendor_external_id, each nullable. The client
// SDK sends {memo} or {customer_id, vendor_id}. Unknown properties are
// refused (a misspelt one never reads as "leave unchanged"); every
// violation is named in one 400 InvalidPayload.
func DecodeMetadataPatch(raw []byte) (MetadataPatch, error) {
	var m map[string]json.RawMessage
	if !jsonraw.IsObject(raw) || json.Unmarshal(raw, &m) != nil {
		return MetadataPatch{}, fieldError(apperr.InvalidPayload, "body", EnumInvalidTransaction, "must be a JSON object")
	}
	if len(m) == 0 {
		return MetadataPatch{}, fieldError(apperr.InvalidPayload, "body", EnumEmptyMetadataUpdate,
			"must set at least one of memo, reference_number, metadata, customer_id, customer_external_id, vendor_id, vendor_external_id")
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(metadataProperties, k) {
			v.Add(partField(k), EnumInvalidTransaction, "unknown property")
		}
	}
	text := func(k string, max int, multiline bool) Nullable[string] {
		r, ok := m[k]
		switch {
		case !ok:
			return Nullable[string]{}
		case jsonraw.IsNull(r):
			return Nullable[string]{Set: true, Null: true}
		}
		s := decodeText(r, k, textRule{max: max, multiline: multiline}, v)
		if s == nil {
			return Nullable[string]{Set: !v.Has(k), Null: true} // blank clears, like null
		}
		return Nullable[string]{Set: true, Value: *s}
	}
	id := func(k string) Nullable[uuid.UUID] {
		r, ok := m[k]
		switch {
		case !ok:
			return Nullable[uuid.UUID]{}
		case jsonraw.IsNull(r):
			return Nullable[uuid.UUID]{Set: true, Null: true}
		}
		if u := decodeUUID(r, k, v); u != nil {
			return Nullable[uuid.UUID]{Set: true, Value: *u}
		}
		return Nullable[uuid.UUID]{}
	}
	p := MetadataPatch{
		Memo:               text("memo", MaxMemoLength, true),
		ReferenceNumber:    text("reference_number", MaxReferenceNumberLength, false),
		CustomerID:         id("customer_id"),
		CustomerExternalID: text("customer_external_id", MaxExternalIDLength, false),
		VendorID:           id("vendor_id"),
		VendorExternalID:   text("vendor_external_id", MaxExternalIDLength, false),
	}
	if r, ok := m["metadata"]; ok {
		if jsonraw.IsNull(r) {
			p.Metadata = Nullable[json.RawMessage]{Set: true, Null: true}
		} else if md := decodeMetadata(r, "metadata", v); md != nil {
			p.Metadata = Nullable[json.RawMessage]{Set: true, Value: md}
		}
	}
	if err := v.Err(); err != nil {
		return MetadataPatch{}, err
	}
	return p, nil
}

// ApplyMetadata sets on t what p sets and reports whether anything
// changed.
func (t *BankTransaction) ApplyMetadata(p MetadataPatch) bool {
	before := *t
	t.ApplyRecord(&RecordPatch{
		Memo: p.Memo, ReferenceNumber: p.ReferenceNumber, Metadata: p.Metadata, CustomerID: p.CustomerID,
		CustomerExternalID: p.CustomerExternalID, VendorID: p.VendorID, VendorExternalID: p.VendorExternalID,
	})
	return !sameText(before.Memo, t.Memo) || !sameText(before.ReferenceNumber, t.ReferenceNumber) ||
		!sameJSON(before.Metadata, t.Metadata) || !sameID(before.CustomerID, t.CustomerID) ||
		!sameText(before.CustomerExternalID, t.CustomerExternalID) || !sameID(before.VendorID, t.VendorID) ||
		!sameText(before.VendorExternalID, t.VendorExternalID)
}

func sameText(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func sameID(a, b *uuid.UUID) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// sameJSON compares two JSON values (nil for none) as values: what
// PostgreSQL's jsonb gives back is not byte for byte what was sent.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return bytes.Equal(a, b)
	}
	ja, errA := json.Marshal(va)
	jb, errB := json.Marshal(vb)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
