package http

import (
	"encoding/json"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httplist"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/mileage/internal/app"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// tripJSON is the SDK's Trip plus the deduction: every key present, null
// where empty. distance is a decimal string of miles;
// mileage_deduction_rate is cents per mile (a number: 58.5);
// estimated_deduction is cents (BUSINESS trips only, else 0).
type tripJSON struct {
	Type                 string       `json:"type"`
	ID                   string       `json:"id"`
	BusinessID           string       `json:"business_id"`
	VehicleID            string       `json:"vehicle_id"`
	Vehicle              *vehicleJSON `json:"vehicle"`
	ExternalID           *string      `json:"external_id"`
	Distance             string       `json:"distance"`
	DistanceSource       string       `json:"distance_source"`
	TripDate             string       `json:"trip_date"`
	Purpose              string       `json:"purpose"`
	StartAddress         *string      `json:"start_address"`
	EndAddress           *string      `json:"end_address"`
	GoogleStartPlaceID   *string      `json:"google_start_place_id"`
	GoogleEndPlaceID     *string      `json:"google_end_place_id"`
	StartLatitude        *string      `json:"start_latitude"`
	StartLongitude       *string      `json:"start_longitude"`
	EndLatitude          *string      `json:"end_latitude"`
	EndLongitude         *string      `json:"end_longitude"`
	Description          *string      `json:"description"`
	TransactionTags      []tags.Tag   `json:"transaction_tags"`
	MileageDeductionRate json.Number  `json:"mileage_deduction_rate"`
	EstimatedDeduction   int64        `json:"estimated_deduction"`
	CreatedAt            time.Time    `json:"created_at"`
	UpdatedAt            time.Time    `json:"updated_at"`
	DeletedAt            *time.Time   `json:"deleted_at"`
}

// TripType is the trip's `type`.
const TripType = "ApiTrip"

func toTrip(t app.TripView) tripJSON {
	ts := t.Tags
	if ts == nil {
		ts = []tags.Tag{}
	}
	out := tripJSON{
		Type: TripType, ID: t.ID.String(), BusinessID: t.BusinessID.String(), VehicleID: t.VehicleID.String(),
		ExternalID: t.ExternalID, Distance: t.Distance.String(), DistanceSource: "MANUAL", TripDate: t.TripDate.String(),
		Purpose: string(t.Purpose), StartAddress: t.StartAddress, EndAddress: t.EndAddress, Description: t.Description,
		TransactionTags: ts, MileageDeductionRate: json.Number(t.Rate().String()), EstimatedDeduction: t.EstimatedDeduction(),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, DeletedAt: t.DeletedAt,
	}
	if t.Vehicle != nil {
		v := toVehicle(*t.Vehicle)
		out.Vehicle = &v
	}
	return out
}

func tripParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "tripId") }

// createTrip is POST /mileage/trips: 201, or 200 with the existing trip of
// the external_id.
func (h *handlers) createTrip(c *fiber.Ctx) error {
	body, err := httpx.JSONBody(c, MaxBody)
	if err != nil {
		return err
	}
	in, err := domain.ParseTripInput(body)
	if err != nil {
		return err
	}
	views, created, err := h.app.CreateTrips(c.UserContext(), businessID(c), []domain.TripPatch{in}, false)
	if err != nil {
		return err
	}
	if !created[0] {
		return httpx.OK(c, toTrip(views[0]))
	}
	return httpx.Created(c, toTrip(views[0]))
}

// bulkTrips is POST /mileage/trips/bulk: 201 with every trip, in order
// (existing ones for external ids already used), all or nothing.
func (h *handlers) bulkTrips(c *fiber.Ctx) error {
	body, err := httpx.JSONBody(c, MaxBulkBody)
	if err != nil {
		return err
	}
	ins, err := domain.ParseBulkTrips(body)
	if err != nil {
		return err
	}
	views, _, err := h.app.CreateTrips(c.UserContext(), businessID(c), ins, true)
	if err != nil {
		return err
	}
	out := make([]tripJSON, len(views))
	for i, v := range views {
		out[i] = toTrip(v)
	}
	return httpx.Created(c, out)
}

// listTrips is GET /mileage/trips: paginated (sort_by trip_date default,
// created_at, updated_at; limit default 100, at most 500).
func (h *handlers) listTrips(c *fiber.Ctx) error {
	return httplist.List[domain.TripFilter, app.TripView, tripJSON]{
		Spec: app.TripPageSpec, Codec: h.codec, Filter: func(q url.Values) (domain.TripFilter, error) { return domain.ParseTripFilter(q, true) },
		Find: h.app.Trips, Render: toTrip,
	}.Handle(c)
}

func (h *handlers) getTrip(c *fiber.Ctx) error {
	id, err := tripParam(c)
	if err != nil {
		return err
	}
	t, err := h.app.Trip(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toTrip(t))
}

func (h *handlers) patchTrip(c *fiber.Ctx) error {
	id, err := tripParam(c)
	if err != nil {
		return err
	}
	body, err := httpx.JSONBody(c, MaxBody)
	if err != nil {
		return err
	}
	p, err := domain.ParseTripPatch(body)
	if err != nil {
		return err
	}
	t, err := h.app.UpdateTrip(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, toTrip(t))
}

// deleteTrip is DELETE /mileage/trips/{id}: 204.
func (h *handlers) deleteTrip(c *fiber.Ctx) error {
	id, err := tripParam(c)
	if err != nil {
		return err
	}
	if err := h.app.DeleteTrip(c.UserContext(), businessID(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
