// Package party holds what a customer (customers-invoices) and a vendor
// (bills-tags) share: a counterparty of a business with names, contact
// fields, a memo, tags and an ACTIVE/ARCHIVED status; how a create, patch
// or listing request for one is read and checked; and what a patch does.
// What tells them apart (the noun in messages and the error enums) is a
// Kind, so each service answers exactly as it always has.
package party

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/tags"
)

// Kind is what differs between the kinds of counterparty.
type Kind struct {
	// Noun names one in messages: "customer", "vendor".
	Noun string
	// EnumInvalid is the error_enum of a create or patch body breaking a
	// rule ("InvalidCustomer"; tag violations use tags.EnumInvalidTags).
	EnumInvalid string
	// EnumNameRequired is the error_enum of a counterparty that would have
	// neither an individual_name nor a company_name
	// ("CustomerNameRequired").
	EnumNameRequired string
}

// Kinded is a Party's type parameter: a (zero-size) type naming its Kind,
// so that a customer and a vendor are different types.
type Kinded interface{ Kind() Kind }

// Bounds of a counterparty's text fields, in characters (after trimming).
const (
	MaxExternalIDLength = 255
	MaxNameLength       = 255 // individual_name, company_name
	MaxEmailLength      = 254 // RFC 5321's limit of a forward path
	MaxPhoneLength      = 40  // mobile_phone, office_phone
	MaxAddressLength    = 1000
	MaxMemoLength       = 2000
)

// Status is a counterparty's state: ACTIVE ones are listed by default,
// ARCHIVED ones only on request (and stay readable by id).
type Status string

// The statuses (the spec's closed enum).
const (
	StatusActive   Status = "ACTIVE"
	StatusArchived Status = "ARCHIVED"
)

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return s == StatusActive || s == StatusArchived }

// Party is one counterparty of a business. The text fields are nil when
// empty, never "". Tags are sorted by key, then value.
type Party[K Kinded] struct {
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
	Status         Status
	Tags           []tags.Tag
	// Version is 1 when created and grows by one with every change (the
	// upserted snapshots carry it).
	Version    int
	CreatedAt  time.Time
	UpdatedAt  time.Time
	ArchivedAt *time.Time // set exactly when Status is ARCHIVED
}

// Identity is c's id and external id (nil when it has none).
func (c Party[K]) Identity() (uuid.UUID, *string) { return c.ID, c.ExternalID }

// DisplayName is the name shown for the counterparty: the company name
// when there is one, else the individual's name (every one has one of
// them). Listings sort by it (sort_by=name), case-insensitively.
func (c Party[K]) DisplayName() string {
	if c.CompanyName != nil {
		return *c.CompanyName
	}
	if c.IndividualName != nil {
		return *c.IndividualName
	}
	return ""
}

// Input is a checked create body.
type Input struct {
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
// the order errors are reported, with their fields in Input and Patch.
var textFields = []struct {
	name  string
	rule  textRule
	input func(*Input) **string
	patch func(*Patch) *Nullable[string]
}{
	{"external_id", ruleExternalID, func(in *Input) **string { return &in.ExternalID }, func(p *Patch) *Nullable[string] { return &p.ExternalID }},
	{"individual_name", ruleName, func(in *Input) **string { return &in.IndividualName }, func(p *Patch) *Nullable[string] { return &p.IndividualName }},
	{"company_name", ruleName, func(in *Input) **string { return &in.CompanyName }, func(p *Patch) *Nullable[string] { return &p.CompanyName }},
	{"email", ruleEmail, func(in *Input) **string { return &in.Email }, func(p *Patch) *Nullable[string] { return &p.Email }},
	{"mobile_phone", rulePhone, func(in *Input) **string { return &in.MobilePhone }, func(p *Patch) *Nullable[string] { return &p.MobilePhone }},
	{"office_phone", rulePhone, func(in *Input) **string { return &in.OfficePhone }, func(p *Patch) *Nullable[string] { return &p.OfficePhone }},
	{"address_string", ruleAddress, func(in *Input) **string { return &in.AddressString }, func(p *Patch) *Nullable[string] { return &p.AddressString }},
	{"memo", ruleMemo, func(in *Input) **string { return &in.Memo }, func(p *Patch) *Nullable[string] { return &p.Memo }},
}

// createProperties are the properties a create body may have. `notes` is
// the name the spec's list and archive samples give the memo: it is
// accepted as a synonym of `memo`.
var createProperties = []string{"external_id", "individual_name", "company_name", "email", "mobile_phone",
	"office_phone", "address_string", "memo", "notes", "tags"}

// patchProperties are those of a patch body: the create's without tags'
// meaning changing (the list replaces the set) plus status.
var patchProperties = append(slices.Clone(createProperties), "status")

// ReadObject reads a JSON object body into its properties, recording a
// violation (k.EnumInvalid) for each property not in allowed. ok is false
// when the body is not an object at all.
func (k Kind) ReadObject(raw []byte, allowed []string, v *apperr.Violations) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if !jsonraw.IsObject(raw) || json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		if !slices.Contains(allowed, key) {
			v.Add(key, k.EnumInvalid, "unknown property (allowed: "+strings.Join(allowed, ", ")+")")
		}
	}
	return m, true
}

// notAnObject is the 400 of a body that is not a JSON object.
func (k Kind) notAnObject() error {
	return apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"body": "must be a JSON object"}).
		WithEnum(k.EnumInvalid)
}

// nullableText reads an optional string property: Set false when absent;
// Null when null or blank (surrounding white space is trimmed, and an
// empty value means none).
func (k Kind) nullableText(m map[string]json.RawMessage, name string, r textRule, v *apperr.Violations) Nullable[string] {
	raw, ok := m[name]
	if !ok {
		return Nullable[string]{}
	}
	if jsonraw.IsNull(raw) {
		return Nullable[string]{Set: true, Null: true}
	}
	s, isString := jsonraw.String(raw)
	if !isString {
		v.Add(name, k.EnumInvalid, "must be a string or null")
		return Nullable[string]{}
	}
	if s = normalizeText(s); s == "" {
		return Nullable[string]{Set: true, Null: true}
	}
	if reason := checkText(s, r); reason != "" {
		v.Add(name, k.EnumInvalid, reason)
		return Nullable[string]{}
	}
	return Nullable[string]{Set: true, Value: s}
}

// textField reads the text property name: `memo` with its synonym
// `notes` (sending both with different values is a violation).
func (k Kind) textField(m map[string]json.RawMessage, name string, r textRule, v *apperr.Violations) Nullable[string] {
	if name != "memo" {
		return k.nullableText(m, name, r, v)
	}
	memo := k.nullableText(m, "memo", ruleMemo, v)
	notes := k.nullableText(m, "notes", ruleMemo, v)
	switch {
	case !notes.Set:
		return memo
	case !memo.Set:
		if _, sent := m["memo"]; sent { // memo was refused already
			return memo
		}
		return notes
	case memo.Null != notes.Null || memo.Value != notes.Value:
		v.Add("notes", k.EnumInvalid, "is a synonym of memo: send one of them, or the same value in both")
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

// ParseInput reads a create body: every property is optional and nullable
// (null or blank is none) except that individual_name or company_name must
// be given. Rules: external_id ≤ 255 characters, names ≤ 255, email a bare
// address (≤ 254), phones ≤ 40 characters with at least 3 digits,
// address_string ≤ 1000 and memo ≤ 2000 characters (both may span lines),
// no control characters anywhere else; `notes` is a synonym of `memo`; tags
// follow pkg/tags. Unknown properties are refused. Every violation is named
// in one 400 InvalidPayload (error_enum k.EnumInvalid, k.EnumNameRequired
// or InvalidTags for the first one).
func (k Kind) ParseInput(raw []byte) (Input, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	m, ok := k.ReadObject(raw, createProperties, v)
	if !ok {
		return Input{}, k.notAnObject()
	}
	var in Input
	for _, f := range textFields {
		if n := k.textField(m, f.name, f.rule, v); n.Set && !n.Null {
			s := n.Value
			*f.input(&in) = &s
		}
	}
	if raw, ok := m["tags"]; ok && !jsonraw.IsNull(raw) {
		if kvs, ok := decodeTags(raw, v); ok {
			in.Tags = kvs
		}
	}
	if in.IndividualName == nil && in.CompanyName == nil && !v.Has("individual_name") && !v.Has("company_name") {
		v.Add("individual_name", k.EnumNameRequired, "individual_name or company_name is required")
		v.Add("company_name", k.EnumNameRequired, "individual_name or company_name is required")
	}
	if err := v.Err(); err != nil {
		return Input{}, err
	}
	return in, nil
}

// New is the ACTIVE counterparty id of businessID created from in at now
// (version 1).
func New[K Kinded](businessID, id uuid.UUID, in Input, now time.Time) Party[K] {
	c := Party[K]{
		ID: id, BusinessID: businessID, ExternalID: in.ExternalID, IndividualName: in.IndividualName,
		CompanyName: in.CompanyName, Email: in.Email, MobilePhone: in.MobilePhone, OfficePhone: in.OfficePhone,
		AddressString: in.AddressString, Memo: in.Memo, Status: StatusActive, Version: 1,
		CreatedAt: now, UpdatedAt: now,
	}
	c.Tags = c.tagSet(nil, in.Tags, now)
	return c
}

// tagSet is c's tags for the inputs kvs: a tag c already has (same key and
// value, hence the same id) is kept as it is (its creation time and
// display names); the others are new at now.
func (c Party[K]) tagSet(existing []tags.Tag, kvs []tags.KeyValue, now time.Time) []tags.Tag {
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

// Patch is a checked patch body: what to change. An absent property stays
// unchanged; null (or a blank string) clears a text property.
type Patch struct {
	ExternalID     Nullable[string]
	IndividualName Nullable[string]
	CompanyName    Nullable[string]
	Email          Nullable[string]
	MobilePhone    Nullable[string]
	OfficePhone    Nullable[string]
	AddressString  Nullable[string]
	Memo           Nullable[string]
	Status         Optional[Status]
	// Tags replaces the tag set ([] removes every tag).
	Tags Optional[[]tags.KeyValue]
}

// ParsePatch reads a patch body: the create's properties and rules (all
// optional; null or blank clears a text property, `notes` is a synonym of
// `memo`), `status` (ACTIVE or ARCHIVED, not null) and `tags` (replaces the
// set; not null, [] clears it). An empty object changes nothing. Whether
// the counterparty keeps a name is checked when the patch is applied
// (Apply). Violations are one 400 InvalidPayload as in ParseInput.
func (k Kind) ParsePatch(raw []byte) (Patch, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	m, ok := k.ReadObject(raw, patchProperties, v)
	if !ok {
		return Patch{}, k.notAnObject()
	}
	var p Patch
	for _, f := range textFields {
		*f.patch(&p) = k.textField(m, f.name, f.rule, v)
	}
	if raw, ok := m["status"]; ok {
		s, isString := jsonraw.String(raw)
		st := Status(s)
		if !isString || !st.Valid() {
			v.Add("status", k.EnumInvalid, "must be ACTIVE or ARCHIVED")
		} else {
			p.Status = Optional[Status]{Set: true, Value: st}
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
		return Patch{}, err
	}
	return p, nil
}

// ArchivePatch is the patch of POST /{customers,vendors}/{id}/archive.
func ArchivePatch() Patch {
	return Patch{Status: Optional[Status]{Set: true, Value: StatusArchived}}
}

// Apply returns c changed by p at now and whether anything changed. A
// change bumps Version and UpdatedAt; archiving sets ArchivedAt (kept when
// already archived), reactivating clears it. Setting a field to the value
// it has is no change, so a repeated patch or archive changes nothing. A
// patch that would leave a named counterparty without individual_name and
// company_name, or a nameless one without its external_id (it would be
// nothing at all, which the tables refuse), is a 400 (K's EnumNameRequired).
func (c Party[K]) Apply(p Patch, now time.Time) (Party[K], bool, error) {
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
	// A counterparty created without a name (from an invoice's or a bill's
	// unknown external id) may stay nameless while it keeps that external
	// id; a named one keeps a name.
	if next.IndividualName == nil && next.CompanyName == nil && (c.IndividualName != nil || c.CompanyName != nil) {
		var k K
		reason := "individual_name or company_name is required: the " + k.Kind().Noun + " would have no name"
		return c, false, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"individual_name": reason, "company_name": reason}).
			WithEnum(k.Kind().EnumNameRequired)
	}
	if next.IndividualName == nil && next.CompanyName == nil && next.ExternalID == nil {
		var k K
		reason := "the " + k.Kind().Noun + " has no name: its external_id stays until individual_name or company_name is set"
		return c, false, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"external_id": reason}).
			WithEnum(k.Kind().EnumNameRequired)
	}
	if p.Status.Set && p.Status.Value != c.Status {
		next.Status = p.Status.Value
		if next.Status == StatusArchived {
			at := now
			next.ArchivedAt = &at
		} else {
			next.ArchivedAt = nil
		}
	}
	if p.Tags.Set {
		next.Tags = c.tagSet(c.Tags, p.Tags.Value, now)
	}
	if next.sameAs(c) {
		return c, false, nil
	}
	next.Version = c.Version + 1
	next.UpdatedAt = now
	return next, true, nil
}

// sameAs reports whether c and o hold the same values (versions and
// timestamps of the counterparty itself aside).
func (c Party[K]) sameAs(o Party[K]) bool {
	eq := func(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	if !eq(c.ExternalID, o.ExternalID) || !eq(c.IndividualName, o.IndividualName) || !eq(c.CompanyName, o.CompanyName) ||
		!eq(c.Email, o.Email) || !eq(c.MobilePhone, o.MobilePhone) || !eq(c.OfficePhone, o.OfficePhone) ||
		!eq(c.AddressString, o.AddressString) || !eq(c.Memo, o.Memo) || c.Status != o.Status {
		return false
	}
	return slices.EqualFunc(c.Tags, o.Tags, func(a, b tags.Tag) bool { return a.ID == b.ID })
}
