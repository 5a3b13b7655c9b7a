package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/tags"
)

// Purpose is a trip's purpose (the spec's closed enum).
type Purpose string

// The trip purposes.
const (
	PurposeUnreviewed Purpose = "UNREVIEWED"
	PurposeBusiness   Purpose = "BUSINESS"
	PurposePersonal   Purpose = "PERSONAL"
)

// Purposes are the purposes in their canonical order.
var Purposes = []Purpose{PurposeUnreviewed, PurposeBusiness, PurposePersonal}

// Valid reports whether p is a known purpose.
func (p Purpose) Valid() bool { return slices.Contains(Purposes, p) }

// MaxBulkTrips bounds POST /mileage/trips/bulk.
const MaxBulkTrips = 100

// Trip is one trip of a business in one of its vehicles. Trips are
// deleted softly (DeletedAt).
type Trip struct {
	ID           uuid.UUID
	BusinessID   uuid.UUID
	VehicleID    uuid.UUID
	ExternalID   *string
	Distance     Miles
	TripDate     Date
	Purpose      Purpose
	StartAddress *string
	EndAddress   *string
	Description  *string
	Tags         []tags.Tag // sorted by key, then value
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	DeletedAt    *time.Time
}

// Rate is the deduction rate in force on the trip's date (trips are
// accepted only on dates with a rate).
func (t Trip) Rate() Rate {
	r, _ := RateOn(t.TripDate)
	return r
}

// EstimatedDeduction is the trip's deduction in cents: its miles × the
// rate on its date, rounded half away from zero, for BUSINESS trips; 0
// otherwise.
func (t Trip) EstimatedDeduction() int64 {
	if t.Purpose != PurposeBusiness {
		return 0
	}
	return Deduction(t.Distance, t.Rate())
}

// TripPatch is a checked trip body: for a create every required property is
// Set; for a patch absent properties stay unchanged.
type TripPatch struct {
	VehicleID    Optional[uuid.UUID]
	ExternalID   Nullable[string]
	Distance     Optional[Miles]
	TripDate     Optional[Date]
	Purpose      Optional[Purpose]
	StartAddress Nullable[string]
	EndAddress   Nullable[string]
	Description  Nullable[string]
	Tags         Optional[[]tags.KeyValue]
}

var tripProperties = []string{"vehicle_id", "external_id", "distance", "trip_date", "purpose", "start_address",
	"end_address", "description", "tags"}

func tripFields(r *reader) TripPatch {
	var p TripPatch
	if raw, ok := r.raw("vehicle_id"); ok {
		s, isString := jsonraw.String(raw)
		id, err := uuid.Parse(strings.TrimSpace(s))
		if !isString || err != nil || len(strings.TrimSpace(s)) != 36 {
			r.add("vehicle_id", "must be a vehicle id (a UUID)")
		} else {
			p.VehicleID = Optional[uuid.UUID]{Set: true, Value: id}
		}
	}
	p.ExternalID = r.text("external_id", MaxExternalIDLength, false)
	if raw, ok := r.raw("distance"); ok {
		if m, reason := parseJSONMiles(raw); reason != "" {
			r.add("distance", reason)
		} else {
			p.Distance = Optional[Miles]{Set: true, Value: m}
		}
	}
	if raw, ok := r.raw("trip_date"); ok {
		s, isString := jsonraw.String(raw)
		d, valid := ParseDate(strings.TrimSpace(s))
		switch {
		case !isString || !valid:
			r.add("trip_date", "must be a date YYYY-MM-DD")
		case d.Before(FirstRateDate()):
			r.add("trip_date", fmt.Sprintf("must be on or after %s: no deduction rate before it", FirstRateDate()))
		default:
			p.TripDate = Optional[Date]{Set: true, Value: d}
		}
	}
	if raw, ok := r.raw("purpose"); ok {
		s, isString := jsonraw.String(raw)
		pu := Purpose(strings.ToUpper(strings.TrimSpace(s)))
		if !isString || !pu.Valid() {
			r.add("purpose", "must be UNREVIEWED, BUSINESS or PERSONAL")
		} else {
			p.Purpose = Optional[Purpose]{Set: true, Value: pu}
		}
	}
	p.StartAddress = r.text("start_address", MaxAddressLength, true)
	p.EndAddress = r.text("end_address", MaxAddressLength, true)
	p.Description = r.text("description", MaxDescriptionLength, true)
	p.Tags = r.tagList("tags")
	return p
}

// parseTripInput reads one create body into v under prefix.
func parseTripInput(raw []byte, v *apperr.Violations, prefix string) TripPatch {
	r, ok := newReader(raw, tripProperties, v, prefix, EnumInvalidTrip)
	if !ok {
		v.Add(strings.TrimSuffix(prefix, ".")+orBody(prefix), EnumInvalidTrip, "must be a JSON object")
		return TripPatch{}
	}
	p := tripFields(r)
	for _, req := range []struct {
		name string
		set  bool
	}{{"vehicle_id", p.VehicleID.Set}, {"distance", p.Distance.Set}, {"trip_date", p.TripDate.Set}} {
		if !req.set && !v.Has(prefix+req.name) {
			r.add(req.name, "is required")
		}
	}
	if !p.Purpose.Set {
		p.Purpose = Optional[Purpose]{Set: true, Value: PurposeUnreviewed}
	}
	return p
}

func orBody(prefix string) string {
	if prefix == "" {
		return "body"
	}
	return ""
}

// ParseTripInput reads a POST /mileage/trips body: vehicle_id (required),
// distance (required: a decimal string of miles, or a JSON number; > 0,
// ≤ 100000, at most 2 decimals), trip_date (required YYYY-MM-DD, on or
// after the first rate's date), purpose (UNREVIEWED, BUSINESS or PERSONAL;
// default UNREVIEWED), external_id (≤ 255), start_address and end_address
// (≤ 1000), description (≤ 2000), tags (pkg/tags). Unknown properties are
// refused. Every violation is named in one 400 InvalidPayload
// (InvalidTrip). Whether the vehicle exists and is active is the use
// case's check.
func ParseTripInput(raw []byte) (TripPatch, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	p := parseTripInput(raw, v, "")
	if err := v.Err(); err != nil {
		return TripPatch{}, err
	}
	return p, nil
}

// ParseBulkTrips reads a POST /mileage/trips/bulk body {trips: [...]}: 1
// to MaxBulkTrips trip bodies, each as ParseTripInput; violations are
// named trips[i].field, all in one 400. Two trips with one external_id
// are refused.
func ParseBulkTrips(raw []byte) ([]TripPatch, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	r, ok := newReader(raw, []string{"trips"}, v, "", EnumInvalidTrip)
	if !ok {
		return nil, notObject(EnumInvalidTrip)
	}
	var items []json.RawMessage
	list, sent := r.raw("trips")
	switch {
	case !sent:
		r.add("trips", "is required: an array of 1 to 100 trips")
	case json.Unmarshal(list, &items) != nil || !strings.HasPrefix(strings.TrimSpace(string(list)), "["):
		r.add("trips", "must be an array of 1 to 100 trips")
	case len(items) == 0 || len(items) > MaxBulkTrips:
		r.add("trips", fmt.Sprintf("must hold 1 to %d trips, got %d", MaxBulkTrips, len(items)))
	}
	if v.Any() {
		return nil, v.Err()
	}
	out := make([]TripPatch, len(items))
	seen := map[string]int{}
	for i, item := range items {
		prefix := fmt.Sprintf("trips[%d].", i)
		out[i] = parseTripInput(item, v, prefix)
		if x := out[i].ExternalID; x.Set && !x.Null {
			if j, dup := seen[x.Value]; dup {
				v.Add(prefix+"external_id", EnumInvalidTrip, fmt.Sprintf("repeats trips[%d].external_id", j))
			}
			seen[x.Value] = i
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ParseTripPatch reads a PATCH /mileage/trips/{id} body: the create's
// properties, all optional (vehicle_id, distance, trip_date, purpose and
// tags not null; tags replaces the set). An empty object changes nothing.
func ParseTripPatch(raw []byte) (TripPatch, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	r, ok := newReader(raw, tripProperties, v, "", EnumInvalidTrip)
	if !ok {
		return TripPatch{}, notObject(EnumInvalidTrip)
	}
	p := tripFields(r)
	if err := v.Err(); err != nil {
		return TripPatch{}, err
	}
	return p, nil
}

// NewTrip is the trip id of businessID created from a checked create body.
func NewTrip(businessID, id uuid.UUID, in TripPatch, now time.Time) Trip {
	t := Trip{
		ID: id, BusinessID: businessID, VehicleID: in.VehicleID.Value, ExternalID: ptr(in.ExternalID),
		Distance: in.Distance.Value, TripDate: in.TripDate.Value, Purpose: in.Purpose.Value,
		StartAddress: ptr(in.StartAddress), EndAddress: ptr(in.EndAddress), Description: ptr(in.Description),
		Version: 1, CreatedAt: now, UpdatedAt: now,
	}
	if t.Purpose == "" {
		t.Purpose = PurposeUnreviewed
	}
	t.Tags = tagSet(t, nil, in.Tags.Value, now)
	return t
}

// tagSet is the trip's tags for kvs: a tag it already has keeps its
// creation time and display names.
func tagSet(t Trip, existing []tags.Tag, kvs []tags.KeyValue, now time.Time) []tags.Tag {
	out := make([]tags.Tag, 0, len(kvs))
	for _, kv := range kvs {
		tg := tags.NewTag(t.BusinessID, t.ID, kv, now)
		if i := slices.IndexFunc(existing, func(e tags.Tag) bool { return e.ID == tg.ID }); i >= 0 {
			tg = existing[i]
		}
		out = append(out, tg)
	}
	slices.SortFunc(out, func(a, b tags.Tag) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out
}

// Apply returns t changed by p at now and whether anything changed.
func (t Trip) Apply(p TripPatch, now time.Time) (Trip, bool) {
	next := t
	if p.VehicleID.Set {
		next.VehicleID = p.VehicleID.Value
	}
	set(&next.ExternalID, p.ExternalID)
	if p.Distance.Set {
		next.Distance = p.Distance.Value
	}
	if p.TripDate.Set {
		next.TripDate = p.TripDate.Value
	}
	if p.Purpose.Set {
		next.Purpose = p.Purpose.Value
	}
	set(&next.StartAddress, p.StartAddress)
	set(&next.EndAddress, p.EndAddress)
	set(&next.Description, p.Description)
	if p.Tags.Set {
		next.Tags = tagSet(t, t.Tags, p.Tags.Value, now)
	}
	same := next.VehicleID == t.VehicleID && eqStr(next.ExternalID, t.ExternalID) && next.Distance == t.Distance &&
		next.TripDate == t.TripDate && next.Purpose == t.Purpose && eqStr(next.StartAddress, t.StartAddress) &&
		eqStr(next.EndAddress, t.EndAddress) && eqStr(next.Description, t.Description) &&
		slices.EqualFunc(next.Tags, t.Tags, func(a, b tags.Tag) bool { return a.ID == b.ID })
	if same {
		return t, false
	}
	next.Version = t.Version + 1
	next.UpdatedAt = now
	return next, true
}

// Delete marks t deleted at now.
func (t Trip) Delete(now time.Time) Trip {
	next := t
	at := now
	next.DeletedAt = &at
	next.Version = t.Version + 1
	next.UpdatedAt = now
	return next
}
