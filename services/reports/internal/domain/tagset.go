package domain

import (
	"cmp"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Tag is a key/value pair of a tag set.
type Tag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// TagSet is a line's tags, sorted and without duplicates.
type TagSet []Tag

// tagSetNamespace makes tag set ids (UUIDv5 over business and canonical set).
var tagSetNamespace = uuid.MustParse("5d7c0f3e-2b8a-4e61-9c1d-3a4b5c6d7e8f")

// NewTagSet is tags sorted and deduplicated (never nil).
func NewTagSet(tags []Tag) TagSet {
	out := slices.Clone(tags)
	if out == nil {
		out = TagSet{}
	}
	slices.SortFunc(out, func(a, b Tag) int { return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Value, b.Value)) })
	return slices.Compact(out)
}

// KV is the "key<US>value" form of a tag the read model's filters match.
func KV(key, value string) string { return key + "\x1f" + value }

// KVs is the set's tags in KV form (never nil).
func (s TagSet) KVs() []string {
	out := make([]string, len(s))
	for i, t := range s {
		out[i] = KV(t.Key, t.Value)
	}
	return out
}

// Keys is the set's distinct keys (never nil).
func (s TagSet) Keys() []string {
	out := make([]string, 0, len(s))
	for _, t := range s {
		if len(out) == 0 || out[len(out)-1] != t.Key {
			out = append(out, t.Key)
		}
	}
	return out
}

// ID is the set's id in business bid.
func (s TagSet) ID(bid uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(tagSetNamespace, []byte(bid.String()+"\x1e"+strings.Join(s.KVs(), "\x1e")))
}

// TagFilter selects lines whose tags include Key with one of Values (any
// value when Values is empty). The zero filter selects every line.
type TagFilter struct {
	Key    string
	Values []string
}

// Matches reports whether a line with tags s is selected.
func (f TagFilter) Matches(s TagSet) bool {
	if f.Key == "" {
		return true
	}
	for _, t := range s {
		if t.Key == f.Key && (len(f.Values) == 0 || slices.Contains(f.Values, t.Value)) {
			return true
		}
	}
	return false
}
