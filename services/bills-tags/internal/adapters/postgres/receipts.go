package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/receipt"
)

type receiptRow struct {
	bun.BaseModel `bun:"table:receipts,alias:r"`

	BusinessID        uuid.UUID               `bun:"business_id,pk,type:uuid"`
	ID                uuid.UUID               `bun:"id,pk,type:uuid"`
	StorageDocumentID uuid.UUID               `bun:"storage_document_id,type:uuid"`
	StorageKey        string                  `bun:"storage_key"`
	FileName          *string                 `bun:"file_name"`
	FileType          string                  `bun:"file_type"`
	SizeBytes         int64                   `bun:"size_bytes"`
	Context           *string                 `bun:"context"`
	Source            string                  `bun:"source"`
	Status            string                  `bun:"status"`
	FailureReason     *string                 `bun:"failure_reason"`
	TextSource        *string                 `bun:"text_source"`
	Confidence        float64                 `bun:"confidence"`
	FieldConfidence   receipt.FieldConfidence `bun:"field_confidence,type:jsonb"`
	Note              *string                 `bun:"note"`
	Currency          *string                 `bun:"currency"`
	VendorDisplay     *string                 `bun:"vendor_display"`
	VendorExternalID  *string                 `bun:"vendor_external_id"`
	PaidAt            *time.Time              `bun:"paid_at"`
	AmountCents       *int64                  `bun:"amount_cents"`
	LineItems         []receipt.LineItem      `bun:"line_items,type:jsonb"`
	MatchedVendorID   *uuid.UUID              `bun:"matched_vendor_id,type:uuid"`
	BillID            *uuid.UUID              `bun:"bill_id,type:uuid"`
	RejectedAt        *time.Time              `bun:"rejected_at"`
	CreatedAt         time.Time               `bun:"created_at"`
	UpdatedAt         time.Time               `bun:"updated_at"`
}

func toReceiptRow(r receipt.Receipt) receiptRow {
	row := receiptRow{
		BusinessID: r.BusinessID, ID: r.ID, StorageDocumentID: r.StorageDocumentID, StorageKey: r.StorageKey,
		FileType: r.FileType, SizeBytes: r.SizeBytes, Context: r.Context, Source: r.Source, Status: string(r.Status),
		FailureReason: r.FailureReason, TextSource: r.TextSource, Confidence: r.Confidence, VendorDisplay: r.VendorDisplay,
		FieldConfidence: r.FieldConfidence, Note: r.Note, Currency: r.Currency,
		VendorExternalID: r.VendorExternalID, PaidAt: r.PaidAt, AmountCents: r.AmountCents, LineItems: nonNil(r.LineItems),
		MatchedVendorID: r.MatchedVendorID, BillID: r.BillID, RejectedAt: r.RejectedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if r.FileName != "" {
		n := r.FileName
		row.FileName = &n
	}
	return row
}

func (row receiptRow) receipt() receipt.Receipt {
	r := receipt.Receipt{
		ID: row.ID, BusinessID: row.BusinessID, StorageDocumentID: row.StorageDocumentID, StorageKey: row.StorageKey,
		FileType: row.FileType, SizeBytes: row.SizeBytes, Context: row.Context, Source: row.Source, Status: receipt.Status(row.Status),
		FailureReason: row.FailureReason, TextSource: row.TextSource, Confidence: row.Confidence, VendorDisplay: row.VendorDisplay,
		FieldConfidence: row.FieldConfidence, Note: row.Note, Currency: row.Currency,
		VendorExternalID: row.VendorExternalID, PaidAt: utc(row.PaidAt), AmountCents: row.AmountCents, LineItems: nonNil(row.LineItems),
		MatchedVendorID: row.MatchedVendorID, BillID: row.BillID, RejectedAt: utc(row.RejectedAt),
		CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(),
	}
	if row.FileName != nil {
		r.FileName = *row.FileName
	}
	return r
}

// InsertReceipt inserts r.
func (s *Store) InsertReceipt(ctx context.Context, r receipt.Receipt) error {
	db := s.conn(ctx)
	row := toReceiptRow(r)
	_, err := db.NewInsert().Model(&row).Exec(ctx)
	return wrap("insert receipt", err)
}

// FindReceipt reads the business's receipt id; forUpdate locks it.
func (s *Store) FindReceipt(ctx context.Context, businessID, id uuid.UUID, forUpdate bool) (receipt.Receipt, bool, error) {
	db := s.conn(ctx)
	var row receiptRow
	q := db.NewSelect().Model(&row).Where("r.business_id = ? AND r.id = ?", businessID, id)
	if forUpdate {
		q = q.For("UPDATE")
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return receipt.Receipt{}, false, nil
	}
	if err != nil {
		return receipt.Receipt{}, false, wrap("find receipt", err)
	}
	return row.receipt(), true, nil
}

// UpdateReceipt writes the columns a receipt's moves change: status,
// bill_id, rejected_at, updated_at.
func (s *Store) UpdateReceipt(ctx context.Context, r receipt.Receipt) error {
	db := s.conn(ctx)
	row := toReceiptRow(r)
	_, err := db.NewUpdate().Model(&row).Column("status", "bill_id", "rejected_at", "updated_at").WherePK().Exec(ctx)
	return wrap("update receipt", err)
}

// FindReceipts is one keyset page of the business's receipts matching f.
func (s *Store) FindReceipts(ctx context.Context, businessID uuid.UUID, f receipt.Filter, p page.Params) ([]receipt.Receipt, page.Meta, error) {
	db := s.conn(ctx)
	q := db.NewSelect().Model((*receiptRow)(nil)).ColumnExpr("r.*").Where("r.business_id = ?", businessID)
	if len(f.Statuses) > 0 {
		st := make([]string, len(f.Statuses))
		for i, s := range f.Statuses {
			st[i] = string(s)
		}
		q = q.Where("r.status IN (?)", bun.In(st))
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "r.id", func(r receiptRow) (any, uuid.UUID) { return r.CreatedAt, r.ID })
	if err != nil {
		return nil, page.Meta{}, wrap("list receipts", err)
	}
	out := make([]receipt.Receipt, len(rows))
	for i, r := range rows {
		out[i] = r.receipt()
	}
	return out, meta, nil
}

// maxMatchVendors bounds the names a match reads (the most recently
// updated active vendors first).
const maxMatchVendors = 20000

// ActiveVendorNames are the names of the business's active vendors, for
// matching: the company name and the individual's name each count.
func (s *Store) ActiveVendorNames(ctx context.Context, businessID uuid.UUID) ([]receipt.VendorName, error) {
	db := s.conn(ctx)
	var rows []struct {
		ID             uuid.UUID `bun:"id"`
		CompanyName    *string   `bun:"company_name"`
		IndividualName *string   `bun:"individual_name"`
		ExternalID     *string   `bun:"external_id"`
	}
	err := db.NewRaw(`SELECT id, company_name, individual_name, external_id FROM vendors
		WHERE business_id = ? AND status = 'ACTIVE' AND (company_name IS NOT NULL OR individual_name IS NOT NULL)
		ORDER BY updated_at DESC, id LIMIT ?`, businessID, maxMatchVendors).Scan(ctx, &rows)
	if err != nil {
		return nil, wrap("vendor names", err)
	}
	out := make([]receipt.VendorName, 0, len(rows))
	for _, r := range rows {
		for _, n := range []*string{r.CompanyName, r.IndividualName} {
			if n != nil {
				out = append(out, receipt.VendorName{ID: r.ID, Name: *n, ExternalID: r.ExternalID})
			}
		}
	}
	return out, nil
}

// historyBills bounds the bills a vendor's account history reads (the
// latest ones).
const historyBills = 200

// VendorTopAccount is the account most used on the lines of the vendor's
// latest bills (voided ones and UNCATEGORIZED_EXPENSES left out; a tie goes
// to the account used last), if any.
func (s *Store) VendorTopAccount(ctx context.Context, businessID, vendorID uuid.UUID) (*bill.AccountRef, error) {
	db := s.conn(ctx)
	var raw []json.RawMessage
	err := db.NewRaw(`SELECT l.value->'account' FROM (
			SELECT lines, received_at FROM bills WHERE business_id = ? AND vendor_id = ? AND status <> 'VOIDED'
			ORDER BY received_at DESC LIMIT ?) AS b
		CROSS JOIN LATERAL jsonb_array_elements(b.lines) AS l(value)
		WHERE jsonb_typeof(l.value->'account') = 'object' AND l.value->'account' <> '{}'::jsonb
			AND coalesce(l.value->'account'->>'stable_name', '') <> ?
		GROUP BY 1 ORDER BY count(*) DESC, max(b.received_at) DESC LIMIT 1`,
		businessID, vendorID, historyBills, bill.DefaultExpenseAccount).Scan(ctx, &raw)
	if err != nil {
		return nil, wrap("vendor account history", err)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	var ref bill.AccountRef
	if err := json.Unmarshal(raw[0], &ref); err != nil || ref.IsZero() {
		return nil, wrap("vendor account history", err)
	}
	return &ref, nil
}
