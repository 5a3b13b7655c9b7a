package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
)

// tagsBody is the body of POST /bank-transactions/tags.
type tagsBody struct {
	KeyValues      []tags.KeyValue `json:"key_values"`
	TransactionIDs []uuid.UUID     `json:"transaction_ids"`
}

// untagBody is the body of DELETE /bank-transactions/tags.
type untagBody struct {
	TagIDs []uuid.UUID `json:"tag_ids"`
}

// tagsAnswer is the SDK's BankTransactionTagsResponse, with the issue's
// top-level `tags` beside `data`.
func tagsAnswer(c *fiber.Ctx, ts []tags.Tag) error {
	return c.Status(fiber.StatusOK).JSON(fiber.Map{
		"data": fiber.Map{"type": "Bank_Transaction_Tags", "tags": ts},
		"tags": ts,
	})
}

// tagTransactions is POST /v1/businesses/{businessId}/bank-transactions/tags.
func (h *handlers) tagTransactions(c *fiber.Ctx) error {
	var body tagsBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	ts, err := h.banking.TagTransactions(c.UserContext(), businessID(c), body.TransactionIDs, body.KeyValues)
	if err != nil {
		return err
	}
	return tagsAnswer(c, ts)
}

// untagTransactions is DELETE /v1/businesses/{businessId}/bank-transactions/tags.
func (h *handlers) untagTransactions(c *fiber.Ctx) error {
	var body untagBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	ts, err := h.banking.UntagTransactions(c.UserContext(), businessID(c), body.TagIDs)
	if err != nil {
		return err
	}
	return tagsAnswer(c, ts)
}
