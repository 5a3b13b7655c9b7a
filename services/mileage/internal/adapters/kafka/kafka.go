// Package kafka is the mileage service's event adapter: the acct.mileage.v1
// payloads it publishes, enqueued through the outbox in the caller's
// transaction. (The business projection it consumes is the kit's:
// Definition.Businesses.)
package kafka

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/services/mileage/internal/app"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// Source is the CloudEvents source of the service's events.
const Source = "acct/mileage"

// Publisher enqueues acct.mileage.v1 events in the caller's transaction.
type Publisher struct{}

var _ app.Publisher = Publisher{}

func enqueue(ctx context.Context, db bun.IDB, typ string, v domain.Vehicle, t *domain.Trip) error {
	var payload any = VehiclePayload(v)
	bid := v.BusinessID
	if t != nil {
		payload, bid = TripPayload(*t), t.BusinessID
	}
	evt, err := events.New(events.TopicMileage, typ, Source, bid, payload)
	if err != nil {
		return fmt.Errorf("%s event: %w", typ, err)
	}
	return outbox.Enqueue(ctx, db, evt)
}

// VehicleUpserted implements app.Publisher.
func (Publisher) VehicleUpserted(ctx context.Context, db bun.IDB, v domain.Vehicle) error {
	return enqueue(ctx, db, events.TypeVehicleUpserted, v, nil)
}

// TripUpserted implements app.Publisher.
func (Publisher) TripUpserted(ctx context.Context, db bun.IDB, t domain.Trip) error {
	return enqueue(ctx, db, events.TypeTripUpserted, domain.Vehicle{}, &t)
}

// TripDeleted implements app.Publisher.
func (Publisher) TripDeleted(ctx context.Context, db bun.IDB, t domain.Trip) error {
	return enqueue(ctx, db, events.TypeTripDeleted, domain.Vehicle{}, &t)
}

// VehiclePayload is the snapshot of v.
func VehiclePayload(v domain.Vehicle) events.VehicleUpserted {
	return events.VehicleUpserted{
		VehicleID: v.ID, BusinessID: v.BusinessID, Version: v.Version, ExternalID: v.ExternalID, MakeAndModel: v.MakeAndModel,
		Year: v.Year, LicensePlate: v.LicensePlate, VIN: v.VIN, Description: v.Description, IsPrimary: v.IsPrimary,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, ArchivedAt: v.ArchivedAt, DeletedAt: v.DeletedAt,
	}
}

// TripPayload is the snapshot of t.
func TripPayload(t domain.Trip) events.TripUpserted {
	return events.TripUpserted{
		TripID: t.ID, BusinessID: t.BusinessID, Version: t.Version, VehicleID: t.VehicleID, ExternalID: t.ExternalID,
		Distance: t.Distance.String(), TripDate: t.TripDate.String(), Purpose: string(t.Purpose), StartAddress: t.StartAddress,
		EndAddress: t.EndAddress, Description: t.Description, Tags: events.LedgerTagsOf(t.Tags),
		DeductionRate: t.Rate().String(), EstimatedDeduction: t.EstimatedDeduction(), CreatedAt: t.CreatedAt,
		UpdatedAt: t.UpdatedAt, DeletedAt: t.DeletedAt,
	}
}
