// Package app holds the transactions service's use cases. The ledger core
// (Ledger) is the chart of accounts, the double-entry journal and the
// balances; every other part of the service posts into it.
//
// # Units of work
//
// Every write runs in one unit of work (UnitOfWork.Do): its context
// carries the database transaction to the stores, and the events published
// in it (Publisher) commit with the change or not at all, written last, so
// that the lock ordering a business's events is held for the commit only.
// A Do inside another is a savepoint of it.
//
// # Posting from another use case
//
// The bank-transaction use cases (categorize, match, record) change their
// own rows and the ledger in one unit of work, so the ledger's posting
// methods run in the caller's: the one its context carries.
//
//	err := uow.Do(ctx, func(ctx context.Context) error {
//		bank, err := ledger.AccountByID(ctx, businessID, txn.LedgerAccountID)
//		...
//		if live, ok, err := ledger.LiveEntryForSource(ctx, businessID, "BANK_TRANSACTION", txn.ID.String()); ok {
//			_, err = ledger.ReverseEntry(ctx, businessID, live.ID, app.ReverseOptions{Agent: domain.AgentAPI})
//		}
//		entry, err := ledger.PostEntry(ctx, businessID, app.NewEntry{
//			EntryType: domain.EntryBank, Agent: domain.AgentAPI, EntryAt: txn.Date,
//			Source: domain.Source{Type: "BANK_TRANSACTION", ID: txn.ID.String(), Version: strconv.Itoa(txn.Version)},
//			Lines: []domain.JournalLine{
//				{Account: domain.ByStableName("MEALS"), Amount: txn.Amount, Direction: domain.Debit},
//				{Account: domain.ByID(bank.ID), Amount: txn.Amount, Direction: domain.Credit},
//			},
//		})
//		...
//	})
//
// The API:
//
//   - PostEntry(ctx, businessID, NewEntry) (domain.Entry, error) posts a
//     balanced entry (domain.NewJournal refuses anything else; the database
//     refuses it again at commit) and publishes its acct.ledger.v1 event in
//     the unit of work. Posting a source version that was posted before
//     returns that entry (409 SourceConflict if its lines differ); a source
//     with a live entry under another version is 409 LiveEntryExists:
//     reverse it first.
//   - ReverseEntry(ctx, businessID, entryID, ReverseOptions) posts the
//     mirror entry (reversal_of_id set) and marks the original (reversal_id);
//     reversing twice or reversing a reversal is 409.
//   - LiveEntryForSource(ctx, businessID, sourceType, sourceID) finds the
//     source's unreversed entry.
//   - AccountByID and AccountByStableName look accounts up (404 when absent).
//   - CreateBankLedgerAccount(ctx, businessID, BankLedgerAccount) creates
//     the ledger account of a new bank account under BANK_ACCOUNTS (a
//     depository account) or CREDIT_CARDS (a credit account); with a stable
//     name it is idempotent.
//
// Errors meant for API clients are *apperr.Error values (4xx); anything
// else is an internal error wrapped with context.
package app

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// Lock says how a read locks the rows it returns until the transaction ends.
type Lock int

// The locks.
const (
	// NoLock reads without locking.
	NoLock Lock = iota
	// LockShare (FOR KEY SHARE) keeps the rows from being archived or
	// re-parented while the transaction posts to them; many writers share it.
	LockShare
	// LockUpdate (FOR UPDATE) is taken to change or archive the rows.
	LockUpdate
)

// EntryFilter restricts an entry listing.
type EntryFilter struct {
	BusinessID uuid.UUID
	From       *time.Time // entry_at ≥ From
	Until      *time.Time // entry_at < Until
	// AccountIDs keeps entries with a line on one of these accounts (nil:
	// no restriction).
	AccountIDs []uuid.UUID
	EntryTypes []domain.EntryType
}

// PeriodFilter restricts the lines summed into balances.
type PeriodFilter struct {
	From  *time.Time // entry_at ≥ From
	Until *time.Time // entry_at < Until
}

// Store is the ledger's persistence. Every method runs in the unit of
// work its context carries, if any.
type Store interface {
	// SeedAccounts inserts the accounts, skipping any whose id or stable
	// name the business already has, and reports how many it inserted.
	SeedAccounts(ctx context.Context, accounts []domain.Account) (int, error)
	// InsertAccount inserts a; a stable name the business already uses is
	// the 409 domain.ErrDuplicateStableName.
	InsertAccount(ctx context.Context, a domain.Account) error
	FindAccount(ctx context.Context, businessID, id uuid.UUID, lock Lock) (domain.Account, bool, error)
	FindAccountByStableName(ctx context.Context, businessID uuid.UUID, name string, lock Lock) (domain.Account, bool, error)
	// FindAccountsByRefs resolves references by id or stable name; refs
	// that name no account of the business are absent from the result.
	FindAccountsByRefs(ctx context.Context, businessID uuid.UUID, refs []domain.AccountRef, lock Lock) ([]domain.Account, error)
	// LiveEntryAndAccounts is FindLiveEntry together with the accounts refs
	// name and those of the live entry's lines, locked as asked, and every
	// account above them (not locked), in one statement.
	LiveEntryAndAccounts(ctx context.Context, businessID uuid.UUID, sourceType, sourceID string, refs []domain.AccountRef, lock Lock) (domain.Entry, bool, []domain.Account, error)
	// AccountsWithAncestors returns the accounts and every account above them.
	AccountsWithAncestors(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) ([]domain.Account, error)
	// AccountWithDescendants returns the account id, first, and every
	// account below it (archived ones too); nothing when the business has
	// no such account.
	AccountWithDescendants(ctx context.Context, businessID, id uuid.UUID) ([]domain.Account, error)
	// ListAccounts lists the business's accounts, archived ones when asked.
	ListAccounts(ctx context.Context, businessID uuid.UUID, withArchived bool) ([]domain.Account, error)
	// UpdateAccount saves the name, number, stable name, subtype, archive
	// time and update time of a.
	UpdateAccount(ctx context.Context, a domain.Account) error
	// AccountUsage is the account's all-time totals and its number of live
	// sub-accounts.
	AccountUsage(ctx context.Context, businessID, id uuid.UUID) (domain.DebitCredit, int, error)
	// AccountUse is what refers to the account (lines, sub-accounts,
	// categorization rules).
	AccountUse(ctx context.Context, businessID, id uuid.UUID) (domain.AccountUse, error)
	// DeleteAccount deletes the account's row. A bank account or bank
	// transaction that refers to it makes it a 409 error.
	DeleteAccount(ctx context.Context, businessID, id uuid.UUID) error

	// InsertEntryRows inserts each entry (not its lines) unless an entry
	// with the same source version or a live entry of the same source
	// exists, in multi-row statements. It sets EntryNumber of those it
	// inserted and returns their ids. Their lines must follow (InsertLines)
	// before the commit: the database refuses an entry without balanced
	// lines then.
	InsertEntryRows(ctx context.Context, es []*domain.Entry) (map[uuid.UUID]bool, error)
	// InsertReversal inserts the reversal e (its row, not its lines) and
	// marks the entry it reverses (reversal_id) in one statement, unless an
	// entry conflicts (the entry is already reversed: false).
	InsertReversal(ctx context.Context, e *domain.Entry) (bool, error)
	// InsertLines inserts the lines of es in multi-row statements.
	InsertLines(ctx context.Context, es []*domain.Entry) error
	FindEntry(ctx context.Context, businessID, id uuid.UUID, lock Lock) (domain.Entry, bool, error)
	FindEntryBySource(ctx context.Context, businessID uuid.UUID, s domain.Source) (domain.Entry, bool, error)
	FindLiveEntry(ctx context.Context, businessID uuid.UUID, sourceType, sourceID string) (domain.Entry, bool, error)
	FindEntries(ctx context.Context, f EntryFilter, p page.Params) ([]domain.Entry, page.Meta, error)
	// AccountTotals sums the business's lines per account over the period.
	AccountTotals(ctx context.Context, businessID uuid.UUID, f PeriodFilter) (map[uuid.UUID]domain.DebitCredit, error)
	// FindAccountLines reads one page of the lines of f's accounts in
	// chronological order (domain.ChronologicalCompare) or its reverse,
	// each with its entry's number, type, source, memo, tags and reversal
	// links; the account of a line carries only its id. It also sums, in
	// the same snapshot, every line of those accounts before the page's
	// start in the listing's order, whatever f's dates: the lines before the
	// first listed line (ascending) or up to and including it (descending).
	FindAccountLines(ctx context.Context, f AccountLineFilter, p page.Params) ([]domain.AccountLine, domain.DebitCredit, page.Meta, error)
	// StreamExportLines calls fn with every line of the business over the
	// period, in chronological order (entry_at, entry number, line number),
	// row by row from the database cursor.
	StreamExportLines(ctx context.Context, businessID uuid.UUID, f PeriodFilter, fn func(domain.ExportLine) error) error

	// LockExternalID serialises requests for one journal-entry external id
	// until the transaction ends.
	LockExternalID(ctx context.Context, businessID uuid.UUID, externalID string) error
	FindJournalEntryByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (domain.JournalEntry, bool, error)
	InsertJournalEntry(ctx context.Context, j domain.JournalEntry) error
}

// UnitOfWork runs fn in one database transaction, carried by fn's context
// to the stores and the publisher; inside another unit of work it is a
// savepoint of it.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context) error) error
}

// Publisher publishes events with the unit of work ctx carries (the
// transactional outbox): they are sent only if it commits.
type Publisher interface {
	Publish(ctx context.Context, evts ...events.Event) error
}

// Ledger is the chart of accounts and the journal of every business.
type Ledger struct {
	uow   UnitOfWork
	store Store
	pub   Publisher
	// exports holds the CSV exports; nil while storage is not configured.
	exports *ledgerExports
	log     *slog.Logger
	clk     clock.Clock
}

// NewLedger assembles the ledger.
func NewLedger(uow UnitOfWork, store Store, pub Publisher, logger *slog.Logger) *Ledger {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Ledger{uow: uow, store: store, pub: pub, log: logger, clk: clock.System}
}

// clock is now in UTC at microseconds, the precision PostgreSQL keeps, so
// that what a use case returns equals what it reads back later.
func (l *Ledger) clock() time.Time { return l.clk.Now() }

// newID returns a time-ordered UUID (v7) for new rows.
func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// canonicalJSON re-encodes a JSON value with sorted object keys (numbers
// kept as written), for hashing what a caller sent.
func canonicalJSON(raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return []byte("null"), nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
