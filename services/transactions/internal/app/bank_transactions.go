package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// EnumBankTransactionNotFound is the error_enum of a bank transaction id
// the business does not have.
const EnumBankTransactionNotFound = "BankTransactionNotFound"

// ErrBankTransactionNotFound is the 404 of a bank transaction id the
// business does not have.
func ErrBankTransactionNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "bank transaction not found").WithEnum(EnumBankTransactionNotFound)
}

// BankTransaction is a bank transaction as stored, with its tags.
type BankTransaction struct {
	ID                  uuid.UUID
	BusinessID          uuid.UUID
	Source              banking.Source
	SourceTransactionID string
	SourceAccountID     *string
	ExternalID          *string // CUSTOM transactions: the caller's id
	CustomAccountID     *uuid.UUID
	ExternalAccountID   *uuid.UUID
	LedgerAccountID     uuid.UUID // the bank account's ledger account
	AccountName         *string
	AccountMask         *string
	InstitutionName     *string
	// TransactionType is the bank's or provider's kind of transaction
	// ("Book"...), as imported; nil when none was given.
	TransactionType  *string
	Date             time.Time
	Direction        banking.Direction
	Amount           money.Cents
	CounterpartyName *string
	Description      *string
	ReferenceNumber  *string
	Memo             *string
	Metadata         json.RawMessage
	Status           banking.CategorizationStatus
	Method           *banking.CategorizationMethod
	Category         *TxnCategory
	TaxCode          *string
	// The customer or vendor the caller linked the transaction to (record
	// requests): kept as given, resolved by the services that own them.
	CustomerID         *uuid.UUID
	CustomerExternalID *string
	VendorID           *uuid.UUID
	VendorExternalID   *string
	Tags               []tags.Tag
	// DocumentIDs are the live documents (receipts), oldest first.
	DocumentIDs []uuid.UUID
	// Suggestions are the categories offered while uncategorized (filled
	// by the reads, not stored).
	Suggestions []TxnCategoryEntry
	// Match is the confirmed match of a MATCHED transaction;
	// SuggestedMatches the payments a deposit is offered (filled by the
	// reads).
	Match            *TxnMatch
	SuggestedMatches []MatchSuggestion
	ImportedAt       time.Time
	UpdatedAt        time.Time
	Version          int
}

// TxnCategory is what a transaction is categorized as, as stored: one
// entry for a single categorization, several for a split.
type TxnCategory struct {
	Split   bool               `json:"split"`
	Entries []TxnCategoryEntry `json:"entries"`
	// Projected is the projected_income_category the categorization gives.
	Projected banking.ProjectedIncomeCategory `json:"projected"`
}

// ProjectedIncome is the transaction's projected_income_category: its
// categorization's, or by direction while uncategorized.
func (t BankTransaction) ProjectedIncome() banking.ProjectedIncomeCategory {
	if t.Category != nil && t.Category.Projected != "" {
		return t.Category.Projected
	}
	return banking.ProjectIncome(t.Direction, nil)
}

// TxnCategoryEntry is one category of a categorization: a ledger account
// or an exclusion, with the amount it takes.
type TxnCategoryEntry struct {
	Amount        money.Cents `json:"amount"`
	AccountID     *uuid.UUID  `json:"account_id,omitempty"`
	StableName    *string     `json:"stable_name,omitempty"`
	ExclusionType *string     `json:"exclusion_type,omitempty"`
	DisplayName   string      `json:"display_name"`
	TaxCode       *string     `json:"tax_code,omitempty"`
	Tags          []tags.Tag  `json:"tags"`
}

// BankTxnStore is the persistence of bank transactions (part of
// BankStore).
type BankTxnStore interface {
	// InsertBankTransactions inserts the transactions whose (source,
	// source_transaction_id) the business does not have yet, with their
	// tags, in batched multi-row statements, and returns the ids of those
	// it inserted.
	InsertBankTransactions(ctx context.Context, db bun.IDB, txns []BankTransaction) (map[uuid.UUID]bool, error)
	// FindBankTransactionsBySource returns the business's transactions of
	// source with these source transaction ids.
	FindBankTransactionsBySource(ctx context.Context, db bun.IDB, businessID uuid.UUID, source banking.Source, ids []string) ([]BankTransaction, error)
	FindBankTransaction(ctx context.Context, db bun.IDB, businessID, id uuid.UUID, lock Lock) (BankTransaction, bool, error)
	// FindBankTransactions is one page of the business's transactions
	// that pass f.
	FindBankTransactions(ctx context.Context, db bun.IDB, businessID uuid.UUID, f banking.Filter, p page.Params) ([]BankTransaction, page.Meta, error)
	// UpdateBankTransaction saves t's categorization (status, method,
	// category, tax code), memo, update time and version.
	UpdateBankTransaction(ctx context.Context, db bun.IDB, t BankTransaction) error
}

// TxnPublisher enqueues the acct.transactions.v1 snapshots in the
// transaction that made the change.
type TxnPublisher interface {
	TransactionsUpserted(ctx context.Context, db bun.IDB, txns []BankTransaction) error
}

// BankTransaction returns the business's transaction id, or the 404
// ErrBankTransactionNotFound.
func (b *Banking) BankTransaction(ctx context.Context, businessID, id uuid.UUID) (BankTransaction, error) {
	t, ok, err := b.store.FindBankTransaction(ctx, b.db, businessID, id, NoLock)
	if err != nil {
		return BankTransaction{}, fmt.Errorf("find bank transaction %s: %w", id, err)
	}
	if !ok {
		return BankTransaction{}, ErrBankTransactionNotFound()
	}
	one := []BankTransaction{t}
	if err := b.withSuggestions(ctx, businessID, one); err != nil {
		return BankTransaction{}, err
	}
	if err := b.withMatches(ctx, businessID, one); err != nil {
		return BankTransaction{}, err
	}
	return one[0], nil
}

// BankTransactions is GET /bank-transactions: one page of the filtered
// transactions.
func (b *Banking) BankTransactions(ctx context.Context, businessID uuid.UUID, f banking.Filter, p page.Params) ([]BankTransaction, page.Meta, error) {
	out, meta, err := b.store.FindBankTransactions(ctx, b.db, businessID, f, p)
	if err != nil {
		return nil, page.Meta{}, fmt.Errorf("list bank transactions of %s: %w", businessID, err)
	}
	if err := b.withSuggestions(ctx, businessID, out); err != nil {
		return nil, page.Meta{}, err
	}
	if err := b.withMatches(ctx, businessID, out); err != nil {
		return nil, page.Meta{}, err
	}
	return out, meta, nil
}

// MaxCustomTransactions is the most transactions one POST
// /custom-accounts/{id}/transactions takes (the domain's parser enforces
// it).
const MaxCustomTransactions = 1000

// CreateCustomTransactions is POST /custom-accounts/{id}/transactions: the
// checked items become CUSTOM transactions of the account, all in one
// database transaction. An item whose external_id the business already
// has is not inserted again: the answer holds the existing transaction in
// its place (a retried call creates nothing). Items without an external_id
// get their own id as source_transaction_id.
func (b *Banking) CreateCustomTransactions(ctx context.Context, businessID, accountID uuid.UUID, items []banking.CustomTransactionItem) ([]BankTransaction, error) {
	var out []BankTransaction
	err := outbox.RunInTx(ctx, b.db, func(ctx context.Context, tx bun.Tx) error {
		acct, ok, err := b.store.FindCustomAccount(ctx, tx, businessID, accountID)
		if err != nil {
			return fmt.Errorf("find custom account %s: %w", accountID, err)
		}
		if !ok {
			return ErrCustomAccountNotFound()
		}
		now := b.clock()
		txns := make([]BankTransaction, len(items))
		for i, it := range items {
			id := newID()
			t := BankTransaction{
				ID: id, BusinessID: businessID, Source: banking.SourceCustom, SourceTransactionID: id.String(),
				ExternalID: it.ExternalID, CustomAccountID: &acct.ID, LedgerAccountID: acct.LedgerAccountID,
				AccountName: &acct.AccountName, AccountMask: acct.Mask, InstitutionName: acct.InstitutionName,
				Date: it.Date.UTC(), Direction: it.Direction, Amount: it.Amount, CounterpartyName: it.CounterpartyName,
				Description: it.Description, ReferenceNumber: it.ReferenceNumber, Memo: it.Memo, Metadata: it.Metadata,
				TransactionType: it.TransactionType, Status: banking.StatusReadyForInput, ImportedAt: now, UpdatedAt: now, Version: 1,
			}
			if it.ExternalID != nil {
				t.SourceTransactionID = *it.ExternalID
			}
			t.Tags = make([]tags.Tag, 0, len(it.Tags))
			for _, kv := range it.Tags {
				t.Tags = append(t.Tags, tags.NewTag(businessID, id, kv, now))
			}
			txns[i] = t
		}
		// A concurrent call inserting the same source ids makes ON CONFLICT
		// wait for it to commit; the read that follows (a new statement
		// under READ COMMITTED) then sees its rows.
		out, err = b.storeNew(ctx, tx, businessID, txns)
		return err
	})
	return out, err
}

// settle replaces, in txns, each one not inserted by the stored
// transaction of the same (source, source transaction id), and publishes
// the inserted ones.
func (b *Banking) settle(ctx context.Context, tx bun.IDB, businessID uuid.UUID, txns []BankTransaction, inserted map[uuid.UUID]bool) ([]BankTransaction, error) {
	var fresh []BankTransaction
	missing := map[banking.Source][]string{}
	for _, t := range txns {
		if inserted[t.ID] {
			fresh = append(fresh, t)
		} else {
			missing[t.Source] = append(missing[t.Source], t.SourceTransactionID)
		}
	}
	type key struct {
		source banking.Source
		id     string
	}
	existing := map[key]BankTransaction{}
	for source, ids := range missing {
		found, err := b.store.FindBankTransactionsBySource(ctx, tx, businessID, source, ids)
		if err != nil {
			return nil, fmt.Errorf("find existing transactions: %w", err)
		}
		for _, e := range found {
			existing[key{e.Source, e.SourceTransactionID}] = e
		}
	}
	for i, t := range txns {
		if inserted[t.ID] {
			continue
		}
		e, ok := existing[key{t.Source, t.SourceTransactionID}]
		if !ok {
			return nil, fmt.Errorf("transaction %s %q neither inserted nor found", t.Source, t.SourceTransactionID)
		}
		txns[i] = e
	}
	if len(fresh) > 0 {
		if err := b.pub.TransactionsUpserted(ctx, tx, fresh); err != nil {
			return nil, fmt.Errorf("publish transactions: %w", err)
		}
	}
	return txns, nil
}
