package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// creditRow is a row of vendor_credits.
type creditRow struct {
	bun.BaseModel `bun:"table:vendor_credits,alias:c"`

	BusinessID      uuid.UUID         `bun:"business_id,pk,type:uuid"`
	ID              uuid.UUID         `bun:"id,pk,type:uuid"`
	ExternalID      *string           `bun:"external_id"`
	VendorID        uuid.UUID         `bun:"vendor_id,type:uuid"`
	ReceivedAt      time.Time         `bun:"received_at"`
	Lines           []bill.CreditLine `bun:"lines,type:jsonb"`
	TotalAmount     int64             `bun:"total_amount"`
	Unapplied       int64             `bun:"unapplied"`
	Memo            *string           `bun:"memo"`
	ReferenceNumber *string           `bun:"reference_number"`
	Metadata        json.RawMessage   `bun:"metadata,type:jsonb,nullzero"`
	Tags            []tags.Tag        `bun:"tags,type:jsonb"`
	Version         int64             `bun:"version"`
	CreatedAt       time.Time         `bun:"created_at"`
	UpdatedAt       time.Time         `bun:"updated_at"`
	DeletedAt       *time.Time        `bun:"deleted_at"`
}

// creditAllocationRow is a row of vendor_credit_allocations.
type creditAllocationRow struct {
	bun.BaseModel `bun:"table:vendor_credit_allocations,alias:a"`

	BusinessID uuid.UUID `bun:"business_id,pk,type:uuid"`
	CreditID   uuid.UUID `bun:"credit_id,pk,type:uuid"`
	BillID     uuid.UUID `bun:"bill_id,pk,type:uuid"`
	ID         uuid.UUID `bun:"id,type:uuid"`
	Position   int       `bun:"position"`
	Amount     int64     `bun:"amount"`
	// BillExternalID is read with the row (the bill's).
	BillExternalID *string `bun:"bill_external_id,scanonly"`
}

func toCreditRow(c bill.Credit) creditRow {
	lines := make([]bill.CreditLine, len(c.Lines))
	for i, l := range c.Lines {
		l.Tags = nonNil(l.Tags)
		lines[i] = l
	}
	return creditRow{
		BusinessID: c.BusinessID, ID: c.ID, ExternalID: c.ExternalID, VendorID: c.VendorID, ReceivedAt: c.ReceivedAt,
		Lines: lines, TotalAmount: int64(c.Total()), Unapplied: int64(c.Unapplied()), Memo: c.Memo,
		ReferenceNumber: c.ReferenceNumber, Metadata: c.Metadata, Tags: nonNil(c.Tags), Version: c.Version,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

// InsertCredit inserts c and its allocations unless the business has a
// credit with its external id (inserted false).
func (s *Store) InsertCredit(ctx context.Context, c bill.Credit) (bool, error) {
	db := s.conn(ctx)
	r := toCreditRow(c)
	res, err := db.NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert vendor credit", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, wrap("insert vendor credit", err)
	}
	if len(c.Allocations) == 0 {
		return true, nil
	}
	rows := creditAllocationRows(c)
	_, err = db.NewInsert().Model(&rows).Exec(ctx)
	return true, wrap("insert vendor credit allocations", err)
}

// creditAllocationRows are c's allocations as rows, in order.
func creditAllocationRows(c bill.Credit) []creditAllocationRow {
	rows := make([]creditAllocationRow, len(c.Allocations))
	for i, a := range c.Allocations {
		rows[i] = creditAllocationRow{BusinessID: c.BusinessID, CreditID: c.ID, BillID: a.BillID, ID: a.ID, Position: i, Amount: int64(a.Amount)}
	}
	return rows
}

// UpdateCredit writes every mutable column of c and replaces its
// allocations.
func (s *Store) UpdateCredit(ctx context.Context, c bill.Credit) error {
	db := s.conn(ctx)
	r := toCreditRow(c)
	if _, err := db.NewUpdate().Model(&r).ExcludeColumn("business_id", "id", "external_id", "created_at", "deleted_at").
		WherePK().Exec(ctx); err != nil {
		return wrap("update vendor credit", err)
	}
	rows := creditAllocationRows(c)
	return wrap("replace vendor credit allocations", pgdb.ReplaceChildren(ctx, db, (*creditAllocationRow)(nil), "credit_id", c.BusinessID, c.ID, &rows))
}

// FindCredit reads the business's credit id with its allocations;
// forUpdate locks it.
func (s *Store) FindCredit(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (bill.Credit, bool, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Where("c.business_id = ? AND c.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	return s.findCredit(ctx, db, businessID, q)
}

// FindCreditByExternalID reads the business's credit with that external
// id.
func (s *Store) FindCreditByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (bill.Credit, bool, error) {
	db := s.conn(ctx)
	return s.findCredit(ctx, db, businessID, db.NewSelect().Where("c.business_id = ? AND c.external_id = ?", businessID, externalID))
}

func (s *Store) findCredit(ctx context.Context, db bun.IDB, businessID uuid.UUID, q *bun.SelectQuery) (bill.Credit, bool, error) {
	var rows []creditRow
	if err := q.Model(&rows).Scan(ctx); err != nil {
		return bill.Credit{}, false, wrap("find vendor credit", err)
	}
	if len(rows) == 0 {
		return bill.Credit{}, false, nil
	}
	out, err := s.withCreditAllocations(ctx, db, businessID, rows)
	if err != nil {
		return bill.Credit{}, false, err
	}
	return out[0], true, nil
}

// LockVendorCredits locks and reads the business's credits of vendor id.
func (s *Store) LockVendorCredits(ctx context.Context, businessID, vendorID uuid.UUID) ([]bill.Credit, error) {
	db := s.conn(ctx)
	var rows []creditRow
	if err := db.NewSelect().Model(&rows).Where("c.business_id = ? AND c.vendor_id = ?", businessID, vendorID).
		OrderExpr("c.id").For("UPDATE").Scan(ctx); err != nil {
		return nil, wrap("lock vendor credits", err)
	}
	return s.withCreditAllocations(ctx, db, businessID, rows)
}

// FindCredits is one keyset page of the business's credits matching f.
func (s *Store) FindCredits(ctx context.Context, businessID uuid.UUID, f bill.CreditFilter, p page.Params) ([]bill.Credit, page.Meta, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Model((*creditRow)(nil)).Where("c.business_id = ?", businessID)
	if f.VendorID != nil {
		q = q.Where("c.vendor_id = ?", *f.VendorID)
	}
	if f.VendorExternalID != "" {
		q = q.Where("c.vendor_id IN (SELECT v.id FROM vendors AS v WHERE v.business_id = ? AND v.external_id = ?)", businessID, f.VendorExternalID)
	}
	if f.ReceivedStart != nil {
		q = q.Where("c.received_at >= ?", *f.ReceivedStart)
	}
	if f.ReceivedEnd != nil {
		q = q.Where("c.received_at <= ?", *f.ReceivedEnd)
	}
	if f.ReferenceNumber != "" {
		q = q.Where("c.reference_number = ?", f.ReferenceNumber)
	}
	if len(f.ReferenceNumbers) > 0 {
		q = q.Where("c.reference_number = ANY(?::text[])", pgdialect.Array(f.ReferenceNumbers))
	}
	if f.Memo != "" {
		q = q.Where("c.memo = ?", f.Memo)
	}
	if f.MemoContains != "" {
		q = q.Where("c.memo ILIKE ?", likePattern(f.MemoContains))
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "c.id", func(r creditRow) (any, uuid.UUID) {
		if p.SortBy == "total_amount" {
			return r.TotalAmount, r.ID
		}
		return r.ReceivedAt, r.ID
	})
	if err != nil {
		return nil, page.Meta{}, wrap("list vendor credits", err)
	}
	out, err := s.withCreditAllocations(ctx, db, businessID, rows)
	return out, meta, err
}

// withCreditAllocations converts rows, loading their allocations (with
// each bill's external id) in one query.
func (s *Store) withCreditAllocations(ctx context.Context, db bun.IDB, businessID uuid.UUID, rows []creditRow) ([]bill.Credit, error) {
	out := make([]bill.Credit, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(rows))
	at := map[uuid.UUID]int{}
	for i, r := range rows {
		ids[i], at[r.ID] = r.ID, i
		lines := make([]bill.CreditLine, len(r.Lines))
		for j, l := range r.Lines {
			l.Tags = utcTags(l.Tags)
			lines[j] = l
		}
		out[i] = bill.Credit{
			ID: r.ID, BusinessID: r.BusinessID, ExternalID: r.ExternalID, VendorID: r.VendorID, ReceivedAt: r.ReceivedAt.UTC(),
			Lines: lines, Memo: r.Memo, ReferenceNumber: r.ReferenceNumber, Metadata: r.Metadata, Tags: utcTags(r.Tags),
			Version: r.Version, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Allocations: []bill.CreditAllocation{},
		}
	}
	var allocs []creditAllocationRow
	if err := db.NewSelect().Model(&allocs).ColumnExpr("a.*").ColumnExpr("b.external_id AS bill_external_id").
		Join("JOIN bills AS b ON b.business_id = a.business_id AND b.id = a.bill_id").
		Where("a.business_id = ? AND a.credit_id IN (?)", businessID, bun.In(ids)).
		OrderExpr("a.credit_id, a.position").Scan(ctx); err != nil {
		return nil, wrap("find vendor credit allocations", err)
	}
	for _, a := range allocs {
		k := at[a.CreditID]
		out[k].Allocations = append(out[k].Allocations, bill.CreditAllocation{ID: a.ID, BillID: a.BillID,
			BillExternalID: a.BillExternalID, Amount: money.Cents(a.Amount)})
	}
	return out, nil
}
