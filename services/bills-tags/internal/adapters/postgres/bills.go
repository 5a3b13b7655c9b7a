package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

type billRow struct {
	bun.BaseModel `bun:"table:bills,alias:b"`

	BusinessID           uuid.UUID       `bun:"business_id,pk,type:uuid"`
	ID                   uuid.UUID       `bun:"id,pk,type:uuid"`
	ExternalID           *string         `bun:"external_id"`
	BillNumber           *string         `bun:"bill_number"`
	VendorID             uuid.UUID       `bun:"vendor_id,type:uuid"`
	Status               string          `bun:"status"`
	ReceivedAt           time.Time       `bun:"received_at"`
	DueAt                *time.Time      `bun:"due_at"`
	DueSort              time.Time       `bun:"due_sort"`
	PaidAt               *time.Time      `bun:"paid_at"`
	VoidedAt             *time.Time      `bun:"voided_at"`
	Memo                 *string         `bun:"memo"`
	ReferenceNumber      *string         `bun:"reference_number"`
	Metadata             json.RawMessage `bun:"metadata,type:jsonb,nullzero"`
	Tags                 []tags.Tag      `bun:"tags,type:jsonb"`
	Lines                []bill.Line     `bun:"lines,type:jsonb"`
	AdditionalSalesTaxes []bill.SalesTax `bun:"additional_sales_taxes,type:jsonb"`
	Subtotal             int64           `bun:"subtotal"`
	Discounts            int64           `bun:"discounts"`
	LineTaxes            int64           `bun:"line_taxes"`
	AdditionalTaxes      int64           `bun:"additional_taxes"`
	TotalAmount          int64           `bun:"total_amount"`
	SettledAmount        int64           `bun:"settled_amount"`
	OutstandingBalance   int64           `bun:"outstanding_balance"`
	Version              int64           `bun:"version"`
	ImportedAt           time.Time       `bun:"imported_at"`
	UpdatedAt            time.Time       `bun:"updated_at"`

	// PaymentsJSON is the bill's payment allocations, read with it
	// (withPayments).
	PaymentsJSON json.RawMessage `bun:"payments_json,scanonly"`
}

// withPayments makes q (a select of billRow) read each bill's payment
// allocations in the same statement (a correlated subquery, evaluated for
// the rows returned only).
func withPayments(q *bun.SelectQuery) *bun.SelectQuery {
	return q.ColumnExpr("b.*").
		ColumnExpr(`(SELECT coalesce(json_agg(json_build_object('id', a.id, 'payment_id', a.payment_id, 'amount', a.amount,
				'tags', a.tags) ORDER BY p.paid_at, p.id), '[]')
			FROM bill_payment_allocations a JOIN bill_payments p ON p.business_id = a.business_id AND p.id = a.payment_id
			WHERE a.business_id = b.business_id AND a.bill_id = b.id) AS payments_json`)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func toBillRow(b bill.Bill) billRow {
	r := billRow{
		BusinessID: b.BusinessID, ID: b.ID, ExternalID: b.ExternalID, BillNumber: b.BillNumber, Status: string(b.Status),
		ReceivedAt: b.ReceivedAt, DueAt: b.DueAt, DueSort: b.Due(), PaidAt: b.PaidAt, VoidedAt: b.VoidedAt, Memo: b.Memo,
		ReferenceNumber: b.ReferenceNumber, Metadata: b.Metadata, Tags: nonNil(b.Tags), Lines: nonNil(b.Lines),
		AdditionalSalesTaxes: nonNil(b.AdditionalSalesTaxes), Subtotal: int64(b.Totals.Subtotal),
		Discounts: int64(b.Totals.Discounts), LineTaxes: int64(b.Totals.LineTaxes), AdditionalTaxes: int64(b.Totals.AdditionalTaxes),
		TotalAmount: int64(b.Totals.Total), SettledAmount: int64(b.Settled), OutstandingBalance: int64(b.Outstanding),
		Version: b.Version, ImportedAt: b.ImportedAt, UpdatedAt: b.UpdatedAt,
	}
	if b.VendorID != nil {
		r.VendorID = *b.VendorID
	}
	return r
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (r billRow) bill() (bill.Bill, error) {
	vid := r.VendorID
	b := bill.Bill{
		ID: r.ID, BusinessID: r.BusinessID, ExternalID: r.ExternalID, BillNumber: r.BillNumber, VendorID: &vid,
		Status: bill.Status(r.Status), ReceivedAt: r.ReceivedAt.UTC(), DueAt: utc(r.DueAt), PaidAt: utc(r.PaidAt),
		VoidedAt: utc(r.VoidedAt), Memo: r.Memo, ReferenceNumber: r.ReferenceNumber, Metadata: r.Metadata,
		Tags: make([]tags.Tag, len(r.Tags)), Lines: nonNil(r.Lines), AdditionalSalesTaxes: nonNil(r.AdditionalSalesTaxes),
		Totals: bill.Totals{Subtotal: money.Cents(r.Subtotal), Discounts: money.Cents(r.Discounts), LineTaxes: money.Cents(r.LineTaxes),
			AdditionalTaxes: money.Cents(r.AdditionalTaxes), SalesTaxesTotal: money.Cents(r.LineTaxes + r.AdditionalTaxes),
			Total: money.Cents(r.TotalAmount)},
		Settled: money.Cents(r.SettledAmount), Outstanding: money.Cents(r.OutstandingBalance), Version: r.Version,
		ImportedAt: r.ImportedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	for i, t := range r.Tags {
		t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
		b.Tags[i] = t
	}
	b.Payments = []bill.BillPaid{}
	if len(r.PaymentsJSON) > 0 {
		if err := json.Unmarshal(r.PaymentsJSON, &b.Payments); err != nil {
			return bill.Bill{}, fmt.Errorf("payments of bill %s: %w", r.ID, err)
		}
		for i := range b.Payments {
			for j, t := range b.Payments[i].Tags {
				t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
				b.Payments[i].Tags[j] = t
			}
		}
	}
	return b, nil
}

// InsertBill inserts b unless the business has a bill with its external
// id (inserted false).
func (s *Store) InsertBill(ctx context.Context, b bill.Bill) (bool, error) {
	db := s.conn(ctx)
	r := toBillRow(b)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert bill", err)
	}
	n, err := res.RowsAffected()
	return n == 1, wrap("insert bill", err)
}

func (s *Store) findBill(ctx context.Context, q *bun.SelectQuery) (bill.Bill, bool, error) {
	var r billRow
	err := withPayments(q.Model(&r)).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return bill.Bill{}, false, nil
	}
	if err != nil {
		return bill.Bill{}, false, wrap("find bill", err)
	}
	b, err := r.bill()
	return b, err == nil, err
}

// FindBill reads the business's bill id; forUpdate locks it.
func (s *Store) FindBill(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (bill.Bill, bool, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Where("b.business_id = ? AND b.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	return s.findBill(ctx, q)
}

// FindBillByExternalID reads the business's bill with that external id;
// forUpdate locks it.
func (s *Store) FindBillByExternalID(ctx context.Context, businessID uuid.UUID, externalID string, forUpdate bool) (bill.Bill, bool, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Where("b.business_id = ? AND b.external_id = ?", businessID, externalID)
	if forUpdate {
		q = q.For("UPDATE")
	}
	return s.findBill(ctx, q)
}

// UpdateBill writes every mutable column of b.
func (s *Store) UpdateBill(ctx context.Context, b bill.Bill) error {
	db := s.conn(ctx)
	r := toBillRow(b)
	_, err := db.NewUpdate().Model(&r).ExcludeColumn("business_id", "id", "external_id", "imported_at").WherePK().Exec(ctx)
	return wrap("update bill", err)
}

// LockVendorBills locks and reads the business's bills of vendor id.
func (s *Store) LockVendorBills(ctx context.Context, businessID, vendorID uuid.UUID) ([]bill.Bill, error) {
	db := s.conn(ctx)
	var rows []billRow
	if err := withPayments(db.NewSelect().Model(&rows)).Where("b.business_id = ? AND b.vendor_id = ?", businessID, vendorID).
		OrderExpr("b.id").For("UPDATE").Scan(ctx); err != nil {
		return nil, wrap("lock vendor bills", err)
	}
	out := make([]bill.Bill, len(rows))
	for i, r := range rows {
		b, err := r.bill()
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// FindBills is one keyset page of the business's bills matching f.
func (s *Store) FindBills(ctx context.Context, businessID uuid.UUID, f bill.Filter, p page.Params) ([]bill.Bill, page.Meta, error) {
	db := s.conn(ctx)
	q := withPayments(db.NewSelect().Model((*billRow)(nil))).Where("b.business_id = ?", businessID)
	if len(f.Statuses) > 0 {
		st := make([]string, len(f.Statuses))
		for i, s := range f.Statuses {
			st[i] = string(s)
		}
		q = q.Where("b.status IN (?)", bun.In(st))
	}
	if f.VendorID != nil {
		q = q.Where("b.vendor_id = ?", *f.VendorID)
	}
	if f.VendorExternalID != "" {
		q = q.Where("b.vendor_id IN (SELECT v.id FROM vendors AS v WHERE v.business_id = ? AND v.external_id = ?)", businessID, f.VendorExternalID)
	}
	if f.ReceivedStart != nil {
		q = q.Where("b.received_at >= ?", *f.ReceivedStart)
	}
	if f.ReceivedEnd != nil {
		q = q.Where("b.received_at <= ?", *f.ReceivedEnd)
	}
	if f.DueStart != nil {
		q = q.Where("b.due_sort >= ?", *f.DueStart)
	}
	if f.DueEnd != nil {
		q = q.Where("b.due_sort <= ?", *f.DueEnd)
	}
	if f.ReferenceNumber != "" {
		q = q.Where("b.reference_number = ?", f.ReferenceNumber)
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "b.id", func(r billRow) (any, uuid.UUID) {
		switch p.SortBy {
		case "due_at":
			return r.DueSort, r.ID
		case "total_amount":
			return r.TotalAmount, r.ID
		}
		return r.ReceivedAt, r.ID
	})
	if err != nil {
		return nil, page.Meta{}, wrap("list bills", err)
	}
	out := make([]bill.Bill, len(rows))
	for i, r := range rows {
		b, err := r.bill()
		if err != nil {
			return nil, page.Meta{}, err
		}
		out[i] = b
	}
	return out, meta, nil
}
