package domain

import (
	"time"

	"github.com/google/uuid"
)

// Change is what one domain event says about one entity of a business.
type Change struct {
	BusinessID uuid.UUID
	// Entity is one of the catalog's entities, or "" for an event of a
	// fixed type (Fixed) that keeps no state.
	Entity     string
	EntityID   string
	ExternalID *string
	// Version orders an entity's snapshots (a later one is larger); 0 when
	// the event carries none (a deletion), which always applies.
	Version int64
	// Initial says the snapshot is the entity's first (version 1): seen
	// first, it is a creation; seen first with a later version (the
	// service subscribed after it was created), it is an update.
	Initial bool
	// Archived is the entity's state after the change (voided, deleted,
	// archived, merged away).
	Archived bool
	// Fixed is the type of an event that is not an entity's created,
	// updated or archived (Receipt.parsed, JournalEntry.posted).
	Fixed string
	// At is when the change happened (the domain event's time).
	At time.Time
	// Key tells apart the changes one domain event makes (the accounts of
	// a chart): the webhook event's id derives from the domain event's id
	// and it.
	Key string
}

// EntityKey names an entity of a business.
type EntityKey struct {
	BusinessID uuid.UUID
	Entity     string
	EntityID   string
}

// EntityKey is the key of c's entity.
func (c Change) EntityKey() EntityKey {
	return EntityKey{BusinessID: c.BusinessID, Entity: c.Entity, EntityID: c.EntityID}
}

// EntityState is what the service remembers of an entity: the newest
// version it applied and whether the entity is archived.
type EntityState struct {
	Version  int64
	Archived bool
}

// Decide is the webhook event type change c makes of an entity whose
// remembered state is prev (nil: never seen), whether to send it, and the
// state to remember. A snapshot no newer than the remembered one is
// stale (delivered late or twice) and sends nothing; a change to an
// archived entity that leaves it archived (a voided invoice deleted)
// sends nothing; reactivation is an update.
func Decide(prev *EntityState, c Change) (eventType string, send bool, next EntityState) {
	if c.Fixed != "" {
		return c.Fixed, true, EntityState{}
	}
	if prev == nil {
		next = EntityState{Version: c.Version, Archived: c.Archived}
		switch {
		case c.Archived:
			return EntityEventType(c.Entity, OpArchived), true, next
		case c.Initial:
			return EntityEventType(c.Entity, OpCreated), true, next
		default:
			return EntityEventType(c.Entity, OpUpdated), true, next
		}
	}
	if c.Version > 0 && c.Version <= prev.Version {
		return "", false, *prev
	}
	next = EntityState{Version: max(prev.Version, c.Version), Archived: c.Archived}
	switch {
	case c.Archived && prev.Archived:
		if c.Version == 0 { // a deletion of what was already archived
			return "", false, next
		}
		return EntityEventType(c.Entity, OpUpdated), true, next
	case c.Archived:
		return EntityEventType(c.Entity, OpArchived), true, next
	default:
		return EntityEventType(c.Entity, OpUpdated), true, next
	}
}

// eventNamespace derives webhook event ids from domain event ids.
var eventNamespace = uuid.MustParse("6f6b8a52-2f0c-4d7e-9a35-0c1e8d4b7a21")

// EventID is the id of the webhook event change key makes of domain event
// source: the same whenever that event is applied again (a replay), so a
// platform sees one id per change.
func EventID(source uuid.UUID, key string) uuid.UUID {
	return uuid.NewSHA1(eventNamespace, append(source[:], key...))
}
