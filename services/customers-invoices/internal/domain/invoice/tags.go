package invoice

import (
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
)

// MaxTagEntities bounds the invoices (or payments) one tag request
// changes (the transactions service's and POST /tags's 500).
const MaxTagEntities = 500

// CheckTagRequest checks a tag request's ids (1 to MaxTagEntities, named
// field) and tags (1 to tags.MaxTags, normalised) and returns the ids
// sorted without duplicates (the order rows are locked in).
func CheckTagRequest(field string, ids []uuid.UUID, kvs []tags.KeyValue) ([]uuid.UUID, []tags.KeyValue, error) {
	if len(ids) == 0 || len(ids) > MaxTagEntities {
		return nil, nil, apperr.PayloadField(field, fmt.Sprintf("must hold 1 to %d ids", MaxTagEntities))
	}
	kvs, err := tags.NormalizeList("key_values", kvs)
	if err != nil {
		return nil, nil, err
	}
	if len(kvs) == 0 {
		return nil, nil, apperr.PayloadField("key_values", "must hold at least one tag")
	}
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	return slices.Compact(sorted), kvs, nil
}

// newTags is the tags of kvs on entity that has lacks (pkg/tags'
// deterministic ids: the same key and value on the same entity is the
// same tag).
func newTags(businessID, entity uuid.UUID, has []tags.Tag, kvs []tags.KeyValue, now time.Time) []tags.Tag {
	var added []tags.Tag
	for _, kv := range kvs {
		t := tags.NewTag(businessID, entity, kv, now)
		if !slices.ContainsFunc(has, func(x tags.Tag) bool { return x.ID == t.ID }) &&
			!slices.ContainsFunc(added, func(x tags.Tag) bool { return x.ID == t.ID }) {
			added = append(added, t)
		}
	}
	return added
}

// entityTags are the tags kvs (already normalised) on entity at now.
func entityTags(businessID, entityID uuid.UUID, kvs []tags.KeyValue, now time.Time) []tags.Tag {
	out := make([]tags.Tag, len(kvs))
	for i, kv := range kvs {
		out[i] = tags.NewTag(businessID, entityID, kv, now)
	}
	return out
}
