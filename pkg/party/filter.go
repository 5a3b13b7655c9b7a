package party

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/page"
)

// MaxSearchLength bounds q, name_contains and external_id_contains.
const MaxSearchLength = 200

// EnumInvalidFilter is the error_enum of an invalid listing query
// parameter.
const EnumInvalidFilter = "InvalidFilter"

// Filter is the listing filter of GET /customers and GET /vendors, parsed
// and normalised (text trimmed), so that two requests meaning the same
// thing have the same Canonical form. Zero fields do not filter; all
// conditions must hold.
type Filter struct {
	// IncludeArchived lists ARCHIVED ones too (ACTIVE only otherwise).
	IncludeArchived bool
	// ExternalID matches the external id exactly.
	ExternalID string
	// ExternalIDContains matches a case-insensitive substring of the
	// external id.
	ExternalIDContains string
	// Name matches individual_name or company_name exactly.
	Name string
	// NameContains matches a case-insensitive substring of individual_name
	// or company_name.
	NameContains string
	// Query (the SDK's `q`) matches a case-insensitive substring of
	// individual_name, company_name, email or external_id.
	Query string
}

// ParseFilter reads the listing filters from a query string
// (pagination parameters and unknown ones are left alone):
//
//   - include_archived: true or false (also 1 or 0; case-insensitive);
//     default false;
//   - external_id, name: exact (≤ 255 characters);
//   - external_id_contains, name_contains, q: case-insensitive substrings
//     (≤ 200 characters); q searches the names, the email and the
//     external id;
//   - identity_status: sent by the client SDK (IDENTIFIED); accepted with
//     any value and ignored: every counterparty here is identified.
//
// Values are trimmed; an empty value is the same as an absent parameter;
// a parameter given twice is refused. Every bad value is named in one 400
// InvalidParameters (error_enum InvalidFilter, meta.fields by parameter).
func ParseFilter(q url.Values) (Filter, error) {
	v := apperr.NewViolations(apperr.InvalidParameters)
	one := func(name string) string {
		var vals []string
		for _, s := range q[name] {
			if s = strings.TrimSpace(s); s != "" {
				vals = append(vals, s)
			}
		}
		switch len(vals) {
		case 0:
			return ""
		case 1:
			return vals[0]
		}
		v.Add(name, EnumInvalidFilter, "must be given at most once")
		return ""
	}
	text := func(name string, max int) string {
		s := one(name)
		if s == "" {
			return ""
		}
		if reason := checkText(s, textRule{max: max}); reason != "" {
			v.Add(name, EnumInvalidFilter, reason)
			return ""
		}
		return s
	}
	var f Filter
	if s := one("include_archived"); s != "" {
		switch strings.ToLower(s) {
		case "true", "1":
			f.IncludeArchived = true
		case "false", "0":
		default:
			v.Add("include_archived", EnumInvalidFilter, "must be true or false")
		}
	}
	f.ExternalID = text("external_id", MaxExternalIDLength)
	f.ExternalIDContains = text("external_id_contains", MaxSearchLength)
	f.Name = text("name", MaxNameLength)
	f.NameContains = text("name_contains", MaxSearchLength)
	f.Query = text("q", MaxSearchLength)
	if err := v.Err(); err != nil {
		return Filter{}, err
	}
	return f, nil
}

// Canonical is the filter as one deterministic string: the same for every
// query meaning the same filter, different for filters that select
// differently.
func (f Filter) Canonical() string {
	q := url.Values{}
	q.Set("include_archived", strconv.FormatBool(f.IncludeArchived))
	for k, s := range map[string]string{
		"external_id": f.ExternalID, "external_id_contains": f.ExternalIDContains,
		"name": f.Name, "name_contains": f.NameContains, "q": f.Query,
	} {
		if s != "" {
			q.Set(k, s)
		}
	}
	return "v1?" + q.Encode() // Encode sorts by key
}

// Fingerprint is a short digest of Canonical to bind a pagination cursor
// to the filter it was issued for: a cursor presented with another filter
// is refused instead of paging through the wrong set.
func (f Filter) Fingerprint() string {
	sum := sha256.Sum256([]byte(f.Canonical()))
	return hex.EncodeToString(sum[:16])
}

// PageSpec is the pagination of a counterparty listing: sort_by name (the
// display name, case-insensitive), created_at or updated_at, each backed
// by a (business_id, key, id) index; name by default; limit default 100,
// at most 500. The columns are those of the tables of pkg/party/partybun
// (alias c).
var PageSpec = page.Spec{
	Keys: map[string]page.Key{
		"name":       {Column: "c.sort_name", Kind: page.KindString},
		"created_at": {Column: "c.created_at", Kind: page.KindTime},
		"updated_at": {Column: "c.updated_at", Kind: page.KindTime},
	},
	Default:      "name",
	DefaultLimit: 100,
	MaxLimit:     500,
}
