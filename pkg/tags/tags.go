// Package tags holds the suite's tag shapes and rules: the tag input
// (TagKeyValue) with its validation and normalisation, the tag as returned
// (TransactionTag) and the registry shapes (dimensions and value
// definitions), and the deterministic ids that let any service tag its own
// rows without asking the registry (DESIGN.md §2).
//
// A dimension is identified by (business, key) and a value definition by
// (dimension, value). Their ids are UUIDv5 over the normalised text, so
// every service derives the same ids locally; bills-tags keeps the registry
// (display names, archive state) from the events that carry them.
package tags

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Limits of the tag input, in Unicode characters (code points) after
// normalisation.
const (
	MaxKeyLength         = 100
	MaxValueLength       = 200
	MaxDisplayNameLength = 200
	// MaxTags bounds one request's list of tags as sent, before duplicates
	// are collapsed.
	MaxTags = 50
)

// KeyValue is the tag input (the spec's TagKeyValue). The display names are
// used only when the dimension or the value definition does not exist yet.
type KeyValue struct {
	Key                  string  `json:"key"`
	Value                string  `json:"value"`
	DimensionDisplayName *string `json:"dimension_display_name,omitempty"`
	ValueDisplayName     *string `json:"value_display_name,omitempty"`
}

// Tag is a tag on an entity as returned (the spec's Tag and the client's
// TransactionTag). The display names and timestamps are null when absent,
// never empty strings.
type Tag struct {
	ID                   uuid.UUID  `json:"id"`
	Key                  string     `json:"key"`
	Value                string     `json:"value"`
	DimensionID          uuid.UUID  `json:"dimension_id"`
	DefinitionID         uuid.UUID  `json:"definition_id"`
	DimensionDisplayName *string    `json:"dimension_display_name"`
	ValueDisplayName     *string    `json:"value_display_name"`
	CreatedAt            time.Time  `json:"created_at"`
	UpdatedAt            time.Time  `json:"updated_at"`
	DeletedAt            *time.Time `json:"deleted_at"`
	ArchivedAt           *time.Time `json:"archived_at"`
}

// NewTag is the tag kv (already checked by NormalizeList or Normalize) on
// the entity entityID of businessID, created at `at`. Its ids are the
// deterministic ones, so re-tagging an entity with the same key and value
// yields the same tag id.
func NewTag(businessID, entityID uuid.UUID, kv KeyValue, at time.Time) Tag {
	def := DefinitionID(businessID, kv.Key, kv.Value)
	return Tag{
		ID:                   TagID(def, entityID),
		Key:                  NormalizeText(kv.Key),
		Value:                NormalizeText(kv.Value),
		DimensionID:          DimensionID(businessID, kv.Key),
		DefinitionID:         def,
		DimensionDisplayName: normalizeDisplayName(kv.DimensionDisplayName),
		ValueDisplayName:     normalizeDisplayName(kv.ValueDisplayName),
		CreatedAt:            at,
		UpdatedAt:            at,
	}
}

// Strictness says whether the amounts tagged with a dimension must balance
// (the client's closed list; other values read as the default).
type Strictness string

// The strictness values the client knows.
const (
	Balancing    Strictness = "BALANCING"
	NonBalancing Strictness = "NON_BALANCING"
)

// Valid reports whether s is one of the known values.
func (s Strictness) Valid() bool { return s == Balancing || s == NonBalancing }

// ValueDefinition is a value of a dimension in the registry (the client's
// TagValueDefinition).
type ValueDefinition struct {
	ID          uuid.UUID  `json:"id"`
	Key         string     `json:"key"`
	Value       string     `json:"value"`
	DisplayName *string    `json:"display_name"`
	ArchivedAt  *time.Time `json:"archived_at"`
}

// Dimension is a tag dimension in the registry (the client's TagDimension).
// DefinedValues is always encoded as an array, never null.
type Dimension struct {
	ID            uuid.UUID         `json:"id"`
	Key           string            `json:"key"`
	DisplayName   *string           `json:"display_name"`
	Strictness    Strictness        `json:"strictness"`
	DefinedValues []ValueDefinition `json:"defined_values"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	UserVisible   bool              `json:"user_visible"`
	ArchivedAt    *time.Time        `json:"archived_at"`
}

// MarshalJSON encodes a nil DefinedValues as [] (the client requires the
// array).
func (d Dimension) MarshalJSON() ([]byte, error) {
	type plain Dimension // without the method, to avoid recursion
	if d.DefinedValues == nil {
		d.DefinedValues = []ValueDefinition{}
	}
	return json.Marshal(plain(d))
}
