// Package tagreg is the tag registry of a business: its dimensions (tag
// keys) with strictness, display name and visibility, and each dimension's
// value definitions. Ids are pkg/tags' deterministic ones, so a tag put on
// any entity by any service names a registry entry without asking for it;
// the registry learns such tags from the domain events (Learned) and the
// API defines, renames and archives them.
package tagreg

import (
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
)

// Error enums of the registry and of generic tagging.
const (
	EnumInvalidDimension      = "InvalidTagDimension"
	EnumInvalidValue          = "InvalidTagValue"
	EnumDimensionNotFound     = "TagDimensionNotFound"
	EnumValueNotFound         = "TagValueNotFound"
	EnumDimensionExists       = "TagDimensionExists"
	EnumInvalidTagging        = "InvalidTagging"
	EnumUnsupportedEntityType = "UnsupportedEntityType"
)

// MaxDefinedValues bounds the values one request defines.
const MaxDefinedValues = 500

// Value is a value definition of a dimension. DisplayName is never empty:
// the value itself when nobody named it.
type Value struct {
	ID          uuid.UUID
	DimensionID uuid.UUID
	Value       string
	DisplayName string
	ArchivedAt  *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Dimension is a tag key of a business with its values (sorted by value).
// DisplayName is never empty: the key itself when nobody named it.
type Dimension struct {
	ID          uuid.UUID
	BusinessID  uuid.UUID
	Key         string
	DisplayName string
	Strictness  tags.Strictness
	UserVisible bool
	Values      []Value
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeletedAt   *time.Time
}

// ValueInput is a value to define, with an optional display name.
type ValueInput struct {
	Value       string
	DisplayName *string
}

// NewDimension is the dimension key of businessID (key already
// normalised), created at `at`, with its deterministic id.
func NewDimension(businessID uuid.UUID, key string, displayName *string, strictness tags.Strictness, at time.Time) Dimension {
	d := Dimension{
		ID: tags.DimensionID(businessID, key), BusinessID: businessID, Key: key, DisplayName: orDefault(displayName, key),
		Strictness: strictness, UserVisible: true, CreatedAt: at, UpdatedAt: at,
	}
	if !d.Strictness.Valid() {
		d.Strictness = tags.NonBalancing
	}
	return d
}

// NewValue is the value definition of in (already normalised) in d.
func (d Dimension) NewValue(in ValueInput, at time.Time) Value {
	return Value{
		ID: tags.DefinitionID(d.BusinessID, d.Key, in.Value), DimensionID: d.ID, Value: in.Value,
		DisplayName: orDefault(in.DisplayName, in.Value), CreatedAt: at, UpdatedAt: at,
	}
}

// Value returns the value definition with this id.
func (d Dimension) Value(id uuid.UUID) (Value, bool) {
	i := slices.IndexFunc(d.Values, func(v Value) bool { return v.ID == id })
	if i < 0 {
		return Value{}, false
	}
	return d.Values[i], true
}

// AddValues returns d with the values of ins it lacks (sorted by value)
// and those added.
func (d Dimension) AddValues(ins []ValueInput, at time.Time) (Dimension, []Value) {
	var added []Value
	vals := slices.Clone(d.Values)
	for _, in := range ins {
		v := d.NewValue(in, at)
		if slices.ContainsFunc(vals, func(x Value) bool { return x.ID == v.ID }) {
			continue
		}
		vals = append(vals, v)
		added = append(added, v)
	}
	SortValues(vals)
	d.Values = vals
	return d, added
}

// SortValues orders values by their text (then id, for equal texts).
func SortValues(vs []Value) {
	slices.SortFunc(vs, func(a, b Value) int {
		if c := strings.Compare(a.Value, b.Value); c != 0 {
			return c
		}
		return slices.Compare(a.ID[:], b.ID[:])
	})
}

func orDefault(p *string, def string) string {
	if p == nil || *p == "" {
		return def
	}
	return *p
}

// ErrDimensionNotFound is the 404 of a dimension the business does not
// have.
func ErrDimensionNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "tag dimension not found").WithEnum(EnumDimensionNotFound)
}

// ErrValueNotFound is the 404 of a value the dimension does not have.
func ErrValueNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "tag value not found in the dimension").WithEnum(EnumValueNotFound)
}
