package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// matchablePaymentRow is a row of matchable_payments.
type matchablePaymentRow struct {
	bun.BaseModel `bun:"table:matchable_payments,alias:mp"`

	BusinessID           uuid.UUID                `bun:"business_id,pk,type:uuid"`
	ID                   uuid.UUID                `bun:"id,pk,type:uuid"`
	MatchType            string                   `bun:"match_type"`
	ExternalID           *string                  `bun:"external_id"`
	ReferenceNumber      *string                  `bun:"reference_number"`
	Memo                 *string                  `bun:"memo"`
	PaidAt               time.Time                `bun:"paid_at"`
	Method               string                   `bun:"method"`
	Amount               int64                    `bun:"amount"`
	Fee                  int64                    `bun:"fee"`
	Deposit              int64                    `bun:"deposit"`
	DepositAccount       string                   `bun:"deposit_account"`
	Invoices             []banking.MatchedInvoice `bun:"invoices,type:jsonb"`
	Version              int64                    `bun:"version"`
	DeletedAt            *time.Time               `bun:"deleted_at"`
	MatchedTransactionID *uuid.UUID               `bun:"matched_transaction_id,type:uuid"`
	UpdatedAt            time.Time                `bun:"updated_at"`
}

func (r matchablePaymentRow) payment() banking.MatchablePayment {
	return banking.MatchablePayment{
		BusinessID: r.BusinessID, ID: r.ID, MatchType: r.MatchType, ExternalID: r.ExternalID,
		ReferenceNumber: r.ReferenceNumber, Memo: r.Memo, PaidAt: r.PaidAt.UTC(), Method: r.Method,
		Amount: money.Cents(r.Amount), Fee: money.Cents(r.Fee), Deposit: money.Cents(r.Deposit),
		DepositAccount: r.DepositAccount, Invoices: r.Invoices, Version: r.Version, DeletedAt: r.DeletedAt,
		MatchedTransactionID: r.MatchedTransactionID, UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// UpsertMatchablePayment implements app.MatchStore: insert, or replace an
// older version (a deleted payment stays deleted, a match stays).
func (s *BankStore) UpsertMatchablePayment(ctx context.Context, p banking.MatchablePayment) error {
	db := s.conn(ctx)
	invoices := p.Invoices
	if invoices == nil {
		invoices = []banking.MatchedInvoice{}
	}
	r := matchablePaymentRow{
		BusinessID: p.BusinessID, ID: p.ID, MatchType: p.MatchType, ExternalID: p.ExternalID,
		ReferenceNumber: p.ReferenceNumber, Memo: p.Memo, PaidAt: p.PaidAt, Method: p.Method,
		Amount: int64(p.Amount), Fee: int64(p.Fee), Deposit: int64(p.Deposit), DepositAccount: p.DepositAccount,
		Invoices: invoices, Version: p.Version, UpdatedAt: p.UpdatedAt,
	}
	_, err := db.NewInsert().Model(&r).
		ExcludeColumn("deleted_at", "matched_transaction_id").
		On("CONFLICT (business_id, id) DO UPDATE").
		Set("external_id = EXCLUDED.external_id, reference_number = EXCLUDED.reference_number, memo = EXCLUDED.memo").
		Set("paid_at = EXCLUDED.paid_at, method = EXCLUDED.method, amount = EXCLUDED.amount, fee = EXCLUDED.fee").
		Set("deposit = EXCLUDED.deposit, deposit_account = EXCLUDED.deposit_account, invoices = EXCLUDED.invoices").
		Set("version = EXCLUDED.version, updated_at = EXCLUDED.updated_at").
		Where("mp.version < EXCLUDED.version").
		Exec(ctx)
	return wrap("upsert matchable payment", err)
}

// DeleteMatchablePayment implements app.MatchStore. A payment not known
// yet is recorded as deleted, so its late upsert cannot revive it.
func (s *BankStore) DeleteMatchablePayment(ctx context.Context, businessID, id uuid.UUID, version int64, at time.Time) (*uuid.UUID, error) {
	db := s.conn(ctx)
	// The FROM subquery reads the row as it was before this update.
	var matched []struct {
		ID uuid.NullUUID `bun:"matched_transaction_id"`
	}
	err := db.NewRaw(`UPDATE matchable_payments AS mp
		SET deleted_at = ?, matched_transaction_id = NULL, version = greatest(mp.version, ?), updated_at = ?
		FROM (SELECT matched_transaction_id FROM matchable_payments WHERE business_id = ? AND id = ?) AS old
		WHERE mp.business_id = ? AND mp.id = ? AND mp.deleted_at IS NULL
		RETURNING old.matched_transaction_id`,
		at, version, at, businessID, id, businessID, id).Scan(ctx, &matched)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("delete matchable payment", err)
	}
	// Unknown so far: remember the deletion.
	if _, err := db.NewRaw(`INSERT INTO matchable_payments (business_id, id, paid_at, method, amount, fee, deposit,
			deposit_account, version, deleted_at, updated_at)
		VALUES (?, ?, ?, 'OTHER', 0, 0, 0, '', ?, ?, ?) ON CONFLICT (business_id, id) DO NOTHING`,
		businessID, id, at, max(version, 1), at, at).Exec(ctx); err != nil {
		return nil, wrap("record deleted payment", err)
	}
	if len(matched) == 0 || !matched[0].ID.Valid {
		return nil, nil
	}
	return &matched[0].ID.UUID, nil
}

// OpenPayments implements app.MatchStore.
func (s *BankStore) OpenPayments(ctx context.Context, businessID uuid.UUID, deposits []money.Cents, from, to time.Time, lock app.Lock) ([]banking.MatchablePayment, error) {
	db := s.conn(ctx)
	amounts := make([]int64, len(deposits))
	for i, d := range deposits {
		amounts[i] = int64(d)
	}
	var rows []matchablePaymentRow
	q := db.NewSelect().Model(&rows).
		Where("mp.business_id = ? AND mp.deleted_at IS NULL AND mp.matched_transaction_id IS NULL", businessID).
		Where("mp.deposit = ANY(?::bigint[]) AND mp.paid_at BETWEEN ? AND ?", pgdialect.Array(amounts), from, to).
		OrderExpr("mp.paid_at, mp.id")
	if err := selectLocked(q, lock).Scan(ctx); err != nil {
		return nil, wrap("open payments", err)
	}
	out := make([]banking.MatchablePayment, len(rows))
	for i, r := range rows {
		out[i] = r.payment()
	}
	return out, nil
}

// SetPaymentMatch implements app.MatchStore.
func (s *BankStore) SetPaymentMatch(ctx context.Context, businessID, paymentID uuid.UUID, txnID *uuid.UUID) error {
	db := s.conn(ctx)
	_, err := db.NewUpdate().Model((*matchablePaymentRow)(nil)).
		Set("matched_transaction_id = ?", txnID).
		Where("business_id = ? AND id = ?", businessID, paymentID).Exec(ctx)
	return wrap("set payment match", err)
}
