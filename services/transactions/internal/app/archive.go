package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// ArchiveTransaction is DELETE /bank-transactions/{id}: in one unit of work
// the transaction's live journal entry is reversed (append-only: the
// reversal is a new entry), a matched deposit's payment is freed (the
// deposit comes back uncategorized), the transaction is marked archived
// (hidden from GET /bank-transactions unless include_archived=true, still
// found by id) and its snapshot published. Its categorization is kept for
// RestoreTransaction. Archiving an archived transaction changes nothing. A
// bank feed's transaction (PROVIDER_1..3) is the 409
// BankTransactionNotArchivable.
func (b *Banking) ArchiveTransaction(ctx context.Context, businessID, id uuid.UUID) (banking.BankTransaction, error) {
	var out banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		t, err := b.liveTransaction(ctx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		if t.Archived() {
			out = t
			return nil
		}
		if err := t.CheckArchivable(); err != nil {
			return err
		}
		live, ok, err := b.ledger.LiveEntryForSource(ctx, businessID, SourceBankTransaction, t.ID.String())
		if err != nil {
			return fmt.Errorf("live entry of %s: %w", t.ID, err)
		}
		if ok {
			if _, _, err := b.ledger.Repost(ctx, businessID, &live, ReverseOptions{Agent: domain.AgentAPI}, nil, nil); err != nil {
				return fmt.Errorf("reverse entry %s of %s: %w", live.ID, t.ID, err)
			}
		}
		if t.Match != nil {
			if err := b.releaseMatch(ctx, &t); err != nil {
				return err
			}
			t.Status, t.Method = banking.StatusReadyForInput, nil
		}
		t.Version++
		t.Archive(b.clock())
		if err := b.store.UpdateBankTransaction(ctx, t); err != nil {
			return fmt.Errorf("update bank transaction %s: %w", t.ID, err)
		}
		out = t
		return b.publishTransactions(ctx, t)
	})
	return out, err
}

// RestoreTransaction is POST /bank-transactions/{id}/restore: the archived
// transaction is live again and its entry posted again, in one unit of
// work: its categorization re-checked and posted as a categorize call would
// (same method), or the uncategorized entry when it has none. A
// categorization that no longer fits (its account archived or deleted
// since) leaves the transaction uncategorized instead, so that restoring
// always brings its money back into the books. Restoring a live
// transaction changes nothing.
func (b *Banking) RestoreTransaction(ctx context.Context, businessID, id uuid.UUID) (banking.BankTransaction, error) {
	var out banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		t, err := b.liveTransaction(ctx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		if !t.Archived() {
			out = t
			return nil
		}
		t.Restore(b.clock())
		if t.Category != nil {
			restored, err := b.restoreCategorized(ctx, t)
			if err == nil {
				out = restored
				return nil
			}
			if ae := apperr.From(err); ae.Status() >= 500 {
				return err
			}
			b.log.InfoContext(ctx, "the categorization of a restored transaction no longer fits: restored uncategorized",
				"transaction_id", t.ID, "error", err)
		}
		t.Status, t.Method, t.Category, t.TaxCode = banking.StatusReadyForInput, nil, nil, nil
		out, _, err = b.uncategorize(ctx, t, true)
		return err
	})
	return out, err
}

// restoreCategorized posts the stored categorization of t (restored, not
// saved yet) again, in a savepoint so that a categorization refused leaves
// nothing behind.
func (b *Banking) restoreCategorized(ctx context.Context, t banking.BankTransaction) (banking.BankTransaction, error) {
	var out banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		target, err := b.target(ctx, t)
		if err != nil {
			return err
		}
		c, err := t.Category.Request().Validate(target)
		if err != nil {
			return err
		}
		method := banking.MethodAPI
		if t.Method != nil {
			method = *t.Method
		}
		out, err = b.apply(ctx, t, c, method, domain.AgentAPI)
		return err
	})
	return out, err
}
