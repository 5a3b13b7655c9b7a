// Package domain holds the mileage service's entities and rules: what a
// vehicle and a trip are, how a request creating, changing or listing them
// is read and checked, exact decimal miles, the IRS deduction rates and the
// mileage summary. It imports no HTTP, database or broker package; its
// errors are apperr errors the HTTP layer renders as they are.
package domain

import "github.com/acctsuite/acct/pkg/apperr"

// Stable error_enum values of the 4xx errors of this package. Clients match
// on them, so they never change once published.
const (
	// EnumInvalidVehicle: a vehicle body breaks a rule (meta.fields names
	// every offending field).
	EnumInvalidVehicle = "InvalidVehicle"
	// EnumInvalidTrip: a trip body breaks a rule (meta.fields names every
	// offending field; bulk fields are trips[i].field).
	EnumInvalidTrip = "InvalidTrip"
	// EnumInvalidFilter: a listing or summary query parameter is invalid.
	EnumInvalidFilter = "InvalidFilter"
	// EnumVehicleNotFound: no such (undeleted) vehicle in the business.
	EnumVehicleNotFound = "VehicleNotFound"
	// EnumTripNotFound: no such (undeleted) trip in the business.
	EnumTripNotFound = "TripNotFound"
	// EnumVehicleNotDeletable: the vehicle has trips or is archived.
	EnumVehicleNotDeletable = "VehicleNotDeletable"
	// EnumVehicleArchived: an archived vehicle cannot be made primary.
	EnumVehicleArchived = "VehicleArchived"
	// EnumDuplicateExternalID: a patch gives a second vehicle or trip of
	// the business the same external_id.
	EnumDuplicateExternalID = "DuplicateExternalId"
)

// ErrVehicleNotFound is the 404 of a vehicle id the business does not have
// (or has deleted).
func ErrVehicleNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "vehicle not found").WithEnum(EnumVehicleNotFound)
}

// ErrTripNotFound is the 404 of a trip id the business does not have (or
// has deleted).
func ErrTripNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "trip not found").WithEnum(EnumTripNotFound)
}

// ErrVehicleNotDeletable is the 409 of deleting a vehicle that has trips or
// is archived (is_eligible_for_deletion false).
func ErrVehicleNotDeletable(reason string) *apperr.Error {
	return apperr.New(apperr.Conflict, "vehicle cannot be deleted: "+reason).WithEnum(EnumVehicleNotDeletable)
}

// ErrVehicleArchived is the 409 of making an archived vehicle primary.
func ErrVehicleArchived() *apperr.Error {
	return apperr.New(apperr.Conflict, "an archived vehicle cannot be the primary vehicle: reactivate it first").
		WithEnum(EnumVehicleArchived).WithMeta("fields", map[string]string{"is_primary": "the vehicle is archived"})
}

// ErrDuplicateExternalID is the 409 of a patch giving a second vehicle or
// trip of the business the same external_id.
func ErrDuplicateExternalID(what, externalID string) *apperr.Error {
	return apperr.New(apperr.Conflict, "another "+what+" of the business has this external_id").
		WithEnum(EnumDuplicateExternalID).WithMeta("fields", map[string]string{"external_id": "already used by another " + what}).
		WithMeta("external_id", externalID)
}
