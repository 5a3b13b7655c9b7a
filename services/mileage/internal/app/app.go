// Package app holds the mileage use cases and the interfaces they need
// from persistence and event publishing. Each write runs in one unit of
// work (UnitOfWork.Do, whose context carries the database transaction to
// the stores): the change and its acct.mileage.v1 events, published in
// it, commit together or not at all.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// VehicleStore is the vehicles' persistence; every method filters by
// business.
type VehicleStore interface {
	// LockVehicles serialises, until the transaction ends, the changes of
	// the business's primary vehicle.
	LockVehicles(ctx context.Context, businessID uuid.UUID) error
	InsertVehicle(ctx context.Context, v domain.Vehicle) (inserted bool, err error)
	FindVehicle(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (domain.Vehicle, bool, error)
	FindVehicleByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.Vehicle, bool, error)
	// FindPrimaryVehicle reads (and locks) the business's primary vehicle.
	FindPrimaryVehicle(ctx context.Context, businessID uuid.UUID) (domain.Vehicle, bool, error)
	FindVehiclesByIDs(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Vehicle, error)
	UpdateVehicle(ctx context.Context, v domain.Vehicle) error
	FindVehicles(ctx context.Context, businessID uuid.UUID, f domain.VehicleFilter) ([]domain.Vehicle, error)
}

// TripStore is the trips' persistence; every method filters by business.
type TripStore interface {
	InsertTrip(ctx context.Context, t domain.Trip) (inserted bool, err error)
	FindTrip(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (domain.Trip, bool, error)
	FindTripByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.Trip, bool, error)
	UpdateTrip(ctx context.Context, t domain.Trip) error
	FindTrips(ctx context.Context, businessID uuid.UUID, f domain.TripFilter, p page.Params) ([]domain.Trip, page.Meta, error)
	// SummarizeTrips is the per-month totals of the trips f selects.
	SummarizeTrips(ctx context.Context, businessID uuid.UUID, f domain.TripFilter) ([]domain.MonthKey, error)
}

// UnitOfWork runs fn in one database transaction, carried by fn's
// context to the stores and the publisher.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// Publisher publishes events with the unit of work ctx carries (the
// outbox): they are sent only if it commits.
type Publisher interface {
	Publish(ctx context.Context, evts ...events.Event) error
}

// Mileage holds the vehicle, trip and summary use cases.
type Mileage struct {
	uow      UnitOfWork
	vehicles VehicleStore
	trips    TripStore
	pub      Publisher
	log      *slog.Logger
	clk      clock.Clock
}

// New assembles the use cases.
func New(uow UnitOfWork, vehicles VehicleStore, trips TripStore, pub Publisher, logger *slog.Logger) *Mileage {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Mileage{uow: uow, vehicles: vehicles, trips: trips, pub: pub, log: logger, clk: clock.System}
}

// clock is now as PostgreSQL stores it (microseconds, UTC).
func (a *Mileage) clock() time.Time { return a.clk.Now() }

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
