package receipt

import (
	"net/url"
	"slices"
	"strings"

	"github.com/acctsuite/acct/pkg/apperr"
)

// EnumInvalidFilter: a listing query parameter is invalid (as for bills).
const EnumInvalidFilter = "InvalidFilter"

// Filter is GET /receipts's filter; zero fields do not filter.
type Filter struct {
	Statuses []Status // any of them (sorted, distinct)
}

// ParseFilter reads `status`: a comma list, repeatable, of the statuses.
// A bad value is 400 InvalidParameters (InvalidFilter).
func ParseFilter(q url.Values) (Filter, error) {
	var f Filter
	for _, v := range q["status"] {
		for _, s := range strings.Split(v, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			st, ok := ParseStatus(s)
			if !ok {
				return Filter{}, apperr.FieldErrors(apperr.InvalidParameters, map[string]string{
					"status": "each must be PROCESSING, READY_FOR_BILL, BILL_CREATED, REJECTED or FAILED",
				}).WithEnum(EnumInvalidFilter)
			}
			if !slices.Contains(f.Statuses, st) {
				f.Statuses = append(f.Statuses, st)
			}
		}
	}
	slices.Sort(f.Statuses)
	return f, nil
}

// Fingerprint identifies the filter inside a cursor.
func (f Filter) Fingerprint() string {
	s := make([]string, len(f.Statuses))
	for i, st := range f.Statuses {
		s[i] = string(st)
	}
	return "status=" + strings.Join(s, ",")
}
