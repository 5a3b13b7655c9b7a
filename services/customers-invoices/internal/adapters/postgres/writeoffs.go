package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

var _ app.WriteOffStore = (*Store)(nil)

// writeOffRow is a row of invoice_write_offs.
type writeOffRow struct {
	bun.BaseModel `bun:"table:invoice_write_offs,alias:w"`

	BusinessID                   uuid.UUID  `bun:"business_id,pk,type:uuid" json:"business_id"`
	ID                           uuid.UUID  `bun:"id,pk,type:uuid" json:"id"`
	InvoiceID                    uuid.UUID  `bun:"invoice_id,type:uuid" json:"invoice_id"`
	ExternalID                   *string    `bun:"external_id" json:"external_id"`
	Amount                       int64      `bun:"amount" json:"amount"`
	Mode                         string     `bun:"write_off_mode" json:"write_off_mode"`
	DestinationAccountID         *uuid.UUID `bun:"destination_account_id,type:uuid" json:"destination_account_id"`
	DestinationAccountStableName *string    `bun:"destination_account_stable_name" json:"destination_account_stable_name"`
	WriteOffAt                   time.Time  `bun:"write_off_at" json:"write_off_at"`
	Memo                         *string    `bun:"memo" json:"memo"`
	ReferenceNumber              *string    `bun:"reference_number" json:"reference_number"`
	Tags                         []tags.Tag `bun:"tags,type:jsonb" json:"tags"`
	VoidedAt                     *time.Time `bun:"voided_at" json:"voided_at"`
	Version                      int        `bun:"version" json:"version"`
	CreatedAt                    time.Time  `bun:"created_at" json:"created_at"`
}

func (r writeOffRow) writeOff() invoice.WriteOff {
	w := invoice.WriteOff{
		ID: r.ID, BusinessID: r.BusinessID, InvoiceID: r.InvoiceID, ExternalID: r.ExternalID, Amount: money.Cents(r.Amount),
		Mode: invoice.WriteOffMode(r.Mode), Destination: invoice.AccountRef{ID: r.DestinationAccountID},
		WriteOffAt: r.WriteOffAt.UTC(), Memo: r.Memo, ReferenceNumber: r.ReferenceNumber, Tags: nonNil(r.Tags),
		VoidedAt: utcPtr(r.VoidedAt), Version: r.Version, CreatedAt: r.CreatedAt.UTC(),
	}
	if r.DestinationAccountStableName != nil {
		w.Destination.StableName = *r.DestinationAccountStableName
	}
	return w
}

// InsertWriteOff implements app.WriteOffStore.
func (s *Store) InsertWriteOff(ctx context.Context, w invoice.WriteOff) (bool, error) {
	db := s.conn(ctx)
	r := writeOffRow{
		BusinessID: w.BusinessID, ID: w.ID, InvoiceID: w.InvoiceID, ExternalID: w.ExternalID, Amount: int64(w.Amount),
		Mode: string(w.Mode), DestinationAccountID: w.Destination.ID, WriteOffAt: w.WriteOffAt, Memo: w.Memo,
		ReferenceNumber: w.ReferenceNumber, Tags: nonNil(w.Tags), Version: w.Version, CreatedAt: w.CreatedAt,
	}
	if w.Destination.StableName != "" {
		n := w.Destination.StableName
		r.DestinationAccountStableName = &n
	}
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert write-off", err)
	}
	n, err := res.RowsAffected()
	return n == 1, wrap("insert write-off", err)
}

func (s *Store) findWriteOff(ctx context.Context, q *bun.SelectQuery) (invoice.WriteOff, bool, error) {
	var r writeOffRow
	err := q.Model(&r).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return invoice.WriteOff{}, false, nil
	}
	if err != nil {
		return invoice.WriteOff{}, false, wrap("find write-off", err)
	}
	return r.writeOff(), true, nil
}

// FindWriteOff implements app.WriteOffStore.
func (s *Store) FindWriteOff(ctx context.Context, businessID, invoiceID, id uuid.UUID) (invoice.WriteOff, bool, error) {
	db := s.conn(ctx)
	return s.findWriteOff(ctx, db.NewSelect().Where("w.business_id = ? AND w.invoice_id = ? AND w.id = ?", businessID, invoiceID, id))
}

// FindWriteOffByExternalID implements app.WriteOffStore.
func (s *Store) FindWriteOffByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (invoice.WriteOff, bool, error) {
	db := s.conn(ctx)
	return s.findWriteOff(ctx, db.NewSelect().Where("w.business_id = ? AND w.external_id = ?", businessID, externalID))
}

// UpdateWriteOff implements app.WriteOffStore.
func (s *Store) UpdateWriteOff(ctx context.Context, w invoice.WriteOff) error {
	db := s.conn(ctx)
	_, err := db.NewUpdate().Model((*writeOffRow)(nil)).Set("voided_at = ?, version = ?", w.VoidedAt, w.Version).
		Where("business_id = ? AND id = ?", w.BusinessID, w.ID).Exec(ctx)
	return wrap("update write-off", err)
}
