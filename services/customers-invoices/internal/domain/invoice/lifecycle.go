package invoice

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/jsonraw"
)

// FinalizeInput is a checked PUT /invoices/{id}/finalize-invoice body
// (every property optional): the online payment methods the invoice
// accepts, its payment instructions, and the sent date of a draft (now
// when omitted).
type FinalizeInput struct {
	PaymentMethods            Optional[[]OnlineMethod]
	CustomPaymentInstructions Optional[*string]
	SentAt                    *time.Time
}

// FinalizeBody is the finalize body as the transport decodes it.
type FinalizeBody struct {
	PaymentMethods            *[]string  `json:"payment_methods"`
	CustomPaymentInstructions *string    `json:"custom_payment_instructions"`
	SentAt                    *time.Time `json:"sent_at"`
}

// ParseFinalize reads a finalize body; an empty body is {}.
func ParseFinalize(raw []byte) (FinalizeInput, error) {
	var b FinalizeBody
	if len(raw) > 0 {
		if err := jsonraw.Decode(raw, &b); err != nil {
			return FinalizeInput{}, err
		}
	}
	bad := map[string]string{}
	var in FinalizeInput
	if b.PaymentMethods != nil {
		in.PaymentMethods = Optional[[]OnlineMethod]{Set: true, Value: ParseOnlineMethods("payment_methods", *b.PaymentMethods, bad)}
	}
	if b.CustomPaymentInstructions != nil {
		in.CustomPaymentInstructions = Optional[*string]{Set: true, Value: b.CustomPaymentInstructions}
		checkTexts(map[string]*string{"custom_payment_instructions": b.CustomPaymentInstructions}, bad)
	}
	in.SentAt = b.SentAt
	if len(bad) > 0 {
		return FinalizeInput{}, invalidRequest(bad)
	}
	return in, nil
}

// Finalize sends a draft at now: it stops being a draft, is dated
// in.SentAt (else now), its status follows from its balance (SENT, PAID
// for a zero total) and its entry is posted (posted true). The payment
// methods and instructions given are recorded on any invoice that is not
// voided (finalizing a sent invoice changes only those). changed reports
// a new version. A voided invoice is 409 InvoiceVoided.
func (i *Invoice) Finalize(in FinalizeInput, now time.Time) (posted, changed bool, err error) {
	if i.VoidedAt != nil {
		return false, false, apperr.New(apperr.Conflict, "the invoice is voided").WithEnum(EnumInvoiceVoided)
	}
	if i.IsDraft {
		i.IsDraft, posted, changed = false, true, true
		i.SentAt = now
		if in.SentAt != nil {
			i.SentAt = clock.DB(*in.SentAt)
		}
	}
	if in.PaymentMethods.Set && !slices.Equal(in.PaymentMethods.Value, i.PaymentMethods) {
		i.PaymentMethods, changed = in.PaymentMethods.Value, true
	}
	if o := in.CustomPaymentInstructions; o.Set && !equalPtr(o.Value, i.CustomPaymentInstructions) {
		i.CustomPaymentInstructions, changed = o.Value, true
	}
	if changed {
		i.Revise(now)
	}
	return posted, changed, nil
}

func equalPtr(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// ResetResult is what Reset undid: the write-offs and refunds it voided
// (their entries to reverse), the payments to delete (their ids), and
// whether the invoice was voided (its entry to post again).
type ResetResult struct {
	WriteOffs []WriteOff
	Refunds   []Refund
	Payments  []uuid.UUID
	Unvoided  bool
}

// Reset puts the invoice back as it was created, as its next version at
// now: no payment allocated (the payments, each of this invoice alone, are
// the caller's to delete: a payment that pays other invoices too is 409
// PaymentSpansInvoices, naming it, before anything changes; payments says
// how many invoices each pays), its write-offs and refunds voided, not
// voided any more. A draft, or an invoice with nothing to undo, is
// unchanged (changed false).
func (i *Invoice) Reset(now time.Time, payments map[uuid.UUID]int) (res ResetResult, changed bool, err error) {
	if i.IsDraft {
		return res, false, nil
	}
	for _, al := range i.Allocations {
		if payments[al.PaymentID] > 1 {
			return res, false, apperr.Newf(apperr.Conflict,
				"payment %s pays other invoices too: delete it (POST /invoices/payments/bulk-delete) before the invoice can be reset", al.PaymentID).
				WithEnum(EnumPaymentSpansInvoices).WithMeta("payment_id", al.PaymentID.String())
		}
		res.Payments = append(res.Payments, al.PaymentID)
	}
	for k := range i.Refunds {
		r := &i.Refunds[k]
		if r.VoidedAt == nil {
			r.VoidedAt, r.Version = &now, r.Version+1
			res.Refunds = append(res.Refunds, *r)
		}
	}
	res.WriteOffs = i.voidWriteOffs(now)
	res.Unvoided = i.VoidedAt != nil
	if len(res.Payments) == 0 && len(res.Refunds) == 0 && len(res.WriteOffs) == 0 && !res.Unvoided {
		return res, false, nil
	}
	i.Allocations, i.Paid, i.Refunded, i.VoidedAt = nil, 0, 0, nil
	i.Revise(now)
	return res, true, nil
}

// Revise is the payment p with in's terms as its next version at now: a
// PUT of a payment of one invoice (409 PaymentSpansInvoices otherwise),
// inv as it is with p allocated. The amount, method, date, fee, processor,
// reference number and memo are in's (omitted: none); the external id and
// tags stay unless in names them. The payment rules are the create's
// against inv's balance without p (CheckPayment), and what stays paid must
// cover the invoice's refunds. inv is updated (p's allocation replaced);
// its status follows at Revise.
func (p Payment) Revise(in PaymentInput, inv *Invoice, now time.Time) (Payment, error) {
	if len(p.Allocations) != 1 || p.Allocations[0].InvoiceID != inv.ID {
		return Payment{}, apperr.New(apperr.Conflict,
			"the payment pays other invoices too: delete it (POST /invoices/payments/bulk-delete) and pay again").WithEnum(EnumPaymentSpansInvoices)
	}
	if err := in.Check(); err != nil {
		return Payment{}, err
	}
	old := p.Allocations[0].Amount
	b := inv.Balance()
	b.Paid -= old
	amounts := PaymentAmounts{Amount: in.Amount, Fee: in.Fee, Allocations: []Allocation{{InvoiceID: inv.ID, Amount: in.Amount}}}
	if err := CheckPayment(amounts, map[uuid.UUID]Balance{inv.ID: b}); err != nil {
		return Payment{}, err
	}
	if in.Amount < old {
		if err := inv.CanRemovePayment(old - in.Amount); err != nil {
			return Payment{}, err
		}
	}
	next := p
	next.PaidAt, next.Method, next.Amount, next.Fee = clock.DB(*in.PaidAt), in.Method, in.Amount, in.Fee
	next.Processor, next.Memo, next.ReferenceNumber = in.Processor, in.Memo, in.ReferenceNumber
	if in.ExternalID != nil {
		next.ExternalID = in.ExternalID
	}
	if in.Tags != nil {
		next.Tags = entityTags(p.BusinessID, p.ID, in.Tags, now)
	}
	next.Allocations = slices.Clone(p.Allocations)
	next.Allocations[0].Amount = in.Amount
	next.Version, next.UpdatedAt = p.Version+1, now
	inv.RemovePayment(p.ID, old)
	inv.AddPayment(next, in.Amount)
	return next, nil
}
