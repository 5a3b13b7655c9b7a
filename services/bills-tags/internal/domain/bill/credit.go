package bill

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// CreditEntryType is the ledger entry type of a vendor credit.
const CreditEntryType = "VENDOR_CREDIT"

// Stable error_enum values of the vendor credit rules (over-allocations
// reuse AllocationMismatch, BillOverpaid and BillVoided).
const (
	EnumInvalidCredit  = "InvalidVendorCredit"
	EnumCreditNotFound = "VendorCreditNotFound"
)

// MaxCreditLines bounds the lines of one vendor credit.
const MaxCreditLines = 500

// CreditLine is one line of a vendor credit: the amount taken off the
// expense account it names (UNCATEGORIZED_EXPENSES when none was sent).
type CreditLine struct {
	ID              uuid.UUID       `json:"id"`
	Amount          money.Cents     `json:"amount"`
	Account         AccountRef      `json:"account"`
	Memo            *string         `json:"memo,omitempty"`
	ReferenceNumber *string         `json:"reference_number,omitempty"`
	Metadata        json.RawMessage `json:"metadata,omitempty"`
	Tags            []tags.Tag      `json:"tags"`
}

// ExpenseAccount is the account the line credits.
func (l CreditLine) ExpenseAccount() AccountRef {
	if l.Account.IsZero() {
		return StableName(DefaultExpenseAccount)
	}
	return l.Account
}

// CreditAllocation is the part of a vendor credit applied to one bill.
type CreditAllocation struct {
	ID             uuid.UUID
	BillID         uuid.UUID
	BillExternalID *string
	Amount         money.Cents
}

// Credit is a credit a vendor granted the business: its lines (what the
// business no longer owes for, by expense account), the bills it was
// applied to, and the rest, Unapplied, which the business may still use.
// Version is 1 when recorded and grows with every change.
type Credit struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	ExternalID      *string
	VendorID        uuid.UUID
	ReceivedAt      time.Time
	Lines           []CreditLine
	Memo            *string
	ReferenceNumber *string
	Metadata        json.RawMessage
	Tags            []tags.Tag
	Allocations     []CreditAllocation
	Version         int64
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Total is Σ line amounts.
func (c Credit) Total() money.Cents {
	var s money.Cents
	for _, l := range c.Lines {
		s += l.Amount
	}
	return s
}

// Applied is Σ allocations.
func (c Credit) Applied() money.Cents {
	var s money.Cents
	for _, a := range c.Allocations {
		s += a.Amount
	}
	return s
}

// Unapplied is what is left of the credit: Total − Applied.
func (c Credit) Unapplied() money.Cents { return c.Total() - c.Applied() }

// CheckCreditLines checks the lines' amounts (each > 0, 1..MaxCreditLines,
// the total in range) and returns the total; violations are one 400
// InvalidVendorCredit naming each field.
func CheckCreditLines(lines []CreditLineInput) (money.Cents, error) {
	bad := map[string]string{}
	switch n := len(lines); {
	case n == 0:
		bad["line_items"] = "at least one line item is required"
	case n > MaxCreditLines:
		bad["line_items"] = fmt.Sprintf("at most %d line items, got %d", MaxCreditLines, n)
	}
	var total money.Cents
	for i, l := range lines {
		f := fmt.Sprintf("line_items[%d].amount", i)
		if l.Amount <= 0 {
			bad[f] = "must be greater than 0"
			continue
		}
		s, err := total.Add(l.Amount)
		if err != nil {
			bad[f] = "the credit's total is out of range"
			continue
		}
		total = s
	}
	if len(bad) > 0 {
		return 0, apperr.FieldErrors(apperr.InvalidPayload, bad).WithEnum(EnumInvalidCredit)
	}
	return total, nil
}

// NewCreditLines are lines for the inputs (ids from newID, tags as
// entity tags of each line at now).
func NewCreditLines(businessID uuid.UUID, in []CreditLineInput, newID func() uuid.UUID, now time.Time) []CreditLine {
	out := make([]CreditLine, len(in))
	for i, l := range in {
		id := newID()
		out[i] = CreditLine{ID: id, Amount: l.Amount, Account: l.Account, Memo: l.Memo, ReferenceNumber: l.ReferenceNumber,
			Metadata: l.Metadata, Tags: TagSet(businessID, id, nil, l.Tags, now)}
	}
	return out
}

// Posting is the entry the credit asks the ledger to keep (version
// c.Version, on received_at): debit ACCOUNTS_PAYABLE with the total (the
// credit's tags), credit each line's expense account with its amount (the
// credit's tags plus the line's). It never lacks lines: a posting without
// lines would read as a voided credit.
func (c Credit) Posting() *events.LedgerPosting {
	p := &events.LedgerPosting{
		SourceType: events.SourceVendorCredit, SourceID: c.ID.String(), Version: c.Version, EntryType: CreditEntryType,
		EntryAt: c.ReceivedAt, Memo: c.Memo, Lines: []events.PostingLine{},
	}
	own := KeyValues(c.Tags)
	p.Lines = append(p.Lines, events.PostingLine{Account: StableName(AccountsPayable).Posting(), Direction: "DEBIT",
		Amount: int64(c.Total()), Tags: own})
	for _, l := range c.Lines {
		p.Lines = append(p.Lines, events.PostingLine{Account: l.ExpenseAccount().Posting(), Direction: "CREDIT",
			Amount: int64(l.Amount), Tags: mergeTags(own, KeyValues(l.Tags))})
	}
	return p
}

// Snapshot is the credit as acct.bills.v1 carries it.
func (c Credit) Snapshot() events.VendorCreditSnapshot {
	vid := c.VendorID
	s := events.VendorCreditSnapshot{
		ID: c.ID, BusinessID: c.BusinessID, ExternalID: c.ExternalID, VendorID: &vid, ReceivedAt: c.ReceivedAt,
		TotalAmount: int64(c.Total()), Unapplied: int64(c.Unapplied()),
		Allocations: make([]events.BillAllocation, len(c.Allocations)), Tags: KeyValues(c.Tags), Version: c.Version,
	}
	for i, a := range c.Allocations {
		s.Allocations[i] = events.BillAllocation{BillID: a.BillID, BillExternalID: a.BillExternalID, Amount: int64(a.Amount)}
	}
	return s
}
