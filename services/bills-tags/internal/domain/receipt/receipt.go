// Package receipt holds the receipt-import rules of the bills & tags
// service: a receipt's statuses and the moves between them, the vendor a
// parsed receipt names (matched against the business's vendors), the
// account each proposed line goes to (the business's history with the
// vendor, else keyword rules on the default chart), and the bill a receipt
// becomes. Text extraction and parsing are pkg/receipts'; this package
// imports no transport or storage package.
package receipt

import (
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// Status is where a receipt is in its life.
type Status string

// The statuses. Import is synchronous (the text is read and parsed before
// the answer), so a stored receipt is READY_FOR_BILL or FAILED from the
// start; PROCESSING is the status of the contract that a stored receipt
// never has today (it stays valid for an asynchronous import later).
const (
	Processing   Status = "PROCESSING"
	ReadyForBill Status = "READY_FOR_BILL"
	BillCreated  Status = "BILL_CREATED"
	Rejected     Status = "REJECTED"
	Failed       Status = "FAILED"
)

// Statuses are every status, in the order of a receipt's life.
var Statuses = []Status{Processing, ReadyForBill, BillCreated, Rejected, Failed}

// ParseStatus reads a status (exact, upper case).
func ParseStatus(s string) (Status, bool) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// SourceBookkeeperUpload is the source of a receipt uploaded through the
// API (the spec's sample value).
const SourceBookkeeperUpload = "BOOKKEEPER_UPLOAD"

// Limits of an import.
const (
	MaxContextChars = 2000 // the `context` text sent with the file
	MaxFileNameLen  = 255
)

// Stable error_enum values of the receipt rules' 4xx errors.
const (
	EnumReceiptNotFound      = "ReceiptNotFound"
	EnumInvalidReceipt       = "InvalidReceipt" // corrupt, bomb, absurd dimensions, bad multipart
	EnumInvalidContext       = "InvalidReceiptContext"
	EnumReceiptTooLarge      = "ReceiptTooLarge"        // 413
	EnumUnsupportedType      = "UnsupportedReceiptType" // 415
	EnumStorageNotConfigured = "StorageNotConfigured"   // 503
	EnumBillAlreadyCreated   = "ReceiptBillCreated"     // 409
	EnumReceiptRejected      = "ReceiptRejected"        // 409
	EnumReceiptNotReady      = "ReceiptNotReady"        // 409: FAILED or PROCESSING
	EnumInvalidCreateBill    = "InvalidReceiptBill"     // 400: the overrides or a receipt without amount
)

// LineItem is a proposed line: what the receipt says and the account the
// service proposes (nil: none known; the bill then books it to
// UNCATEGORIZED_EXPENSES).
type LineItem struct {
	Description string           `json:"description"`
	AmountCents int64            `json:"amount_cents"`
	Account     *bill.AccountRef `json:"account,omitempty"`
}

// FieldConfidence is how sure the reading is of each proposed field, 0
// (not found) to 1; a vendor matched to one of the business's is 1.
type FieldConfidence struct {
	Vendor float64 `json:"vendor"`
	PaidAt float64 `json:"paid_at"`
	Amount float64 `json:"amount"`
}

// Receipt is one imported receipt file and what was read from it.
type Receipt struct {
	ID                uuid.UUID // business_document_id
	BusinessID        uuid.UUID
	StorageDocumentID uuid.UUID // source_storage_document_id: the stored file
	StorageKey        string
	FileName          string
	FileType          string // pdf, png, jpeg (detected by content)
	SizeBytes         int64
	Context           *string
	Source            string
	Status            Status
	FailureReason     *string // FAILED: why the text could not be read
	TextSource        *string // text_layer, ocr, mixed
	Confidence        float64
	// FieldConfidence is how sure the reading is of each proposed field;
	// Note what to check when the total is uncertain.
	FieldConfidence FieldConfidence
	Note            *string
	// Currency is the receipt's currency (ISO 4217) as read: printed on
	// it, else the business's country's; nil when neither says.
	Currency *string

	VendorDisplay    *string
	VendorExternalID *string // the matched vendor's external id
	PaidAt           *time.Time
	AmountCents      *int64
	LineItems        []LineItem
	MatchedVendorID  *uuid.UUID

	BillID     *uuid.UUID
	RejectedAt *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ErrNotFound is the 404 of a receipt the business does not have.
func ErrNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "receipt not found").WithEnum(EnumReceiptNotFound)
}

func conflict(enum, msg string) *apperr.Error { return apperr.New(apperr.Conflict, msg).WithEnum(enum) }

// CheckCreateBill is the rule of create-bill: only a READY_FOR_BILL
// receipt becomes a bill (409 otherwise: once a bill exists, once
// rejected, or while its text is missing).
func (r Receipt) CheckCreateBill() error {
	switch r.Status {
	case ReadyForBill:
		return nil
	case BillCreated:
		return conflict(EnumBillAlreadyCreated, "a bill was already created from this receipt").WithMeta("bill_id", r.BillID)
	case Rejected:
		return conflict(EnumReceiptRejected, "the receipt was rejected")
	}
	return conflict(EnumReceiptNotReady, "the receipt is "+string(r.Status)+": no bill can be created from it")
}

// WithBill is r after its bill id was created.
func (r Receipt) WithBill(id uuid.UUID, now time.Time) Receipt {
	r.BillID, r.Status, r.UpdatedAt = &id, BillCreated, now
	return r
}

// Reject is r rejected at now: 409 once a bill exists; rejecting a
// rejected receipt changes nothing (changed false).
func (r Receipt) Reject(now time.Time) (out Receipt, changed bool, err error) {
	switch r.Status {
	case BillCreated:
		return r, false, conflict(EnumBillAlreadyCreated, "a bill was created from this receipt: void the bill instead").
			WithMeta("bill_id", r.BillID)
	case Rejected:
		return r, false, nil
	}
	r.Status, r.RejectedAt, r.UpdatedAt = Rejected, &now, now
	return r, true, nil
}
