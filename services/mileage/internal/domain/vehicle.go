package domain

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
)

// Bounds of a vehicle's model year.
const (
	MinVehicleYear = 1886 // the first automobile
	MaxVehicleYear = 2100
)

// Vehicle is one vehicle of a business. Text fields are nil when empty,
// never "". At most one vehicle of a business is primary; an archived or
// deleted vehicle never is. Vehicles are deleted softly (DeletedAt), and
// only while they have no (undeleted) trips and are not archived.
type Vehicle struct {
	ID           uuid.UUID
	BusinessID   uuid.UUID
	ExternalID   *string
	MakeAndModel string
	Year         *int
	LicensePlate *string
	VIN          *string
	Description  *string
	IsPrimary    bool
	// Version is 1 when created and grows by one with every change (the
	// vehicle.upserted snapshots carry it).
	Version    int
	CreatedAt  time.Time
	UpdatedAt  time.Time
	ArchivedAt *time.Time
	DeletedAt  *time.Time
	// HasTrips is read with the vehicle: whether undeleted trips use it.
	HasTrips bool
}

// EligibleForDeletion is the API's is_eligible_for_deletion: no trips, not
// archived (and not deleted already).
func (v Vehicle) EligibleForDeletion() bool {
	return !v.HasTrips && v.ArchivedAt == nil && v.DeletedAt == nil
}

// VehicleInput is a checked POST /mileage/vehicles body.
type VehicleInput struct {
	ExternalID   *string
	MakeAndModel string
	Year         *int
	LicensePlate *string
	VIN          *string
	Description  *string
	IsPrimary    bool
}

// VehiclePatch is a checked PATCH /mileage/vehicles/{id} body: absent
// properties stay unchanged, null (or blank) clears a nullable one.
type VehiclePatch struct {
	ExternalID   Nullable[string]
	MakeAndModel Optional[string]
	Year         Nullable[int]
	LicensePlate Nullable[string]
	VIN          Nullable[string]
	Description  Nullable[string]
	IsPrimary    Optional[bool]
}

var vehicleProperties = []string{"external_id", "make_and_model", "year", "license_plate", "vin", "description", "is_primary"}

// vehicleFields reads the properties common to create and patch.
func vehicleFields(r *reader) VehiclePatch {
	var p VehiclePatch
	p.ExternalID = r.text("external_id", MaxExternalIDLength, false)
	if mm := r.text("make_and_model", MaxMakeAndModelLength, false); mm.Set {
		if mm.Null {
			r.add("make_and_model", "is required: a non-blank string")
		} else {
			p.MakeAndModel = Optional[string]{Set: true, Value: mm.Value}
		}
	}
	if raw, ok := r.raw("year"); ok {
		p.Year = vehicleYear(raw, r)
	}
	p.LicensePlate = r.text("license_plate", MaxLicensePlateLength, false)
	if vin := r.text("vin", VINLength+10, false); vin.Set && !vin.Null {
		if s, reason := NormalizeVIN(vin.Value); reason != "" {
			r.add("vin", reason)
		} else {
			p.VIN = Nullable[string]{Set: true, Value: s}
		}
	} else {
		p.VIN = vin
	}
	p.Description = r.text("description", MaxDescriptionLength, true)
	p.IsPrimary = r.boolean("is_primary")
	return p
}

func vehicleYear(raw json.RawMessage, r *reader) Nullable[int] {
	if jsonraw.IsNull(raw) {
		return Nullable[int]{Set: true, Null: true}
	}
	var n json.Number
	if lit := strings.TrimSpace(string(raw)); lit == "" || lit[0] == '"' || json.Unmarshal(raw, &n) != nil {
		r.add("year", "must be an integer year or null")
		return Nullable[int]{}
	}
	y, err := n.Int64()
	if err != nil || y < MinVehicleYear || y > MaxVehicleYear {
		r.add("year", "must be an integer year from 1886 to 2100")
		return Nullable[int]{}
	}
	return Nullable[int]{Set: true, Value: int(y)}
}

// ParseVehicleInput reads a POST /mileage/vehicles body: make_and_model
// (required, ≤ 255 characters), year (integer 1886-2100), external_id
// (≤ 255), license_plate (≤ 32), vin (17 characters, check digit
// validated, upper-cased), description (≤ 2000, may span lines), all
// nullable; is_primary (boolean, default false). Unknown properties are
// refused. Every violation is named in one 400 InvalidPayload
// (InvalidVehicle).
func ParseVehicleInput(raw []byte) (VehicleInput, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	r, ok := newReader(raw, vehicleProperties, v, "", EnumInvalidVehicle)
	if !ok {
		return VehicleInput{}, notObject(EnumInvalidVehicle)
	}
	p := vehicleFields(r)
	if !p.MakeAndModel.Set && !v.Has("make_and_model") {
		r.add("make_and_model", "is required: a non-blank string")
	}
	if err := v.Err(); err != nil {
		return VehicleInput{}, err
	}
	in := VehicleInput{
		ExternalID: ptr(p.ExternalID), MakeAndModel: p.MakeAndModel.Value, LicensePlate: ptr(p.LicensePlate),
		VIN: ptr(p.VIN), Description: ptr(p.Description), IsPrimary: p.IsPrimary.Value,
	}
	if p.Year.Set && !p.Year.Null {
		y := p.Year.Value
		in.Year = &y
	}
	return in, nil
}

// ParseVehiclePatch reads a PATCH body: the create's properties, all
// optional (make_and_model and is_primary not null). An empty object
// changes nothing.
func ParseVehiclePatch(raw []byte) (VehiclePatch, error) {
	v := apperr.NewViolations(apperr.InvalidPayload)
	r, ok := newReader(raw, vehicleProperties, v, "", EnumInvalidVehicle)
	if !ok {
		return VehiclePatch{}, notObject(EnumInvalidVehicle)
	}
	p := vehicleFields(r)
	if err := v.Err(); err != nil {
		return VehiclePatch{}, err
	}
	return p, nil
}

// NewVehicle is the vehicle id of businessID created from in at now.
func NewVehicle(businessID, id uuid.UUID, in VehicleInput, now time.Time) Vehicle {
	return Vehicle{
		ID: id, BusinessID: businessID, ExternalID: in.ExternalID, MakeAndModel: in.MakeAndModel, Year: in.Year,
		LicensePlate: in.LicensePlate, VIN: in.VIN, Description: in.Description, IsPrimary: in.IsPrimary,
		Version: 1, CreatedAt: now, UpdatedAt: now,
	}
}

// Apply returns v changed by p at now and whether anything changed.
// Making an archived vehicle primary is a 409 (VehicleArchived).
func (v Vehicle) Apply(p VehiclePatch, now time.Time) (Vehicle, bool, error) {
	next := v
	set(&next.ExternalID, p.ExternalID)
	if p.MakeAndModel.Set {
		next.MakeAndModel = p.MakeAndModel.Value
	}
	switch {
	case !p.Year.Set:
	case p.Year.Null:
		next.Year = nil
	default:
		y := p.Year.Value
		next.Year = &y
	}
	set(&next.LicensePlate, p.LicensePlate)
	set(&next.VIN, p.VIN)
	set(&next.Description, p.Description)
	if p.IsPrimary.Set {
		if p.IsPrimary.Value && !v.IsPrimary && v.ArchivedAt != nil {
			return v, false, ErrVehicleArchived()
		}
		next.IsPrimary = p.IsPrimary.Value
	}
	return touch(v, next, now)
}

// Archive archives v (and demotes it); archiving an archived vehicle
// changes nothing.
func (v Vehicle) Archive(now time.Time) (Vehicle, bool) {
	if v.ArchivedAt != nil {
		return v, false
	}
	next := v
	at := now
	next.ArchivedAt, next.IsPrimary = &at, false
	out, changed, _ := touch(v, next, now)
	return out, changed
}

// Reactivate clears v's archived_at; reactivating an active vehicle
// changes nothing.
func (v Vehicle) Reactivate(now time.Time) (Vehicle, bool) {
	next := v
	next.ArchivedAt = nil
	out, changed, _ := touch(v, next, now)
	return out, changed
}

// Delete marks v deleted at now, or the 409 when it is not eligible.
func (v Vehicle) Delete(now time.Time) (Vehicle, error) {
	switch {
	case v.ArchivedAt != nil:
		return v, ErrVehicleNotDeletable("it is archived")
	case v.HasTrips:
		return v, ErrVehicleNotDeletable("it has trips")
	}
	next := v
	at := now
	next.DeletedAt, next.IsPrimary = &at, false
	out, _, _ := touch(v, next, now)
	return out, nil
}

// Demote is v no longer primary (another vehicle became primary).
func (v Vehicle) Demote(now time.Time) Vehicle {
	next := v
	next.IsPrimary = false
	out, _, _ := touch(v, next, now)
	return out
}

// touch bumps Version and UpdatedAt of next when it differs from prev.
func touch(prev, next Vehicle, now time.Time) (Vehicle, bool, error) {
	eqInt := func(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	eqTime := func(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
	if eqStr(next.ExternalID, prev.ExternalID) && next.MakeAndModel == prev.MakeAndModel && eqInt(next.Year, prev.Year) &&
		eqStr(next.LicensePlate, prev.LicensePlate) && eqStr(next.VIN, prev.VIN) && eqStr(next.Description, prev.Description) &&
		next.IsPrimary == prev.IsPrimary && eqTime(next.ArchivedAt, prev.ArchivedAt) && eqTime(next.DeletedAt, prev.DeletedAt) {
		return prev, false, nil
	}
	next.Version = prev.Version + 1
	next.UpdatedAt = now
	return next, true, nil
}
