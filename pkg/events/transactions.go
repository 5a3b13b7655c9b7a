package events

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Event types published on TopicTransactions by the transactions service.
const (
	// TypeBankTransactionUpserted: a bank transaction was imported,
	// categorized, matched, tagged or had its record updated. The payload
	// is the whole transaction as it now is (not a delta), so a consumer
	// keeps the latest Version per TransactionID and never reads the
	// transactions service's tables.
	TypeBankTransactionUpserted = "bank_transaction.upserted"
)

// BankTransactionUpserted is the payload of bank_transaction.upserted:
// every field a transactions CSV export needs. Amount is positive cents and
// Direction its side (CREDIT money in, DEBIT money out); SignedAmount is
// positive for money in and negative for money out. Version grows by one
// with every change of the transaction, so an older snapshot delivered
// late is recognisable.
type BankTransactionUpserted struct {
	TransactionID       uuid.UUID  `json:"transaction_id"`
	BusinessID          uuid.UUID  `json:"business_id"`
	Version             int        `json:"version"`
	Source              string     `json:"source"` // API, CUSTOM, PROVIDER_1..3
	SourceTransactionID string     `json:"source_transaction_id"`
	SourceAccountID     *string    `json:"source_account_id"`
	ExternalAccountID   *uuid.UUID `json:"external_account_id"`
	CustomAccountID     *uuid.UUID `json:"custom_account_id"`
	// Account is the bank account the transaction belongs to (its display
	// name and mask) and LedgerAccountID that account's ledger account.
	AccountName     *string   `json:"account_name"`
	AccountMask     *string   `json:"account_mask"`
	LedgerAccountID uuid.UUID `json:"ledger_account_id"`
	// Date is the calendar date (YYYY-MM-DD, UTC) a CSV shows; DateTime the
	// full timestamp.
	Date             string          `json:"date"`
	DateTime         time.Time       `json:"date_time"`
	Description      *string         `json:"description"`
	CounterpartyName *string         `json:"counterparty_name"`
	Direction        string          `json:"direction"`
	Amount           int64           `json:"amount"`
	SignedAmount     int64           `json:"signed_amount"`
	Status           string          `json:"categorization_status"`
	Method           *string         `json:"categorization_method"`
	Category         *BankCategory   `json:"category"`
	Splits           []BankSplit     `json:"splits"`
	TaxCode          *string         `json:"tax_code"`
	Tags             []LedgerTag     `json:"tags"`
	Memo             *string         `json:"memo"`
	ReferenceNumber  *string         `json:"reference_number"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	// The customer or vendor a record request linked the transaction to,
	// as given (the customers and vendors services resolve them).
	CustomerID         *uuid.UUID `json:"customer_id,omitempty"`
	CustomerExternalID *string    `json:"customer_external_id,omitempty"`
	VendorID           *uuid.UUID `json:"vendor_id,omitempty"`
	VendorExternalID   *string    `json:"vendor_external_id,omitempty"`
	// CounterpartyID is the counterparty the transaction's name belongs to
	// (one per normalised name in a business); absent without a name.
	CounterpartyID *uuid.UUID `json:"counterparty_id,omitempty"`
	ImportedAt     time.Time  `json:"imported_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	// ArchivedAt is set while the transaction is archived: taken out of the
	// books (its journal entry reversed) and out of listings until restored.
	ArchivedAt *time.Time `json:"archived_at,omitempty"`
}

// BankCategory is what a transaction (or a split entry) is categorized
// as: a ledger account (AccountID and StableName when it has one) or an
// exclusion (ExclusionType set, AccountID nil). DisplayName is what a CSV
// shows.
type BankCategory struct {
	AccountID     *uuid.UUID `json:"account_id"`
	StableName    *string    `json:"stable_name"`
	ExclusionType *string    `json:"exclusion_type"`
	DisplayName   string     `json:"display_name"`
}

// BankSplit is one entry of a split categorization.
type BankSplit struct {
	Amount   int64        `json:"amount"`
	Category BankCategory `json:"category"`
	Tags     []LedgerTag  `json:"tags"`
}
