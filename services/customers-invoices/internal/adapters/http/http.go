// Package http is the customers-invoices service's HTTP adapter: Fiber
// handlers that parse a request, call the use cases and render the answer
// in the spec's shapes (and the client SDK's, see client-shapes.md), one
// file per resource. Errors go to httpx's error handler unchanged.
package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpguard"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
)

// Options are the collaborators of the handlers.
type Options struct {
	Customers *app.Customers
	Invoicing *app.Invoicing
	Documents *app.Documents
	// Guards are the kit's route guards (token, tenancy, idempotency,
	// cursor codec).
	httpguard.Guards
}

type handlers struct {
	customers *app.Customers
	invoicing *app.Invoicing
	documents *app.Documents
	codec     *page.Codec
}

// Register mounts every route of the service on r.
func Register(r fiber.Router, o Options) {
	h := &handlers{customers: o.Customers, invoicing: o.Invoicing, documents: o.Documents, codec: o.Cursors}
	idem := o.Idem()
	const p = "/v1/businesses/:businessId"
	auth, biz := o.Auth, o.Business

	r.Post(p+"/customers", auth, biz, idem, h.createCustomer)
	r.Get(p+"/customers", auth, biz, h.listCustomers)
	r.Get(p+"/customers/:customerId", auth, biz, h.getCustomer)
	r.Patch(p+"/customers/:customerId", auth, biz, h.patchCustomer)
	r.Post(p+"/customers/:customerId/archive", auth, biz, h.archiveCustomer)

	// Static segments (payments) before the :invoiceId routes.
	r.Post(p+"/invoices/payments", auth, biz, idem, h.createPayment)
	r.Post(p+"/invoices/payments/bulk-delete", auth, biz, h.bulkDeletePayments)
	r.Post(p+"/invoices/payments/tags", auth, biz, h.tagPayments)
	r.Post(p+"/invoices/tags", auth, biz, h.tagInvoices)
	r.Get(p+"/invoices/payments/:paymentId", auth, biz, h.getPayment)
	r.Get(p+"/invoices/payments/:paymentId/tags", auth, biz, h.paymentTags)
	r.Get(p+"/invoices/summary-stats", auth, biz, h.summaryStats)
	r.Post(p+"/invoices", auth, biz, idem, h.createInvoice)
	r.Get(p+"/invoices", auth, biz, h.listInvoices)
	r.Get(p+"/invoices/:invoiceId", auth, biz, h.getInvoice)
	r.Patch(p+"/invoices/:invoiceId", auth, biz, h.patchInvoice)
	r.Delete(p+"/invoices/:invoiceId", auth, biz, h.deleteInvoice)
	r.Post(p+"/invoices/:invoiceId/void", auth, biz, h.voidInvoice)
	r.Post(p+"/invoices/:invoiceId/payment", auth, biz, idem, h.payInvoice)
	r.Post(p+"/invoices/:invoiceId/payment/", auth, biz, idem, h.payInvoice)
	r.Post(p+"/invoices/:invoiceId/write-off", auth, biz, idem, h.writeOff)
	r.Get(p+"/invoices/:invoiceId/write-offs/:writeOffId", auth, biz, h.getWriteOff)
	r.Put(p+"/invoices/:invoiceId/finalize-invoice", auth, biz, h.finalizeInvoice)
	r.Post(p+"/invoices/:invoiceId/reset", auth, biz, h.resetInvoice)
	r.Put(p+"/invoices/:invoiceId/payment/:paymentId", auth, biz, h.updatePayment)
	r.Post(p+"/invoices/:invoiceId/refund", auth, biz, idem, h.refundInvoice)
	r.Get(p+"/invoices/:invoiceId/payment-methods", auth, biz, h.paymentMethods)
	r.Get(p+"/invoices/:invoiceId/pdf", auth, biz, h.invoicePDF)
	r.Get(p+"/invoices/:invoiceId/html", auth, biz, h.invoiceHTML)
}

// businessID is the business RequireBusiness authorised.
func businessID(c *fiber.Ctx) uuid.UUID {
	id, _ := httpauth.BusinessIDFrom(c)
	return id
}

// jsonBody is httpx.JSONBody (415 unless JSON, 413 beyond limit).
func jsonBody(c *fiber.Ctx, limit int) ([]byte, error) { return httpx.JSONBody(c, limit) }

func nonNilTags(ts []tags.Tag) []tags.Tag {
	if ts == nil {
		return []tags.Tag{}
	}
	return ts
}
