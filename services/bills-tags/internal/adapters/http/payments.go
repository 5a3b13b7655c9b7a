package http

import (
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// MaxPaymentBody bounds a bill payment request (100 allocations with
// their metadata and tags).
const MaxPaymentBody = 512 << 10

// paymentAllocationJSON is an allocation: the issue's {id, bill_id,
// payment_id, amount, transaction_tags} (the SDK's BillPaymentAllocation)
// plus the request's bill_external_id, memo, reference_number, metadata.
type paymentAllocationJSON struct {
	ID              string          `json:"id"`
	BillID          string          `json:"bill_id"`
	BillExternalID  *string         `json:"bill_external_id"`
	PaymentID       string          `json:"payment_id"`
	Amount          int64           `json:"amount"`
	Memo            *string         `json:"memo"`
	ReferenceNumber *string         `json:"reference_number"`
	Metadata        json.RawMessage `json:"metadata"`
	TransactionTags []tags.Tag      `json:"transaction_tags"`
}

// requestAllocationJSON is the SDK's BillPaymentRequestAllocation.
type requestAllocationJSON struct {
	Amount         int64   `json:"amount"`
	BillID         string  `json:"bill_id"`
	BillExternalID *string `json:"bill_external_id"`
}

// paymentJSON is a bill payment: the keys and the SDK's
// BillPayment (paid_at, bill_payment_allocations), every key present.
type paymentJSON struct {
	Type                   string                  `json:"type"`
	ID                     string                  `json:"id"`
	BusinessID             string                  `json:"business_id"`
	ExternalID             *string                 `json:"external_id"`
	At                     time.Time               `json:"at"`
	PaidAt                 time.Time               `json:"paid_at"`
	Method                 string                  `json:"method"`
	Amount                 int64                   `json:"amount"`
	Processor              *string                 `json:"processor"`
	PaymentClearingAccount accountIDJSON           `json:"payment_clearing_account_identifier"`
	Memo                   *string                 `json:"memo"`
	ReferenceNumber        *string                 `json:"reference_number"`
	Metadata               json.RawMessage         `json:"metadata"`
	ImportedAt             time.Time               `json:"imported_at"`
	UpdatedAt              time.Time               `json:"updated_at"`
	Allocations            []paymentAllocationJSON `json:"allocations"`
	BillPaymentAllocations []requestAllocationJSON `json:"bill_payment_allocations"`
	TransactionTags        []tags.Tag              `json:"transaction_tags"`
}

func rawOrNull(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return json.RawMessage("null")
	}
	return m
}

func toPayment(p bill.Payment) paymentJSON {
	out := paymentJSON{
		Type: "Bill_Payment", ID: p.ID.String(), BusinessID: p.BusinessID.String(), ExternalID: p.ExternalID, At: p.PaidAt,
		PaidAt: p.PaidAt, Method: string(p.Method), Amount: int64(p.Amount), Processor: p.Processor,
		PaymentClearingAccount: accountJSON(p.Clearing()), Memo: p.Memo, ReferenceNumber: p.ReferenceNumber,
		Metadata: rawOrNull(p.Metadata), ImportedAt: p.ImportedAt, UpdatedAt: p.UpdatedAt,
		Allocations:            make([]paymentAllocationJSON, len(p.Allocations)),
		BillPaymentAllocations: make([]requestAllocationJSON, len(p.Allocations)), TransactionTags: tagList(p.Tags),
	}
	for i, a := range p.Allocations {
		out.Allocations[i] = paymentAllocationJSON{ID: a.ID.String(), BillID: a.BillID.String(), BillExternalID: a.BillExternalID,
			PaymentID: p.ID.String(), Amount: int64(a.Amount), Memo: a.Memo, ReferenceNumber: a.ReferenceNumber,
			Metadata: rawOrNull(a.Metadata), TransactionTags: tagList(a.Tags)}
		out.BillPaymentAllocations[i] = requestAllocationJSON{Amount: int64(a.Amount), BillID: a.BillID.String(), BillExternalID: a.BillExternalID}
	}
	return out
}

func paymentParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "paymentId") }

// createPayment is POST /bills/bill-payments: 201 with the new payment,
// 200 with the existing one when its external_id was used before.
func (h *handlers) createPayment(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxPaymentBody)
	if err != nil {
		return err
	}
	in, err := bill.ParsePayment(body)
	if err != nil {
		return err
	}
	p, created, err := h.payments.CreatePayment(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toPayment(p))
}

// getPayment is GET /bills/bill-payments/{paymentId}.
func (h *handlers) getPayment(c *fiber.Ctx) error {
	id, err := paymentParam(c)
	if err != nil {
		return err
	}
	p, err := h.payments.Payment(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toPayment(p))
}

// updatePayment is POST /bills/bill-payments/{paymentId}/update.
func (h *handlers) updatePayment(c *fiber.Ctx) error {
	id, err := paymentParam(c)
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxPaymentBody)
	if err != nil {
		return err
	}
	patch, err := bill.ParsePaymentPatch(body)
	if err != nil {
		return err
	}
	p, err := h.payments.UpdatePayment(c.UserContext(), businessID(c), id, patch)
	if err != nil {
		return err
	}
	return httpx.OK(c, toPayment(p))
}

// deletePayment is DELETE /bills/bill-payments/{paymentId}: 204.
func (h *handlers) deletePayment(c *fiber.Ctx) error {
	id, err := paymentParam(c)
	if err != nil {
		return err
	}
	if err := h.payments.DeletePayment(c.UserContext(), businessID(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// tagPaymentsBody is the body of POST /bills/bill-payments/tags.
type tagPaymentsBody struct {
	KeyValues      []tags.KeyValue `json:"key_values"`
	TransactionIDs []uuid.UUID     `json:"transaction_ids"`
}

// untagPaymentsBody is the body of DELETE /bills/bill-payments/tags.
type untagPaymentsBody struct {
	TagIDs []uuid.UUID `json:"tag_ids"`
}

// MaxTagBody bounds the tag requests.
const MaxTagBody = 256 << 10

// ParseTagPayments reads POST /bills/bill-payments/tags strictly.
func ParseTagPayments(body []byte) (tagPaymentsBody, error) {
	var b tagPaymentsBody
	return b, decodeBody(body, &b)
}

// ParseUntagPayments reads DELETE /bills/bill-payments/tags strictly.
func ParseUntagPayments(body []byte) (untagPaymentsBody, error) {
	var b untagPaymentsBody
	return b, decodeBody(body, &b)
}

func decodeBody(body []byte, v any) error {
	if err := bill.DecodeStrict(body, v); err != nil {
		return apperr.From(err).WithEnum(bill.EnumInvalidPayment)
	}
	return nil
}

// tagPayments is POST /bills/bill-payments/tags: the spec's answer, {tags}
// with no data wrapper.
func (h *handlers) tagPayments(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxTagBody)
	if err != nil {
		return err
	}
	b, err := ParseTagPayments(body)
	if err != nil {
		return err
	}
	ts, err := h.payments.TagPayments(c.UserContext(), businessID(c), b.TransactionIDs, b.KeyValues)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusOK).JSON(fiber.Map{"tags": ts})
}

// untagPayments is DELETE /bills/bill-payments/tags: {tags} removed.
func (h *handlers) untagPayments(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxTagBody)
	if err != nil {
		return err
	}
	b, err := ParseUntagPayments(body)
	if err != nil {
		return err
	}
	ts, err := h.payments.UntagPayments(c.UserContext(), businessID(c), b.TagIDs)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusOK).JSON(fiber.Map{"tags": ts})
}
