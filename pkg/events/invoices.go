package events

import (
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
)

// Event types of invoices, payments and write-offs published on
// TopicInvoicing by the customers & invoices service. Each carries the
// document's snapshot and the LedgerPosting the ledger applies (a deleted
// or voided document's posting has no lines: its live entry is reversed).
const (
	TypeInvoiceUpserted         = "invoice.upserted"           // created, edited, voided, or its status changed
	TypeInvoiceDeleted          = "invoice.deleted"            // deleted (it had no payments)
	TypeInvoicePaymentUpserted  = "invoice_payment.upserted"   // recorded
	TypeInvoicePaymentDeleted   = "invoice_payment.deleted"    // deleted (bulk delete)
	TypeInvoiceWriteOffUpserted = "invoice_write_off.upserted" // recorded, or undone with its voided invoice
	TypeInvoiceRefundUpserted   = "invoice_refund.upserted"    // recorded, or undone by a reset of its invoice
)

// Ledger source types of a customer refund's two entries (both with the
// refund's id as source id): the sale given back (debit revenue, taxes,
// tips; credit A/R) and the money paid out (debit A/R; credit cash).
const (
	SourceRefundAllocation = "REFUND_ALLOCATION"
	SourceRefundPayment    = "REFUND_PAYMENT"
)

// InvoiceSnapshot is an invoice as other services need it: identity,
// customer, dates, amounts in cents, status and tags. Version grows with
// every change.
type InvoiceSnapshot struct {
	ID                 uuid.UUID       `json:"id"`
	BusinessID         uuid.UUID       `json:"business_id"`
	ExternalID         *string         `json:"external_id"`
	InvoiceNumber      *string         `json:"invoice_number"`
	CustomerID         *uuid.UUID      `json:"customer_id"`
	Status             string          `json:"status"`
	SentAt             time.Time       `json:"sent_at"`
	DueAt              *time.Time      `json:"due_at"`
	TotalAmount        int64           `json:"total_amount"`
	OutstandingBalance int64           `json:"outstanding_balance"`
	Tags               []tags.KeyValue `json:"tags"`
	Version            int64           `json:"version"`
	UpdatedAt          time.Time       `json:"updated_at"`
}

// InvoiceUpserted is the payload of invoice.upserted.
type InvoiceUpserted struct {
	BusinessID uuid.UUID       `json:"business_id"`
	Invoice    InvoiceSnapshot `json:"invoice"`
	// Posting is nil when the change does not touch the invoice's entry
	// (a status change caused by a payment).
	Posting *LedgerPosting `json:"posting"`
}

// InvoiceDeleted is the payload of invoice.deleted.
type InvoiceDeleted struct {
	BusinessID uuid.UUID      `json:"business_id"`
	InvoiceID  uuid.UUID      `json:"invoice_id"`
	Posting    *LedgerPosting `json:"posting"`
}

// PaymentAllocation is the part of a payment that paid one invoice (with
// the invoice's identifiers, which matching shows).
type PaymentAllocation struct {
	InvoiceID              uuid.UUID `json:"invoice_id"`
	InvoiceExternalID      *string   `json:"invoice_external_id"`
	InvoiceReferenceNumber *string   `json:"invoice_reference_number"`
	InvoiceNumber          *string   `json:"invoice_number"`
	Amount                 int64     `json:"amount"`
}

// InvoicePaymentSnapshot is a customer payment: what it paid, when, how,
// and which invoices it paid (matching bank deposits to payments needs
// the amount, the date and the method).
type InvoicePaymentSnapshot struct {
	ID         uuid.UUID `json:"id"`
	BusinessID uuid.UUID `json:"business_id"`
	ExternalID *string   `json:"external_id"`
	PaidAt     time.Time `json:"paid_at"`
	Method     string    `json:"method"`
	Amount     int64     `json:"amount"`
	Fee        int64     `json:"fee"`
	Processor  *string   `json:"processor"`
	// Deposit is what reaches a bank account (Amount − Fee), into
	// DepositAccount (the stable name of the account the payment's entry
	// debited: UNDEPOSITED_FUNDS, PAYMENT_PROCESSOR_CLEARING, or
	// UNEARNED_REVENUE when a credit balance paid and no money moved).
	Deposit         int64               `json:"deposit"`
	DepositAccount  string              `json:"deposit_account"`
	Memo            *string             `json:"memo"`
	ReferenceNumber *string             `json:"reference_number"`
	Allocations     []PaymentAllocation `json:"allocations"`
	Tags            []tags.KeyValue     `json:"tags"`
	Version         int64               `json:"version"`
}

// InvoicePaymentUpserted is the payload of invoice_payment.upserted.
type InvoicePaymentUpserted struct {
	BusinessID uuid.UUID              `json:"business_id"`
	Payment    InvoicePaymentSnapshot `json:"payment"`
	Posting    *LedgerPosting         `json:"posting"`
}

// InvoicePaymentDeleted is the payload of invoice_payment.deleted.
type InvoicePaymentDeleted struct {
	BusinessID uuid.UUID      `json:"business_id"`
	PaymentID  uuid.UUID      `json:"payment_id"`
	Posting    *LedgerPosting `json:"posting"`
}

// InvoiceWriteOffSnapshot is a write-off of part of an invoice.
type InvoiceWriteOffSnapshot struct {
	ID         uuid.UUID       `json:"id"`
	BusinessID uuid.UUID       `json:"business_id"`
	InvoiceID  uuid.UUID       `json:"invoice_id"`
	ExternalID *string         `json:"external_id"`
	Amount     int64           `json:"amount"`
	Mode       string          `json:"write_off_mode"`
	WriteOffAt time.Time       `json:"write_off_at"`
	Voided     bool            `json:"voided"`
	Tags       []tags.KeyValue `json:"tags"`
	Version    int64           `json:"version"`
}

// InvoiceWriteOffUpserted is the payload of invoice_write_off.upserted.
type InvoiceWriteOffUpserted struct {
	BusinessID uuid.UUID               `json:"business_id"`
	WriteOff   InvoiceWriteOffSnapshot `json:"write_off"`
	Posting    *LedgerPosting          `json:"posting"`
}

// InvoiceRefundSnapshot is a refund of money paid on an invoice.
type InvoiceRefundSnapshot struct {
	ID              uuid.UUID `json:"id"`
	BusinessID      uuid.UUID `json:"business_id"`
	InvoiceID       uuid.UUID `json:"invoice_id"`
	ExternalID      *string   `json:"external_id"`
	Amount          int64     `json:"amount"`
	Method          string    `json:"method"`
	CompletedAt     time.Time `json:"completed_at"`
	ReferenceNumber *string   `json:"reference_number"`
	Memo            *string   `json:"memo"`
	Voided          bool      `json:"voided"`
	Version         int64     `json:"version"`
}

// InvoiceRefundUpserted is the payload of invoice_refund.upserted. A
// refund stands for two ledger entries, so it carries two postings
// (Postings: the REFUND_ALLOCATION's, then the REFUND_PAYMENT's; without
// lines once the refund is voided), where other documents carry one.
type InvoiceRefundUpserted struct {
	BusinessID uuid.UUID             `json:"business_id"`
	Refund     InvoiceRefundSnapshot `json:"refund"`
	Postings   []LedgerPosting       `json:"postings"`
}
