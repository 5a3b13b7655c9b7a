package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
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

// BankTxnPageSpec is the pagination of GET /bank-transactions: the spec's
// sort keys, each backed by a (business_id, key, id) index; limit default
// 100, at most 500.
var BankTxnPageSpec = page.Spec{
	Keys: map[string]page.Key{
		"date":        {Column: "bt.date", Kind: page.KindTime},
		"amount":      {Column: "bt.amount", Kind: page.KindInt},
		"imported_at": {Column: "bt.imported_at", Kind: page.KindTime},
	},
	Default:      "date",
	DefaultLimit: 100,
	MaxLimit:     500,
}

// BankTxnStore is the persistence of bank transactions (part of
// BankStore).
type BankTxnStore interface {
	// InsertBankTransactions inserts the transactions whose (source,
	// source_transaction_id) the business does not have yet, with their
	// tags, in batched multi-row statements, and returns the ids of those
	// it inserted.
	InsertBankTransactions(ctx context.Context, txns []banking.BankTransaction) (map[uuid.UUID]bool, error)
	// FindBankTransactionsBySource returns the business's transactions of
	// source with these source transaction ids.
	FindBankTransactionsBySource(ctx context.Context, businessID uuid.UUID, source banking.Source, ids []string) ([]banking.BankTransaction, error)
	FindBankTransaction(ctx context.Context, businessID, id uuid.UUID, lock Lock) (banking.BankTransaction, bool, error)
	// FindBankTransactions is one page of the business's transactions
	// that pass f.
	FindBankTransactions(ctx context.Context, businessID uuid.UUID, f banking.Filter, p page.Params) ([]banking.BankTransaction, page.Meta, error)
	// UpdateBankTransaction saves t's categorization (status, method,
	// category, tax code), memo, update time and version.
	UpdateBankTransaction(ctx context.Context, t banking.BankTransaction) error
}

// BankTransaction returns the business's transaction id, or the 404
// ErrBankTransactionNotFound.
func (b *Banking) BankTransaction(ctx context.Context, businessID, id uuid.UUID) (banking.BankTransaction, error) {
	t, ok, err := b.store.FindBankTransaction(ctx, businessID, id, NoLock)
	if err != nil {
		return banking.BankTransaction{}, fmt.Errorf("find bank transaction %s: %w", id, err)
	}
	if !ok {
		return banking.BankTransaction{}, ErrBankTransactionNotFound()
	}
	one := []banking.BankTransaction{t}
	if err := b.withSuggestions(ctx, businessID, one); err != nil {
		return banking.BankTransaction{}, err
	}
	if err := b.withMatches(ctx, businessID, one); err != nil {
		return banking.BankTransaction{}, err
	}
	return one[0], nil
}

// BankTransactions is GET /bank-transactions: one page of the filtered
// transactions.
func (b *Banking) BankTransactions(ctx context.Context, businessID uuid.UUID, f banking.Filter, p page.Params) ([]banking.BankTransaction, page.Meta, error) {
	out, meta, err := b.store.FindBankTransactions(ctx, businessID, f, p)
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

// liveTransaction is the business's transaction id, or its 404.
func (b *Banking) liveTransaction(ctx context.Context, businessID, id uuid.UUID, lock Lock) (banking.BankTransaction, error) {
	t, ok, err := b.store.FindBankTransaction(ctx, businessID, id, lock)
	if err != nil {
		return banking.BankTransaction{}, fmt.Errorf("find bank transaction %s: %w", id, err)
	}
	if !ok {
		return banking.BankTransaction{}, ErrBankTransactionNotFound()
	}
	return t, nil
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
func (b *Banking) CreateCustomTransactions(ctx context.Context, businessID, accountID uuid.UUID, items []banking.CustomTransactionItem) ([]banking.BankTransaction, error) {
	var out []banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		acct, ok, err := b.store.FindCustomAccount(ctx, businessID, accountID)
		if err != nil {
			return fmt.Errorf("find custom account %s: %w", accountID, err)
		}
		if !ok {
			return ErrCustomAccountNotFound()
		}
		now := b.clock()
		txns := make([]banking.BankTransaction, len(items))
		for i, it := range items {
			id := newID()
			t := banking.BankTransaction{
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
		out, err = b.storeNew(ctx, businessID, txns)
		return err
	})
	return out, err
}

// settle replaces, in txns, each one not inserted by the stored
// transaction of the same (source, source transaction id), and publishes
// the inserted ones.
func (b *Banking) settle(ctx context.Context, businessID uuid.UUID, txns []banking.BankTransaction, inserted map[uuid.UUID]bool) ([]banking.BankTransaction, error) {
	var fresh []banking.BankTransaction
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
	existing := map[key]banking.BankTransaction{}
	for source, ids := range missing {
		found, err := b.store.FindBankTransactionsBySource(ctx, businessID, source, ids)
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
		if err := b.publishTransactions(ctx, fresh...); err != nil {
			return nil, fmt.Errorf("publish transactions: %w", err)
		}
	}
	return txns, nil
}
