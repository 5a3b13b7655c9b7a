package http

import (
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/party/partyhttp"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

// MaxCustomerBody bounds a customer create or patch body (50 tags with
// display names and the longest text fields fit with room to spare).
const MaxCustomerBody = 64 << 10

// customerJSON is the customer on every route: the spec's CustomerData
// plus the SDK's Customer (partyhttp.JSON).
type customerJSON = partyhttp.JSON

// CustomerType is the customer's `type`.
const CustomerType = "CustomerData"

func toCustomer(c domain.Customer) customerJSON { return partyhttp.ToJSON(CustomerType, c) }

// customerRoutes are the customer handlers (partyhttp's).
func (h *handlers) customerRoutes() partyhttp.Handlers[domain.Customer, customerJSON] {
	return partyhttp.Handlers[domain.Customer, customerJSON]{
		UseCases: h.customers.UseCases, Param: "customerId", MaxBody: MaxCustomerBody,
		ParseInput: domain.ParseCustomerInput, ParsePatch: domain.ParseCustomerPatch, ParseFilter: domain.ParseCustomerFilter,
		PageSpec: app.CustomerPageSpec, Codec: h.codec, Render: toCustomer,
	}
}

// createCustomer is POST /v1/businesses/{businessId}/customers: 201 with
// the new customer, 200 with the existing one when its external_id was
// used before.
func (h *handlers) createCustomer(c *fiber.Ctx) error { return h.customerRoutes().Create(c) }

// listCustomers is GET /v1/businesses/{businessId}/customers (paginated,
// filtered by domain.ParseCustomerFilter).
func (h *handlers) listCustomers(c *fiber.Ctx) error { return h.customerRoutes().List(c) }

// getCustomer is GET /v1/businesses/{businessId}/customers/{customerId}
// (archived customers too).
func (h *handlers) getCustomer(c *fiber.Ctx) error { return h.customerRoutes().Get(c) }

// patchCustomer is PATCH /v1/businesses/{businessId}/customers/{customerId}.
func (h *handlers) patchCustomer(c *fiber.Ctx) error { return h.customerRoutes().Patch(c) }

// archiveCustomer is POST /v1/businesses/{business_id}/customers/{customer_id}/archive:
// no body (one sent is ignored); 200 with the customer, status ARCHIVED.
func (h *handlers) archiveCustomer(c *fiber.Ctx) error { return h.customerRoutes().Archive(c) }
