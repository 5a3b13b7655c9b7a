package bill

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
)

// EnumInvalidFilter: a listing query parameter is invalid.
const EnumInvalidFilter = "InvalidFilter"

// Filter is GET /bills's filter; zero fields do not filter.
type Filter struct {
	Statuses         []Status // any of them (sorted, distinct)
	VendorID         *uuid.UUID
	VendorExternalID string
	ReceivedStart    *time.Time // received_at ≥
	ReceivedEnd      *time.Time // received_at ≤
	DueStart         *time.Time
	DueEnd           *time.Time
	ReferenceNumber  string
}

// ParseFilter reads the listing filters: status (a comma list, repeatable,
// of RECEIVED, PARTIALLY_PAID, PAID, VOIDED), vendor_id, vendor_external_id,
// received_at_start/_end and due_at_start/_end (ISO 8601 date-times or
// dates; an end date means the whole day), reference_number (exact). Every
// bad value is named in one 400 InvalidParameters (InvalidFilter).
func ParseFilter(q url.Values) (Filter, error) {
	bad := map[string]string{}
	var f Filter
	for _, v := range q["status"] {
		for _, s := range strings.Split(v, ",") {
			if strings.TrimSpace(s) == "" {
				continue
			}
			st, ok := ParseStatus(s)
			if !ok {
				bad["status"] = "each must be RECEIVED, PARTIALLY_PAID, PAID or VOIDED"
				continue
			}
			if !slices.Contains(f.Statuses, st) {
				f.Statuses = append(f.Statuses, st)
			}
		}
	}
	slices.Sort(f.Statuses)
	if s := strings.TrimSpace(q.Get("vendor_id")); s != "" {
		id, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			bad["vendor_id"] = "must be a uuid"
		} else {
			f.VendorID = &id
		}
	}
	f.VendorExternalID = strings.TrimSpace(q.Get("vendor_external_id"))
	f.ReferenceNumber = strings.TrimSpace(q.Get("reference_number"))
	for k, s := range map[string]string{"vendor_external_id": f.VendorExternalID, "reference_number": f.ReferenceNumber} {
		if len([]rune(s)) > 255 {
			bad[k] = "at most 255 characters"
		}
	}
	date := func(name string, end bool) *time.Time {
		s := strings.TrimSpace(q.Get(name))
		if s == "" {
			return nil
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			t = t.UTC()
			return &t
		}
		if d, err := time.Parse(time.DateOnly, s); err == nil {
			if end {
				d = d.Add(24*time.Hour - time.Microsecond)
			}
			return &d
		}
		bad[name] = "must be an ISO 8601 date-time or a date (YYYY-MM-DD)"
		return nil
	}
	f.ReceivedStart, f.ReceivedEnd = date("received_at_start", false), date("received_at_end", true)
	f.DueStart, f.DueEnd = date("due_at_start", false), date("due_at_end", true)
	if f.ReceivedStart != nil && f.ReceivedEnd != nil && f.ReceivedEnd.Before(*f.ReceivedStart) {
		bad["received_at_end"] = "must not be before received_at_start"
	}
	if f.DueStart != nil && f.DueEnd != nil && f.DueEnd.Before(*f.DueStart) {
		bad["due_at_end"] = "must not be before due_at_start"
	}
	if len(bad) > 0 {
		return Filter{}, apperr.FieldErrors(apperr.InvalidParameters, bad).WithEnum(EnumInvalidFilter)
	}
	return f, nil
}

// Fingerprint binds a cursor to the filter it was issued for.
func (f Filter) Fingerprint() string {
	ts := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.Format(time.RFC3339Nano)
	}
	vid := ""
	if f.VendorID != nil {
		vid = f.VendorID.String()
	}
	s := fmt.Sprintf("v1|%v|%s|%s|%s|%s|%s|%s|%s", f.Statuses, vid, f.VendorExternalID, ts(f.ReceivedStart), ts(f.ReceivedEnd),
		ts(f.DueStart), ts(f.DueEnd), f.ReferenceNumber)
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
