package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// MaxSearchLength bounds q.
const MaxSearchLength = 200

// MaxFilterVehicles bounds vehicle_ids.
const MaxFilterVehicles = 100

// TripFilter selects trips for GET /mileage/trips and GET /mileage/summary.
// Zero fields do not filter; all conditions hold together.
type TripFilter struct {
	// IncludeDeleted counts deleted trips too.
	IncludeDeleted bool
	// Purposes keeps trips of these purposes (sorted, distinct).
	Purposes []Purpose
	// VehicleIDs keeps trips of these vehicles (sorted, distinct).
	VehicleIDs []uuid.UUID
	// From and To bound trip_date, both included (Year narrows them).
	From, To Date
	// Query (trips only) is a case-insensitive substring of the
	// description, the addresses or the external id.
	Query string
}

// ParseTripFilter reads the filters of GET /mileage/trips (withQuery) or
// GET /mileage/summary from a query string (pagination parameters and
// unknown ones are left alone):
//
//   - include_deleted: true or false (1 or 0);
//   - purpose: UNREVIEWED, BUSINESS or PERSONAL, repeatable (a comma list
//     is accepted too);
//   - vehicle_ids: comma-separated vehicle ids (repeatable), at most 100;
//   - start_date, end_date: YYYY-MM-DD, both included; start after end is
//     refused;
//   - year: 1000 to 9999, intersected with start_date and end_date;
//   - q (trips only): a case-insensitive substring, ≤ 200 characters.
//
// Every bad value is named in one 400 InvalidParameters (InvalidFilter).
func ParseTripFilter(q url.Values, withQuery bool) (TripFilter, error) {
	v := apperr.NewViolations(apperr.InvalidParameters)
	one := func(name string) string {
		var vals []string
		for _, s := range q[name] {
			if s = strings.TrimSpace(s); s != "" {
				vals = append(vals, s)
			}
		}
		if len(vals) > 1 {
			v.Add(name, EnumInvalidFilter, "must be given at most once")
			return ""
		}
		if len(vals) == 1 {
			return vals[0]
		}
		return ""
	}
	list := func(name string) []string {
		var out []string
		for _, s := range q[name] {
			for _, part := range strings.Split(s, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
		}
		return out
	}
	var f TripFilter
	for _, name := range []string{"include_deleted", "allow_deleted"} {
		if s := one(name); s != "" {
			switch strings.ToLower(s) {
			case "true", "1":
				f.IncludeDeleted = true
			case "false", "0":
			default:
				v.Add(name, EnumInvalidFilter, "must be true or false")
			}
		}
	}
	for _, s := range list("purpose") {
		p := Purpose(strings.ToUpper(s))
		if !p.Valid() {
			v.Add("purpose", EnumInvalidFilter, "must be UNREVIEWED, BUSINESS or PERSONAL (repeat the parameter for several)")
			break
		}
		if !slices.Contains(f.Purposes, p) {
			f.Purposes = append(f.Purposes, p)
		}
	}
	slices.Sort(f.Purposes)
	for _, s := range list("vehicle_ids") {
		id, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			v.Add("vehicle_ids", EnumInvalidFilter, "must be comma-separated vehicle ids (UUIDs)")
			break
		}
		if !slices.Contains(f.VehicleIDs, id) {
			f.VehicleIDs = append(f.VehicleIDs, id)
		}
	}
	if len(f.VehicleIDs) > MaxFilterVehicles {
		v.Add("vehicle_ids", EnumInvalidFilter, fmt.Sprintf("must name at most %d vehicles", MaxFilterVehicles))
	}
	slices.SortFunc(f.VehicleIDs, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	date := func(name string) Date {
		s := one(name)
		if s == "" {
			return Date{}
		}
		d, ok := ParseDate(s)
		if !ok {
			v.Add(name, EnumInvalidFilter, "must be a date YYYY-MM-DD")
		}
		return d
	}
	f.From, f.To = date("start_date"), date("end_date")
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		v.Add("end_date", EnumInvalidFilter, "must not be before start_date")
	}
	if s := one("year"); s != "" {
		y, err := strconv.Atoi(s)
		if err != nil || y < 1000 || y > 9999 {
			v.Add("year", EnumInvalidFilter, "must be a year such as 2024")
		} else {
			first, last := MustDate(fmt.Sprintf("%04d-01-01", y)), MustDate(fmt.Sprintf("%04d-12-31", y))
			if f.From.IsZero() || f.From.Before(first) {
				f.From = first
			}
			if f.To.IsZero() || last.Before(f.To) {
				f.To = last
			}
		}
	}
	if withQuery {
		if s := one("q"); s != "" {
			if reason := checkText(s, MaxSearchLength, false); reason != "" {
				v.Add("q", EnumInvalidFilter, reason)
			} else {
				f.Query = s
			}
		}
	}
	if err := v.Err(); err != nil {
		return TripFilter{}, err
	}
	return f, nil
}

// Empty reports a filter that selects nothing (a year outside the dates).
func (f TripFilter) Empty() bool {
	return !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From)
}

// Matches reports whether t passes f (the naive form of the SQL filter,
// for tests and checks).
func (f TripFilter) Matches(t Trip) bool {
	if t.DeletedAt != nil && !f.IncludeDeleted {
		return false
	}
	if len(f.Purposes) > 0 && !slices.Contains(f.Purposes, t.Purpose) {
		return false
	}
	if len(f.VehicleIDs) > 0 && !slices.Contains(f.VehicleIDs, t.VehicleID) {
		return false
	}
	if !f.From.IsZero() && t.TripDate.Before(f.From) {
		return false
	}
	if !f.To.IsZero() && f.To.Before(t.TripDate) {
		return false
	}
	if f.Query != "" {
		q := strings.ToLower(f.Query)
		hit := false
		for _, s := range []*string{t.Description, t.StartAddress, t.EndAddress, t.ExternalID} {
			if s != nil && strings.Contains(strings.ToLower(*s), q) {
				hit = true
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// Fingerprint binds a pagination cursor to the filter it was issued for.
func (f TripFilter) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "v1|%t|%v|%v|%s|%s|%s", f.IncludeDeleted, f.Purposes, f.VehicleIDs, f.From, f.To, f.Query)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:16])
}

// VehicleFilter is the filter of GET /mileage/vehicles.
type VehicleFilter struct {
	IncludeArchived bool
	IncludeDeleted  bool
}

// ParseVehicleFilter reads allow_archived and allow_deleted (the real
// product's names) or include_archived and include_deleted: true or false
// (1 or 0). Either name of a pair set to true includes.
func ParseVehicleFilter(q url.Values) (VehicleFilter, error) {
	v := apperr.NewViolations(apperr.InvalidParameters)
	flag := func(names ...string) bool {
		on := false
		for _, name := range names {
			vals := q[name]
			if len(vals) > 1 {
				v.Add(name, EnumInvalidFilter, "must be given at most once")
				continue
			}
			if len(vals) == 0 || strings.TrimSpace(vals[0]) == "" {
				continue
			}
			switch strings.ToLower(strings.TrimSpace(vals[0])) {
			case "true", "1":
				on = true
			case "false", "0":
			default:
				v.Add(name, EnumInvalidFilter, "must be true or false")
			}
		}
		return on
	}
	f := VehicleFilter{
		IncludeArchived: flag("allow_archived", "include_archived"),
		IncludeDeleted:  flag("allow_deleted", "include_deleted"),
	}
	if err := v.Err(); err != nil {
		return VehicleFilter{}, err
	}
	return f, nil
}
