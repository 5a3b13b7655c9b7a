package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// TransactionMetadata is GET /bank-transactions/{id}/metadata: the
// transaction, whose memo, reference number, metadata and customer and
// vendor links the answer shows.
func (b *Banking) TransactionMetadata(ctx context.Context, businessID, id uuid.UUID) (banking.BankTransaction, error) {
	return b.liveTransaction(ctx, businessID, id, NoLock)
}

// UpdateMetadata is PATCH (or PUT) /bank-transactions/{id}/metadata: what
// p sets is saved, the version bumped and the snapshot published, in one
// unit of work. None of it is accounting, so the journal is left as it
// is. A patch that changes nothing writes nothing. Archived transactions
// take it too.
func (b *Banking) UpdateMetadata(ctx context.Context, businessID, id uuid.UUID, p banking.MetadataPatch) (banking.BankTransaction, error) {
	var out banking.BankTransaction
	err := b.uow.Do(ctx, func(ctx context.Context) error {
		t, err := b.liveTransaction(ctx, businessID, id, LockUpdate)
		if err != nil {
			return err
		}
		if !t.ApplyMetadata(p) {
			out = t
			return nil
		}
		t.Version++
		t.UpdatedAt = b.clock()
		if err := b.store.SaveRecordedTransaction(ctx, t); err != nil {
			return fmt.Errorf("save metadata of %s: %w", t.ID, err)
		}
		out = t
		return b.publishTransactions(ctx, t)
	})
	return out, err
}
