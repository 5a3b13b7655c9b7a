package domain

import (
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
)

// ParseMergeInput reads a POST /vendors/{id}/merge body:
// {"vendor_to_archive_id": uuid}, nothing else. The vendor named is merged
// into the one of the path; naming the path's vendor itself is refused.
func ParseMergeInput(raw []byte, keep uuid.UUID) (uuid.UUID, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	m, ok := vendors.ReadObject(raw, []string{"vendor_to_archive_id"}, v)
	if !ok {
		return uuid.Nil, apperr.FieldErrors(apperr.InvalidPayload, map[string]string{"body": "must be a JSON object"}).
			WithEnum(EnumInvalidMerge)
	}
	var id uuid.UUID
	s, isString := jsonraw.String(m["vendor_to_archive_id"])
	switch parsed, err := uuid.Parse(s); {
	case !isString || err != nil || len(s) != 36:
		v.Add("vendor_to_archive_id", EnumInvalidMerge, "a vendor id (uuid) is required")
	case parsed == keep:
		v.Add("vendor_to_archive_id", EnumInvalidMerge, "a vendor cannot be merged into itself")
	default:
		id = parsed
	}
	if err := v.Err(); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// MergeInto is v merged into the vendor into at now: ARCHIVED (archived_at
// kept when it was archived already) with MergedIntoID set. Merging again
// into the same vendor changes nothing.
func (v Vendor) MergeInto(into uuid.UUID, now time.Time) (Vendor, bool) {
	if v.MergedIntoID != nil && *v.MergedIntoID == into {
		return v, false
	}
	next := v
	next.MergedIntoID = &into
	if next.Status != StatusArchived {
		next.Status = StatusArchived
		at := now
		next.ArchivedAt = &at
	}
	next.Version = v.Version + 1
	next.UpdatedAt = now
	return next, true
}
