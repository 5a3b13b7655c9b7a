package postgres

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/services/transactions/internal/app"
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
func (s *BankStore) InsertDocuments(ctx context.Context, docs []app.Document) error {
	db := s.conn(ctx)
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
func (s *BankStore) LiveDocuments(ctx context.Context, businessID, transactionID uuid.UUID) ([]app.Document, error) {
	db := s.conn(ctx)
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
func (s *BankStore) ArchiveDocuments(ctx context.Context, businessID, transactionID uuid.UUID, ids []uuid.UUID, at time.Time) (int, error) {
	db := s.conn(ctx)
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

// DocumentExists implements app.BankStore.
func (s *BankStore) DocumentExists(ctx context.Context, businessID, transactionID, id uuid.UUID) (bool, error) {
	db := s.conn(ctx)
	var exists int
	if err := db.NewRaw("SELECT count(*) FROM bank_transaction_documents WHERE business_id = ? AND transaction_id = ? AND id = ?",
		businessID, transactionID, id).Scan(ctx, &exists); err != nil {
		return false, err
	}
	return exists > 0, nil
}
