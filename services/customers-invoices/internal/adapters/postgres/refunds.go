package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

var (
	_ app.RefundStore  = (*Store)(nil)
	_ app.SummaryStore = (*Store)(nil)
)

// refundRow is a row of invoice_refunds.
type refundRow struct {
	bun.BaseModel `bun:"table:invoice_refunds,alias:r"`

	BusinessID      uuid.UUID        `bun:"business_id,pk,type:uuid" json:"business_id"`
	ID              uuid.UUID        `bun:"id,pk,type:uuid" json:"id"`
	InvoiceID       uuid.UUID        `bun:"invoice_id,type:uuid" json:"invoice_id"`
	ExternalID      *string          `bun:"external_id" json:"external_id"`
	Amount          int64            `bun:"amount" json:"amount"`
	Method          string           `bun:"method" json:"method"`
	CompletedAt     time.Time        `bun:"completed_at" json:"completed_at"`
	Memo            *string          `bun:"memo" json:"memo"`
	ReferenceNumber *string          `bun:"reference_number" json:"reference_number"`
	Payouts         []invoice.Payout `bun:"payouts,type:jsonb" json:"payouts"`
	VoidedAt        *time.Time       `bun:"voided_at" json:"voided_at"`
	Version         int              `bun:"version" json:"version"`
	CreatedAt       time.Time        `bun:"created_at" json:"created_at"`
}

func (r refundRow) refund() invoice.Refund {
	return invoice.Refund{
		ID: r.ID, BusinessID: r.BusinessID, InvoiceID: r.InvoiceID, ExternalID: r.ExternalID, Amount: money.Cents(r.Amount),
		Method: invoice.Method(r.Method), CompletedAt: r.CompletedAt.UTC(), Memo: r.Memo, ReferenceNumber: r.ReferenceNumber,
		Payouts: nonNil(r.Payouts), VoidedAt: utcPtr(r.VoidedAt), Version: r.Version, CreatedAt: r.CreatedAt.UTC(),
	}
}

// InsertRefund implements app.RefundStore.
func (s *Store) InsertRefund(ctx context.Context, rf invoice.Refund) (bool, error) {
	r := refundRow{
		BusinessID: rf.BusinessID, ID: rf.ID, InvoiceID: rf.InvoiceID, ExternalID: rf.ExternalID, Amount: int64(rf.Amount),
		Method: string(rf.Method), CompletedAt: rf.CompletedAt, Memo: rf.Memo, ReferenceNumber: rf.ReferenceNumber,
		Payouts: nonNil(rf.Payouts), Version: rf.Version, CreatedAt: rf.CreatedAt,
	}
	res, err := s.conn(ctx).NewInsert().Model(&r).
		On("CONFLICT (business_id, external_id) WHERE external_id IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return false, wrap("insert refund", err)
	}
	n, err := res.RowsAffected()
	return n == 1, wrap("insert refund", err)
}

// FindRefundByExternalID implements app.RefundStore.
func (s *Store) FindRefundByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (invoice.Refund, bool, error) {
	var r refundRow
	err := s.conn(ctx).NewSelect().Model(&r).Where("r.business_id = ? AND r.external_id = ?", businessID, externalID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return invoice.Refund{}, false, nil
	}
	if err != nil {
		return invoice.Refund{}, false, wrap("find refund", err)
	}
	return r.refund(), true, nil
}

// UpdateRefund implements app.RefundStore.
func (s *Store) UpdateRefund(ctx context.Context, r invoice.Refund) error {
	_, err := s.conn(ctx).NewUpdate().Model((*refundRow)(nil)).Set("voided_at = ?, version = ?", r.VoidedAt, r.Version).
		Where("business_id = ? AND id = ?", r.BusinessID, r.ID).Exec(ctx)
	return wrap("update refund", err)
}

// UpdatePaymentTerms implements app.PaymentStore.
func (s *Store) UpdatePaymentTerms(ctx context.Context, p invoice.Payment) error {
	db := s.conn(ctx)
	r := paymentRow{
		BusinessID: p.BusinessID, ID: p.ID, ExternalID: p.ExternalID, PaidAt: p.PaidAt, Method: string(p.Method),
		Amount: int64(p.Amount), Fee: int64(p.Fee), Processor: p.Processor, Memo: p.Memo, ReferenceNumber: p.ReferenceNumber,
		Tags: nonNil(p.Tags), Version: p.Version, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	if _, err := db.NewUpdate().Model(&r).ExcludeColumn("business_id", "id", "created_at").WherePK().Exec(ctx); err != nil {
		return wrap("update payment", err)
	}
	for _, a := range p.Allocations {
		if _, err := db.NewUpdate().Model((*allocationRow)(nil)).Set("amount = ?", int64(a.Amount)).
			Where("business_id = ? AND payment_id = ? AND invoice_id = ?", p.BusinessID, p.ID, a.InvoiceID).Exec(ctx); err != nil {
			return wrap("update payment allocation", err)
		}
	}
	return nil
}

// InvoiceSummary implements app.SummaryStore: one statement over the
// business's invoices (status index) and one over its payments.
func (s *Store) InvoiceSummary(ctx context.Context, businessID uuid.UUID, w app.SummaryWindow) (app.SummaryStats, error) {
	db := s.conn(ctx)
	var inv struct {
		OverdueCount  int64 `bun:"overdue_count"`
		OverdueTotal  int64 `bun:"overdue_total"`
		UpcomingCount int64 `bun:"upcoming_count"`
		UpcomingTotal int64 `bun:"upcoming_total"`
	}
	if err := db.NewRaw(`SELECT
			count(*) FILTER (WHERE overdue) AS overdue_count,
			coalesce(sum(outstanding_balance) FILTER (WHERE overdue), 0) AS overdue_total,
			count(*) FILTER (WHERE NOT overdue) AS upcoming_count,
			coalesce(sum(outstanding_balance) FILTER (WHERE NOT overdue), 0) AS upcoming_total
		FROM (SELECT outstanding_balance, coalesce(due_at < ?, false) AS overdue FROM invoices
			WHERE business_id = ? AND status IN ('SENT', 'PARTIALLY_PAID', 'PARTIALLY_WRITTEN_OFF')
				AND outstanding_balance > 0 AND sent_at >= ?) open`,
		w.DueBefore, businessID, w.SentSince).Scan(ctx, &inv); err != nil {
		return app.SummaryStats{}, wrap("invoice summary", err)
	}
	var paid int64
	if err := db.NewRaw(`SELECT coalesce(sum(amount), 0) FROM invoice_payments WHERE business_id = ? AND paid_at >= ? AND paid_at <= ?`,
		businessID, w.PaidSince, w.PaidBefore).Scan(ctx, &paid); err != nil {
		return app.SummaryStats{}, wrap("payments summary", err)
	}
	return app.SummaryStats{OverdueCount: inv.OverdueCount, OverdueTotal: money.Cents(inv.OverdueTotal),
		UpcomingCount: inv.UpcomingCount, UpcomingTotal: money.Cents(inv.UpcomingTotal), PaidLast30Days: money.Cents(paid)}, nil
}
