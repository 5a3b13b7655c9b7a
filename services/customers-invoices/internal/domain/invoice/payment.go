package invoice

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
)

// Method is how a customer paid.
type Method string

// The payment methods.
const (
	Cash          Method = "CASH"
	Check         Method = "CHECK"
	CreditCard    Method = "CREDIT_CARD"
	ACH           Method = "ACH"
	CreditBalance Method = "CREDIT_BALANCE"
	Other         Method = "OTHER"
)

// Methods lists every method.
var Methods = []Method{Cash, Check, CreditCard, ACH, CreditBalance, Other}

// ParseMethod reads a method; the client SDK's "Other" is OTHER.
func ParseMethod(s string) (Method, bool) {
	if strings.EqualFold(s, string(Other)) {
		return Other, true
	}
	for _, m := range Methods {
		if string(m) == s {
			return m, true
		}
	}
	return "", false
}

// MaxAllocations bounds the invoices one payment pays.
const MaxAllocations = 100

// Allocation is the part of a payment that goes to one invoice.
type Allocation struct {
	InvoiceID uuid.UUID
	Amount    money.Cents
}

// PaymentInput is a payment's amounts as checked here.
type PaymentInput struct {
	Amount      money.Cents
	Fee         money.Cents
	Allocations []Allocation
}

// CheckPayment applies the payment rules against the balances of the
// invoices it pays (keyed by invoice id, as they are before the payment):
// amount > 0, 0 ≤ fee ≤ amount, 1..MaxAllocations allocations of positive
// amounts to distinct invoices summing exactly to the amount, no voided
// invoice, none paid beyond its outstanding balance. Field names are
// those of the request body (invoice_payments[i]...).
func CheckPayment(p PaymentInput, balances map[uuid.UUID]Balance) error {
	bad := map[string]string{}
	if p.Amount <= 0 {
		bad["amount"] = "must be greater than 0"
	}
	if p.Fee < 0 || p.Fee > p.Amount {
		bad["fee"] = "must be between 0 and the amount"
	}
	switch n := len(p.Allocations); {
	case n == 0:
		bad["invoice_payments"] = "at least one invoice is required"
	case n > MaxAllocations:
		bad["invoice_payments"] = fmt.Sprintf("at most %d invoices per payment", MaxAllocations)
	}
	if len(bad) > 0 {
		return invalid(bad, EnumInvalidAmount)
	}
	var sum money.Cents
	seen := map[uuid.UUID]int{}
	for i, a := range p.Allocations {
		f := fmt.Sprintf("invoice_payments[%d]", i)
		if j, dup := seen[a.InvoiceID]; dup {
			bad[f+".invoice_id"] = fmt.Sprintf("the same invoice as invoice_payments[%d]", j)
			continue
		}
		seen[a.InvoiceID] = i
		if a.Amount <= 0 {
			bad[f+".amount"] = "must be greater than 0"
			continue
		}
		s, err := sum.Add(a.Amount)
		if err != nil {
			bad[f+".amount"] = "amount out of range"
			continue
		}
		sum = s
	}
	if len(bad) > 0 {
		return invalid(bad, EnumInvalidAmount)
	}
	if sum != p.Amount {
		return apperr.PayloadField("invoice_payments",
			fmt.Sprintf("the allocations sum to %d cents, the payment is %d", sum, p.Amount)).WithEnum(EnumAllocationMismatch)
	}
	for i, a := range p.Allocations {
		f := fmt.Sprintf("invoice_payments[%d]", i)
		b := balances[a.InvoiceID]
		switch {
		case b.Voided:
			return apperr.PayloadField(f+".invoice_id", "the invoice is voided").WithEnum(EnumInvoiceVoided)
		case a.Amount > b.Outstanding():
			return apperr.PayloadField(f+".amount",
				fmt.Sprintf("exceeds the invoice's outstanding balance of %d cents", b.Outstanding())).WithEnum(EnumOverpaid)
		}
	}
	return nil
}

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
