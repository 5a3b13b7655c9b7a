package domain

import (
	"bytes"
	"cmp"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// AccountLine is a journal line as the general ledger detail of an account
// shows it: the line, what it shows of its entry, and the account's balance
// right after it.
type AccountLine struct {
	Line
	EntryNumber int64
	EntryType   EntryType
	Source      Source
	EntryMemo   *string
	EntryTags   []tags.Tag
	// ReversalOfID is the entry that the line's entry reverses;
	// ReversedBy the entry that reversed the line's entry.
	ReversalOfID *uuid.UUID
	ReversedBy   *uuid.UUID
	// RunningBalance is the balance of the listed account (with its
	// sub-accounts when they are listed too) after this line, on the
	// account's normal side, counting every line before it in chronological
	// order (ChronologicalCompare), whatever the listing's date range.
	RunningBalance money.Cents
}

// Reversed reports whether a later entry reversed the line's entry.
func (l AccountLine) Reversed() bool { return l.ReversedBy != nil }

// AppliedTags are the tags that apply to the line's amount: its own, then
// its entry's it lacks.
func (l AccountLine) AppliedTags() []tags.Tag { return AppliedTags(l.Tags, l.EntryTags) }

// ShownMemo is the line's memo, else its entry's.
func (l AccountLine) ShownMemo() *string {
	if l.Memo != nil {
		return l.Memo
	}
	return l.EntryMemo
}

// Effect is what the line adds to the balance of an account of normality
// n: its amount on n's side, its negation on the other.
func (l Line) Effect(n Direction) money.Cents {
	if l.Direction == n {
		return l.Amount
	}
	return -l.Amount // amounts are positive, so the negation cannot overflow
}

// ChronologicalCompare orders an account's lines as its running balance
// counts them: by entry_at, then entry number, then line id (the bytes of
// the UUID, as PostgreSQL orders uuid values).
func ChronologicalCompare(a, b AccountLine) int {
	return cmp.Or(a.EntryAt.Compare(b.EntryAt), cmp.Compare(a.EntryNumber, b.EntryNumber), bytes.Compare(a.ID[:], b.ID[:]))
}

// RunningBalances sets the running balance of every line of one page of an
// account's lines (normality n), listed in chronological order or, when
// desc, in the reverse order. boundary is the account's balance where the
// page starts in the listing's order: before its first line when
// ascending, after its first line when descending. A balance beyond the
// int64 cents range is an error.
func RunningBalances(lines []AccountLine, n Direction, boundary money.Cents, desc bool) error {
	bal := boundary
	var err error
	for i := range lines {
		if desc {
			lines[i].RunningBalance = bal
			bal, err = bal.Sub(lines[i].Effect(n))
		} else {
			bal, err = bal.Add(lines[i].Effect(n))
			lines[i].RunningBalance = bal
		}
		if err != nil {
			return fmt.Errorf("running balance at line %s: %w", lines[i].ID, err)
		}
	}
	return nil
}
