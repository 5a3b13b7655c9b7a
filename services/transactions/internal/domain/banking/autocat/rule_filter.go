package autocat

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Bounds of the rule listing's filters.
const (
	MaxRuleFilterExternalIDs = 100
	MaxRuleQueryLength       = 200
)

// RuleFilter is the filter of GET /categorization-rules: zero fields do
// not filter.
type RuleFilter struct {
	// ExternalIDs keeps the rules with one of these external ids (sorted,
	// without duplicates).
	ExternalIDs []string
	// IncludeArchived lists the archived rules too.
	IncludeArchived bool
	// Query is searched (case-insensitive) in the name, the text
	// conditions, the counterparty's name and the external id.
	Query string
}

// ParseRuleFilter reads external_ids (repeated, or comma-separated),
// include_archived and q. Errors are a 400 InvalidParameters naming the
// parameter.
func ParseRuleFilter(q url.Values) (RuleFilter, error) {
	var f RuleFilter
	for _, v := range q["external_ids"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				f.ExternalIDs = append(f.ExternalIDs, id)
			}
		}
	}
	slices.Sort(f.ExternalIDs)
	f.ExternalIDs = slices.Compact(f.ExternalIDs)
	if len(f.ExternalIDs) > MaxRuleFilterExternalIDs {
		return RuleFilter{}, apperr.Field("external_ids", fmt.Sprintf("at most %d ids", MaxRuleFilterExternalIDs))
	}
	for _, id := range f.ExternalIDs {
		if !utf8.ValidString(id) || len(id) > 255 {
			return RuleFilter{}, apperr.Field("external_ids", "each must be valid UTF-8 of at most 255 bytes")
		}
	}
	if v := q.Get("include_archived"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return RuleFilter{}, apperr.Field("include_archived", "must be true or false")
		}
		f.IncludeArchived = b
	}
	f.Query = strings.TrimSpace(q.Get("q"))
	if !utf8.ValidString(f.Query) || utf8.RuneCountInString(f.Query) > MaxRuleQueryLength {
		return RuleFilter{}, apperr.Field("q", fmt.Sprintf("must be valid UTF-8 of at most %d characters", MaxRuleQueryLength))
	}
	return f, nil
}

// Fingerprint is what a listing cursor is bound to.
func (f RuleFilter) Fingerprint() string {
	return fmt.Sprintf("%q|%v|%q", f.ExternalIDs, f.IncludeArchived, f.Query)
}

// Keep reports whether r passes the filter.
func (f RuleFilter) Keep(r Rule) bool {
	if r.ArchivedAt != nil && !f.IncludeArchived {
		return false
	}
	if len(f.ExternalIDs) > 0 && (r.ExternalID == nil || !slices.Contains(f.ExternalIDs, *r.ExternalID)) {
		return false
	}
	if f.Query == "" {
		return true
	}
	q := strings.ToLower(f.Query)
	for _, s := range []*string{r.Name, r.ExternalID, r.TransactionType} {
		if s != nil && strings.Contains(strings.ToLower(*s), q) {
			return true
		}
	}
	for _, c := range []*TextCondition{r.Counterparty, r.Description, r.ClientName} {
		if c != nil && strings.Contains(strings.ToLower(c.Pattern), q) {
			return true
		}
	}
	return r.CounterpartyRef != nil && r.CounterpartyRef.Name != nil && strings.Contains(strings.ToLower(*r.CounterpartyRef.Name), q)
}
