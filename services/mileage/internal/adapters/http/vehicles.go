package http

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/mileage/internal/domain"
)

// VehicleType is the vehicle's `type` (the spec's ApiVehicle).
const VehicleType = "ApiVehicle"

// vehicleJSON is the spec's ApiVehicle (and the SDK's Vehicle): every key
// present, null where empty.
type vehicleJSON struct {
	Type                  string     `json:"type"`
	ID                    string     `json:"id"`
	BusinessID            string     `json:"business_id"`
	MakeAndModel          string     `json:"make_and_model"`
	Year                  *int       `json:"year"`
	IsPrimary             bool       `json:"is_primary"`
	IsEligibleForDeletion bool       `json:"is_eligible_for_deletion"`
	CreatedAt             time.Time  `json:"created_at"`
	UpdatedAt             time.Time  `json:"updated_at"`
	ExternalID            *string    `json:"external_id"`
	LicensePlate          *string    `json:"license_plate"`
	VIN                   *string    `json:"vin"`
	Description           *string    `json:"description"`
	ArchivedAt            *time.Time `json:"archived_at"`
	DeletedAt             *time.Time `json:"deleted_at"`
}

func toVehicle(v domain.Vehicle) vehicleJSON {
	return vehicleJSON{
		Type: VehicleType, ID: v.ID.String(), BusinessID: v.BusinessID.String(), MakeAndModel: v.MakeAndModel, Year: v.Year,
		IsPrimary: v.IsPrimary, IsEligibleForDeletion: v.EligibleForDeletion(), CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
		ExternalID: v.ExternalID, LicensePlate: v.LicensePlate, VIN: v.VIN, Description: v.Description,
		ArchivedAt: v.ArchivedAt, DeletedAt: v.DeletedAt,
	}
}

func vehicleParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "vehicleId") }

// createVehicle is POST /mileage/vehicles: 201, or 200 with the existing
// vehicle of the external_id.
func (h *handlers) createVehicle(c *fiber.Ctx) error {
	body, err := httpx.JSONBody(c, MaxBody)
	if err != nil {
		return err
	}
	in, err := domain.ParseVehicleInput(body)
	if err != nil {
		return err
	}
	v, created, err := h.app.CreateVehicle(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toVehicle(v))
}

// listVehicles is GET /mileage/vehicles: `data` is the array (no
// pagination: a business has few vehicles).
func (h *handlers) listVehicles(c *fiber.Ctx) error {
	f, err := domain.ParseVehicleFilter(httpx.Query(c))
	if err != nil {
		return err
	}
	list, err := h.app.Vehicles(c.UserContext(), businessID(c), f)
	if err != nil {
		return err
	}
	out := make([]vehicleJSON, len(list))
	for i, v := range list {
		out[i] = toVehicle(v)
	}
	return httpx.OK(c, out)
}

func (h *handlers) getVehicle(c *fiber.Ctx) error {
	id, err := vehicleParam(c)
	if err != nil {
		return err
	}
	v, err := h.app.Vehicle(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVehicle(v))
}

func (h *handlers) patchVehicle(c *fiber.Ctx) error {
	id, err := vehicleParam(c)
	if err != nil {
		return err
	}
	body, err := httpx.JSONBody(c, MaxBody)
	if err != nil {
		return err
	}
	p, err := domain.ParseVehiclePatch(body)
	if err != nil {
		return err
	}
	v, err := h.app.UpdateVehicle(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVehicle(v))
}

// deleteVehicle answers 200 with the deleted vehicle (deleted_at set).
func (h *handlers) deleteVehicle(c *fiber.Ctx) error {
	id, err := vehicleParam(c)
	if err != nil {
		return err
	}
	v, err := h.app.DeleteVehicle(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVehicle(v))
}

func (h *handlers) archiveVehicle(c *fiber.Ctx) error {
	id, err := vehicleParam(c)
	if err != nil {
		return err
	}
	v, err := h.app.ArchiveVehicle(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVehicle(v))
}

func (h *handlers) reactivateVehicle(c *fiber.Ctx) error {
	id, err := vehicleParam(c)
	if err != nil {
		return err
	}
	v, err := h.app.ReactivateVehicle(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVehicle(v))
}
