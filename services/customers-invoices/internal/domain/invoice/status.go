package invoice

import (
	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
)

// Status is an invoice's status.
type Status string

// The statuses. An invoice starts SENT; payments, write-offs and a void
// move it (Balance.Status); a deleted invoice is gone.
const (
	Sent                Status = "SENT"
	PartiallyPaid       Status = "PARTIALLY_PAID"
	Paid                Status = "PAID"
	Voided              Status = "VOIDED"
	PartiallyWrittenOff Status = "PARTIALLY_WRITTEN_OFF"
	WrittenOff          Status = "WRITTEN_OFF"
)

// Statuses lists every status (the list filter's allowed values).
var Statuses = []Status{Sent, PartiallyPaid, Paid, Voided, PartiallyWrittenOff, WrittenOff}

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
// from: its total, the live payments allocated to it, its write-offs and
// whether it was voided.
type Balance struct {
	Total      money.Cents
	Paid       money.Cents
	WrittenOff money.Cents
	Voided     bool
}

// Outstanding is Total − Paid − WrittenOff (0 once voided).
func (b Balance) Outstanding() money.Cents {
	if b.Voided {
		return 0
	}
	return b.Total - b.Paid - b.WrittenOff
}

// Status follows from the balance:
//
//	voided                                   VOIDED
//	nothing outstanding, something written off  WRITTEN_OFF
//	nothing outstanding                       PAID (a zero invoice too)
//	something written off                     PARTIALLY_WRITTEN_OFF
//	something paid                            PARTIALLY_PAID
//	otherwise                                 SENT
func (b Balance) Status() Status {
	switch out := b.Outstanding(); {
	case b.Voided:
		return Voided
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
