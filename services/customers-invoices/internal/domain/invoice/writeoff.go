package invoice

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// WriteOffMode is how a write-off is journaled.
type WriteOffMode string

// The write-off modes.
const (
	// ModeExpense debits an expense account (BAD_DEBT unless another is
	// named).
	ModeExpense WriteOffMode = "EXPENSE"
	// ModeRevenueReversal debits the invoice's revenue accounts, in
	// proportion to the revenue each line credited.
	ModeRevenueReversal WriteOffMode = "REVENUE_REVERSAL"
)

// ParseWriteOffMode reads a mode.
func ParseWriteOffMode(s string) (WriteOffMode, bool) {
	switch WriteOffMode(s) {
	case ModeExpense, ModeRevenueReversal:
		return WriteOffMode(s), true
	}
	return "", false
}

// DefaultWriteOffAccount is the account an EXPENSE write-off debits when
// the request names none.
const DefaultWriteOffAccount = "BAD_DEBT"

// CheckWriteOff applies the write-off rules: 0 < amount ≤ the invoice's
// outstanding balance, not on a voided invoice, and a destination
// account only in EXPENSE mode (a revenue reversal debits the invoice's
// own revenue accounts).
func CheckWriteOff(amount money.Cents, mode WriteOffMode, destination AccountRef, b Balance) error {
	switch {
	case b.Draft:
		return ErrDraft("written off")
	case b.Voided:
		return apperr.New(apperr.Conflict, "the invoice is voided").WithEnum(EnumInvoiceVoided)
	case amount <= 0:
		return apperr.PayloadField("amount", "must be greater than 0").WithEnum(EnumInvalidAmount)
	case amount > b.Outstanding():
		return apperr.PayloadField("amount",
			fmt.Sprintf("exceeds the invoice's outstanding balance of %d cents", b.Outstanding())).WithEnum(EnumWriteOffTooLarge)
	case mode == ModeRevenueReversal && !destination.IsZero():
		return apperr.PayloadField("destination_ledger_account",
			"only an EXPENSE write-off takes a destination account; a REVENUE_REVERSAL debits the invoice's revenue accounts").
			WithEnum(EnumInvalidAmount)
	}
	return nil
}

// WriteOff is a write-off of part of an invoice, as stored. VoidedAt is
// set when its invoice was voided or deleted (its entry reversed).
type WriteOff struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	InvoiceID       uuid.UUID
	ExternalID      *string
	Amount          money.Cents
	Mode            WriteOffMode
	Destination     AccountRef // EXPENSE mode: zero means BAD_DEBT
	WriteOffAt      time.Time
	Memo            *string
	ReferenceNumber *string
	Tags            []tags.Tag
	VoidedAt        *time.Time
	Version         int
	CreatedAt       time.Time
}

// NewWriteOff is the write-off id of invoice invoiceID that in creates at
// now (version 1), dated in.WriteOffAt, else now. The rules are the
// invoice's (Invoice.CanWriteOff).
func NewWriteOff(businessID, invoiceID, id uuid.UUID, in WriteOffInput, now time.Time) WriteOff {
	w := WriteOff{
		ID: id, BusinessID: businessID, InvoiceID: invoiceID, ExternalID: in.ExternalID, Amount: in.Amount,
		Mode: in.Mode, Destination: in.Destination, WriteOffAt: now, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber,
		Version: 1, CreatedAt: now,
	}
	if in.WriteOffAt != nil {
		w.WriteOffAt = clock.DB(*in.WriteOffAt)
	}
	w.Tags = entityTags(businessID, w.ID, in.Tags, now)
	return w
}
