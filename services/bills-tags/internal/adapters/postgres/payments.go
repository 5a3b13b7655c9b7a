package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// paymentRow is a row of bill_payments.
type paymentRow struct {
	bun.BaseModel `bun:"table:bill_payments,alias:p"`

	BusinessID      uuid.UUID       `bun:"business_id,pk,type:uuid"`
	ID              uuid.UUID       `bun:"id,pk,type:uuid"`
	ExternalID      *string         `bun:"external_id"`
	PaidAt          time.Time       `bun:"paid_at"`
	Method          string          `bun:"method"`
	Amount          int64           `bun:"amount"`
	Processor       *string         `bun:"processor"`
	ClearingAccount bill.AccountRef `bun:"clearing_account,type:jsonb"`
	Memo            *string         `bun:"memo"`
	ReferenceNumber *string         `bun:"reference_number"`
	Metadata        json.RawMessage `bun:"metadata,type:jsonb,nullzero"`
	Tags            []tags.Tag      `bun:"tags,type:jsonb"`
	Version         int64           `bun:"version"`
	ImportedAt      time.Time       `bun:"imported_at"`
	UpdatedAt       time.Time       `bun:"updated_at"`
}

// paymentAllocationRow is a row of bill_payment_allocations.
type paymentAllocationRow struct {
	bun.BaseModel `bun:"table:bill_payment_allocations,alias:a"`

	BusinessID      uuid.UUID       `bun:"business_id,pk,type:uuid"`
	PaymentID       uuid.UUID       `bun:"payment_id,pk,type:uuid"`
	BillID          uuid.UUID       `bun:"bill_id,pk,type:uuid"`
	ID              uuid.UUID       `bun:"id,type:uuid"`
	Position        int             `bun:"position"`
	Amount          int64           `bun:"amount"`
	Memo            *string         `bun:"memo"`
	ReferenceNumber *string         `bun:"reference_number"`
	Metadata        json.RawMessage `bun:"metadata,type:jsonb,nullzero"`
	Tags            []tags.Tag      `bun:"tags,type:jsonb"`
	// BillExternalID is read with the row (the bill's).
	BillExternalID *string `bun:"bill_external_id,scanonly"`
}

func toPaymentRow(p bill.Payment) paymentRow {
	return paymentRow{
		BusinessID: p.BusinessID, ID: p.ID, ExternalID: p.ExternalID, PaidAt: p.PaidAt, Method: string(p.Method),
		Amount: int64(p.Amount), Processor: p.Processor, ClearingAccount: p.Clearing(), Memo: p.Memo,
		ReferenceNumber: p.ReferenceNumber, Metadata: p.Metadata, Tags: nonNil(p.Tags), Version: p.Version,
		ImportedAt: p.ImportedAt, UpdatedAt: p.UpdatedAt,
	}
}

func utcTags(ts []tags.Tag) []tags.Tag {
	out := make([]tags.Tag, len(ts))
	for i, t := range ts {
		t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
		out[i] = t
	}
	return out
}

// InsertPayment inserts p and its allocations unless the business has a
// payment with its external id (inserted false).
func (s *Store) InsertPayment(ctx context.Context, p bill.Payment) (bool, error) {
	db := s.conn(ctx)
	r := toPaymentRow(p)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert bill payment", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, wrap("insert bill payment", err)
	}
	rows := paymentAllocationRows(p)
	_, err = db.NewInsert().Model(&rows).Exec(ctx)
	return true, wrap("insert bill payment allocations", err)
}

// paymentAllocationRows are p's allocations as rows, in order.
func paymentAllocationRows(p bill.Payment) []paymentAllocationRow {
	rows := make([]paymentAllocationRow, len(p.Allocations))
	for i, a := range p.Allocations {
		rows[i] = paymentAllocationRow{BusinessID: p.BusinessID, PaymentID: p.ID, BillID: a.BillID, ID: a.ID, Position: i,
			Amount: int64(a.Amount), Memo: a.Memo, ReferenceNumber: a.ReferenceNumber, Metadata: a.Metadata, Tags: nonNil(a.Tags)}
	}
	return rows
}

// UpdatePayment writes every mutable column of p and replaces its
// allocations.
func (s *Store) UpdatePayment(ctx context.Context, p bill.Payment) error {
	db := s.conn(ctx)
	r := toPaymentRow(p)
	if _, err := db.NewUpdate().Model(&r).ExcludeColumn("business_id", "id", "external_id", "imported_at").WherePK().Exec(ctx); err != nil {
		return wrap("update bill payment", err)
	}
	rows := paymentAllocationRows(p)
	return wrap("replace bill payment allocations", pgdb.ReplaceChildren(ctx, db, (*paymentAllocationRow)(nil), "payment_id", p.BusinessID, p.ID, &rows))
}

// FindPayment reads the business's payment id with its allocations;
// forUpdate locks it.
func (s *Store) FindPayment(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (bill.Payment, bool, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Where("p.business_id = ? AND p.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	return s.findPayment(ctx, db, q)
}

// FindPaymentByExternalID reads the business's payment with that
// external id.
func (s *Store) FindPaymentByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (bill.Payment, bool, error) {
	db := s.conn(ctx)
	return s.findPayment(ctx, db, db.NewSelect().Where("p.business_id = ? AND p.external_id = ?", businessID, externalID))
}

// LockPayments reads the business's payments among ids with their
// allocations, locked, in id order.
func (s *Store) LockPayments(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) ([]bill.Payment, error) {
	db := s.conn(ctx)
	var rows []paymentRow
	if err := db.NewSelect().Model(&rows).Where("p.business_id = ? AND p.id IN (?)", businessID, bun.In(ids)).
		OrderExpr("p.id").For("UPDATE").Scan(ctx); err != nil {
		return nil, wrap("lock bill payments", err)
	}
	return s.withPaymentAllocations(ctx, db, businessID, rows)
}

func (s *Store) findPayment(ctx context.Context, db bun.IDB, q *bun.SelectQuery) (bill.Payment, bool, error) {
	var rows []paymentRow
	if err := q.Model(&rows).Scan(ctx); err != nil {
		return bill.Payment{}, false, wrap("find bill payment", err)
	}
	if len(rows) == 0 {
		return bill.Payment{}, false, nil
	}
	out, err := s.withPaymentAllocations(ctx, db, rows[0].BusinessID, rows)
	if err != nil {
		return bill.Payment{}, false, err
	}
	return out[0], true, nil
}

// withPaymentAllocations converts rows, loading their allocations (with
// each bill's external id) in one query.
func (s *Store) withPaymentAllocations(ctx context.Context, db bun.IDB, businessID uuid.UUID, rows []paymentRow) ([]bill.Payment, error) {
	out := make([]bill.Payment, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(rows))
	at := map[uuid.UUID]int{}
	for i, r := range rows {
		ids[i], at[r.ID] = r.ID, i
		out[i] = bill.Payment{
			ID: r.ID, BusinessID: r.BusinessID, ExternalID: r.ExternalID, PaidAt: r.PaidAt.UTC(), Method: bill.Method(r.Method),
			Amount: money.Cents(r.Amount), Processor: r.Processor, ClearingAccount: r.ClearingAccount, Memo: r.Memo,
			ReferenceNumber: r.ReferenceNumber, Metadata: r.Metadata, Tags: utcTags(r.Tags), Version: r.Version,
			ImportedAt: r.ImportedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Allocations: []bill.PaymentAllocation{},
		}
	}
	var allocs []paymentAllocationRow
	if err := db.NewSelect().Model(&allocs).ColumnExpr("a.*").ColumnExpr("b.external_id AS bill_external_id").
		Join("JOIN bills AS b ON b.business_id = a.business_id AND b.id = a.bill_id").
		Where("a.business_id = ? AND a.payment_id IN (?)", businessID, bun.In(ids)).
		OrderExpr("a.payment_id, a.position").Scan(ctx); err != nil {
		return nil, wrap("find bill payment allocations", err)
	}
	for _, a := range allocs {
		k := at[a.PaymentID]
		out[k].Allocations = append(out[k].Allocations, bill.PaymentAllocation{ID: a.ID, BillID: a.BillID,
			BillExternalID: a.BillExternalID, Amount: money.Cents(a.Amount), Memo: a.Memo, ReferenceNumber: a.ReferenceNumber,
			Metadata: a.Metadata, Tags: utcTags(a.Tags)})
	}
	return out, nil
}

// DeletePayment deletes the payment (its allocations cascade).
func (s *Store) DeletePayment(ctx context.Context, businessID, id uuid.UUID) error {
	db := s.conn(ctx)
	_, err := db.NewDelete().Model((*paymentRow)(nil)).Where("business_id = ? AND id = ?", businessID, id).Exec(ctx)
	return wrap("delete bill payment", err)
}

// BillIDsByExternalID maps the business's bills' external ids among
// externalIDs to their ids.
func (s *Store) BillIDsByExternalID(ctx context.Context, businessID uuid.UUID, externalIDs []string) (map[string]uuid.UUID, error) {
	return pgdb.IDsByExternalID(ctx, s.conn(ctx), "bills", businessID, externalIDs)
}

// PaymentIDsWithTags are the ids of the business's payments carrying a
// tag among tagIDs, sorted.
func (s *Store) PaymentIDsWithTags(ctx context.Context, businessID uuid.UUID, tagIDs []uuid.UUID) ([]uuid.UUID, error) {
	db := s.conn(ctx)
	strs := make([]string, len(tagIDs))
	for i, id := range tagIDs {
		strs[i] = id.String()
	}
	var ids []uuid.UUID
	if err := db.NewRaw(`SELECT p.id FROM bill_payments p WHERE p.business_id = ?
		AND EXISTS (SELECT 1 FROM jsonb_array_elements(p.tags) t WHERE t->>'id' = ANY(?::text[])) ORDER BY p.id`,
		businessID, pgdialect.Array(strs)).Scan(ctx, &ids); err != nil {
		return nil, wrap("find tagged bill payments", err)
	}
	return ids, nil
}
