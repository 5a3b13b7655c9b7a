package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// TripPageSpec is the pagination of GET /mileage/trips: sort_by trip_date
// (default), created_at or updated_at, each backed by a (business_id, key,
// id) index; limit default 100, at most 500.
var TripPageSpec = page.Spec{
	Keys: map[string]page.Key{
		// The date as YYYY-MM-DD sorts like the date; the cursor's value is
		// bound as an untyped literal PostgreSQL reads as a date.
		"trip_date":  {Column: "t.trip_date", Kind: page.KindString},
		"created_at": {Column: "t.created_at", Kind: page.KindTime},
		"updated_at": {Column: "t.updated_at", Kind: page.KindTime},
	},
	Default:      "trip_date",
	DefaultLimit: 100,
	MaxLimit:     500,
}

// TripView is a trip with its vehicle (nil only if it vanished).
type TripView struct {
	domain.Trip
	Vehicle *domain.Vehicle
}

// checkVehicles locks (FOR UPDATE, so that a concurrent delete waits) and
// checks the vehicles the trips name: each must be the business's,
// undeleted and not archived. Violations are named field by field (prefix
// is "" or "trips[i]." per trip).
func (a *Mileage) checkVehicles(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, prefixes []string) (map[uuid.UUID]domain.Vehicle, error) {
	distinct := slices.Clone(ids)
	slices.SortFunc(distinct, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	distinct = slices.Compact(distinct)
	found := map[uuid.UUID]domain.Vehicle{}
	for _, id := range distinct { // in id order: no deadlock between two bulks
		v, ok, err := a.vehicles.FindVehicle(ctx, businessID, id, true)
		if err != nil {
			return nil, err
		}
		if ok {
			found[id] = v
		}
	}
	viol := apperr.NewViolations(apperr.InvalidPayload)
	for i, id := range ids {
		v, ok := found[id]
		switch {
		case !ok || v.DeletedAt != nil:
			viol.Add(prefixes[i]+"vehicle_id", domain.EnumInvalidTrip, "unknown vehicle of the business")
		case v.ArchivedAt != nil:
			viol.Add(prefixes[i]+"vehicle_id", domain.EnumInvalidTrip, "the vehicle is archived: reactivate it first")
		}
	}
	if err := viol.Err(); err != nil {
		return nil, err
	}
	return found, nil
}

// CreateTrips is POST /mileage/trips (one input) and POST
// /mileage/trips/bulk: every trip written with its trip.upserted event, or
// none (one transaction). A trip whose external_id the business already
// has is answered as it is (created false for it) and not written.
func (a *Mileage) CreateTrips(ctx context.Context, businessID uuid.UUID, ins []domain.TripPatch, bulk bool) ([]TripView, []bool, error) {
	out := make([]TripView, len(ins))
	created := make([]bool, len(ins))
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		var ids []uuid.UUID
		var prefixes []string
		var fresh []int
		for i, in := range ins {
			if x := in.ExternalID; x.Set && !x.Null {
				existing, ok, err := a.trips.FindTripByExternalID(ctx, businessID, x.Value)
				if err != nil {
					return err
				}
				if ok {
					out[i] = TripView{Trip: existing}
					continue
				}
			}
			fresh = append(fresh, i)
			ids = append(ids, in.VehicleID.Value)
			prefix := ""
			if bulk {
				prefix = fmt.Sprintf("trips[%d].", i)
			}
			prefixes = append(prefixes, prefix)
		}
		if _, err := a.checkVehicles(ctx, businessID, ids, prefixes); err != nil {
			return err
		}
		now := a.clock()
		for _, i := range fresh {
			t := domain.NewTrip(businessID, newID(), ins[i], now)
			inserted, err := a.trips.InsertTrip(ctx, t)
			if err != nil {
				return err
			}
			if !inserted { // a concurrent create of the same external id won
				existing, ok, err := a.trips.FindTripByExternalID(ctx, businessID, *t.ExternalID)
				if err != nil || !ok {
					return fmt.Errorf("trip %q neither inserted nor found: %v", *t.ExternalID, err)
				}
				out[i] = TripView{Trip: existing}
				continue
			}
			out[i], created[i] = TripView{Trip: t}, true
			if err := a.publish(ctx, tripEvent(events.TypeTripUpserted, t)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if err := a.withVehicles(ctx, businessID, out); err != nil {
		return nil, nil, err
	}
	return out, created, nil
}

// withVehicles fills in the trips' vehicles (one query).
func (a *Mileage) withVehicles(ctx context.Context, businessID uuid.UUID, views []TripView) error {
	ids := make([]uuid.UUID, 0, len(views))
	for _, v := range views {
		ids = append(ids, v.VehicleID)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	vs, err := a.vehicles.FindVehiclesByIDs(ctx, businessID, slices.Compact(ids))
	if err != nil {
		return err
	}
	for i := range views {
		if v, ok := vs[views[i].VehicleID]; ok {
			views[i].Vehicle = &v
		}
	}
	return nil
}

func (a *Mileage) view(ctx context.Context, businessID uuid.UUID, t domain.Trip) (TripView, error) {
	views := []TripView{{Trip: t}}
	if err := a.withVehicles(ctx, businessID, views); err != nil {
		return TripView{}, err
	}
	return views[0], nil
}

// Trip is GET /mileage/trips/{id} (deleted trips too, with deleted_at).
func (a *Mileage) Trip(ctx context.Context, businessID, id uuid.UUID) (TripView, error) {
	t, ok, err := a.trips.FindTrip(ctx, businessID, id, false)
	if err != nil {
		return TripView{}, fmt.Errorf("find trip %s: %w", id, err)
	}
	if !ok {
		return TripView{}, domain.ErrTripNotFound()
	}
	return a.view(ctx, businessID, t)
}

// Trips is GET /mileage/trips: one page.
func (a *Mileage) Trips(ctx context.Context, businessID uuid.UUID, f domain.TripFilter, p page.Params) ([]TripView, page.Meta, error) {
	list, meta, err := a.trips.FindTrips(ctx, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, err
	}
	views := make([]TripView, len(list))
	for i, t := range list {
		views[i] = TripView{Trip: t}
	}
	if err := a.withVehicles(ctx, businessID, views); err != nil {
		return nil, page.Meta{}, err
	}
	return views, meta, nil
}

// UpdateTrip is PATCH /mileage/trips/{id}: a deleted trip is 404; a new
// vehicle must be the business's, undeleted and active (400).
func (a *Mileage) UpdateTrip(ctx context.Context, businessID, id uuid.UUID, p domain.TripPatch) (TripView, error) {
	var out domain.Trip
	err := a.uow.Do(ctx, func(ctx context.Context) error {
		t, ok, err := a.trips.FindTrip(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok || t.DeletedAt != nil {
			return domain.ErrTripNotFound()
		}
		next, changed := t.Apply(p, a.clock())
		out = next
		if !changed {
			return nil
		}
		if next.VehicleID != t.VehicleID {
			if _, err := a.checkVehicles(ctx, businessID, []uuid.UUID{next.VehicleID}, []string{""}); err != nil {
				return err
			}
		}
		if x := next.ExternalID; x != nil && !eq(x, t.ExternalID) {
			other, taken, err := a.trips.FindTripByExternalID(ctx, businessID, *x)
			if err != nil {
				return err
			}
			if taken && other.ID != id {
				return domain.ErrDuplicateExternalID("trip", *x)
			}
		}
		if err := a.trips.UpdateTrip(ctx, next); err != nil {
			return err
		}
		return a.publish(ctx, tripEvent(events.TypeTripUpserted, next))
	})
	if err != nil {
		return TripView{}, err
	}
	return a.view(ctx, businessID, out)
}

// DeleteTrip is DELETE /mileage/trips/{id}: soft delete (deleted_at) with
// its trip.deleted event; a deleted trip is 404.
func (a *Mileage) DeleteTrip(ctx context.Context, businessID, id uuid.UUID) error {
	return a.uow.Do(ctx, func(ctx context.Context) error {
		t, ok, err := a.trips.FindTrip(ctx, businessID, id, true)
		if err != nil {
			return err
		}
		if !ok || t.DeletedAt != nil {
			return domain.ErrTripNotFound()
		}
		next := t.Delete(a.clock())
		if err := a.trips.UpdateTrip(ctx, next); err != nil {
			return err
		}
		return a.publish(ctx, tripEvent(events.TypeTripDeleted, next))
	})
}

// Summary is GET /mileage/summary: the years (then months) of the trips f
// selects, summed in the database.
func (a *Mileage) Summary(ctx context.Context, businessID uuid.UUID, f domain.TripFilter) ([]domain.YearSummary, error) {
	if f.Empty() {
		return []domain.YearSummary{}, nil
	}
	months, err := a.trips.SummarizeTrips(ctx, businessID, f)
	if err != nil {
		return nil, err
	}
	return domain.BuildSummary(months), nil
}
