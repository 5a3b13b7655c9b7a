package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/acctsuite/acct/pkg/events"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// EntryType says what produced a journal entry (the real product's names).
type EntryType string

// The entry types. Reversals keep the type of the entry they reverse and
// are told apart by their reversal_of_id.
const (
	EntryBank                   EntryType = "BANK"
	EntryMatch                  EntryType = "MATCH"
	EntryManual                 EntryType = "MANUAL"
	EntryOpeningBalance         EntryType = "OPENING_BALANCE"
	EntryInvoice                EntryType = "INVOICE"
	EntryInvoicePayment         EntryType = "INVOICE_PAYMENT"
	EntryWriteOff               EntryType = "WRITE_OFF"
	EntryInvoiceWriteOff        EntryType = "INVOICE_WRITE_OFF"
	EntryRefundAllocation       EntryType = "REFUND_ALLOCATION"
	EntryRefundPayment          EntryType = "REFUND_PAYMENT"
	EntryVendorRefundAllocation EntryType = "VENDOR_REFUND_ALLOCATION"
	EntryVendorRefundPayment    EntryType = "VENDOR_REFUND_PAYMENT"
	EntryBill                   EntryType = "BILL"
	EntryBillPayment            EntryType = "BILL_PAYMENT"
	EntryVendorCredit           EntryType = "VENDOR_CREDIT"
	EntryCustomerCredit         EntryType = "CUSTOMER_CREDIT"
	EntryPayout                 EntryType = "PAYOUT"
	EntryVendorPayout           EntryType = "VENDOR_PAYOUT"
	EntryPayroll                EntryType = "PAYROLL"
	EntryPayrollPayment         EntryType = "PAYROLL_PAYMENT"
	EntryExpense                EntryType = "EXPENSE"
	EntryRevenue                EntryType = "REVENUE"
	EntryAcctsync               EntryType = "ACCTSYNC"
)

// EntryTypes lists every entry type.
var EntryTypes = []EntryType{
	EntryBank, EntryMatch, EntryManual, EntryOpeningBalance, EntryInvoice, EntryInvoicePayment, EntryWriteOff,
	EntryInvoiceWriteOff, EntryRefundAllocation, EntryRefundPayment, EntryVendorRefundAllocation,
	EntryVendorRefundPayment, EntryBill, EntryBillPayment, EntryVendorCredit, EntryCustomerCredit, EntryPayout,
	EntryVendorPayout, EntryPayroll, EntryPayrollPayment, EntryExpense, EntryRevenue, EntryAcctsync,
}

// Valid reports whether t is a known entry type.
func (t EntryType) Valid() bool { return slices.Contains(EntryTypes, t) }

// Agent is who caused an entry: the API caller, the service on its own, a
// bookkeeper through the service, a text message, or the accounting-software
// sync.
type Agent string

// The agents.
const (
	AgentAPI           Agent = "API"
	AgentSMS           Agent = "SMS"
	AgentServiceAuto   Agent = "SERVICE_AUTO"
	AgentServiceManual Agent = "SERVICE_MANUAL"
	AgentAcctsync      Agent = "ACCTSYNC_SYNC"
)

// Valid reports whether a is a known agent.
func (a Agent) Valid() bool {
	switch a {
	case AgentAPI, AgentSMS, AgentServiceAuto, AgentServiceManual, AgentAcctsync:
		return true
	}
	return false
}

// Source is what an entry records: a bank transaction's categorization, an
// invoice, a manual journal entry... Type and ID name the object; Version
// tells successive postings of one object apart (a recategorization posts
// version 2 after reversing version 1). The ledger posts each (Type, ID,
// Version) once and keeps at most one live (unreversed) entry per (Type, ID).
type Source struct {
	Type    string
	ID      string
	Version string
}

// Source types posted by the ledger itself.
const SourceJournalEntry = "CUSTOM_JOURNAL_ENTRY"

// Limits of a source.
const (
	MaxSourceTypeLength = 64
	MaxSourceIDLength   = 255
)

// Validate checks the source is named.
func (s Source) Validate() error {
	if s.Type == "" || len(s.Type) > MaxSourceTypeLength || s.ID == "" || len(s.ID) > MaxSourceIDLength ||
		len(s.Version) > MaxSourceIDLength {
		return fmt.Errorf("ledger: source needs a type (≤ %d bytes), an id (≤ %d bytes) and a version of at most %d bytes, got %+v",
			MaxSourceTypeLength, MaxSourceIDLength, MaxSourceIDLength, s)
	}
	return nil
}

// MaxLines bounds one entry. The database checks the balance of an entry
// once per line at commit, so the bound also bounds that work.
const MaxLines = 500

// MaxMetadataBytes is the largest caller-defined metadata (the spec's 1 KB).
const MaxMetadataBytes = 1024

// JournalLine is one line of an entry to post.
type JournalLine struct {
	Account   AccountRef
	Amount    money.Cents
	Direction Direction
	Memo      *string
	Tags      []tags.KeyValue
}

// DebitCredit are the totals of a set of lines.
type DebitCredit struct {
	Debits  money.Cents
	Credits money.Cents
}

// Journal is a balanced list of lines: at least two, each with a positive
// amount, debits equal to credits, and totals within the int64 cents range.
// The only way to get one is NewJournal, so holding a Journal means holding
// lines that may be posted.
type Journal struct {
	lines []JournalLine
	total money.Cents
}

// NewJournal validates lines. Errors are 400 InvalidPayload naming the
// offending line ("line_items[2].amount") with a stable error_enum:
// TooFewLineItems, TooManyLineItems, InvalidAmount, AmountOutOfRange or
// UnbalancedEntry (whose meta carries both totals).
func NewJournal(lines []JournalLine) (Journal, error) {
	switch {
	case len(lines) < 2:
		return Journal{}, apperr.PayloadField("line_items",
			fmt.Sprintf("an entry needs at least two line items, got %d", len(lines))).WithEnum(EnumTooFewLines)
	case len(lines) > MaxLines:
		return Journal{}, apperr.PayloadField("line_items",
			fmt.Sprintf("an entry has at most %d line items, got %d", MaxLines, len(lines))).WithEnum(EnumTooManyLines)
	}
	var debits, credits []money.Cents
	fields := map[string]string{}
	for i, l := range lines {
		switch {
		case !l.Direction.Valid():
			fields[fmt.Sprintf("line_items[%d].direction", i)] = "must be DEBIT or CREDIT"
		case l.Amount <= 0:
			fields[fmt.Sprintf("line_items[%d].amount", i)] = "must be a positive number of cents"
		case l.Direction == Debit:
			debits = append(debits, l.Amount)
		default:
			credits = append(credits, l.Amount)
		}
		if l.Account == (AccountRef{}) {
			fields[fmt.Sprintf("line_items[%d].account_identifier", i)] = "is required"
		}
	}
	if len(fields) > 0 {
		return Journal{}, apperr.FieldErrors(apperr.InvalidPayload, fields).WithEnum(EnumInvalidLine)
	}
	d, err := money.Sum(debits...)
	if err != nil {
		return Journal{}, money.FieldError(apperr.InvalidPayload, "line_items", err)
	}
	c, err := money.Sum(credits...)
	if err != nil {
		return Journal{}, money.FieldError(apperr.InvalidPayload, "line_items", err)
	}
	if d != c {
		return Journal{}, apperr.Newf(apperr.InvalidPayload, "the entry is unbalanced: debits %s ≠ credits %s", d, c).
			WithEnum(EnumUnbalancedEntry).WithMeta("debits", int64(d)).WithMeta("credits", int64(c))
	}
	return Journal{lines: slices.Clone(lines), total: d}, nil
}

// Lines are the journal's lines (a copy).
func (j Journal) Lines() []JournalLine { return slices.Clone(j.lines) }

// Total is the sum of the debits (equal to the sum of the credits).
func (j Journal) Total() money.Cents { return j.total }

// Reversed is the mirror journal: every line on the other side.
func (j Journal) Reversed() Journal {
	out := Journal{lines: make([]JournalLine, len(j.lines)), total: j.total}
	for i, l := range j.lines {
		l.Direction = l.Direction.Opposite()
		out.lines[i] = l
	}
	return out
}

// CheckMetadata accepts absent metadata or a JSON object of at most 1 KB.
func CheckMetadata(field string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return nil, apperr.PayloadField(field, "must be a JSON object")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, apperr.PayloadField(field, "must be a JSON object")
	}
	if compact.Len() > MaxMetadataBytes {
		return nil, apperr.PayloadField(field, fmt.Sprintf("must be at most %d bytes, got %d", MaxMetadataBytes, compact.Len())).
			WithEnum(EnumMetadataTooLarge)
	}
	if reason := jsonraw.StorableReason(compact.Bytes()); reason != "" { // stored as jsonb
		return nil, apperr.PayloadField(field, reason)
	}
	return compact.Bytes(), nil
}

// Entry is a posted journal entry as read back.
type Entry struct {
	ID           uuid.UUID
	BusinessID   uuid.UUID
	EntryNumber  int64
	EntryType    EntryType
	Agent        Agent
	Date         time.Time
	EntryAt      time.Time
	Source       Source
	ReversalOfID *uuid.UUID
	ReversalID   *uuid.UUID
	Memo         *string
	Reference    *string
	Metadata     json.RawMessage
	Tags         []tags.Tag
	Lines        []Line
	CreatedAt    time.Time
}

// Line is a posted journal line with the account it moved.
type Line struct {
	ID        uuid.UUID
	EntryID   uuid.UUID
	Number    int
	Account   Account
	Amount    money.Cents
	Direction Direction
	Memo      *string
	Tags      []tags.Tag
	EntryAt   time.Time
	CreatedAt time.Time
}

// LineTags are the tags that apply to the amount of line i: the line's
// own tags followed by the entry's tags it lacks (by value definition).
// A bank transaction's tags are its entry's, so every line carries them.
func (e Entry) LineTags(i int) []tags.Tag { return AppliedTags(e.Lines[i].Tags, e.Tags) }

// AppliedTags are the tags that apply to a line's amount: its own tags
// followed by its entry's tags it lacks (by value definition).
func AppliedTags(own, entry []tags.Tag) []tags.Tag {
	out := slices.Clone(own)
	for _, t := range entry {
		if !slices.ContainsFunc(out, func(x tags.Tag) bool { return x.DefinitionID == t.DefinitionID }) {
			out = append(out, t)
		}
	}
	return out
}

// Signed is the line's amount with debits positive and credits negative.
func (l Line) Signed() money.Cents {
	if l.Direction == Credit {
		return -l.Amount // amounts are positive, so the negation cannot overflow
	}
	return l.Amount
}

// LedgerID is the id of a business's general ledger. Each business has
// exactly one, so it is derived from the business id rather than stored.
func LedgerID(businessID uuid.UUID) uuid.UUID { return events.LedgerID(businessID) }

// Reversible reports why e cannot be reversed (nil when it can): a
// reversal is never reversed, and an entry is reversed at most once.
func (e Entry) Reversible() error {
	switch {
	case e.ReversalOfID != nil:
		return apperr.New(apperr.Conflict, "the entry is itself a reversal and cannot be reversed").WithEnum(EnumReversalOfReversal)
	case e.ReversalID != nil:
		return apperr.New(apperr.Conflict, "the entry is already reversed").
			WithEnum(EnumAlreadyReversed).WithMeta("reversal_id", e.ReversalID.String())
	}
	return nil
}

// Journal rebuilds the balanced journal of a posted entry (lines by
// account id).
func (e Entry) Journal() (Journal, error) {
	lines := make([]JournalLine, len(e.Lines))
	for i, l := range e.Lines {
		var kv []tags.KeyValue
		for _, t := range l.Tags {
			kv = append(kv, tags.KeyValue{Key: t.Key, Value: t.Value, DimensionDisplayName: t.DimensionDisplayName, ValueDisplayName: t.ValueDisplayName})
		}
		lines[i] = JournalLine{Account: ByID(l.Account.ID), Amount: l.Amount, Direction: l.Direction, Memo: l.Memo, Tags: kv}
	}
	return NewJournal(lines)
}

// SameLines reports whether e's lines are j's (same accounts, amounts and
// directions in the same order), which makes a repeated posting of one
// source version a replay rather than a conflict.
func (e Entry) SameLines(j Journal, accountIDs []uuid.UUID) bool {
	if len(e.Lines) != len(j.lines) || len(accountIDs) != len(j.lines) {
		return false
	}
	for i, l := range e.Lines {
		jl := j.lines[i]
		if l.Account.ID != accountIDs[i] || l.Amount != jl.Amount || l.Direction != jl.Direction {
			return false
		}
	}
	return true
}
