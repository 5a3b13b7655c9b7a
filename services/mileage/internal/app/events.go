package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// Source is the CloudEvents source of the service's events.
const Source = "acct/mileage"

// event is one acct.mileage.v1 event to build: its type, business and
// payload.
type event struct {
	typ        string
	businessID uuid.UUID
	payload    any
}

// publish builds evs and publishes them in the unit of work of ctx.
func (a *Mileage) publish(ctx context.Context, evs ...event) error {
	out := make([]events.Event, len(evs))
	for i, e := range evs {
		evt, err := events.New(events.TopicMileage, e.typ, Source, e.businessID, e.payload)
		if err != nil {
			return fmt.Errorf("%s event: %w", e.typ, err)
		}
		out[i] = evt
	}
	return a.pub.Publish(ctx, out...)
}

// vehicleEvent is the vehicle.upserted event of v.
func vehicleEvent(v domain.Vehicle) event {
	return event{typ: events.TypeVehicleUpserted, businessID: v.BusinessID, payload: VehiclePayload(v)}
}

// tripEvent is the trip.upserted or trip.deleted event of t.
func tripEvent(typ string, t domain.Trip) event {
	return event{typ: typ, businessID: t.BusinessID, payload: TripPayload(t)}
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
