package banking

import (
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Archiving (DELETE /bank-transactions/{id}) takes a transaction out of the
// books without losing it: it is hidden from listings (unless asked for),
// its live journal entry is reversed, and it keeps its categorization so
// that restoring it posts the same entry again.
const (
	// EnumTransactionArchived is the 409 of a change (categorize, match,
	// uncategorize, record update) asked of an archived transaction.
	EnumTransactionArchived = "BankTransactionArchived"
	// EnumNotArchivable is the 409 of archiving a transaction a bank feed
	// delivered (PROVIDER_1..3).
	EnumNotArchivable = "BankTransactionNotArchivable"
)

// Archived reports whether t is archived.
func (t BankTransaction) Archived() bool { return t.ArchivedAt != nil }

// CheckLive is nil for a live transaction and the 409
// BankTransactionArchived for an archived one, which takes no change but a
// restore.
func (t BankTransaction) CheckLive() error {
	if !t.Archived() {
		return nil
	}
	return apperr.New(apperr.Conflict, "the bank transaction is archived: restore it first (POST .../restore)").
		WithEnum(EnumTransactionArchived).WithMeta("transaction_id", t.ID.String())
}

// CheckArchivable is nil when t may be archived: transactions the business
// recorded (CUSTOM) or its platform sent (API). A transaction of a bank
// feed (PROVIDER_1..3) is what the bank says happened; archiving it would
// part the books from the bank, so it is the 409 BankTransactionNotArchivable
// (categorize it as DUPLICATE_TRANSACTION when it is one).
func (t BankTransaction) CheckArchivable() error {
	if t.Source == SourceCustom || t.Source == SourceAPI {
		return nil
	}
	return apperr.Newf(apperr.Conflict,
		"a %s transaction comes from a bank feed and cannot be archived; categorize it as DUPLICATE_TRANSACTION if it is one", t.Source).
		WithEnum(EnumNotArchivable)
}

// Archive marks t archived at now. The caller reverses its live entry and
// frees its match first (a matched deposit comes back uncategorized).
func (t *BankTransaction) Archive(now time.Time) {
	at := now
	t.ArchivedAt, t.UpdatedAt = &at, now
	t.SuggestedMatches = nil
}

// Restore makes the archived t live again at now; the caller posts its
// entry again.
func (t *BankTransaction) Restore(now time.Time) {
	t.ArchivedAt, t.UpdatedAt = nil, now
}
