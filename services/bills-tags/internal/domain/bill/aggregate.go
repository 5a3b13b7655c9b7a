package bill

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// EntryType is the ledger entry type of a bill.
const EntryType = "BILL"

// Bill is one bill of a business. Settled is what payments and vendor
// credits applied to it (the use cases keep it with the bill row locked);
// Outstanding = Total − Settled, 0 when voided.
type Bill struct {
	ID                   uuid.UUID
	BusinessID           uuid.UUID
	ExternalID           *string
	BillNumber           *string
	VendorID             *uuid.UUID
	Status               Status
	ReceivedAt           time.Time
	DueAt                *time.Time
	PaidAt               *time.Time
	VoidedAt             *time.Time
	Memo                 *string
	ReferenceNumber      *string
	Metadata             json.RawMessage
	Tags                 []tags.Tag
	Lines                []Line
	AdditionalSalesTaxes []SalesTax
	Totals               Totals
	Settled              money.Cents
	Outstanding          money.Cents
	// Payments are the bill payments' allocations to the bill (read with
	// it; the payment use cases change them).
	Payments []BillPaid
	// Version is 1 when received and grows with every change (postings and
	// snapshots carry it).
	Version    int64
	ImportedAt time.Time
	UpdatedAt  time.Time
}

// Due is when the bill is due: its due date, else (a bill received
// without one is due on receipt) its received_at, as the A/P aging reads a
// missing due date. DueAt itself, and the bill.upserted snapshot carrying
// it, keep the stored value (nil when none was given).
func (b Bill) Due() time.Time {
	if b.DueAt == nil {
		return b.ReceivedAt
	}
	return *b.DueAt
}

// Terms are the terms the bill's due date (Due) matches: DUE_ON_RECEIPT
// for a bill without a due date, "" for a due date no standard term gives.
func (b Bill) Terms() Terms { return TermsFor(b.ReceivedAt, b.Due()) }

// Editable reports whether the bill's content may still change: not
// voided, nothing paid or credited.
func (b Bill) Editable() bool { return b.Status != Voided && b.Settled == 0 }

// Settle returns b with delta more (or, negative, less) settled at at:
// its outstanding balance, status and paid_at follow. The caller checks
// that 0 ≤ settled ≤ total.
func (b Bill) Settle(delta money.Cents, at time.Time) Bill {
	b.Settled += delta
	b.Outstanding = b.Totals.Total - b.Settled
	if b.VoidedAt != nil {
		b.Outstanding = 0
	}
	b.Status = StatusOf(b.Totals.Total, b.Settled, b.VoidedAt != nil)
	if b.Status == Paid {
		if b.PaidAt == nil {
			p := at
			b.PaidAt = &p
		}
	} else {
		b.PaidAt = nil
	}
	return b
}

// TagSet is the tags of entity id of businessID for kvs: a tag already in
// existing (same id) keeps its creation time; sorted by key, then value.
func TagSet(businessID, id uuid.UUID, existing []tags.Tag, kvs []tags.KeyValue, now time.Time) []tags.Tag {
	out := make([]tags.Tag, 0, len(kvs))
	for _, kv := range kvs {
		t := tags.NewTag(businessID, id, kv, now)
		if i := slices.IndexFunc(existing, func(e tags.Tag) bool { return e.ID == t.ID }); i >= 0 {
			t = existing[i]
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b tags.Tag) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out
}

// KeyValues are tags as key/value pairs.
func KeyValues(ts []tags.Tag) []tags.KeyValue {
	out := make([]tags.KeyValue, len(ts))
	for i, t := range ts {
		out[i] = tags.KeyValue{Key: t.Key, Value: t.Value}
	}
	return out
}

func mergeTags(a, b []tags.KeyValue) []tags.KeyValue {
	out := slices.Clone(a)
	for _, kv := range b {
		if !slices.ContainsFunc(out, func(o tags.KeyValue) bool { return o.Key == kv.Key && o.Value == kv.Value }) {
			out = append(out, tags.KeyValue{Key: kv.Key, Value: kv.Value})
		}
	}
	return out
}

// Posting is the entry the bill asks the ledger to keep (version
// b.Version): debit each line's expense account (its prepayment account
// when it has one) with subtotal − discount; each tax debits the account
// it names (a Tax_Name: the SALES_TAXES_PAYABLE sub-account of that tax,
// a recoverable input tax offsetting what is owed; an AccountId or
// StableName: that account) and otherwise the line's expense account (a
// tax paid is part of the cost; a bill-level tax without an account goes
// to the first line's expense account); credit ACCOUNTS_PAYABLE with the
// total. Lines carry the bill's tags plus their own. A voided bill's (and
// a zero bill's) posting has no lines: the live entry is reversed.
func (b Bill) Posting() *events.LedgerPosting {
	p := &events.LedgerPosting{
		SourceType: events.SourceBill, SourceID: b.ID.String(), Version: b.Version, EntryType: EntryType,
		EntryAt: b.ReceivedAt, Memo: b.Memo, Lines: []events.PostingLine{},
	}
	if b.Status == Voided || b.Totals.Total == 0 {
		return p
	}
	billTags := KeyValues(b.Tags)
	debit := func(acct events.PostingAccount, amount money.Cents, kvs []tags.KeyValue) {
		if amount > 0 {
			p.Lines = append(p.Lines, events.PostingLine{Account: acct, Direction: "DEBIT", Amount: int64(amount), Tags: kvs})
		}
	}
	taxAccount := func(tx SalesTax, fallback AccountRef) events.PostingAccount {
		switch {
		case tx.Account != nil && !tx.Account.IsZero():
			return tx.Account.Posting()
		case tx.TaxName != "":
			return events.PostingAccount{Type: events.PostingTaxName, Name: tx.TaxName}
		}
		return fallback.Posting()
	}
	for _, l := range b.Lines {
		lt := mergeTags(billTags, l.Tags)
		debit(l.ExpenseAccount().Posting(), l.Subtotal-l.DiscountAmount, lt)
		for _, tx := range l.SalesTaxes {
			debit(taxAccount(tx, l.ExpenseAccount()), tx.Amount, lt)
		}
	}
	for _, tx := range b.AdditionalSalesTaxes {
		debit(taxAccount(tx, b.Lines[0].ExpenseAccount()), tx.Amount, billTags)
	}
	p.Lines = append(p.Lines, events.PostingLine{Account: StableName(AccountsPayable).Posting(), Direction: "CREDIT",
		Amount: int64(b.Totals.Total), Tags: billTags})
	return p
}

// Snapshot is the bill as acct.bills.v1 carries it.
func (b Bill) Snapshot() events.BillSnapshot {
	return events.BillSnapshot{
		ID: b.ID, BusinessID: b.BusinessID, ExternalID: b.ExternalID, BillNumber: b.BillNumber, VendorID: b.VendorID,
		Status: string(b.Status), ReceivedAt: b.ReceivedAt, DueAt: b.DueAt, TotalAmount: int64(b.Totals.Total),
		OutstandingBalance: int64(b.Outstanding), Tags: KeyValues(b.Tags), Version: b.Version, UpdatedAt: b.UpdatedAt,
	}
}
