package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// demotePrimary demotes the business's primary vehicle other than keep
// (with its event). The caller holds LockVehicles.
func (a *Mileage) demotePrimary(ctx context.Context, businessID, keep uuid.UUID) error {
	cur, ok, err := a.vehicles.FindPrimaryVehicle(ctx, businessID)
	if err != nil || !ok || cur.ID == keep {
		return err
	}
	demoted := cur.Demote(a.clock())
	if err := a.vehicles.UpdateVehicle(ctx, demoted); err != nil {
		return err
	}
	return a.publish(ctx, vehicleEvent(demoted))
}

// CreateVehicle is POST /mileage/vehicles: a new vehicle (created true)
// and its vehicle.upserted event; a primary one demotes the previous
// primary in the same transaction. An existing vehicle with the input's
// external_id is answered unchanged with created false.
func (a *Mileage) CreateVehicle(ctx context.Context, businessID uuid.UUID, in domain.VehicleInput) (domain.Vehicle, bool, error) {
	var (
		out     domain.Vehicle
		created bool
	)
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		if in.ExternalID != nil {
			existing, ok, err := a.vehicles.FindVehicleByExternalID(ctx, businessID, *in.ExternalID)
			if err != nil {
				return err
			}
			if ok {
				out = existing
				return nil
			}
		}
		if err := a.vehicles.LockVehicles(ctx, businessID); err != nil {
			return err
		}
		v := domain.NewVehicle(businessID, newID(), in, a.clock())
		if v.IsPrimary {
			if err := a.demotePrimary(ctx, businessID, v.ID); err != nil {
				return fmt.Errorf("demote primary vehicle: %w", err)
			}
		}
		inserted, err := a.vehicles.InsertVehicle(ctx, v)
		if err != nil {
			return err
		}
		if !inserted { // a concurrent create of the same external id won
			existing, ok, err := a.vehicles.FindVehicleByExternalID(ctx, businessID, *in.ExternalID)
			if err != nil || !ok {
				return fmt.Errorf("vehicle %q neither inserted nor found: %v", *in.ExternalID, err)
			}
			out = existing
			return nil
		}
		out, created = v, true
		return a.publish(ctx, vehicleEvent(v))
	})
	if err != nil {
		return domain.Vehicle{}, false, err
	}
	return out, created, nil
}

// Vehicle is GET /mileage/vehicles/{id} (archived and deleted vehicles
// too), or the 404.
func (a *Mileage) Vehicle(ctx context.Context, businessID, id uuid.UUID) (domain.Vehicle, error) {
	v, ok, err := a.vehicles.FindVehicle(ctx, businessID, id, false)
	if err != nil {
		return domain.Vehicle{}, fmt.Errorf("find vehicle %s: %w", id, err)
	}
	if !ok {
		return domain.Vehicle{}, domain.ErrVehicleNotFound()
	}
	return v, nil
}

// Vehicles is GET /mileage/vehicles.
func (a *Mileage) Vehicles(ctx context.Context, businessID uuid.UUID, f domain.VehicleFilter) ([]domain.Vehicle, error) {
	return a.vehicles.FindVehicles(ctx, businessID, f)
}

// changeVehicle locks the business's vehicles and the (undeleted) vehicle
// id, applies change and, when it changed anything, writes it with its
// event (demoting the previous primary when it became primary).
func (a *Mileage) changeVehicle(ctx context.Context, businessID, id uuid.UUID,
	change func(domain.Vehicle) (domain.Vehicle, bool, error)) (domain.Vehicle, error) {
	var out domain.Vehicle
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		if err := a.vehicles.LockVehicles(ctx, businessID); err != nil {
			return err
		}
		v, ok, err := a.vehicles.FindVehicle(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok || v.DeletedAt != nil {
			return domain.ErrVehicleNotFound()
		}
		next, changed, err := change(v)
		if err != nil {
			return err
		}
		out = next
		if !changed {
			return nil
		}
		if x := next.ExternalID; x != nil && !eq(x, v.ExternalID) {
			other, taken, err := a.vehicles.FindVehicleByExternalID(ctx, businessID, *x)
			if err != nil {
				return err
			}
			if taken && other.ID != id {
				return domain.ErrDuplicateExternalID("vehicle", *x)
			}
		}
		if next.IsPrimary && !v.IsPrimary {
			if err := a.demotePrimary(ctx, businessID, id); err != nil {
				return fmt.Errorf("demote primary vehicle: %w", err)
			}
		}
		if err := a.vehicles.UpdateVehicle(ctx, next); err != nil {
			return err
		}
		return a.publish(ctx, vehicleEvent(next))
	})
	if err != nil {
		return domain.Vehicle{}, err
	}
	return out, nil
}

func eq(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// UpdateVehicle is PATCH /mileage/vehicles/{id}.
func (a *Mileage) UpdateVehicle(ctx context.Context, businessID, id uuid.UUID, p domain.VehiclePatch) (domain.Vehicle, error) {
	return a.changeVehicle(ctx, businessID, id, func(v domain.Vehicle) (domain.Vehicle, bool, error) {
		return v.Apply(p, a.clock())
	})
}

// ArchiveVehicle is POST /mileage/vehicles/{id}/archive.
func (a *Mileage) ArchiveVehicle(ctx context.Context, businessID, id uuid.UUID) (domain.Vehicle, error) {
	return a.changeVehicle(ctx, businessID, id, func(v domain.Vehicle) (domain.Vehicle, bool, error) {
		next, changed := v.Archive(a.clock())
		return next, changed, nil
	})
}

// ReactivateVehicle is POST /mileage/vehicles/{id}/reactivate.
func (a *Mileage) ReactivateVehicle(ctx context.Context, businessID, id uuid.UUID) (domain.Vehicle, error) {
	return a.changeVehicle(ctx, businessID, id, func(v domain.Vehicle) (domain.Vehicle, bool, error) {
		next, changed := v.Reactivate(a.clock())
		return next, changed, nil
	})
}

// DeleteVehicle is DELETE /mileage/vehicles/{id}: soft delete, only when
// the vehicle has no trips and is not archived (409 otherwise).
func (a *Mileage) DeleteVehicle(ctx context.Context, businessID, id uuid.UUID) (domain.Vehicle, error) {
	return a.changeVehicle(ctx, businessID, id, func(v domain.Vehicle) (domain.Vehicle, bool, error) {
		next, err := v.Delete(a.clock())
		return next, err == nil, err
	})
}
