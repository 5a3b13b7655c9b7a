package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// documentRow is a row of bank_transaction_documents.
type documentRow struct {
	bun.BaseModel `bun:"table:bank_transaction_documents,alias:btd"`

	BusinessID    uuid.UUID  `bun:"business_id,pk,type:uuid"`
	ID            uuid.UUID  `bun:"id,pk,type:uuid"`
	TransactionID uuid.UUID  `bun:"transaction_id,type:uuid"`
	FileName      string     `bun:"file_name"`
	FileType      string     `bun:"file_type"`
	DocumentType  *string    `bun:"document_type"`
	StorageKey    string     `bun:"storage_key"`
	SizeBytes     int64      `bun:"size_bytes"`
	CreatedAt     time.Time  `bun:"created_at"`
	ArchivedAt    *time.Time `bun:"archived_at"`
}

// InsertDocuments implements app.BankStore.
func (s *BankStore) InsertDocuments(ctx context.Context, db bun.IDB, docs []app.Document) error {
	if len(docs) == 0 {
		return nil
	}
	rows := make([]documentRow, len(docs))
	for i, d := range docs {
		rows[i] = documentRow{
			BusinessID: d.BusinessID, ID: d.ID, TransactionID: d.TransactionID, FileName: d.FileName,
			FileType: d.FileType, DocumentType: d.DocumentType, StorageKey: d.StorageKey, SizeBytes: d.SizeBytes,
			CreatedAt: d.CreatedAt, ArchivedAt: d.ArchivedAt,
		}
	}
	_, err := db.NewInsert().Model(&rows).Exec(ctx)
	return wrap("insert documents", err)
}

// LiveDocuments implements app.BankStore.
func (s *BankStore) LiveDocuments(ctx context.Context, db bun.IDB, businessID, transactionID uuid.UUID) ([]app.Document, error) {
	var rows []documentRow
	err := db.NewSelect().Model(&rows).
		Where("btd.business_id = ? AND btd.transaction_id = ? AND btd.archived_at IS NULL", businessID, transactionID).
		OrderExpr("btd.created_at, btd.id").Scan(ctx)
	if err != nil {
		return nil, wrap("find documents", err)
	}
	out := make([]app.Document, len(rows))
	for i, r := range rows {
		out[i] = app.Document{
			ID: r.ID, BusinessID: r.BusinessID, TransactionID: r.TransactionID, FileName: r.FileName,
			FileType: r.FileType, DocumentType: r.DocumentType, StorageKey: r.StorageKey, SizeBytes: r.SizeBytes,
			CreatedAt: r.CreatedAt.UTC(), ArchivedAt: r.ArchivedAt,
		}
	}
	return out, nil
}

// ArchiveDocuments implements app.BankStore.
func (s *BankStore) ArchiveDocuments(ctx context.Context, db bun.IDB, businessID, transactionID uuid.UUID, ids []uuid.UUID, at time.Time) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res, err := db.NewUpdate().Model((*documentRow)(nil)).Set("archived_at = ?", at).
		Where("business_id = ? AND transaction_id = ? AND id IN (?) AND archived_at IS NULL", businessID, transactionID, bun.In(ids)).
		Exec(ctx)
	if err != nil {
		return 0, wrap("archive documents", err)
	}
	n, err := res.RowsAffected()
	return int(n), wrap("archive documents", err)
}

// SaveRecordedTransaction implements app.BankStore.
func (s *BankStore) SaveRecordedTransaction(ctx context.Context, db bun.IDB, t banking.BankTransaction) error {
	r := toBankTxnRow(t)
	_, err := db.NewUpdate().Model(&r).
		Column("amount", "direction", "date", "counterparty_name", "counterparty_key", "description",
			"reference_number", "memo", "metadata", "customer_id", "customer_external_id", "vendor_id",
			"vendor_external_id", "updated_at", "version").
		WherePK().Exec(ctx)
	return wrap("save recorded transaction", err)
}

// ReplaceTags implements app.BankStore.
func (s *BankStore) ReplaceTags(ctx context.Context, db bun.IDB, businessID, transactionID uuid.UUID, ts []tags.Tag) error {
	if _, err := db.NewDelete().Model((*bankTxnTagRow)(nil)).
		Where("business_id = ? AND transaction_id = ?", businessID, transactionID).Exec(ctx); err != nil {
		return wrap("delete tags", err)
	}
	return s.InsertTags(ctx, db, businessID, transactionID, ts)
}
