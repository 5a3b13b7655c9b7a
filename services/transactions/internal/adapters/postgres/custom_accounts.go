package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// BankStore implements app.BankStore on db; like Store, every method runs
// in the unit of work's transaction when its context carries one.
type BankStore struct {
	db *bun.DB
}

// NewBankStore makes the bank-transaction store on db.
func NewBankStore(db *bun.DB) *BankStore { return &BankStore{db: db} }

// conn is the unit of work's transaction, or the pool.
func (s *BankStore) conn(ctx context.Context) bun.IDB { return pgdb.Conn(ctx, s.db) }

var _ app.BankStore = (*BankStore)(nil)

// customAccountRow is a row of custom_accounts.
type customAccountRow struct {
	bun.BaseModel `bun:"table:custom_accounts,alias:ca"`

	ID                uuid.UUID  `bun:"id,pk,type:uuid"`
	BusinessID        uuid.UUID  `bun:"business_id,type:uuid"`
	ExternalID        *string    `bun:"external_id"`
	AccountName       string     `bun:"account_name"`
	InstitutionName   *string    `bun:"institution_name"`
	Mask              *string    `bun:"mask"`
	AccountType       string     `bun:"account_type"`
	AccountSubtype    string     `bun:"account_subtype"`
	CustomAccountType string     `bun:"custom_account_type"`
	LedgerAccountID   uuid.UUID  `bun:"ledger_account_id,type:uuid"`
	UserCreated       bool       `bun:"user_created"`
	CreatedAt         time.Time  `bun:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
	ArchivedAt        *time.Time `bun:"archived_at"`
}

func (r customAccountRow) account() app.CustomAccount {
	a := app.CustomAccount{
		ID: r.ID, BusinessID: r.BusinessID, ExternalID: r.ExternalID, AccountName: r.AccountName,
		InstitutionName: r.InstitutionName, Mask: r.Mask, Type: banking.CustomAccountType(r.AccountType),
		Subtype: banking.CustomAccountSubtype(r.AccountSubtype), Kind: banking.CustomAccountKind(r.CustomAccountType),
		LedgerAccountID: r.LedgerAccountID, UserCreated: r.UserCreated, CreatedAt: r.CreatedAt.UTC(),
		UpdatedAt: r.UpdatedAt.UTC(),
	}
	if r.ArchivedAt != nil {
		t := r.ArchivedAt.UTC()
		a.ArchivedAt = &t
	}
	return a
}

// InsertCustomAccount implements app.BankStore.
func (s *BankStore) InsertCustomAccount(ctx context.Context, a app.CustomAccount) error {
	db := s.conn(ctx)
	r := customAccountRow{
		ID: a.ID, BusinessID: a.BusinessID, ExternalID: a.ExternalID, AccountName: a.AccountName,
		InstitutionName: a.InstitutionName, Mask: a.Mask, AccountType: string(a.Type),
		AccountSubtype: string(a.Subtype), CustomAccountType: string(a.Kind), LedgerAccountID: a.LedgerAccountID,
		UserCreated: a.UserCreated, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, ArchivedAt: a.ArchivedAt,
	}
	_, err := db.NewInsert().Model(&r).Exec(ctx)
	return wrap("insert custom account", err)
}

func (s *BankStore) findCustomAccount(ctx context.Context, db bun.IDB, where string, args ...any) (app.CustomAccount, bool, error) {
	var r customAccountRow
	err := db.NewSelect().Model(&r).Where(where, args...).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return app.CustomAccount{}, false, nil
	}
	if err != nil {
		return app.CustomAccount{}, false, wrap("find custom account", err)
	}
	return r.account(), true, nil
}

// FindCustomAccount implements app.BankStore.
func (s *BankStore) FindCustomAccount(ctx context.Context, businessID, id uuid.UUID) (app.CustomAccount, bool, error) {
	db := s.conn(ctx)
	return s.findCustomAccount(ctx, db, "ca.business_id = ? AND ca.id = ?", businessID, id)
}

// FindCustomAccountByExternalID implements app.BankStore.
func (s *BankStore) FindCustomAccountByExternalID(ctx context.Context, businessID uuid.UUID, externalID string) (app.CustomAccount, bool, error) {
	db := s.conn(ctx)
	return s.findCustomAccount(ctx, db, "ca.business_id = ? AND ca.external_id = ?", businessID, externalID)
}

// ListCustomAccounts implements app.BankStore.
func (s *BankStore) ListCustomAccounts(ctx context.Context, businessID uuid.UUID) ([]app.CustomAccount, error) {
	db := s.conn(ctx)
	var rows []customAccountRow
	if err := db.NewSelect().Model(&rows).Where("ca.business_id = ?", businessID).OrderExpr("ca.id").Scan(ctx); err != nil {
		return nil, wrap("list custom accounts", err)
	}
	out := make([]app.CustomAccount, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.account())
	}
	return out, nil
}

// LockKey implements app.BankStore with a transaction-scoped advisory lock.
func (s *BankStore) LockKey(ctx context.Context, key string) error {
	db := s.conn(ctx)
	_, err := db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", key)
	return wrap("lock "+key, err)
}
