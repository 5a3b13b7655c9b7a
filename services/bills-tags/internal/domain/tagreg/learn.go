package tagreg

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
)

// Learned is a tag seen on an entity of businessID (in a domain event or a
// tagging request), with the display names it came with, if any.
type Learned struct {
	BusinessID           uuid.UUID
	Key                  string
	Value                string
	DimensionDisplayName *string
	ValueDisplayName     *string
}

// Collector gathers the tags seen in events, normalised, each (business,
// key, value) once, as first seen (a batch of entries carries the same few
// tags over and over, and the first occurrence's display names win); a
// tag whose key or value breaks the tag rules (which its producer should
// have refused) is skipped rather than blocking the registry.
type Collector struct {
	out     []Learned
	seen    map[learnedKey]struct{}
	Skipped int
}

type learnedKey struct {
	business   uuid.UUID
	key, value string
}

// Add records the tag key=value of businessID.
func (c *Collector) Add(businessID uuid.UUID, key, value string, dimDisplay, valDisplay *string) {
	k, err := tags.NormalizeKey(key)
	if err != nil || businessID == uuid.Nil {
		c.Skipped++
		return
	}
	v, err := tags.NormalizeValue(value)
	if err != nil {
		c.Skipped++
		return
	}
	lk := learnedKey{businessID, k, v}
	if _, dup := c.seen[lk]; dup {
		return
	}
	if c.seen == nil {
		c.seen = map[learnedKey]struct{}{}
	}
	c.seen[lk] = struct{}{}
	c.out = append(c.out, Learned{BusinessID: businessID, Key: k, Value: v,
		DimensionDisplayName: cleanName(dimDisplay), ValueDisplayName: cleanName(valDisplay)})
}

// AddKeyValues records tag inputs (and posting lines' tags).
func (c *Collector) AddKeyValues(businessID uuid.UUID, kvs []tags.KeyValue) {
	for _, kv := range kvs {
		c.Add(businessID, kv.Key, kv.Value, kv.DimensionDisplayName, kv.ValueDisplayName)
	}
}

// Learned is what was recorded.
func (c *Collector) Learned() []Learned { return c.out }

// cleanName is a display name that follows the tag text rules, else nil
// (the key or value is shown instead).
func cleanName(p *string) *string {
	if p == nil {
		return nil
	}
	s, err := tags.NormalizeValue(*p)
	if err != nil {
		return nil
	}
	return &s
}

// Entries are the registry entries of ls: one dimension per (business,
// key) with the values seen, sorted by id (so concurrent writers lock rows
// in one order). The first occurrence's display names win, as on first
// use.
func Entries(ls []Learned, at time.Time) []Dimension {
	byID := map[uuid.UUID]int{}
	var out []Dimension
	for _, l := range ls {
		id := tags.DimensionID(l.BusinessID, l.Key)
		i, ok := byID[id]
		if !ok {
			i = len(out)
			byID[id] = i
			out = append(out, NewDimension(l.BusinessID, l.Key, l.DimensionDisplayName, tags.NonBalancing, at))
		}
		out[i], _ = out[i].AddValues([]ValueInput{{Value: l.Value, DisplayName: l.ValueDisplayName}}, at)
	}
	slices.SortFunc(out, func(a, b Dimension) int { return slices.Compare(a.ID[:], b.ID[:]) })
	for i := range out {
		slices.SortFunc(out[i].Values, func(a, b Value) int { return slices.Compare(a.ID[:], b.ID[:]) })
	}
	return out
}
