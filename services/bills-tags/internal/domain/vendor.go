package domain

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/jsonraw"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
)

// Bounds of a vendor's text fields, in characters (after trimming).
const (
	MaxExternalIDLength = 255
	MaxNameLength       = 255 // individual_name, company_name
	MaxEmailLength      = 254 // RFC 5321's limit of a forward path
	MaxPhoneLength      = 40  // mobile_phone, office_phone
	MaxAddressLength    = 1000
	MaxMemoLength       = 2000
)

// VendorStatus is a vendor's state: ACTIVE vendors are listed by
// default, ARCHIVED ones only on request (and stay readable by id).
type VendorStatus string

// The vendor statuses (the spec's closed enum).
const (
	StatusActive   VendorStatus = "ACTIVE"
	StatusArchived VendorStatus = "ARCHIVED"
)

// Valid reports whether s is a known status.
func (s VendorStatus) Valid() bool { return s == StatusActive || s == StatusArchived }

// Vendor is one vendor of a business. The text fields are nil when
// empty, never "". Tags are sorted by key, then value.
type Vendor struct {
	ID             uuid.UUID
	BusinessID     uuid.UUID
	ExternalID     *string
	IndividualName *string
	CompanyName    *string
	Email          *string
	MobilePhone    *string
	OfficePhone    *string
	AddressString  *string
	Memo           *string
	Status         VendorStatus
	Tags           []tags.Tag
	// Version is 1 when created and grows by one with every change (the
	// vendor.upserted snapshots carry it).
	Version    int
	CreatedAt  time.Time
	UpdatedAt  time.Time
	ArchivedAt *time.Time // set exactly when Status is ARCHIVED
	// MergedIntoID is the vendor this one was merged into (it is then
	// ARCHIVED, its bills and credits moved to that vendor).
	MergedIntoID *uuid.UUID
}

// DisplayName is the name shown for the vendor: the company name when
// there is one, else the individual's name (every vendor has one of
// them). Listings sort by it (sort_by=name), case-insensitively.
func (c Vendor) DisplayName() string {
	if c.CompanyName != nil {
		return *c.CompanyName
	}
	if c.IndividualName != nil {
		return *c.IndividualName
	}
	return ""
}

// VendorInput is a checked POST /vendors body.
type VendorInput struct {
	ExternalID     *string
	IndividualName *string
	CompanyName    *string
	Email          *string
	MobilePhone    *string
	OfficePhone    *string
	AddressString  *string
	Memo           *string
	// Tags are normalised (pkg/tags), duplicates collapsed.
	Tags []tags.KeyValue
}

// textFields are the body properties that are plain nullable strings, in
// the order errors are reported.
var textFields = []struct {
	name string
	rule textRule
}{
	{"external_id", ruleExternalID},
	{"individual_name", ruleName},
	{"company_name", ruleName},
	{"email", ruleEmail},
	{"mobile_phone", rulePhone},
	{"office_phone", rulePhone},
	{"address_string", ruleAddress},
	{"memo", ruleMemo},
}

// createProperties are the properties a create body may have. `notes` is
// the name the spec's list and archive samples give the memo: it is
// accepted as a synonym of `memo`.
var createProperties = []string{"external_id", "individual_name", "company_name", "email", "mobile_phone",
	"office_phone", "address_string", "memo", "notes", "tags"}

// patchProperties are those of a patch body: the create's without tags'
// meaning changing (the list replaces the set) plus status.
var patchProperties = append(slices.Clone(createProperties), "status")

// body reads a JSON object body into its properties, recording a violation
// for each property not in allowed. ok is false when the body is not an
// object at all.
func body(raw []byte, allowed []string, v *apperr.Violations) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if !jsonraw.IsObject(raw) || json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			v.Add(k, EnumInvalidVendor, "unknown property (allowed: "+strings.Join(allowed, ", ")+")")
		}
	}
	return m, true
}

// nullableText reads an optional string property: Set false when absent;
// Null when null or blank (surrounding white space is trimmed, and an
// empty value means none).
func nullableText(m map[string]json.RawMessage, name string, r textRule, v *apperr.Violations) Nullable[string] {
	raw, ok := m[name]
	if !ok {
		return Nullable[string]{}
	}
	if jsonraw.IsNull(raw) {
		return Nullable[string]{Set: true, Null: true}
	}
	s, isString := jsonraw.String(raw)
	if !isString {
		v.Add(name, EnumInvalidVendor, "must be a string or null")
		return Nullable[string]{}
	}
	if s = normalizeText(s); s == "" {
		return Nullable[string]{Set: true, Null: true}
	}
	if reason := checkText(s, r); reason != "" {
		v.Add(name, EnumInvalidVendor, reason)
		return Nullable[string]{}
	}
	return Nullable[string]{Set: true, Value: s}
}

// memoField reads `memo` and its synonym `notes`: sending both with
// different values is a violation.
func memoField(m map[string]json.RawMessage, v *apperr.Violations) Nullable[string] {
	memo := nullableText(m, "memo", ruleMemo, v)
	notes := nullableText(m, "notes", ruleMemo, v)
	switch {
	case !notes.Set:
		return memo
	case !memo.Set:
		if _, sent := m["memo"]; sent { // memo was refused already
			return memo
		}
		return notes
	case memo.Null != notes.Null || memo.Value != notes.Value:
		v.Add("notes", EnumInvalidVendor, "is a synonym of memo: send one of them, or the same value in both")
	}
	return memo
}

// decodeTags reads a tag list (pkg/tags rules: at most tags.MaxTags,
// duplicates collapsed); null is refused (send [] for no tags).
func decodeTags(raw json.RawMessage, v *apperr.Violations) ([]tags.KeyValue, bool) {
	raw = bytes.TrimSpace(raw)
	var kvs []tags.KeyValue
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &kvs) != nil {
		v.Add("tags", tags.EnumInvalidTags, "must be an array of {key, value, dimension_display_name?, value_display_name?}")
		return nil, false
	}
	out, err := tags.NormalizeList("tags", kvs)
	if err != nil {
		if err := v.Merge(err); err != nil {
			v.Add("tags", tags.EnumInvalidTags, "invalid tags")
		}
		return nil, false
	}
	return out, true
}

// ParseVendorInput reads a POST /vendors body: every property is
// optional and nullable (null or blank is none) except that individual_name
// or company_name must be given. Rules: external_id ≤ 255 characters,
// names ≤ 255, email a bare address (≤ 254), phones ≤ 40 characters with
// at least 3 digits, address_string ≤ 1000 and memo ≤ 2000 characters
// (both may span lines), no control characters anywhere else; `notes` is a
// synonym of `memo`; tags follow pkg/tags. Unknown properties are refused.
// Every violation is named in one 400 InvalidPayload (error_enum
// InvalidVendor, VendorNameRequired or InvalidTags for the first one).
func ParseVendorInput(raw []byte) (VendorInput, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	m, ok := body(raw, createProperties, v)
	if !ok {
		return VendorInput{}, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"body": "must be a JSON object"}).
			WithEnum(EnumInvalidVendor)
	}
	var in VendorInput
	for _, f := range textFields {
		var n Nullable[string]
		if f.name == "memo" {
			n = memoField(m, v)
		} else {
			n = nullableText(m, f.name, f.rule, v)
		}
		if n.Set && !n.Null {
			s := n.Value
			*in.field(f.name) = &s
		}
	}
	if raw, ok := m["tags"]; ok && !jsonraw.IsNull(raw) {
		if kvs, ok := decodeTags(raw, v); ok {
			in.Tags = kvs
		}
	}
	if in.IndividualName == nil && in.CompanyName == nil && !v.Has("individual_name") && !v.Has("company_name") {
		v.Add("individual_name", EnumVendorNameRequired, "individual_name or company_name is required")
		v.Add("company_name", EnumVendorNameRequired, "individual_name or company_name is required")
	}
	if err := v.Err(); err != nil {
		return VendorInput{}, err
	}
	return in, nil
}

// field is the input's field of a text property.
func (in *VendorInput) field(name string) **string {
	switch name {
	case "external_id":
		return &in.ExternalID
	case "individual_name":
		return &in.IndividualName
	case "company_name":
		return &in.CompanyName
	case "email":
		return &in.Email
	case "mobile_phone":
		return &in.MobilePhone
	case "office_phone":
		return &in.OfficePhone
	case "address_string":
		return &in.AddressString
	}
	return &in.Memo
}

// NewVendor is the ACTIVE vendor id of businessID created from in at
// now (version 1).
func NewVendor(businessID, id uuid.UUID, in VendorInput, now time.Time) Vendor {
	c := Vendor{
		ID: id, BusinessID: businessID, ExternalID: in.ExternalID, IndividualName: in.IndividualName,
		CompanyName: in.CompanyName, Email: in.Email, MobilePhone: in.MobilePhone, OfficePhone: in.OfficePhone,
		AddressString: in.AddressString, Memo: in.Memo, Status: StatusActive, Version: 1,
		CreatedAt: now, UpdatedAt: now,
	}
	c.Tags = tagSet(c, nil, in.Tags, now)
	return c
}

// tagSet is the vendor's tags for the inputs kvs: a tag the vendor
// already has (same key and value, hence the same id) is kept as it is
// (its creation time and display names); the others are new at now.
func tagSet(c Vendor, existing []tags.Tag, kvs []tags.KeyValue, now time.Time) []tags.Tag {
	out := make([]tags.Tag, 0, len(kvs))
	for _, kv := range kvs {
		t := tags.NewTag(c.BusinessID, c.ID, kv, now)
		if i := slices.IndexFunc(existing, func(e tags.Tag) bool { return e.ID == t.ID }); i >= 0 {
			t = existing[i]
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b tags.Tag) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out
}

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

// VendorPatch is a checked PATCH /vendors/{id} body: what to change.
// An absent property stays unchanged; null (or a blank string) clears a
// text property.
type VendorPatch struct {
	ExternalID     Nullable[string]
	IndividualName Nullable[string]
	CompanyName    Nullable[string]
	Email          Nullable[string]
	MobilePhone    Nullable[string]
	OfficePhone    Nullable[string]
	AddressString  Nullable[string]
	Memo           Nullable[string]
	Status         Optional[VendorStatus]
	// Tags replaces the vendor's tag set ([] removes every tag).
	Tags Optional[[]tags.KeyValue]
}

// ParseVendorPatch reads a PATCH /vendors/{id} body: the create's
// properties and rules (all optional; null or blank clears a text
// property, `notes` is a synonym of `memo`), `status` (ACTIVE or ARCHIVED,
// not null) and `tags` (replaces the set; not null, [] clears it). An empty
// object changes nothing. Whether the vendor keeps a name is checked
// when the patch is applied (Apply). Violations are one 400 InvalidPayload
// as in ParseVendorInput.
func ParseVendorPatch(raw []byte) (VendorPatch, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	m, ok := body(raw, patchProperties, v)
	if !ok {
		return VendorPatch{}, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"body": "must be a JSON object"}).
			WithEnum(EnumInvalidVendor)
	}
	var p VendorPatch
	for _, f := range textFields {
		if f.name == "memo" {
			*p.field(f.name) = memoField(m, v)
		} else {
			*p.field(f.name) = nullableText(m, f.name, f.rule, v)
		}
	}
	if raw, ok := m["status"]; ok {
		s, isString := jsonraw.String(raw)
		st := VendorStatus(s)
		if !isString || !st.Valid() {
			v.Add("status", EnumInvalidVendor, "must be ACTIVE or ARCHIVED")
		} else {
			p.Status = Optional[VendorStatus]{Set: true, Value: st}
		}
	}
	if raw, ok := m["tags"]; ok {
		if jsonraw.IsNull(raw) {
			v.Add("tags", tags.EnumInvalidTags, "must be an array (send [] to remove every tag)")
		} else if kvs, ok := decodeTags(raw, v); ok {
			if kvs == nil {
				kvs = []tags.KeyValue{}
			}
			p.Tags = Optional[[]tags.KeyValue]{Set: true, Value: kvs}
		}
	}
	if err := v.Err(); err != nil {
		return VendorPatch{}, err
	}
	return p, nil
}

// field is the patch's field of a text property.
func (p *VendorPatch) field(name string) *Nullable[string] {
	switch name {
	case "external_id":
		return &p.ExternalID
	case "individual_name":
		return &p.IndividualName
	case "company_name":
		return &p.CompanyName
	case "email":
		return &p.Email
	case "mobile_phone":
		return &p.MobilePhone
	case "office_phone":
		return &p.OfficePhone
	case "address_string":
		return &p.AddressString
	}
	return &p.Memo
}

// ArchivePatch is the patch of POST /vendors/{id}/archive.
func ArchivePatch() VendorPatch {
	return VendorPatch{Status: Optional[VendorStatus]{Set: true, Value: StatusArchived}}
}

// Apply returns c changed by p at now and whether anything changed. A
// change bumps Version and UpdatedAt; archiving sets ArchivedAt (kept when
// already archived), reactivating clears it. Setting a field to the value
// it has is no change, so a repeated patch or archive changes nothing. A
// patch that would leave a named vendor without individual_name and
// company_name is a 400 (VendorNameRequired).
func (c Vendor) Apply(p VendorPatch, now time.Time) (Vendor, bool, error) {
	next := c
	set := func(dst **string, n Nullable[string]) {
		switch {
		case !n.Set:
		case n.Null:
			*dst = nil
		default:
			s := n.Value
			*dst = &s
		}
	}
	set(&next.ExternalID, p.ExternalID)
	set(&next.IndividualName, p.IndividualName)
	set(&next.CompanyName, p.CompanyName)
	set(&next.Email, p.Email)
	set(&next.MobilePhone, p.MobilePhone)
	set(&next.OfficePhone, p.OfficePhone)
	set(&next.AddressString, p.AddressString)
	set(&next.Memo, p.Memo)
	// A vendor created without a name (from a bill's unknown
	// vendor_external_id) may stay nameless; a named one keeps a name.
	if next.IndividualName == nil && next.CompanyName == nil && (c.IndividualName != nil || c.CompanyName != nil) {
		reason := "individual_name or company_name is required: the vendor would have no name"
		return c, false, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"individual_name": reason, "company_name": reason}).
			WithEnum(EnumVendorNameRequired)
	}
	if p.Status.Set && p.Status.Value != c.Status {
		next.Status = p.Status.Value
		if next.Status == StatusArchived {
			at := now
			next.ArchivedAt = &at
		} else {
			next.ArchivedAt = nil
			next.MergedIntoID = nil // a merged vendor reactivated stands alone again
		}
	}
	if p.Tags.Set {
		next.Tags = tagSet(c, c.Tags, p.Tags.Value, now)
	}
	if next.sameAs(c) {
		return c, false, nil
	}
	next.Version = c.Version + 1
	next.UpdatedAt = now
	return next, true, nil
}

// sameAs reports whether c and o hold the same values (versions and
// timestamps of the vendor itself aside).
func (c Vendor) sameAs(o Vendor) bool {
	eq := func(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	if !eq(c.ExternalID, o.ExternalID) || !eq(c.IndividualName, o.IndividualName) || !eq(c.CompanyName, o.CompanyName) ||
		!eq(c.Email, o.Email) || !eq(c.MobilePhone, o.MobilePhone) || !eq(c.OfficePhone, o.OfficePhone) ||
		!eq(c.AddressString, o.AddressString) || !eq(c.Memo, o.Memo) || c.Status != o.Status ||
		(c.MergedIntoID == nil) != (o.MergedIntoID == nil) || (c.MergedIntoID != nil && *c.MergedIntoID != *o.MergedIntoID) {
		return false
	}
	return slices.EqualFunc(c.Tags, o.Tags, func(a, b tags.Tag) bool { return a.ID == b.ID })
}
