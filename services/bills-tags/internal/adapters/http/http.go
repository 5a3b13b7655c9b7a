// Package http is the bills-tags service's HTTP adapter: Fiber handlers
// that parse a request, call the use cases and render the answer in the
// spec's shapes (and the client SDK's, see client-shapes.md), one file per
// resource. Errors go to httpx's error handler unchanged.
package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpguard"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
)

// Options are the collaborators of the handlers.
type Options struct {
	Vendors  *app.Vendors
	Bills    *app.Bills
	Payments *app.Payments
	Tags     *app.Tags // the tag registry and POST /tags (nil: not mounted)
	Credits  *app.Credits
	Receipts *app.Receipts
	// Guards are the kit's route guards (token, tenancy, idempotency,
	// cursor codec).
	httpguard.Guards
}

type handlers struct {
	vendors  *app.Vendors
	bills    *app.Bills
	payments *app.Payments
	credits  *app.Credits
	codec    *page.Codec
}

// Register mounts every route of the service on r.
func Register(r fiber.Router, o Options) {
	h := &handlers{vendors: o.Vendors, bills: o.Bills, payments: o.Payments, credits: o.Credits, codec: o.Cursors}
	idem := o.Idem()
	const p = "/v1/businesses/:businessId"
	auth, biz := o.Auth, o.Business

	r.Post(p+"/vendors", auth, biz, idem, h.createVendor)
	r.Get(p+"/vendors", auth, biz, h.listVendors)
	r.Get(p+"/vendors/:vendorId", auth, biz, h.getVendor)
	r.Patch(p+"/vendors/:vendorId", auth, biz, h.patchVendor)
	r.Post(p+"/vendors/:vendorId/update", auth, biz, h.patchVendor)
	r.Post(p+"/vendors/:vendorId/archive", auth, biz, h.archiveVendor)
	r.Post(p+"/vendors/:vendorId/merge", auth, biz, h.mergeVendor)

	// Static segments (bulk, bill-payments, vendor-credits) before the :billId routes.
	r.Post(p+"/bills/bill-payments/tags", auth, biz, h.tagPayments)
	r.Delete(p+"/bills/bill-payments/tags", auth, biz, h.untagPayments)
	r.Post(p+"/bills/bill-payments", auth, biz, idem, h.createPayment)
	r.Get(p+"/bills/bill-payments/:paymentId", auth, biz, h.getPayment)
	r.Post(p+"/bills/bill-payments/:paymentId/update", auth, biz, h.updatePayment)
	r.Delete(p+"/bills/bill-payments/:paymentId", auth, biz, h.deletePayment)
	r.Post(p+"/bills/vendor-credits", auth, biz, idem, h.createCredit)
	r.Get(p+"/bills/vendor-credits", auth, biz, h.listCredits)
	r.Get(p+"/bills/vendor-credits/:vendorCreditId", auth, biz, h.getCredit)
	r.Patch(p+"/bills/vendor-credits/:vendorCreditId", auth, biz, h.updateCredit)
	r.Post(p+"/bills/bulk", auth, biz, idem, h.createBills)
	r.Post(p+"/bills", auth, biz, idem, h.createBill)
	r.Get(p+"/bills", auth, biz, h.listBills)
	r.Get(p+"/bills/:billId", auth, biz, h.getBill)
	r.Patch(p+"/bills/:billId", auth, biz, h.updateBill)
	r.Post(p+"/bills/:billId/update", auth, biz, h.updateBill)
	r.Post(p+"/bills/:billId/void", auth, biz, h.voidBill)

	registerTags(r, o, idem)
	// Receipts (the static import segment before :businessDocumentId).
	rh := &receiptHandlers{receipts: o.Receipts, codec: o.Cursors}
	r.Post(p+"/receipts/import", auth, biz, idem, rh.importReceipt)
	r.Get(p+"/receipts", auth, biz, rh.listReceipts)
	r.Get(p+"/receipts/:businessDocumentId", auth, biz, rh.getReceipt)
	r.Post(p+"/receipts/:businessDocumentId/create-bill", auth, biz, idem, rh.createBillFromReceipt)
	r.Post(p+"/receipts/:businessDocumentId/reject", auth, biz, rh.rejectReceipt)
}

// businessID is the business RequireBusiness authorised.
func businessID(c *fiber.Ctx) uuid.UUID {
	id, _ := httpauth.BusinessIDFrom(c)
	return id
}

// jsonBody is httpx.JSONBody (415 unless JSON, 413 beyond limit).
func jsonBody(c *fiber.Ctx, limit int) ([]byte, error) { return httpx.JSONBody(c, limit) }
