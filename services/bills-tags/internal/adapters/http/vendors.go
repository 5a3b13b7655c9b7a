package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/party/partyhttp"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

// MaxVendorBody bounds a vendor create or patch body (50 tags with
// display names and the longest text fields fit with room to spare).
const MaxVendorBody = 64 << 10

// vendorJSON is the vendor on every route: the spec's VendorData (inside
// a vendor credit) plus the SDK's Vendor and BillVendor (partyhttp.JSON).
// merged_into_id names the vendor a merged vendor went into.
type vendorJSON struct {
	partyhttp.JSON
	MergedIntoID *string `json:"merged_into_id"`
}

// VendorType is the vendor's `type`.
const VendorType = "VendorData"

func toVendor(v domain.Vendor) vendorJSON {
	out := vendorJSON{JSON: partyhttp.ToJSON(VendorType, v.Party)}
	if v.MergedIntoID != nil {
		s := v.MergedIntoID.String()
		out.MergedIntoID = &s
	}
	return out
}

func vendorParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "vendorId") }

// vendorRoutes are the vendor handlers (partyhttp's).
func (h *handlers) vendorRoutes() partyhttp.Handlers[domain.Vendor, vendorJSON] {
	return partyhttp.Handlers[domain.Vendor, vendorJSON]{
		UseCases: h.vendors.UseCases, Param: "vendorId", MaxBody: MaxVendorBody,
		ParseInput: domain.ParseVendorInput, ParsePatch: domain.ParseVendorPatch, ParseFilter: domain.ParseVendorFilter,
		PageSpec: app.VendorPageSpec, Codec: h.codec, Render: toVendor,
	}
}

// createVendor is POST /v1/businesses/{businessId}/vendors: 201 with the
// new vendor, 200 with the existing one when its external_id was used
// before.
func (h *handlers) createVendor(c *fiber.Ctx) error { return h.vendorRoutes().Create(c) }

// listVendors is GET /v1/businesses/{businessId}/vendors (paginated,
// filtered by domain.ParseVendorFilter).
func (h *handlers) listVendors(c *fiber.Ctx) error { return h.vendorRoutes().List(c) }

// getVendor is GET /v1/businesses/{businessId}/vendors/{vendorId}
// (archived vendors too).
func (h *handlers) getVendor(c *fiber.Ctx) error { return h.vendorRoutes().Get(c) }

// patchVendor is PATCH /v1/businesses/{businessId}/vendors/{vendorId}.
func (h *handlers) patchVendor(c *fiber.Ctx) error { return h.vendorRoutes().Patch(c) }

// archiveVendor is POST /v1/businesses/{business_id}/vendors/{vendor_id}/archive:
// no body (one sent is ignored); 200 with the vendor, status ARCHIVED.
func (h *handlers) archiveVendor(c *fiber.Ctx) error { return h.vendorRoutes().Archive(c) }

// mergeVendor is POST /v1/businesses/{businessId}/vendors/{vendorId}/merge:
// body {vendor_to_archive_id}; that vendor's bills and credits move to
// vendorId and it is archived. 200 with the kept vendor.
func (h *handlers) mergeVendor(c *fiber.Ctx) error {
	id, err := vendorParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxVendorBody)
	if err != nil {
		return err
	}
	gone, err := domain.ParseMergeInput(body, id)
	if err != nil {
		return err
	}
	v, err := h.vendors.Merge(c.UserContext(), businessID(c), id, gone)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVendor(v))
}
