package invoice

import (
	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
)

// Status is an invoice's status.
type Status string

// The statuses. An invoice starts SENT (or DRAFT when created as one, until
// it is finalized); payments, write-offs, refunds and a void move it
// (Balance.Status); a deleted invoice is gone.
const (
	DraftStatus         Status = "DRAFT"
	Sent                Status = "SENT"
	PartiallyPaid       Status = "PARTIALLY_PAID"
	Paid                Status = "PAID"
	Voided              Status = "VOIDED"
	PartiallyWrittenOff Status = "PARTIALLY_WRITTEN_OFF"
	WrittenOff          Status = "WRITTEN_OFF"
	Refunded            Status = "REFUNDED"
)

// Statuses lists every status (the list filter's allowed values).
var Statuses = []Status{DraftStatus, Sent, PartiallyPaid, Paid, Voided, PartiallyWrittenOff, WrittenOff, Refunded}

// ParseStatus reads a status value of the list filter.
func ParseStatus(s string) (Status, bool) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// Balance is what an invoice's status and outstanding balance follow
// from: its total, the live payments allocated to it, its write-offs, the
// money refunded to the customer, and whether it is a draft or was voided.
type Balance struct {
	Total      money.Cents
	Paid       money.Cents
	WrittenOff money.Cents
	// Refunded is what live refunds paid back. A refund both reverses part
	// of the sale and pays the customer, so it leaves Outstanding as it is.
	Refunded money.Cents
	Draft    bool
	Voided   bool
}

// Outstanding is Total − Paid − WrittenOff (0 once voided, and 0 for a
// draft: nothing is owed before the invoice is sent).
func (b Balance) Outstanding() money.Cents {
	if b.Voided || b.Draft {
		return 0
	}
	return b.Total - b.Paid - b.WrittenOff
}

// Status follows from the balance:
//
//	voided                                   VOIDED
//	a draft                                  DRAFT
//	nothing outstanding, every cent paid refunded  REFUNDED
//	nothing outstanding, something written off  WRITTEN_OFF
//	nothing outstanding                       PAID (a zero invoice too)
//	something written off                     PARTIALLY_WRITTEN_OFF
//	something paid                            PARTIALLY_PAID
//	otherwise                                 SENT
func (b Balance) Status() Status {
	switch out := b.Outstanding(); {
	case b.Voided:
		return Voided
	case b.Draft:
		return DraftStatus
	case out <= 0 && b.Paid > 0 && b.Refunded >= b.Paid:
		return Refunded
	case out <= 0 && b.WrittenOff > 0:
		return WrittenOff
	case out <= 0:
		return Paid
	case b.WrittenOff > 0:
		return PartiallyWrittenOff
	case b.Paid > 0:
		return PartiallyPaid
	default:
		return Sent
	}
}

// Editable reports whether the invoice's amounts may still change
// (PATCH): not voided, nothing paid, nothing written off.
func (b Balance) Editable() error {
	switch {
	case b.Draft:
		return nil
	case b.Voided:
		return apperr.New(apperr.Conflict, "the invoice is voided").WithEnum(EnumInvoiceVoided)
	case b.Paid > 0 || b.WrittenOff > 0:
		return apperr.New(apperr.Conflict, "the invoice has payments or write-offs: only unpaid invoices can be edited").
			WithEnum(EnumNotEditable)
	}
	return nil
}

// CanRemove is the rule for voiding and deleting: not while payments are
// allocated to the invoice (delete them first); a void of a voided
// invoice changes nothing.
func (b Balance) CanRemove(action string) error {
	if b.Paid > 0 {
		return apperr.Newf(apperr.Conflict, "the invoice has payments: delete them before the invoice can be %s", action).
			WithEnum(EnumHasPayments)
	}
	return nil
}

// ErrDraft is the 409 of an operation a draft does not allow yet (a
// payment, a write-off, a refund): it must be finalized first.
func ErrDraft(action string) error {
	return apperr.Newf(apperr.Conflict, "the invoice is a draft: finalize it (PUT .../finalize-invoice) before it can be %s", action).
		WithEnum(EnumInvoiceDraft)
}
