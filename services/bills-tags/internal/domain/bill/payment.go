package bill

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// PaymentEntryType is the ledger entry type of a bill payment.
const PaymentEntryType = "BILL_PAYMENT"

// Stable error_enum values of the bill payment rules.
const (
	EnumInvalidPayment     = "InvalidBillPayment"
	EnumPaymentNotFound    = "BillPaymentNotFound"
	EnumAllocationMismatch = "AllocationMismatch"
	EnumOverpaid           = "BillOverpaid"
)

// Method is how a bill was paid.
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

// ParseMethod reads a method (upper case; the SDK's labels "Cash",
// "Other"... are accepted case-insensitively).
func ParseMethod(s string) (Method, bool) {
	m := Method(strings.ToUpper(strings.TrimSpace(s)))
	return m, slices.Contains(Methods, m)
}

// MaxAllocations bounds the bills one payment (or credit) pays.
const MaxAllocations = 100

// PaymentAllocation is the part of a bill payment applied to one bill.
type PaymentAllocation struct {
	ID              uuid.UUID
	BillID          uuid.UUID
	BillExternalID  *string
	Amount          money.Cents
	Memo            *string
	ReferenceNumber *string
	Metadata        json.RawMessage
	Tags            []tags.Tag
}

// BillPaid is one bill payment's allocation as its bill shows it.
type BillPaid struct {
	ID        uuid.UUID   `json:"id"`
	PaymentID uuid.UUID   `json:"payment_id"`
	Amount    money.Cents `json:"amount"`
	Tags      []tags.Tag  `json:"tags"`
}

// Payment is a payment to vendors: its amount paid out of the clearing
// account, split over the bills it pays. Version is 1 when recorded and
// grows with every change (its deletion's posting carries Version+1).
type Payment struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	ExternalID      *string
	PaidAt          time.Time
	Method          Method
	Amount          money.Cents
	Processor       *string
	ClearingAccount AccountRef
	Memo            *string
	ReferenceNumber *string
	Metadata        json.RawMessage
	Tags            []tags.Tag
	Allocations     []PaymentAllocation
	Version         int64
	ImportedAt      time.Time
	UpdatedAt       time.Time
}

// Balance is what the payment rules need of a bill: what it still owes
// (with the payment being changed taken back) and whether it is voided.
type Balance struct {
	Outstanding money.Cents
	Voided      bool
}

// Applied is an allocation as the rules check it: an amount on a bill,
// named in the request by field (e.g. "bill_payment_allocations[2]").
type Applied struct {
	Field  string
	BillID uuid.UUID
	Amount money.Cents
}

// CheckAllocations applies the allocation rules of payments and credits
// against the bills' balances: 1..MaxAllocations allocations of positive
// amounts to distinct bills, summing to total when exact (a payment) or
// at most total (a credit; listField names the list), no voided bill,
// none beyond its outstanding balance. enum is the 400's error_enum for
// shape violations.
func CheckAllocations(total money.Cents, exact bool, listField string, als []Applied, balances map[uuid.UUID]Balance, enum string) error {
	bad := map[string]string{}
	if exact {
		switch n := len(als); {
		case n == 0:
			bad[listField] = "at least one bill is required"
		case n > MaxAllocations:
			bad[listField] = fmt.Sprintf("at most %d bills", MaxAllocations)
		}
	} else if len(als) > MaxAllocations {
		bad[listField] = fmt.Sprintf("at most %d bills", MaxAllocations)
	}
	if len(bad) > 0 {
		return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(enum)
	}
	var sum money.Cents
	seen := map[uuid.UUID]string{}
	for _, a := range als {
		if f, dup := seen[a.BillID]; dup {
			bad[a.Field+".bill_id"] = "the same bill as " + f
			continue
		}
		seen[a.BillID] = a.Field
		if a.Amount <= 0 {
			bad[a.Field+".amount"] = "must be greater than 0"
			continue
		}
		s, err := sum.Add(a.Amount)
		if err != nil {
			bad[a.Field+".amount"] = "amount out of range"
			continue
		}
		sum = s
	}
	if len(bad) > 0 {
		return apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(enum)
	}
	switch {
	case exact && sum != total:
		return apperr.PayloadField(listField,
			fmt.Sprintf("the allocations sum to %d cents, the amount is %d", sum, total)).WithEnum(EnumAllocationMismatch)
	case !exact && sum > total:
		return apperr.PayloadField(listField,
			fmt.Sprintf("the allocations sum to %d cents, more than the credit's %d", sum, total)).WithEnum(EnumAllocationMismatch)
	}
	for _, a := range als {
		b := balances[a.BillID]
		switch {
		case b.Voided:
			return apperr.PayloadField(a.Field+".bill_id", "the bill is voided").WithEnum(EnumBillVoided)
		case a.Amount > b.Outstanding:
			return apperr.PayloadField(a.Field+".amount",
				fmt.Sprintf("exceeds the bill's outstanding balance of %d cents", b.Outstanding)).WithEnum(EnumOverpaid)
		}
	}
	return nil
}

// Posting is the entry the payment asks the ledger to keep (version
// p.Version, on paid_at): debit ACCOUNTS_PAYABLE with each allocation
// (the payment's tags plus the allocation's), credit the clearing account
// with the amount (the payment's tags).
func (p Payment) Posting() *events.LedgerPosting {
	out := &events.LedgerPosting{
		SourceType: events.SourceBillPayment, SourceID: p.ID.String(), Version: p.Version, EntryType: PaymentEntryType,
		EntryAt: p.PaidAt, Memo: p.Memo, Lines: []events.PostingLine{},
	}
	own := KeyValues(p.Tags)
	for _, a := range p.Allocations {
		out.Lines = append(out.Lines, events.PostingLine{Account: StableName(AccountsPayable).Posting(), Direction: "DEBIT",
			Amount: int64(a.Amount), Tags: mergeTags(own, KeyValues(a.Tags))})
	}
	out.Lines = append(out.Lines, events.PostingLine{Account: p.Clearing().Posting(), Direction: "CREDIT",
		Amount: int64(p.Amount), Tags: own})
	return out
}

// Clearing is the account the payment is paid from (BANK_ACCOUNTS unless
// the request named one).
func (p Payment) Clearing() AccountRef {
	if p.ClearingAccount.IsZero() {
		return StableName(DefaultClearingAccount)
	}
	return p.ClearingAccount
}

// DeletionPosting is the posting of the payment's deletion: no lines (the
// live entry is reversed), the version after the payment's last.
func (p Payment) DeletionPosting() *events.LedgerPosting {
	return &events.LedgerPosting{
		SourceType: events.SourceBillPayment, SourceID: p.ID.String(), Version: p.Version + 1, EntryType: PaymentEntryType,
		EntryAt: p.PaidAt, Memo: p.Memo, Lines: []events.PostingLine{},
	}
}

// Snapshot is the payment as acct.bills.v1 carries it.
func (p Payment) Snapshot() events.BillPaymentSnapshot {
	s := events.BillPaymentSnapshot{
		ID: p.ID, BusinessID: p.BusinessID, ExternalID: p.ExternalID, PaidAt: p.PaidAt, Method: string(p.Method),
		Amount: int64(p.Amount), Processor: p.Processor, ClearingAccount: p.Clearing().Posting(), Memo: p.Memo,
		ReferenceNumber: p.ReferenceNumber, Allocations: make([]events.BillAllocation, len(p.Allocations)),
		Tags: KeyValues(p.Tags), Version: p.Version,
	}
	for i, a := range p.Allocations {
		s.Allocations[i] = events.BillAllocation{BillID: a.BillID, BillExternalID: a.BillExternalID, Amount: int64(a.Amount)}
	}
	return s
}
