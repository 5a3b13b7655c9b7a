package postgres

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

var _ app.PaymentStore = (*Store)(nil)

// paymentRow is a row of invoice_payments.
type paymentRow struct {
	bun.BaseModel `bun:"table:invoice_payments,alias:p"`

	BusinessID      uuid.UUID  `bun:"business_id,pk,type:uuid"`
	ID              uuid.UUID  `bun:"id,pk,type:uuid"`
	ExternalID      *string    `bun:"external_id"`
	PaidAt          time.Time  `bun:"paid_at"`
	Method          string     `bun:"method"`
	Amount          int64      `bun:"amount"`
	Fee             int64      `bun:"fee"`
	Processor       *string    `bun:"processor"`
	Memo            *string    `bun:"memo"`
	ReferenceNumber *string    `bun:"reference_number"`
	Tags            []tags.Tag `bun:"tags,type:jsonb"`
	Version         int        `bun:"version"`
	CreatedAt       time.Time  `bun:"created_at"`
	UpdatedAt       time.Time  `bun:"updated_at"`
}

// allocationRow is a row of payment_allocations.
type allocationRow struct {
	bun.BaseModel `bun:"table:payment_allocations,alias:a"`

	BusinessID uuid.UUID `bun:"business_id,pk,type:uuid"`
	PaymentID  uuid.UUID `bun:"payment_id,pk,type:uuid"`
	InvoiceID  uuid.UUID `bun:"invoice_id,pk,type:uuid"`
	Amount     int64     `bun:"amount"`
}

// InsertPayment implements app.PaymentStore.
func (s *Store) InsertPayment(ctx context.Context, p invoice.Payment) (bool, error) {
	db := s.conn(ctx)
	r := paymentRow{
		BusinessID: p.BusinessID, ID: p.ID, ExternalID: p.ExternalID, PaidAt: p.PaidAt, Method: string(p.Method),
		Amount: int64(p.Amount), Fee: int64(p.Fee), Processor: p.Processor, Memo: p.Memo, ReferenceNumber: p.ReferenceNumber,
		Tags: nonNil(p.Tags), Version: p.Version, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert payment", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, wrap("insert payment", err)
	}
	rows := make([]allocationRow, len(p.Allocations))
	for i, a := range p.Allocations {
		rows[i] = allocationRow{BusinessID: p.BusinessID, PaymentID: p.ID, InvoiceID: a.InvoiceID, Amount: int64(a.Amount)}
	}
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return false, wrap("insert payment allocations", err)
	}
	return true, nil
}

// FindPayments implements app.PaymentStore, in the order of ids.
func (s *Store) FindPayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID, forUpdate bool) ([]invoice.Payment, error) {
	db := s.conn(ctx)
	var rows []paymentRow
	q := db.NewSelect().Model(&rows).Where("p.business_id = ? AND p.id IN (?)", businessID, bun.In(ids)).OrderExpr("p.id")
	if forUpdate {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, wrap("find payments", err)
	}
	out, err := s.withAllocations(ctx, db, businessID, rows)
	if err != nil {
		return nil, err
	}
	pos := make(map[uuid.UUID]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	slices.SortFunc(out, func(a, b invoice.Payment) int { return pos[a.ID] - pos[b.ID] })
	return out, nil
}

// FindPaymentByExternalID implements app.PaymentStore.
func (s *Store) FindPaymentByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (invoice.Payment, bool, error) {
	db := s.conn(ctx)
	var rows []paymentRow
	if err := db.NewSelect().Model(&rows).Where("p.business_id = ? AND p.external_id = ?", businessID, externalID).Scan(ctx); err != nil {
		return invoice.Payment{}, false, wrap("find payment", err)
	}
	out, err := s.withAllocations(ctx, db, businessID, rows)
	if err != nil || len(out) == 0 {
		return invoice.Payment{}, false, err
	}
	return out[0], true, nil
}

// UpdatePayment implements app.PaymentStore.
func (s *Store) UpdatePayment(ctx context.Context, p invoice.Payment) error {
	db := s.conn(ctx)
	ts, err := json.Marshal(nonNil(p.Tags))
	if err != nil {
		return wrap("encode payment tags", err)
	}
	_, err = db.NewUpdate().Model((*paymentRow)(nil)).Set("tags = ?::jsonb, version = ?, updated_at = ?", string(ts), p.Version, p.UpdatedAt).
		Where("business_id = ? AND id = ?", p.BusinessID, p.ID).Exec(ctx)
	return wrap("update payment", err)
}

// withAllocations converts rows, loading their allocations (with each
// invoice's identifiers) in one query.
func (s *Store) withAllocations(ctx context.Context, db bun.IDB, businessID uuid.UUID, rows []paymentRow) ([]invoice.Payment, error) {
	out := make([]invoice.Payment, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(rows))
	at := map[uuid.UUID]int{}
	for i, r := range rows {
		ids[i], at[r.ID] = r.ID, i
		out[i] = invoice.Payment{
			ID: r.ID, BusinessID: r.BusinessID, ExternalID: r.ExternalID, PaidAt: r.PaidAt.UTC(), Method: invoice.Method(r.Method),
			Amount: money.Cents(r.Amount), Fee: money.Cents(r.Fee), Processor: r.Processor, Memo: r.Memo,
			ReferenceNumber: r.ReferenceNumber, Tags: nonNil(r.Tags), Version: r.Version, CreatedAt: r.CreatedAt.UTC(),
			UpdatedAt: r.UpdatedAt.UTC(),
		}
	}
	var allocs []struct {
		PaymentID       uuid.UUID `bun:"payment_id,type:uuid"`
		InvoiceID       uuid.UUID `bun:"invoice_id,type:uuid"`
		Amount          int64     `bun:"amount"`
		ExternalID      *string   `bun:"external_id"`
		InvoiceNumber   *string   `bun:"invoice_number"`
		ReferenceNumber *string   `bun:"reference_number"`
	}
	if err := db.NewRaw(`SELECT a.payment_id, a.invoice_id, a.amount, i.external_id, i.invoice_number, i.reference_number
		FROM payment_allocations a JOIN invoices i ON i.business_id = a.business_id AND i.id = a.invoice_id
		WHERE a.business_id = ? AND a.payment_id IN (?) ORDER BY a.payment_id, a.invoice_id`, businessID, bun.In(ids)).Scan(ctx, &allocs); err != nil {
		return nil, wrap("find payment allocations", err)
	}
	for _, a := range allocs {
		k := at[a.PaymentID]
		out[k].Allocations = append(out[k].Allocations, invoice.PaymentAllocation{InvoiceID: a.InvoiceID, Amount: money.Cents(a.Amount),
			InvoiceExternalID: a.ExternalID, InvoiceNumber: a.InvoiceNumber, InvoiceReferenceNumber: a.ReferenceNumber})
	}
	return out, nil
}

// DeletePayments implements app.PaymentStore (allocations cascade).
func (s *Store) DeletePayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) error {
	db := s.conn(ctx)
	_, err := db.NewDelete().Model((*paymentRow)(nil)).Where("business_id = ? AND id IN (?)", businessID, bun.In(ids)).Exec(ctx)
	return wrap("delete payments", err)
}

// InvoiceIDsByExternalID implements app.PaymentStore.
func (s *Store) InvoiceIDsByExternalID(ctx context.Context, businessID uuid.UUID, externalIDs []string) (map[string]uuid.UUID, error) {
	return pgdb.IDsByExternalID(ctx, s.conn(ctx), "invoices", businessID, externalIDs)
}
