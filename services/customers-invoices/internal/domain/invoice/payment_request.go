package invoice

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// AllocationInput is an invoice_payments item: an invoice by id or
// external id, and the amount paid on it.
type AllocationInput struct {
	InvoiceID         *uuid.UUID
	InvoiceExternalID *string
	Amount            money.Cents
}

// PaymentInput is a checked POST /invoices/payments body (or the
// single-invoice shortcut's); the amounts' rules are CheckPayment's.
type PaymentInput struct {
	ExternalID      *string
	PaidAt          *time.Time
	Method          Method
	Amount          money.Cents
	Fee             money.Cents
	Processor       *string
	Memo            *string
	ReferenceNumber *string
	Tags            []tags.KeyValue
	Allocations     []AllocationInput
	// PathInvoice is the invoice of POST /invoices/{id}/payment (the
	// whole amount goes to it): unknown, it is a 404, not a 400.
	PathInvoice *uuid.UUID
}

// Check is the payment's rule that needs no stored state: paid_at is
// required.
func (in PaymentInput) Check() error {
	if in.PaidAt == nil {
		return apperr.PayloadField("paid_at", "is required").WithEnum(EnumInvalidInvoice)
	}
	return nil
}

// PaymentBody is POST /invoices/payments's body (and, without
// invoice_payments, the single-invoice shortcut's) as the transport
// decodes it (strictly); Input checks it.
type PaymentBody struct {
	ExternalID      *string         `json:"external_id"`
	PaidAt          *time.Time      `json:"paid_at"`
	Method          *string         `json:"method"`
	Amount          json.RawMessage `json:"amount"`
	Fee             json.RawMessage `json:"fee"`
	Processor       *string         `json:"processor"`
	Memo            *string         `json:"memo"`
	ReferenceNumber *string         `json:"reference_number"`
	Tags            []tags.KeyValue `json:"tags"`
	InvoicePayments []struct {
		InvoiceID         *uuid.UUID      `json:"invoice_id"`
		InvoiceExternalID *string         `json:"invoice_external_id"`
		Amount            json.RawMessage `json:"amount"`
	} `json:"invoice_payments"`
}

// Input checks a payment body; pathInvoice is the invoice of
// POST /invoices/{id}/payment (which takes no invoice_payments: the whole
// amount goes to it). paid_at, method and amount are required; a blank
// processor is none; texts within their limits and without NUL; tags
// pkg/tags' rules. Every violation is named in one 400 InvalidInvoice
// (tags: pkg/tags' error).
func (b PaymentBody) Input(pathInvoice *uuid.UUID) (PaymentInput, error) {
	bad := map[string]string{}
	out := PaymentInput{
		ExternalID: b.ExternalID, PaidAt: b.PaidAt, Processor: b.Processor, Memo: b.Memo, ReferenceNumber: b.ReferenceNumber,
		Amount: cents("amount", b.Amount, true, bad), Fee: cents("fee", b.Fee, false, bad),
	}
	if b.PaidAt == nil {
		bad["paid_at"] = "is required"
	}
	switch {
	case b.Method == nil:
		bad["method"] = "is required"
	default:
		m, ok := ParseMethod(*b.Method)
		if !ok {
			bad["method"] = "must be one of CASH, CHECK, CREDIT_CARD, ACH, CREDIT_BALANCE, OTHER"
		}
		out.Method = m
	}
	if b.Processor != nil && strings.TrimSpace(*b.Processor) == "" {
		out.Processor = nil
	}
	checkTexts(map[string]*string{"external_id": b.ExternalID, "memo": b.Memo, "reference_number": b.ReferenceNumber}, bad)
	if b.Processor != nil && len(*b.Processor) > 100 {
		bad["processor"] = "at most 100 characters"
	} else if b.Processor != nil && jsonraw.TextReason(*b.Processor) != "" {
		bad["processor"] = jsonraw.TextReason(*b.Processor) // stored as text: a NUL is a 400, not a 500 (found by contract fuzzing)
	}
	if pathInvoice != nil {
		if b.InvoicePayments != nil {
			bad["invoice_payments"] = "not taken here: the payment is for the invoice of the path"
		}
		out.Allocations = []AllocationInput{{InvoiceID: pathInvoice, Amount: out.Amount}}
		out.PathInvoice = pathInvoice
	} else {
		for i, ip := range b.InvoicePayments {
			out.Allocations = append(out.Allocations, AllocationInput{InvoiceID: ip.InvoiceID, InvoiceExternalID: ip.InvoiceExternalID,
				Amount: cents(fmt.Sprintf("invoice_payments[%d].amount", i), ip.Amount, true, bad)})
		}
	}
	kvs, err := tags.NormalizeList("tags", b.Tags)
	if err != nil {
		return PaymentInput{}, err
	}
	out.Tags = kvs
	if len(bad) > 0 {
		return PaymentInput{}, invalidRequest(bad)
	}
	return out, nil
}

// ParsePayment reads a payment body: decoded strictly, then checked
// (PaymentBody.Input); pathInvoice is the invoice of POST
// /invoices/{id}/payment.
func ParsePayment(raw []byte, pathInvoice *uuid.UUID) (PaymentInput, error) {
	var b PaymentBody
	if err := jsonraw.Decode(raw, &b); err != nil {
		return PaymentInput{}, err
	}
	return b.Input(pathInvoice)
}
