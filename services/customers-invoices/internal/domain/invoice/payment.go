package invoice

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
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

// PaymentAmounts are a payment's amounts as checked here.
type PaymentAmounts struct {
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
func CheckPayment(p PaymentAmounts, balances map[uuid.UUID]Balance) error {
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
		case b.Draft:
			return ErrDraft("paid")
		case b.Voided:
			return apperr.PayloadField(f+".invoice_id", "the invoice is voided").WithEnum(EnumInvoiceVoided)
		case a.Amount > b.Outstanding():
			return apperr.PayloadField(f+".amount",
				fmt.Sprintf("exceeds the invoice's outstanding balance of %d cents", b.Outstanding())).WithEnum(EnumOverpaid)
		}
	}
	return nil
}

// PaymentAllocation is the part of a payment on one invoice, with the
// invoice's identifiers (events and answers show them).
type PaymentAllocation struct {
	InvoiceID              uuid.UUID
	InvoiceExternalID      *string
	InvoiceNumber          *string
	InvoiceReferenceNumber *string
	Amount                 money.Cents
}

// Payment is a customer payment as stored.
type Payment struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	ExternalID      *string
	PaidAt          time.Time
	Method          Method
	Amount          money.Cents
	Fee             money.Cents
	Processor       *string
	Memo            *string
	ReferenceNumber *string
	Tags            []tags.Tag
	Allocations     []PaymentAllocation
	Version         int
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// DepositAccount is where the payment put the money (DepositAccount).
func (p Payment) DepositAccount() string {
	processor := ""
	if p.Processor != nil {
		processor = *p.Processor
	}
	return DepositAccount(p.Method, processor)
}

// Amounts are the payment's amounts for CheckPayment and PaymentPosting.
func (p Payment) Amounts() PaymentAmounts {
	in := PaymentAmounts{Amount: p.Amount, Fee: p.Fee}
	for _, a := range p.Allocations {
		in.Allocations = append(in.Allocations, Allocation{InvoiceID: a.InvoiceID, Amount: a.Amount})
	}
	return in
}

// NewPayment is the payment id of businessID that in creates at now
// (version 1), on the invoices it pays: invoices[i] is the invoice of
// in.Allocations[i], as it is before the payment. CheckPayment's rules
// apply against their balances. The allocations are in invoice id order,
// the order the store reads them back in.
func NewPayment(businessID, id uuid.UUID, in PaymentInput, invoices []*Invoice, now time.Time) (Payment, error) {
	if err := in.Check(); err != nil {
		return Payment{}, err
	}
	p := Payment{
		ID: id, BusinessID: businessID, ExternalID: in.ExternalID, PaidAt: clock.DB(*in.PaidAt), Method: in.Method,
		Amount: in.Amount, Fee: in.Fee, Processor: in.Processor, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber,
		Version: 1, CreatedAt: now, UpdatedAt: now,
	}
	p.Tags = entityTags(businessID, p.ID, in.Tags, now)
	balances := map[uuid.UUID]Balance{}
	for i, al := range in.Allocations {
		inv := invoices[i]
		p.Allocations = append(p.Allocations, PaymentAllocation{InvoiceID: inv.ID, InvoiceExternalID: inv.ExternalID,
			InvoiceNumber: inv.InvoiceNumber, InvoiceReferenceNumber: inv.ReferenceNumber, Amount: al.Amount})
		balances[inv.ID] = inv.Balance()
	}
	if err := CheckPayment(p.Amounts(), balances); err != nil {
		return Payment{}, err
	}
	slices.SortFunc(p.Allocations, func(x, y PaymentAllocation) int { return slices.Compare(x.InvoiceID[:], y.InvoiceID[:]) })
	return p, nil
}

// CheckRetry refuses a retried payment (a known external_id) that names
// an invoice the stored payment p does not pay: that external_id belongs
// to another payment (400 DuplicateExternalId), not to this request.
func (p Payment) CheckRetry(als []AllocationInput) error {
	for i, al := range als {
		if !slices.ContainsFunc(p.Allocations, func(a PaymentAllocation) bool {
			return al.InvoiceID != nil && a.InvoiceID == *al.InvoiceID ||
				al.InvoiceExternalID != nil && a.InvoiceExternalID != nil && *a.InvoiceExternalID == *al.InvoiceExternalID
		}) {
			return apperr.PayloadField(fmt.Sprintf("invoice_payments[%d]", i),
				"a payment with this external_id exists and does not pay this invoice").WithEnum(EnumDuplicateExternalID)
		}
	}
	return nil
}

// Tag is the payment with every tag of kvs it lacks added at now, as its
// next version, and the tags added. When it has them all, it is returned
// unchanged with none.
func (p Payment) Tag(kvs []tags.KeyValue, now time.Time) (Payment, []tags.Tag) {
	added := newTags(p.BusinessID, p.ID, p.Tags, kvs, now)
	if len(added) == 0 {
		return p, nil
	}
	next := p
	next.Tags = append(slices.Clone(p.Tags), added...)
	next.Version, next.UpdatedAt = p.Version+1, now
	return next, added
}

// MaxBulkDelete bounds POST /invoices/payments/bulk-delete (the spec's 1
// to 100 ids).
const MaxBulkDelete = 100

// CheckBulkDelete is the rule of a bulk delete's ids: 1 to MaxBulkDelete,
// each once (400 InvalidBulkDelete otherwise).
func CheckBulkDelete(ids []uuid.UUID) error {
	if len(ids) == 0 || len(ids) > MaxBulkDelete {
		return apperr.Newf(apperr.InvalidPayload, "ids must hold 1 to %d payment ids, got %d", MaxBulkDelete, len(ids)).
			WithEnum(EnumInvalidBulkDelete).WithMeta("fields", map[string]string{"ids": fmt.Sprintf("1 to %d items", MaxBulkDelete)})
	}
	seen := map[uuid.UUID]bool{}
	for _, id := range ids {
		if seen[id] {
			return apperr.Newf(apperr.InvalidPayload, "payment %s is listed twice", id).
				WithEnum(EnumInvalidBulkDelete).WithMeta("fields", map[string]string{"ids": "duplicate id " + id.String()})
		}
		seen[id] = true
	}
	return nil
}
