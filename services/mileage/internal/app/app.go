// Package app holds the mileage use cases and the interfaces they need
// from persistence and event publishing. Each write runs in one database
// transaction through outbox.RunInTx: the change and its acct.mileage.v1
// events commit together or not at all.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// VehicleStore is the vehicles' persistence; every method filters by
// business.
type VehicleStore interface {
	// LockVehicles serialises, until the transaction ends, the changes of
	// the business's primary vehicle.
	LockVehicles(ctx context.Context, db bun.IDB, businessID uuid.UUID) error
	InsertVehicle(ctx context.Context, db bun.IDB, v domain.Vehicle) (inserted bool, err error)
	FindVehicle(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (domain.Vehicle, bool, error)
	FindVehicleByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (domain.Vehicle, bool, error)
	// FindPrimaryVehicle reads (and locks) the business's primary vehicle.
	FindPrimaryVehicle(ctx context.Context, db bun.IDB, businessID uuid.UUID) (domain.Vehicle, bool, error)
	FindVehiclesByIDs(ctx context.Context, db bun.IDB, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Vehicle, error)
	UpdateVehicle(ctx context.Context, db bun.IDB, v domain.Vehicle) error
	FindVehicles(ctx context.Context, db bun.IDB, businessID uuid.UUID, f domain.VehicleFilter) ([]domain.Vehicle, error)
}

// TripStore is the trips' persistence; every method filters by business.
type TripStore interface {
	InsertTrip(ctx context.Context, db bun.IDB, t domain.Trip) (inserted bool, err error)
	FindTrip(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, forUpdate bool) (domain.Trip, bool, error)
	FindTripByExternalID(ctx context.Context, db bun.IDB, businessID uuid.UUID, externalID string) (domain.Trip, bool, error)
	UpdateTrip(ctx context.Context, db bun.IDB, t domain.Trip) error
	FindTrips(ctx context.Context, db bun.IDB, businessID uuid.UUID, f domain.TripFilter, p page.Params) ([]domain.Trip, page.Meta, error)
	// SummarizeTrips is the per-month totals of the trips f selects.
	SummarizeTrips(ctx context.Context, db bun.IDB, businessID uuid.UUID, f domain.TripFilter) ([]domain.MonthKey, error)
}

// Publisher enqueues acct.mileage.v1 events in the caller's transaction
// (the outbox).
type Publisher interface {
	VehicleUpserted(ctx context.Context, db bun.IDB, v domain.Vehicle) error
	TripUpserted(ctx context.Context, db bun.IDB, t domain.Trip) error
	TripDeleted(ctx context.Context, db bun.IDB, t domain.Trip) error
}

// Mileage holds the vehicle, trip and summary use cases.
type Mileage struct {
	db       *bun.DB
	vehicles VehicleStore
	trips    TripStore
	pub      Publisher
	log      *slog.Logger
	now      func() time.Time
}

// New assembles the use cases on db.
func New(db *bun.DB, vehicles VehicleStore, trips TripStore, pub Publisher, logger *slog.Logger) *Mileage {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Mileage{db: db, vehicles: vehicles, trips: trips, pub: pub, log: logger, now: time.Now}
}

// clock is now as PostgreSQL stores it (microseconds, UTC).
func (a *Mileage) clock() time.Time { return a.now().UTC().Truncate(time.Microsecond) }

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
