package banking

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// Bounds of the listing filters.
const (
	MaxFilterIDs       = 100 // bank_account_ids, source_account_ids
	MaxFilterTagValues = 50
	MaxQueryLength     = 200
)

// Filter is the listing filter of GET /bank-transactions, parsed and
// normalised: lists sorted without duplicates, text trimmed, so that two
// requests meaning the same thing have the same Canonical form. Zero
// fields do not filter. All conditions must hold.
type Filter struct {
	// Start (inclusive) and End (exclusive) bound the transaction date.
	Start, End *time.Time
	Direction  *Direction
	// Categorized selects transactions with (true) or without (false) a
	// final category (CATEGORIZED, SPLIT or MATCHED).
	Categorized *bool
	// Statuses matches any of them.
	Statuses []CategorizationStatus
	// Category is the category the transaction (or one of its split
	// entries) has: an account by id or stable name, or an exclusion.
	Category *Classification
	// AmountMin and AmountMax bound the amount in cents, both inclusive.
	AmountMin, AmountMax *money.Cents
	// Query searches the description and the counterparty name.
	Query           string
	ReferenceNumber string
	// TagKey with TagValues matches a tag of that key with any of the
	// values; TagKey alone matches any value of the key.
	TagKey            string
	TagValues         []string
	BankAccountIDs    []uuid.UUID
	SourceAccountIDs  []string
	ExternalAccountID *uuid.UUID
	// IncludeArchived lists archived transactions too (they are left out
	// otherwise).
	IncludeArchived bool
}

// ParseFilter reads the listing filters from a query string (other
// parameters, such as the pagination ones, are left alone):
//
//   - start_date, end_date: YYYY-MM-DD or RFC 3339; a date-only end_date
//     includes its whole day; start after end is refused;
//   - direction: CREDIT, DEBIT, INFLOW, OUTFLOW, MONEY_IN or MONEY_OUT
//     (case-insensitive);
//   - categorized: true or false;
//   - categorization_status: repeatable and comma-separated;
//   - category: an account id, an exclusion type or a stable name;
//   - amount_min, amount_max: whole cents ≥ 0, min ≤ max;
//   - q (≤ 200 characters), reference_number;
//   - tag_key and tag_values (repeatable and comma-separated; values
//     need a key);
//   - bank_account_ids (uuids), source_account_ids: repeatable and
//     comma-separated, at most 100 each;
//   - external_account_id: a uuid;
//   - include_archived: true or false (also 1 or 0), default false.
//
// An empty value is the same as an absent parameter; a single-valued
// parameter given twice is refused. Every bad value is named in one 400
// InvalidParameters (error_enum InvalidFilter, meta.fields by parameter).
func ParseFilter(q url.Values) (Filter, error) {
	v := apperr.NewViolations(apperr.InvalidParameters)
	var f Filter
	one := func(name string) string {
		vals := nonEmpty(q[name])
		if len(vals) > 1 {
			v.Add(name, EnumInvalidFilter, "must be given at most once")
			return ""
		}
		if len(vals) == 0 {
			return ""
		}
		return vals[0]
	}
	list := func(name string) []string {
		var out []string
		for _, raw := range q[name] {
			out = append(out, nonEmpty(strings.Split(raw, ","))...)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}

	if s := one("start_date"); s != "" {
		if t, err := ParseDate(s); err != nil {
			v.Add("start_date", EnumInvalidFilter, err.Error())
		} else {
			f.Start = &t
		}
	}
	if s := one("end_date"); s != "" {
		if t, err := ParseDate(s); err != nil {
			v.Add("end_date", EnumInvalidFilter, err.Error())
		} else {
			end := t.Truncate(time.Microsecond).Add(time.Microsecond)
			if len(s) == len(time.DateOnly) {
				end = t.AddDate(0, 0, 1)
			}
			f.End = &end
		}
	}
	if f.Start != nil && f.End != nil && !f.Start.Before(*f.End) {
		v.Add("end_date", EnumInvalidFilter, "must not be before start_date")
	}
	if s := one("direction"); s != "" {
		if d, ok := ParseDirection(strings.ToUpper(s)); ok {
			f.Direction = &d
		} else {
			v.Add("direction", EnumInvalidFilter, "must be "+directionChoices)
		}
	}
	if s := one("categorized"); s != "" {
		switch strings.ToLower(s) {
		case "true":
			f.Categorized = ptrTo(true)
		case "false":
			f.Categorized = ptrTo(false)
		default:
			v.Add("categorized", EnumInvalidFilter, "must be true or false")
		}
	}
	if ss := list("categorization_status"); len(ss) > 0 {
		for _, s := range ss {
			st := CategorizationStatus(strings.ToUpper(s))
			if !st.Valid() {
				v.Add("categorization_status", EnumInvalidFilter, "each must be one of "+choices(CategorizationStatuses))
				break
			}
			f.Statuses = append(f.Statuses, st)
		}
		slices.Sort(f.Statuses)
		f.Statuses = slices.Compact(f.Statuses)
	}
	if s := one("category"); s != "" {
		if c, reason := parseCategoryFilter(s); reason != "" {
			v.Add("category", EnumInvalidFilter, reason)
		} else {
			f.Category = &c
		}
	}
	f.AmountMin = parseAmountFilter(one("amount_min"), "amount_min", v)
	f.AmountMax = parseAmountFilter(one("amount_max"), "amount_max", v)
	if f.AmountMin != nil && f.AmountMax != nil && *f.AmountMin > *f.AmountMax {
		v.Add("amount_max", EnumInvalidFilter, "must not be less than amount_min")
	}
	if s := one("q"); s != "" {
		if reason := checkText(s, textRule{max: MaxQueryLength}); reason != "" {
			v.Add("q", EnumInvalidFilter, reason)
		} else {
			f.Query = s
		}
	}
	if s := one("reference_number"); s != "" {
		if reason := checkText(s, textRule{max: MaxReferenceNumberLength}); reason != "" {
			v.Add("reference_number", EnumInvalidFilter, reason)
		} else {
			f.ReferenceNumber = s
		}
	}
	if s := one("tag_key"); s != "" {
		if k, err := tags.NormalizeKey(s); err != nil {
			v.Add("tag_key", EnumInvalidFilter, err.Error())
		} else {
			f.TagKey = k
		}
	}
	if vals := list("tag_values"); len(vals) > 0 {
		switch {
		case len(nonEmpty(q["tag_key"])) == 0:
			v.Add("tag_values", EnumInvalidFilter, "needs tag_key")
		case len(vals) > MaxFilterTagValues:
			v.Add("tag_values", EnumInvalidFilter, fmt.Sprintf("at most %d values", MaxFilterTagValues))
		default:
			for _, s := range vals {
				val, err := tags.NormalizeValue(s)
				if err != nil {
					v.Add("tag_values", EnumInvalidFilter, err.Error())
					break
				}
				f.TagValues = append(f.TagValues, val)
			}
			slices.Sort(f.TagValues)
			f.TagValues = slices.Compact(f.TagValues)
		}
	}
	if ids := list("bank_account_ids"); len(ids) > 0 {
		if len(ids) > MaxFilterIDs {
			v.Add("bank_account_ids", EnumInvalidFilter, fmt.Sprintf("at most %d ids", MaxFilterIDs))
		}
		for _, s := range ids {
			id, ok := parseUUID(s)
			if !ok {
				v.Add("bank_account_ids", EnumInvalidFilter, "each must be a UUID")
				break
			}
			f.BankAccountIDs = append(f.BankAccountIDs, id)
		}
		slices.SortFunc(f.BankAccountIDs, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
		f.BankAccountIDs = slices.Compact(f.BankAccountIDs)
	}
	if ids := list("source_account_ids"); len(ids) > 0 {
		if len(ids) > MaxFilterIDs {
			v.Add("source_account_ids", EnumInvalidFilter, fmt.Sprintf("at most %d ids", MaxFilterIDs))
		}
		for _, s := range ids {
			if reason := checkText(s, textRule{max: MaxExternalIDLength}); reason != "" {
				v.Add("source_account_ids", EnumInvalidFilter, reason)
				break
			}
		}
		f.SourceAccountIDs = ids
	}
	if s := one("external_account_id"); s != "" {
		if id, ok := parseUUID(s); ok {
			f.ExternalAccountID = &id
		} else {
			v.Add("external_account_id", EnumInvalidFilter, "must be a UUID")
		}
	}
	if s := one("include_archived"); s != "" {
		switch strings.ToLower(s) {
		case "true", "1":
			f.IncludeArchived = true
		case "false", "0":
		default:
			v.Add("include_archived", EnumInvalidFilter, "must be true or false")
		}
	}
	if err := v.Err(); err != nil {
		return Filter{}, err
	}
	return f, nil
}

func ptrTo[T any](v T) *T { return &v }

// nonEmpty trims the values and drops the empty ones.
func nonEmpty(vals []string) []string {
	out := make([]string, 0, len(vals))
	for _, s := range vals {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// parseUUID accepts only the canonical 36-character form.
func parseUUID(s string) (uuid.UUID, bool) {
	id, err := uuid.Parse(s)
	return id, err == nil && len(s) == 36
}

// parseCategoryFilter reads a category filter: an account id, an
// exclusion type, or a stable name.
func parseCategoryFilter(s string) (Classification, string) {
	if id, ok := parseUUID(s); ok {
		return AccountIDClassification(id), ""
	}
	if x := ExclusionType(s); x.Valid() {
		return ExclusionClassification(x), ""
	}
	if reason := checkStableName(s); reason != "" {
		return Classification{}, "must be an account id, an exclusion type or a stable name: " + reason
	}
	return StableNameClassification(s), ""
}

func parseAmountFilter(s, name string, v *apperr.Violations) *money.Cents {
	if s == "" {
		return nil
	}
	c, err := money.ParseCents(s)
	if err != nil || c < 0 {
		v.Add(name, EnumInvalidFilter, "must be a whole number of cents, at least 0")
		return nil
	}
	return &c
}

// Canonical is the filter as one deterministic string: the same for every
// query meaning the same filter (parameter order, repeats, duplicates,
// synonyms such as OUTFLOW for DEBIT and case do not matter), different
// for filters that select differently.
func (f Filter) Canonical() string {
	q := url.Values{}
	setTime := func(k string, t *time.Time) {
		if t != nil {
			q.Set(k, t.UTC().Format(time.RFC3339Nano))
		}
	}
	setTime("start", f.Start)
	setTime("end", f.End)
	if f.Direction != nil {
		q.Set("direction", string(*f.Direction))
	}
	if f.Categorized != nil {
		q.Set("categorized", fmt.Sprint(*f.Categorized))
	}
	for _, s := range f.Statuses {
		q.Add("status", string(s))
	}
	if f.Category != nil {
		q.Set("category", f.Category.Key())
	}
	if f.AmountMin != nil {
		q.Set("amount_min", fmt.Sprint(int64(*f.AmountMin)))
	}
	if f.AmountMax != nil {
		q.Set("amount_max", fmt.Sprint(int64(*f.AmountMax)))
	}
	if f.Query != "" {
		q.Set("q", f.Query)
	}
	if f.ReferenceNumber != "" {
		q.Set("reference_number", f.ReferenceNumber)
	}
	if f.TagKey != "" {
		q.Set("tag_key", f.TagKey)
	}
	for _, s := range f.TagValues {
		q.Add("tag_value", s)
	}
	for _, id := range f.BankAccountIDs {
		q.Add("bank_account_id", id.String())
	}
	for _, s := range f.SourceAccountIDs {
		q.Add("source_account_id", s)
	}
	if f.ExternalAccountID != nil {
		q.Set("external_account_id", f.ExternalAccountID.String())
	}
	if f.IncludeArchived {
		q.Set("include_archived", "true")
	}
	return "v1?" + q.Encode()
}

// Fingerprint is a short digest of Canonical (32 hex digits) to bind a
// pagination cursor to the filter it was issued for: a cursor presented
// with another filter is refused instead of paging through the wrong set.
func (f Filter) Fingerprint() string {
	sum := sha256.Sum256([]byte(f.Canonical()))
	return hex.EncodeToString(sum[:16])
}
