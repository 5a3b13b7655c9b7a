package http

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// MaxPaymentBody bounds a payment body and a bulk delete's.
const MaxPaymentBody = 64 << 10

type paymentAllocOutJSON struct {
	InvoiceID         string  `json:"invoice_id"`
	InvoiceExternalID *string `json:"invoice_external_id"`
	Amount            int64   `json:"amount"`
}

// paymentOutJSON is a payment: the Payment with allocations, and
// the SDK's InvoicePayment fields (at = paid_at).
type paymentOutJSON struct {
	Type            string                `json:"type"`
	ID              string                `json:"id"`
	ExternalID      *string               `json:"external_id"`
	PaidAt          time.Time             `json:"paid_at"`
	At              time.Time             `json:"at"`
	Method          string                `json:"method"`
	Amount          int64                 `json:"amount"`
	Fee             int64                 `json:"fee"`
	Processor       *string               `json:"processor"`
	Memo            *string               `json:"memo"`
	ReferenceNumber *string               `json:"reference_number"`
	Allocations     []paymentAllocOutJSON `json:"allocations"`
	TransactionTags []tags.Tag            `json:"transaction_tags"`
	CreatedAt       time.Time             `json:"created_at"`
	UpdatedAt       time.Time             `json:"updated_at"`
}

func toPayment(p invoice.Payment) paymentOutJSON {
	out := paymentOutJSON{
		Type: "Payment", ID: p.ID.String(), ExternalID: p.ExternalID, PaidAt: p.PaidAt, At: p.PaidAt, Method: string(p.Method),
		Amount: int64(p.Amount), Fee: int64(p.Fee), Processor: p.Processor, Memo: p.Memo, ReferenceNumber: p.ReferenceNumber,
		Allocations: []paymentAllocOutJSON{}, TransactionTags: nonNilTags(p.Tags), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	for _, a := range p.Allocations {
		out.Allocations = append(out.Allocations, paymentAllocOutJSON{InvoiceID: a.InvoiceID.String(),
			InvoiceExternalID: a.InvoiceExternalID, Amount: int64(a.Amount)})
	}
	return out
}

// createPayment is POST /v1/businesses/{businessId}/invoices/payments.
func (h *handlers) createPayment(c *fiber.Ctx) error {
	return h.payment(c, nil)
}

// payInvoice is POST /v1/businesses/{businessId}/invoices/{invoiceId}/payment
// (also with the SDK's trailing slash): a payment of that one invoice.
func (h *handlers) payInvoice(c *fiber.Ctx) error {
	id, err := invoiceParam(c)
	if err != nil {
		return err
	}
	return h.payment(c, &id)
}

func (h *handlers) payment(c *fiber.Ctx, invoiceID *uuid.UUID) error {
	body, err := jsonBody(c, MaxPaymentBody)
	if err != nil {
		return err
	}
	in, err := invoice.ParsePayment(body, invoiceID)
	if err != nil {
		return err
	}
	p, created, err := h.invoicing.CreatePayment(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toPayment(p))
}

func paymentParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "paymentId") }

// getPayment is GET /v1/businesses/{businessId}/invoices/payments/{paymentId}.
func (h *handlers) getPayment(c *fiber.Ctx) error {
	id, err := paymentParam(c)
	if err != nil {
		return err
	}
	p, err := h.invoicing.PaymentByID(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toPayment(p))
}

// paymentTags is GET /v1/businesses/{businessId}/invoices/payments/{paymentId}/tags.
func (h *handlers) paymentTags(c *fiber.Ctx) error {
	id, err := paymentParam(c)
	if err != nil {
		return err
	}
	p, err := h.invoicing.PaymentByID(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, nonNilTags(p.Tags))
}

// bulkDeletePayments is POST /v1/businesses/{businessId}/invoices/payments/bulk-delete.
func (h *handlers) bulkDeletePayments(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxPaymentBody)
	if err != nil {
		return err
	}
	var in struct {
		IDs []uuid.UUID `json:"ids"`
	}
	if err := httpx.DecodeJSON(body, &in); err != nil {
		return err
	}
	n, err := h.invoicing.BulkDeletePayments(c.UserContext(), businessID(c), in.IDs)
	if err != nil {
		return err
	}
	return httpx.OK(c, map[string]any{"type": "BulkDeleteResponse", "deleted_count": n})
}
