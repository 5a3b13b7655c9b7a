package http

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

// MaxVendorBody bounds a vendor create or patch body (50 tags with
// display names and the longest text fields fit with room to spare).
const MaxVendorBody = 64 << 10

// vendorJSON is the vendor on every route: the spec's VendorData (inside
// a vendor credit) plus the SDK's Vendor and BillVendor, every key
// present, null where empty. The memo is sent as both `memo` (the spec's
// VendorData) and `notes` (the SDK's BillVendor). merged_into_id names the
// vendor a merged vendor went into.
type vendorJSON struct {
	Type            string     `json:"type"`
	ID              string     `json:"id"`
	ExternalID      *string    `json:"external_id"`
	IndividualName  *string    `json:"individual_name"`
	CompanyName     *string    `json:"company_name"`
	Email           *string    `json:"email"`
	MobilePhone     *string    `json:"mobile_phone"`
	OfficePhone     *string    `json:"office_phone"`
	AddressString   *string    `json:"address_string"`
	Memo            *string    `json:"memo"`
	Notes           *string    `json:"notes"`
	Status          string     `json:"status"`
	TransactionTags []tags.Tag `json:"transaction_tags"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	ArchivedAt      *time.Time `json:"archived_at"`
	MergedIntoID    *string    `json:"merged_into_id"`
}

// VendorType is the vendor's `type`.
const VendorType = "VendorData"

func toVendor(c domain.Vendor) vendorJSON {
	ts := c.Tags
	if ts == nil {
		ts = []tags.Tag{}
	}
	out := vendorJSON{
		Type: VendorType, ID: c.ID.String(), ExternalID: c.ExternalID, IndividualName: c.IndividualName,
		CompanyName: c.CompanyName, Email: c.Email, MobilePhone: c.MobilePhone, OfficePhone: c.OfficePhone,
		AddressString: c.AddressString, Memo: c.Memo, Notes: c.Memo, Status: string(c.Status), TransactionTags: ts,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ArchivedAt: c.ArchivedAt,
	}
	if c.MergedIntoID != nil {
		s := c.MergedIntoID.String()
		out.MergedIntoID = &s
	}
	return out
}

func vendorParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "vendorId") }

// createVendor is POST /v1/businesses/{businessId}/vendors: 201 with
// the new vendor, 200 with the existing one when its external_id was
// used before.
func (h *handlers) createVendor(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxVendorBody)
	if err != nil {
		return err
	}
	in, err := domain.ParseVendorInput(body)
	if err != nil {
		return err
	}
	cu, created, err := h.vendors.Create(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	if !created {
		return httpx.OK(c, toVendor(cu))
	}
	return httpx.Created(c, toVendor(cu))
}

// listVendors is GET /v1/businesses/{businessId}/vendors: the spec's
// pagination (sort_by name|created_at|updated_at, sort_order, cursor,
// limit default 100 max 500, show_total_count) over the domain's filters;
// a cursor is valid only with the filter it was issued for.
func (h *handlers) listVendors(c *fiber.Ctx) error {
	q := httpx.Query(c)
	f, err := domain.ParseVendorFilter(q)
	if err != nil {
		return err
	}
	bid := businessID(c)
	p, err := page.Parse(q, postgres.VendorPageSpec, h.codec, bid.String()+"|"+f.Fingerprint())
	if err != nil {
		return err
	}
	list, meta, err := h.vendors.Vendors(c.UserContext(), bid, f, p)
	if err != nil {
		return err
	}
	out := make([]vendorJSON, len(list))
	for i, cu := range list {
		out[i] = toVendor(cu)
	}
	return httpx.List(c, out, meta)
}

// getVendor is GET /v1/businesses/{businessId}/vendors/{vendorId}
// (archived vendors too).
func (h *handlers) getVendor(c *fiber.Ctx) error {
	id, err := vendorParam(c)
	if err != nil {
		return err
	}
	cu, err := h.vendors.Vendor(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVendor(cu))
}

// patchVendor is PATCH /v1/businesses/{businessId}/vendors/{vendorId}.
func (h *handlers) patchVendor(c *fiber.Ctx) error {
	id, err := vendorParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxVendorBody)
	if err != nil {
		return err
	}
	p, err := domain.ParseVendorPatch(body)
	if err != nil {
		return err
	}
	cu, err := h.vendors.Update(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVendor(cu))
}

// archiveVendor is POST /v1/businesses/{business_id}/vendors/{vendor_id}/archive:
// no body (one sent is ignored); 200 with the vendor, status ARCHIVED.
func (h *handlers) archiveVendor(c *fiber.Ctx) error {
	id, err := vendorParam(c)
	if err != nil {
		return err
	}
	cu, err := h.vendors.Archive(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toVendor(cu))
}

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
