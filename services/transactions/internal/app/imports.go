package app

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// ExternalAccount is the bank account behind imported transactions: one
// per (source, source_account_id), with its own id (external_account_id)
// and ledger account.
type ExternalAccount struct {
	ID              uuid.UUID
	BusinessID      uuid.UUID
	Source          banking.Source
	SourceAccountID string
	AccountName     *string
	LedgerAccountID uuid.UUID
	CreatedAt       time.Time
}

// ExternalAccountStore is the persistence of external accounts (part of
// BankStore).
type ExternalAccountStore interface {
	FindExternalAccount(ctx context.Context, businessID uuid.UUID, source banking.Source, sourceAccountID string) (ExternalAccount, bool, error)
	InsertExternalAccount(ctx context.Context, a ExternalAccount) error
}

// ImportTransactions is POST /bank-transactions/bulk: provider and API
// transactions, in one database transaction. A (source,
// source_transaction_id) the business already has is not imported again:
// the answer holds the stored transaction in its place. A new
// (source, source_account_id) gets its external account and a ledger
// account under BANK_ACCOUNTS (named after account_name, else the source
// account id).
func (b *Banking) ImportTransactions(ctx context.Context, businessID uuid.UUID, items []banking.ImportItem) ([]banking.BankTransaction, error) {
	var out []banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		now := b.clock()
		type accountKey struct {
			source banking.Source
			id     string
		}
		accounts := map[accountKey]ExternalAccount{}
		txns := make([]banking.BankTransaction, len(items))
		for i, it := range items {
			k := accountKey{it.Source, it.SourceAccountID}
			acct, ok := accounts[k]
			if !ok {
				var err error
				if acct, err = b.externalAccount(ctx, businessID, it, now); err != nil {
					return err
				}
				accounts[k] = acct
			}
			id := newID()
			sourceAccountID, accountID := it.SourceAccountID, acct.ID
			t := banking.BankTransaction{
				ID: id, BusinessID: businessID, Source: it.Source, SourceTransactionID: it.SourceTransactionID,
				SourceAccountID: &sourceAccountID, ExternalAccountID: &accountID, LedgerAccountID: acct.LedgerAccountID,
				AccountName: it.AccountName, Date: it.Date.UTC(), Direction: it.Direction, Amount: it.Amount,
				CounterpartyName: it.CounterpartyName, Description: it.Description, ReferenceNumber: it.ReferenceNumber,
				Memo: it.Memo, Metadata: it.Metadata, TransactionType: it.TransactionType, Status: banking.StatusReadyForInput, ImportedAt: now,
				UpdatedAt: now, Version: 1, Tags: make([]tags.Tag, 0, len(it.Tags)),
			}
			if t.AccountName == nil {
				t.AccountName = acct.AccountName
			}
			for _, kv := range it.Tags {
				t.Tags = append(t.Tags, tags.NewTag(businessID, id, kv, now))
			}
			txns[i] = t
		}
		var err error
		out, err = b.storeNew(ctx, businessID, txns)
		return err
	})
	return out, err
}

// externalAccount finds or creates the external account of the item's
// (source, source_account_id). An advisory lock on the pair keeps two
// concurrent imports from both creating it.
func (b *Banking) externalAccount(ctx context.Context, businessID uuid.UUID, it banking.ImportItem, now time.Time) (ExternalAccount, error) {
	key := "external_accounts:" + businessID.String() + ":" + string(it.Source) + ":" + it.SourceAccountID
	if err := b.store.LockKey(ctx, key); err != nil {
		return ExternalAccount{}, err
	}
	a, ok, err := b.store.FindExternalAccount(ctx, businessID, it.Source, it.SourceAccountID)
	if err != nil {
		return ExternalAccount{}, fmt.Errorf("find external account: %w", err)
	}
	if ok {
		return a, nil
	}
	name := it.SourceAccountID
	if it.AccountName != nil {
		name = *it.AccountName
	}
	ledgerAccount, err := b.ledger.CreateBankLedgerAccount(ctx, businessID, BankLedgerAccount{Kind: Depository, Name: name})
	if err != nil {
		return ExternalAccount{}, fmt.Errorf("create ledger account of external account: %w", err)
	}
	a = ExternalAccount{
		ID: newID(), BusinessID: businessID, Source: it.Source, SourceAccountID: it.SourceAccountID,
		AccountName: it.AccountName, LedgerAccountID: ledgerAccount.ID, CreatedAt: now,
	}
	if err := b.store.InsertExternalAccount(ctx, a); err != nil {
		return ExternalAccount{}, fmt.Errorf("insert external account: %w", err)
	}
	return a, nil
}
