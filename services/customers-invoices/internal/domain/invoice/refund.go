package invoice

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// CustomerRefunds is the contra-revenue account (Revenue → Returns and
// allowances) a refund debits for the revenue it gives back.
const CustomerRefunds = "CUSTOMER_REFUNDS"

// Payout is what a refund pays back out of one account: the account the
// invoice's payments put the money in (UNDEPOSITED_FUNDS,
// PAYMENT_PROCESSOR_CLEARING...).
type Payout struct {
	Account string      `json:"account"`
	Amount  money.Cents `json:"amount"`
}

// Refund is money paid back to the customer on an invoice, as stored. It
// stands for two entries: the allocation (the sale given back: debit the
// revenue, taxes and tips in proportion, credit ACCOUNTS_RECEIVABLE) and
// the payment (debit ACCOUNTS_RECEIVABLE, credit the accounts the money
// leaves, Payouts). VoidedAt is set when the invoice was reset.
type Refund struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	InvoiceID       uuid.UUID
	ExternalID      *string
	Amount          money.Cents
	Method          Method
	CompletedAt     time.Time
	Memo            *string
	ReferenceNumber *string
	Payouts         []Payout
	VoidedAt        *time.Time
	Version         int
	CreatedAt       time.Time
}

// RefundInput is a checked POST /invoices/{id}/refund body. Amount nil is
// what was paid and not refunded yet.
type RefundInput struct {
	ExternalID      *string
	Amount          *money.Cents
	CompletedAt     *time.Time
	Method          Method
	ReferenceNumber *string
	Memo            *string
}

// RefundBody is the refund body as the transport decodes it (strictly).
type RefundBody struct {
	ExternalID      *string         `json:"external_id"`
	RefundedAmount  json.RawMessage `json:"refunded_amount"`
	CompletedAt     *time.Time      `json:"completed_at"`
	Method          *string         `json:"method"`
	ReferenceNumber *string         `json:"reference_number"`
	Memo            *string         `json:"memo"`
}

// Input checks a refund body: completed_at and method are required (the
// payment methods but CREDIT_BALANCE: a refund pays money out),
// refunded_amount whole cents when given, texts within their limits and
// without NUL. Every violation is named in one 400 InvalidInvoice.
func (b RefundBody) Input() (RefundInput, error) {
	bad := map[string]string{}
	out := RefundInput{ExternalID: b.ExternalID, CompletedAt: b.CompletedAt, ReferenceNumber: b.ReferenceNumber, Memo: b.Memo}
	if len(b.RefundedAmount) > 0 && string(b.RefundedAmount) != "null" {
		a := cents("refunded_amount", b.RefundedAmount, true, bad)
		out.Amount = &a
	}
	if b.CompletedAt == nil {
		bad["completed_at"] = "is required"
	}
	if b.Method == nil {
		bad["method"] = "is required"
	} else if m, ok := ParseMethod(*b.Method); !ok || m == CreditBalance {
		bad["method"] = "must be one of CASH, CHECK, CREDIT_CARD, ACH, OTHER"
	} else {
		out.Method = m
	}
	checkTexts(map[string]*string{"external_id": b.ExternalID, "memo": b.Memo, "reference_number": b.ReferenceNumber}, bad)
	if len(bad) > 0 {
		return RefundInput{}, invalidRequest(bad)
	}
	return out, nil
}

// ParseRefund reads a refund body: decoded strictly, then checked.
func ParseRefund(raw []byte) (RefundInput, error) {
	var b RefundBody
	if err := jsonraw.Decode(raw, &b); err != nil {
		return RefundInput{}, err
	}
	return b.Input()
}

// Refundable is what can still be refunded: paid and not refunded yet.
func (b Balance) Refundable() money.Cents { return b.Paid - b.Refunded }

// CheckRefund is the refund rule against the invoice's balance: not on a
// draft or a voided invoice (409), something paid and not refunded yet
// (409 NothingToRefund), 0 < amount ≤ that (400 RefundExceedsPaid).
func CheckRefund(amount money.Cents, b Balance) error {
	switch {
	case b.Draft:
		return ErrDraft("refunded")
	case b.Voided:
		return apperr.New(apperr.Conflict, "the invoice is voided").WithEnum(EnumInvoiceVoided)
	case b.Refundable() <= 0:
		return apperr.New(apperr.Conflict, "the invoice has no payment left to refund").WithEnum(EnumNothingToRefund)
	case amount <= 0:
		return apperr.PayloadField("refunded_amount", "must be greater than 0").WithEnum(EnumInvalidAmount)
	case amount > b.Refundable():
		return apperr.PayloadField("refunded_amount",
			fmt.Sprintf("exceeds what was paid and not refunded yet (%d cents)", b.Refundable())).WithEnum(EnumRefundTooLarge)
	}
	return nil
}

// NewRefund is the refund id of the invoice that in makes at now (version
// 1): CheckRefund's rule, the amount defaulting to all that is refundable,
// and its payouts (RefundPayouts).
func (i Invoice) NewRefund(id uuid.UUID, in RefundInput, now time.Time) (Refund, error) {
	b := i.Balance()
	amount := b.Refundable()
	if in.Amount != nil {
		amount = *in.Amount
	}
	if err := CheckRefund(amount, b); err != nil {
		return Refund{}, err
	}
	completed := now
	if in.CompletedAt != nil {
		completed = clock.DB(*in.CompletedAt)
	}
	return Refund{
		ID: id, BusinessID: i.BusinessID, InvoiceID: i.ID, ExternalID: in.ExternalID, Amount: amount, Method: in.Method,
		CompletedAt: completed, Memo: in.Memo, ReferenceNumber: in.ReferenceNumber,
		Payouts: RefundPayouts(amount, i.Allocations, i.LiveRefunds()), Version: 1, CreatedAt: now,
	}, nil
}

// LiveRefunds are the refunds not voided by a reset.
func (i Invoice) LiveRefunds() []Refund {
	var out []Refund
	for _, r := range i.Refunds {
		if r.VoidedAt == nil {
			out = append(out, r)
		}
	}
	return out
}

// AddRefund records r on the invoice; its status follows at Revise.
func (i *Invoice) AddRefund(r Refund) {
	i.Refunded += r.Amount
	i.Refunds = append(i.Refunds, r)
}

// RefundPayouts says which accounts a refund of amount pays out of: the
// accounts the invoice's payments (allocs, oldest first) put the money in,
// the newest payment's first, each at most what was paid into it less what
// earlier refunds (refunds) paid out of it. Whatever is left (none while
// the amount is refundable) comes out of UNDEPOSITED_FUNDS.
func RefundPayouts(amount money.Cents, allocs []InvoiceAllocation, refunds []Refund) []Payout {
	avail := map[string]money.Cents{}
	var order []string
	for k := len(allocs) - 1; k >= 0; k-- {
		a := allocs[k]
		acct := a.DepositAccount
		if acct == "" {
			acct = UndepositedFunds
		}
		if _, seen := avail[acct]; !seen {
			order = append(order, acct)
		}
		avail[acct] += a.Amount
	}
	for _, r := range refunds {
		for _, p := range r.Payouts {
			avail[p.Account] -= p.Amount
		}
	}
	var out []Payout
	left := amount
	for _, acct := range order {
		if left <= 0 {
			break
		}
		if take := min(avail[acct], left); take > 0 {
			out = append(out, Payout{Account: acct, Amount: take})
			left -= take
		}
	}
	if left > 0 {
		out = append(out, Payout{Account: UndepositedFunds, Amount: left})
	}
	return out
}

// invoiceCredit is one credit line of an invoice's entry and where a
// refund debits its share of it.
type invoiceCredit struct {
	refundTo PostingAccount
	amount   money.Cents
	tags     []tags.KeyValue
}

// invoiceCredits are the credit lines of the invoice's entry
// (InvoicePosting's order), each with the account a refund gives it back
// on: a line's revenue to CUSTOMER_REFUNDS (with the line's tags), a tax to
// its own account, tips to TIPS.
func invoiceCredits(lines []Line, additionalTaxes []SalesTax, t Totals, invoiceTags []tags.KeyValue) []invoiceCredit {
	var out []invoiceCredit
	for _, l := range lines {
		lt := mergeTags(invoiceTags, l.Tags)
		if l.Revenue > 0 {
			out = append(out, invoiceCredit{ref(StableName(CustomerRefunds)), l.Revenue, lt})
		}
		for _, tx := range l.SalesTaxes {
			if tx.Amount > 0 {
				out = append(out, invoiceCredit{taxAccount(tx), tx.Amount, lt})
			}
		}
	}
	for _, tx := range additionalTaxes {
		if tx.Amount > 0 {
			out = append(out, invoiceCredit{taxAccount(tx), tx.Amount, invoiceTags})
		}
	}
	if t.Tips > 0 {
		out = append(out, invoiceCredit{ref(StableName(Tips)), t.Tips, invoiceTags})
	}
	return out
}

// RefundAllocationPosting is the entry of a refund's allocation: the sale
// given back in proportion to what the invoice credited. A refund of R on
// an invoice of total T debits R × (credit / T) of each of the invoice's
// credits (money.Allocate: the debits sum exactly to R): the revenue to
// CUSTOMER_REFUNDS (contra-revenue, so the P&L shows the gross sale and its
// refunds; each line keeps its tags), the sales tax back to its tax account
// (the tax collected is owed no more), tips back to TIPS; and credits
// ACCOUNTS_RECEIVABLE with R (the business owes the customer R until the
// refund's payment pays it out). It counts on the refund's date on both
// bases: on the cash basis the invoice's revenue was recognized when it was
// paid, so the refund takes it back when the money goes back.
func RefundAllocationPosting(amount money.Cents, lines []Line, additionalTaxes []SalesTax, t Totals, invoiceTags []tags.KeyValue) ([]PostingLine, error) {
	credits := invoiceCredits(lines, additionalTaxes, t, invoiceTags)
	weights := make([]money.Cents, len(credits))
	for k, c := range credits {
		weights[k] = c.amount
	}
	if len(credits) == 0 {
		return nil, apperr.PayloadField("refunded_amount", "the invoice credited nothing to give back").WithEnum(EnumInvalidAmount)
	}
	parts, err := money.Allocate(amount, weights)
	if err != nil {
		return nil, fmt.Errorf("spread the refund: %w", err)
	}
	var out []PostingLine
	for k, c := range credits {
		if parts[k] > 0 {
			out = append(out, PostingLine{Account: c.refundTo, Direction: Debit, Amount: parts[k], Tags: c.tags})
		}
	}
	return append(out, PostingLine{Account: ref(StableName(AccountsReceivable)), Direction: Credit, Amount: amount, Tags: invoiceTags}), nil
}

// RefundPaymentPosting is the entry of a refund's payment: debit
// ACCOUNTS_RECEIVABLE with the amount (what the allocation owed the
// customer is paid) and credit each payout's account, where the money
// leaves from (the cash account the invoice's payment put it in).
func RefundPaymentPosting(payouts []Payout, invoiceTags []tags.KeyValue) []PostingLine {
	var total money.Cents
	var out []PostingLine
	for _, p := range payouts {
		if p.Amount > 0 {
			total += p.Amount
			out = append(out, PostingLine{Account: ref(StableName(p.Account)), Direction: Credit, Amount: p.Amount, Tags: invoiceTags})
		}
	}
	if total == 0 {
		return nil
	}
	return append([]PostingLine{{Account: ref(StableName(AccountsReceivable)), Direction: Debit, Amount: total, Tags: invoiceTags}}, out...)
}

// OnlineMethod is an online payment method an invoice accepts (the
// client's InvoicePaymentMethod).
type OnlineMethod string

// The online payment methods.
const (
	OnlineACH        OnlineMethod = "ACH"
	OnlineCreditCard OnlineMethod = "CREDIT_CARD"
)

// OnlineMethods lists them.
var OnlineMethods = []OnlineMethod{OnlineACH, OnlineCreditCard}

// ParseOnlineMethods reads payment_methods: each ACH or CREDIT_CARD, no
// repeats; the result is in OnlineMethods order.
func ParseOnlineMethods(field string, in []string, bad map[string]string) []OnlineMethod {
	out := []OnlineMethod{}
	for k, s := range in {
		m := OnlineMethod(s)
		switch {
		case !slices.Contains(OnlineMethods, m):
			bad[fmt.Sprintf("%s[%d]", field, k)] = "must be ACH or CREDIT_CARD"
		case slices.Contains(out, m):
			bad[fmt.Sprintf("%s[%d]", field, k)] = "listed twice"
		default:
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b OnlineMethod) int {
		return slices.Index(OnlineMethods, a) - slices.Index(OnlineMethods, b)
	})
	return out
}
