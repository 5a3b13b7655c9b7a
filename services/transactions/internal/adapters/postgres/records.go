package postgres

import (
	"context"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// SaveRecordedTransaction implements app.BankStore.
func (s *BankStore) SaveRecordedTransaction(ctx context.Context, t banking.BankTransaction) error {
	db := s.conn(ctx)
	r := toBankTxnRow(t)
	_, err := db.NewUpdate().Model(&r).
		Column("amount", "direction", "date", "counterparty_name", "counterparty_key", "description",
			"reference_number", "memo", "metadata", "customer_id", "customer_external_id", "vendor_id",
			"vendor_external_id", "updated_at", "version").
		WherePK().Exec(ctx)
	if err != nil {
		return wrap("save recorded transaction", err)
	}
	return addCounterparties(ctx, db, t)
}

// ReplaceTags implements app.BankStore.
func (s *BankStore) ReplaceTags(ctx context.Context, businessID, transactionID uuid.UUID, ts []tags.Tag) error {
	db := s.conn(ctx)
	if _, err := db.NewDelete().Model((*bankTxnTagRow)(nil)).
		Where("business_id = ? AND transaction_id = ?", businessID, transactionID).Exec(ctx); err != nil {
		return wrap("delete tags", err)
	}
	return s.InsertTags(ctx, businessID, transactionID, ts)
}
