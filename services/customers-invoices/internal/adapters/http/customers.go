package http

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

// MaxCustomerBody bounds a customer create or patch body (50 tags with
// display names and the longest text fields fit with room to spare).
const MaxCustomerBody = 64 << 10

// customerJSON is the customer on every route: the spec's CustomerData
// plus the SDK's Customer, every key present, null where empty. The memo
// is sent as both `memo` (update payload and response) and `notes` (the
// spec's list and archive samples).
type customerJSON struct {
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
}

// CustomerType is the customer's `type`.
const CustomerType = "CustomerData"

func toCustomer(c domain.Customer) customerJSON {
	ts := c.Tags
	if ts == nil {
		ts = []tags.Tag{}
	}
	return customerJSON{
		Type: CustomerType, ID: c.ID.String(), ExternalID: c.ExternalID, IndividualName: c.IndividualName,
		CompanyName: c.CompanyName, Email: c.Email, MobilePhone: c.MobilePhone, OfficePhone: c.OfficePhone,
		AddressString: c.AddressString, Memo: c.Memo, Notes: c.Memo, Status: string(c.Status), TransactionTags: ts,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ArchivedAt: c.ArchivedAt,
	}
}

func customerParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "customerId") }

// createCustomer is POST /v1/businesses/{businessId}/customers: 201 with
// the new customer, 200 with the existing one when its external_id was
// used before.
func (h *handlers) createCustomer(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxCustomerBody)
	if err != nil {
		return err
	}
	in, err := domain.ParseCustomerInput(body)
	if err != nil {
		return err
	}
	cu, created, err := h.customers.Create(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	if !created {
		return httpx.OK(c, toCustomer(cu))
	}
	return httpx.Created(c, toCustomer(cu))
}

// listCustomers is GET /v1/businesses/{businessId}/customers: the spec's
// pagination (sort_by name|created_at|updated_at, sort_order, cursor,
// limit default 100 max 500, show_total_count) over the domain's filters;
// a cursor is valid only with the filter it was issued for.
func (h *handlers) listCustomers(c *fiber.Ctx) error {
	q := httpx.Query(c)
	f, err := domain.ParseCustomerFilter(q)
	if err != nil {
		return err
	}
	bid := businessID(c)
	p, err := page.Parse(q, postgres.CustomerPageSpec, h.codec, bid.String()+"|"+f.Fingerprint())
	if err != nil {
		return err
	}
	list, meta, err := h.customers.Customers(c.UserContext(), bid, f, p)
	if err != nil {
		return err
	}
	out := make([]customerJSON, len(list))
	for i, cu := range list {
		out[i] = toCustomer(cu)
	}
	return httpx.List(c, out, meta)
}

// getCustomer is GET /v1/businesses/{businessId}/customers/{customerId}
// (archived customers too).
func (h *handlers) getCustomer(c *fiber.Ctx) error {
	id, err := customerParam(c)
	if err != nil {
		return err
	}
	cu, err := h.customers.Customer(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toCustomer(cu))
}

// patchCustomer is PATCH /v1/businesses/{businessId}/customers/{customerId}.
func (h *handlers) patchCustomer(c *fiber.Ctx) error {
	id, err := customerParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxCustomerBody)
	if err != nil {
		return err
	}
	p, err := domain.ParseCustomerPatch(body)
	if err != nil {
		return err
	}
	cu, err := h.customers.Update(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, toCustomer(cu))
}

// archiveCustomer is POST /v1/businesses/{business_id}/customers/{customer_id}/archive:
// no body (one sent is ignored); 200 with the customer, status ARCHIVED.
func (h *handlers) archiveCustomer(c *fiber.Ctx) error {
	id, err := customerParam(c)
	if err != nil {
		return err
	}
	cu, err := h.customers.Archive(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toCustomer(cu))
}
