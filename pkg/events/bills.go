package events

import (
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
)

// Event types published on TopicBills by the bills & tags service. Like
// the invoicing events, each document event carries the document's
// snapshot and the LedgerPosting the ledger applies (a voided or deleted
// document's posting has no lines: its live entry is reversed); the
// transactions service's PostingHandler applies them, the reports service
// reads the payments' allocations for the cash basis. receipt.parsed
// carries no posting: a receipt is no ledger document (the bill made from
// it is, and publishes its own bill.upserted).
const (
	TypeVendorUpserted       = "vendor.upserted"        // created, changed, archived or merged away
	TypeBillUpserted         = "bill.upserted"          // received, edited or voided (status changes by payments carry no posting)
	TypeBillPaymentUpserted  = "bill_payment.upserted"  // recorded or updated
	TypeBillPaymentDeleted   = "bill_payment.deleted"   // deleted (balances restored)
	TypeVendorCreditUpserted = "vendor_credit.upserted" // recorded or updated (allocations to bills included)
	TypeReceiptParsed        = "receipt.parsed"         // imported and read: READY_FOR_BILL with a proposal, or FAILED with the reason
)

// Ledger source types of the bills service's documents (LedgerPosting's
// SourceType, and the ledger entries' source_type).
const (
	SourceBill         = "BILL"
	SourceBillPayment  = "BILL_PAYMENT"
	SourceVendorCredit = "VENDOR_CREDIT"
)

// VendorUpserted is the payload of vendor.upserted: the whole vendor as
// it now is (Version grows with every change; Status ACTIVE or ARCHIVED).
type VendorUpserted struct {
	VendorID       uuid.UUID   `json:"vendor_id"`
	BusinessID     uuid.UUID   `json:"business_id"`
	Version        int         `json:"version"`
	ExternalID     *string     `json:"external_id"`
	DisplayName    string      `json:"display_name"`
	IndividualName *string     `json:"individual_name"`
	CompanyName    *string     `json:"company_name"`
	Email          *string     `json:"email"`
	Status         string      `json:"status"`
	MergedIntoID   *uuid.UUID  `json:"merged_into_id"`
	Tags           []LedgerTag `json:"tags"`
	UpdatedAt      time.Time   `json:"updated_at"`
}

// BillSnapshot is a bill as other services need it: identity, vendor,
// dates, amounts in cents, status and tags.
type BillSnapshot struct {
	ID                 uuid.UUID       `json:"id"`
	BusinessID         uuid.UUID       `json:"business_id"`
	ExternalID         *string         `json:"external_id"`
	BillNumber         *string         `json:"bill_number"`
	VendorID           *uuid.UUID      `json:"vendor_id"`
	Status             string          `json:"status"` // RECEIVED, PARTIALLY_PAID, PAID, VOIDED
	ReceivedAt         time.Time       `json:"received_at"`
	DueAt              *time.Time      `json:"due_at"`
	TotalAmount        int64           `json:"total_amount"`
	OutstandingBalance int64           `json:"outstanding_balance"`
	Tags               []tags.KeyValue `json:"tags"`
	Version            int64           `json:"version"`
	UpdatedAt          time.Time       `json:"updated_at"`
}

// BillUpserted is the payload of bill.upserted. Posting is nil when the
// change does not touch the bill's entry (a status change caused by a
// payment or a credit).
type BillUpserted struct {
	BusinessID uuid.UUID      `json:"business_id"`
	Bill       BillSnapshot   `json:"bill"`
	Posting    *LedgerPosting `json:"posting"`
}

// BillAllocation is the part of a bill payment or a vendor credit applied
// to one bill.
type BillAllocation struct {
	BillID         uuid.UUID `json:"bill_id"`
	BillExternalID *string   `json:"bill_external_id"`
	Amount         int64     `json:"amount"`
}

// BillPaymentSnapshot is a payment to vendors: what it paid, when, how,
// from which clearing account (a stable name or an account id, as the
// posting credits it) and which bills it paid.
type BillPaymentSnapshot struct {
	ID              uuid.UUID        `json:"id"`
	BusinessID      uuid.UUID        `json:"business_id"`
	ExternalID      *string          `json:"external_id"`
	PaidAt          time.Time        `json:"paid_at"`
	Method          string           `json:"method"`
	Amount          int64            `json:"amount"`
	Processor       *string          `json:"processor"`
	ClearingAccount PostingAccount   `json:"clearing_account"`
	Memo            *string          `json:"memo"`
	ReferenceNumber *string          `json:"reference_number"`
	Allocations     []BillAllocation `json:"allocations"`
	Tags            []tags.KeyValue  `json:"tags"`
	Version         int64            `json:"version"`
}

// BillPaymentUpserted is the payload of bill_payment.upserted.
type BillPaymentUpserted struct {
	BusinessID uuid.UUID           `json:"business_id"`
	Payment    BillPaymentSnapshot `json:"payment"`
	Posting    *LedgerPosting      `json:"posting"`
}

// BillPaymentDeleted is the payload of bill_payment.deleted (the posting,
// without lines, carries the deletion's version).
type BillPaymentDeleted struct {
	BusinessID uuid.UUID      `json:"business_id"`
	PaymentID  uuid.UUID      `json:"payment_id"`
	Posting    *LedgerPosting `json:"posting"`
}

// VendorCreditSnapshot is a credit a vendor granted: its amount, the
// bills it was applied to, and what is left unapplied.
type VendorCreditSnapshot struct {
	ID          uuid.UUID        `json:"id"`
	BusinessID  uuid.UUID        `json:"business_id"`
	ExternalID  *string          `json:"external_id"`
	VendorID    *uuid.UUID       `json:"vendor_id"`
	ReceivedAt  time.Time        `json:"received_at"`
	TotalAmount int64            `json:"total_amount"`
	Unapplied   int64            `json:"unapplied"`
	Allocations []BillAllocation `json:"allocations"`
	Tags        []tags.KeyValue  `json:"tags"`
	Version     int64            `json:"version"`
}

// VendorCreditUpserted is the payload of vendor_credit.upserted.
type VendorCreditUpserted struct {
	BusinessID   uuid.UUID            `json:"business_id"`
	VendorCredit VendorCreditSnapshot `json:"vendor_credit"`
	Posting      *LedgerPosting       `json:"posting"`
}

// ReceiptParsed is the payload of receipt.parsed, published once per
// receipt, in the transaction that inserts it: an imported receipt file
// whose text was read and parsed, Status READY_FOR_BILL with the proposal,
// or FAILED with FailureReason (no text or no amount could be read). Later
// changes of the receipt (a bill made from it, a rejection) are not
// published as receipt events. Receipts have no external id: ReceiptID
// (the API's business_document_id) is their only identity.
type ReceiptParsed struct {
	ReceiptID     uuid.UUID `json:"receipt_id"`
	BusinessID    uuid.UUID `json:"business_id"`
	Status        string    `json:"status"`         // READY_FOR_BILL or FAILED
	FailureReason *string   `json:"failure_reason"` // FAILED only
	FileName      *string   `json:"file_name"`      // as uploaded; nil when the upload named none
	FileType      string    `json:"file_type"`      // pdf, png or jpeg, detected by content
	// The proposal, nil where nothing was read (a FAILED receipt has no
	// amount and no matched vendor; its vendor name may have been read).
	ProposedAmountCents   *int64     `json:"proposed_amount_cents"`   // the receipt's total
	ProposedVendorDisplay *string    `json:"proposed_vendor_display"` // the vendor's name as read
	MatchedVendorID       *uuid.UUID `json:"matched_vendor_id"`       // the active vendor that name matched
	CreatedAt             time.Time  `json:"created_at"`              // the import time
}
