package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
)

// invoiceTagsBody is the body of POST /invoices/tags.
type invoiceTagsBody struct {
	KeyValues  []tags.KeyValue `json:"key_values"`
	InvoiceIDs []uuid.UUID     `json:"invoice_ids"`
}

// paymentTagsBody is the body of POST /invoices/payments/tags.
type paymentTagsBody struct {
	KeyValues  []tags.KeyValue `json:"key_values"`
	PaymentIDs []uuid.UUID     `json:"payment_ids"`
}

// tagsAnswer is POST /bank-transactions/tags's shape: the tags added in
// `data` (with its type) and at top level as `tags`.
func tagsAnswer(c *fiber.Ctx, typ string, ts []tags.Tag) error {
	return c.Status(fiber.StatusOK).JSON(fiber.Map{
		"data": fiber.Map{"type": typ, "tags": ts},
		"tags": ts,
	})
}

// tagInvoices is POST /v1/businesses/{businessId}/invoices/tags.
func (h *handlers) tagInvoices(c *fiber.Ctx) error {
	var body invoiceTagsBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	ts, err := h.invoicing.TagInvoices(c.UserContext(), businessID(c), body.InvoiceIDs, body.KeyValues)
	if err != nil {
		return err
	}
	return tagsAnswer(c, "Invoice_Tags", ts)
}

// tagPayments is POST /v1/businesses/{businessId}/invoices/payments/tags.
func (h *handlers) tagPayments(c *fiber.Ctx) error {
	var body paymentTagsBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	ts, err := h.invoicing.TagPayments(c.UserContext(), businessID(c), body.PaymentIDs, body.KeyValues)
	if err != nil {
		return err
	}
	return tagsAnswer(c, "Invoice_Payment_Tags", ts)
}
