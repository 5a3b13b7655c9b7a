package events

import (
	"time"

	"github.com/google/uuid"
)

// Event types published on TopicMileage by the mileage service. Every
// payload is the whole entity as it now is (not a delta), so a consumer
// keeps the latest Version per id and never reads the mileage service's
// tables. A create that found an existing entity by external_id, and a
// change that changes nothing, publish nothing.
const (
	// TypeVehicleUpserted: a vehicle was created, changed, made primary or
	// demoted, archived, reactivated or deleted (DeletedAt set: vehicles
	// are deleted softly).
	TypeVehicleUpserted = "vehicle.upserted"
	// TypeTripUpserted: a trip was created or changed.
	TypeTripUpserted = "trip.upserted"
	// TypeTripDeleted: a trip was deleted (softly: the payload is its last
	// snapshot with DeletedAt set).
	TypeTripDeleted = "trip.deleted"
)

// VehicleUpserted is the payload of vehicle.upserted: the vehicle with
// every field the API answers (text fields null when empty).
type VehicleUpserted struct {
	VehicleID    uuid.UUID  `json:"vehicle_id"`
	BusinessID   uuid.UUID  `json:"business_id"`
	Version      int        `json:"version"`
	ExternalID   *string    `json:"external_id"`
	MakeAndModel string     `json:"make_and_model"`
	Year         *int       `json:"year"`
	LicensePlate *string    `json:"license_plate"`
	VIN          *string    `json:"vin"`
	Description  *string    `json:"description"`
	IsPrimary    bool       `json:"is_primary"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	ArchivedAt   *time.Time `json:"archived_at"`
	DeletedAt    *time.Time `json:"deleted_at"`
}

// TripUpserted is the payload of trip.upserted and trip.deleted: the trip
// as the API answers it. Distance is miles as an exact decimal string
// ("12.5"); TripDate is YYYY-MM-DD; Purpose is UNREVIEWED, BUSINESS or
// PERSONAL. DeductionRate is the IRS rate in force on TripDate in cents
// per mile as a decimal string ("67", "58.5"); EstimatedDeduction is the
// business deduction in cents (0 unless Purpose is BUSINESS).
type TripUpserted struct {
	TripID             uuid.UUID   `json:"trip_id"`
	BusinessID         uuid.UUID   `json:"business_id"`
	Version            int         `json:"version"`
	VehicleID          uuid.UUID   `json:"vehicle_id"`
	ExternalID         *string     `json:"external_id"`
	Distance           string      `json:"distance"`
	TripDate           string      `json:"trip_date"`
	Purpose            string      `json:"purpose"`
	StartAddress       *string     `json:"start_address"`
	EndAddress         *string     `json:"end_address"`
	Description        *string     `json:"description"`
	Tags               []LedgerTag `json:"tags"`
	DeductionRate      string      `json:"deduction_rate"`
	EstimatedDeduction int64       `json:"estimated_deduction"`
	CreatedAt          time.Time   `json:"created_at"`
	UpdatedAt          time.Time   `json:"updated_at"`
	DeletedAt          *time.Time  `json:"deleted_at"`
}
