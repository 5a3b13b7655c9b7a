package invoice

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// LineItem is a stored line of an invoice: its id, its number (from 1)
// and its amounts.
type LineItem struct {
	ID     uuid.UUID
	Number int
	Line
}

// InvoiceAllocation is a payment's part on one invoice, as the invoice
// shows it.
type InvoiceAllocation struct {
	PaymentID uuid.UUID
	InvoiceID uuid.UUID
	Amount    money.Cents
	PaidAt    time.Time
	Method    Method
	// DepositAccount is where the payment put the money
	// (DepositAccount(method, processor)): a refund pays it back from there.
	DepositAccount string
}

// Invoice is an invoice as stored, with its lines, the payments allocated
// to it and its write-offs.
type Invoice struct {
	ID                        uuid.UUID
	BusinessID                uuid.UUID
	ExternalID                *string
	InvoiceNumber             *string
	CustomerID                *uuid.UUID
	SentAt                    time.Time
	DueAt                     *time.Time
	PaidAt                    *time.Time
	VoidedAt                  *time.Time
	Memo                      *string
	CustomPaymentInstructions *string
	ReferenceNumber           *string
	Metadata                  json.RawMessage
	Tags                      []tags.Tag
	Lines                     []LineItem
	AdditionalDiscount        money.Cents
	AdditionalSalesTaxes      []SalesTax
	Tips                      money.Cents
	Totals                    Totals
	Paid                      money.Cents
	WrittenOff                money.Cents
	Refunded                  money.Cents
	// IsDraft: created as a draft and not finalized yet (no entry posted).
	IsDraft bool
	// PaymentMethods are the online payment methods the invoice accepts
	// (set when it is finalized).
	PaymentMethods []OnlineMethod
	Status         Status
	Version        int
	ImportedAt     time.Time
	UpdatedAt      time.Time
	Allocations    []InvoiceAllocation
	WriteOffs      []WriteOff
	// Refunds are the invoice's refunds, live and voided (by a reset).
	Refunds []Refund
}

// Balance is what the invoice's status follows from.
func (i Invoice) Balance() Balance {
	return Balance{Total: i.Totals.Total, Paid: i.Paid, WrittenOff: i.WrittenOff, Refunded: i.Refunded, Draft: i.IsDraft,
		Voided: i.VoidedAt != nil}
}

// Outstanding is the invoice's outstanding balance.
func (i Invoice) Outstanding() money.Cents { return i.Balance().Outstanding() }

// ComputedLines are the invoice's lines with their amounts, without their
// ids (what Compute returned for them).
func (i Invoice) ComputedLines() []Line {
	out := make([]Line, len(i.Lines))
	for k, l := range i.Lines {
		out[k] = l.Line
	}
	return out
}

// Draft is what the invoice's amounts were computed from.
func (i Invoice) Draft() Draft {
	d := Draft{AdditionalDiscount: i.AdditionalDiscount, AdditionalSalesTaxes: i.AdditionalSalesTaxes, Tips: i.Tips}
	d.Lines = make([]LineInput, len(i.Lines))
	for k, l := range i.Lines {
		d.Lines[k] = l.LineInput
	}
	return d
}

// New is the invoice id of businessID that in creates at now: version 1,
// its amounts computed (Compute; the lines get ids from newID), its
// status settled (SENT, or PAID for a zero total; DRAFT for a draft, whose
// sent_at defaults to now). Its customer is the caller's to resolve and
// set.
func New(businessID, id uuid.UUID, in Input, now time.Time, newID func() uuid.UUID) (Invoice, error) {
	if err := in.Check(); err != nil {
		return Invoice{}, err
	}
	sent := now
	if in.SentAt != nil {
		sent = clock.DB(*in.SentAt)
	}
	inv := Invoice{
		ID: id, BusinessID: businessID, ExternalID: in.ExternalID, InvoiceNumber: in.InvoiceNumber,
		SentAt: sent, DueAt: dbTime(in.DueAt), Memo: in.Memo, CustomPaymentInstructions: in.CustomPaymentInstructions,
		ReferenceNumber: in.ReferenceNumber, Metadata: in.Metadata, Version: 1, ImportedAt: now, UpdatedAt: now,
		IsDraft: in.AsDraft,
	}
	if err := inv.applyDraft(in.Draft, newID); err != nil {
		return Invoice{}, err
	}
	inv.Tags = entityTags(businessID, inv.ID, in.Tags, now)
	inv.Settle()
	return inv, nil
}

// dbTime is t as PostgreSQL stores it (clock.DB), so that an answer shows
// the instant a later read shows.
func dbTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := clock.DB(*t)
	return &u
}

// applyDraft computes d onto inv: its lines (ids from newID) and totals.
func (i *Invoice) applyDraft(d Draft, newID func() uuid.UUID) error {
	c, err := Compute(d)
	if err != nil {
		return err
	}
	i.Lines = make([]LineItem, len(c.Lines))
	for k, l := range c.Lines {
		i.Lines[k] = LineItem{ID: newID(), Number: k + 1, Line: l}
	}
	i.AdditionalDiscount, i.Tips, i.AdditionalSalesTaxes, i.Totals = d.AdditionalDiscount, d.Tips, c.AdditionalSalesTaxes, c.Totals
	return nil
}

// Apply is the invoice with the patch's own properties changed at now:
// its texts, dates, metadata and tags, and, when the patch names an
// amount, its amounts computed again from its draft with the patch's
// amounts (Compute; new lines get ids from newID). Its customer (see
// Patch.Customer), status and version are the caller's (Revise).
func (i Invoice) Apply(p Patch, now time.Time, newID func() uuid.UUID) (Invoice, error) {
	next := i
	setPtr(&next.InvoiceNumber, p.InvoiceNumber)
	setPtr(&next.Memo, p.Memo)
	setPtr(&next.CustomPaymentInstructions, p.CustomPaymentInstructions)
	setPtr(&next.ReferenceNumber, p.ReferenceNumber)
	if p.SentAt.Set {
		next.SentAt = clock.DB(p.SentAt.Value)
	}
	if p.DueAt.Set {
		next.DueAt = dbTime(p.DueAt.Value)
	}
	if p.Metadata.Set {
		next.Metadata = p.Metadata.Value
	}
	if p.Tags.Set {
		next.Tags = entityTags(i.BusinessID, i.ID, p.Tags.Value, now)
	}
	if d, ok := p.Amounts(i.Draft()); ok {
		if err := next.applyDraft(d, newID); err != nil {
			return Invoice{}, err
		}
	}
	return next, nil
}

func setPtr[T any](dst **T, o Optional[*T]) {
	if o.Set {
		*dst = o.Value
	}
}

// Settle sets the status (and paid_at) that the invoice's balance gives:
// paid_at is the latest payment's date when PAID or REFUNDED (the sent date
// for a zero invoice), nil otherwise.
func (i *Invoice) Settle() {
	i.Status = i.Balance().Status()
	i.PaidAt = nil
	if i.Status != Paid && i.Status != Refunded { // a refunded invoice keeps the date it was paid
		return
	}
	at := i.SentAt
	for _, al := range i.Allocations {
		if al.PaidAt.After(at) {
			at = al.PaidAt
		}
	}
	i.PaidAt = &at
}

// Revise makes the invoice's change at now its next version, its status
// settled (Settle).
func (i *Invoice) Revise(now time.Time) {
	i.Settle()
	i.Version, i.UpdatedAt = i.Version+1, now
}

// Void voids the invoice at now, as its next version: not while payments
// are allocated (Balance.CanRemove, 409); nothing is outstanding any more
// and its live write-offs are voided too (their entries reversed). It
// returns the write-offs it voided. Voiding a voided invoice changes
// nothing (changed false).
func (i *Invoice) Void(now time.Time) (voided []WriteOff, changed bool, err error) {
	if i.VoidedAt != nil {
		return nil, false, nil
	}
	if err := i.Balance().CanRemove("voided"); err != nil {
		return nil, false, err
	}
	// A voided draft is a voided invoice (a reset sends it).
	i.VoidedAt, i.Version, i.UpdatedAt, i.IsDraft = &now, i.Version+1, now, false
	voided = i.voidWriteOffs(now)
	i.Settle()
	return voided, true, nil
}

// Remove readies the invoice's deletion at now: not while payments are
// allocated (Balance.CanRemove, 409); its live write-offs are voided
// (their entries reversed) and returned, and its version is the
// deletion's.
func (i *Invoice) Remove(now time.Time) ([]WriteOff, error) {
	if err := i.Balance().CanRemove("deleted"); err != nil {
		return nil, err
	}
	voided := i.voidWriteOffs(now)
	i.Version++
	return voided, nil
}

// voidWriteOffs marks the live write-offs voided at now (each as its next
// version) and returns them; the invoice owes nothing written off any
// more.
func (i *Invoice) voidWriteOffs(now time.Time) []WriteOff {
	var out []WriteOff
	for k := range i.WriteOffs {
		w := &i.WriteOffs[k]
		if w.VoidedAt != nil {
			continue
		}
		w.VoidedAt, w.Version = &now, w.Version+1
		out = append(out, *w)
	}
	i.WrittenOff = 0
	return out
}

// AddPayment allocates amount of payment p to the invoice; its status
// follows at Revise.
func (i *Invoice) AddPayment(p Payment, amount money.Cents) {
	i.Paid += amount
	i.Allocations = append(i.Allocations, InvoiceAllocation{PaymentID: p.ID, InvoiceID: i.ID, Amount: amount, PaidAt: p.PaidAt,
		Method: p.Method, DepositAccount: p.DepositAccount()})
}

// CanRemovePayment is the rule for taking amount of payments off the
// invoice (deleting or reducing them): what stays paid must cover what was
// refunded (409 InvoiceHasRefunds).
func (i Invoice) CanRemovePayment(amount money.Cents) error {
	if i.Paid-amount < i.Refunded {
		return apperr.Newf(apperr.Conflict, "the invoice has refunds of %d cents: its payments cannot go below that (reset the invoice instead)",
			i.Refunded).WithEnum(EnumHasRefunds)
	}
	return nil
}

// RemovePayment takes the allocation of amount of payment paymentID off
// the invoice; its status follows at Revise.
func (i *Invoice) RemovePayment(paymentID uuid.UUID, amount money.Cents) {
	i.Paid -= amount
	i.Allocations = slices.DeleteFunc(i.Allocations, func(x InvoiceAllocation) bool { return x.PaymentID == paymentID })
}

// CanWriteOff applies the rules of a write-off of the invoice
// (CheckWriteOff against its balance) and checks that its entry can be
// posted: a revenue reversal needs revenue to reverse. Nothing is written
// before they pass.
func (i Invoice) CanWriteOff(in WriteOffInput) error {
	if err := CheckWriteOff(in.Amount, in.Mode, in.Destination, i.Balance()); err != nil {
		return err
	}
	_, err := WriteOffPosting(in.Amount, in.Mode, in.Destination, i.ComputedLines(), nil)
	return err
}

// AddWriteOff writes w off the invoice; its status follows at Revise.
func (i *Invoice) AddWriteOff(w WriteOff) {
	i.WrittenOff += w.Amount
	i.WriteOffs = append(i.WriteOffs, w)
}

// Tag is the invoice with every tag of kvs it lacks added at now, as its
// next version, and the tags added. When it has them all, it is returned
// unchanged with none. Its amounts do not change, so a paid, written-off
// or voided invoice is tagged too.
func (i Invoice) Tag(kvs []tags.KeyValue, now time.Time) (Invoice, []tags.Tag) {
	added := newTags(i.BusinessID, i.ID, i.Tags, kvs, now)
	if len(added) == 0 {
		return i, nil
	}
	next := i
	next.Tags = append(slices.Clone(i.Tags), added...)
	next.Version, next.UpdatedAt = i.Version+1, now
	return next, added
}

// ErrCustomerRequired is the 400 of a patch that would leave an invoice
// without a customer.
func ErrCustomerRequired() error {
	return apperr.PayloadField("customer_id", "an invoice needs a customer: customer_id or customer_external_id").
		WithEnum(EnumInvalidInvoice)
}
