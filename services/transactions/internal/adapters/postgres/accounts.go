package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// accountRow is a row of ledger_accounts.
type accountRow struct {
	bun.BaseModel `bun:"table:ledger_accounts,alias:a"`

	ID             uuid.UUID  `bun:"id,pk,type:uuid" json:"id"`
	BusinessID     uuid.UUID  `bun:"business_id,type:uuid" json:"business_id"`
	ParentID       *uuid.UUID `bun:"parent_id,type:uuid" json:"parent_id"`
	Name           string     `bun:"name" json:"name"`
	AccountNumber  *string    `bun:"account_number" json:"account_number"`
	StableName     *string    `bun:"stable_name" json:"stable_name"`
	Normality      string     `bun:"normality" json:"normality"`
	AccountType    string     `bun:"account_type" json:"account_type"`
	AccountSubtype string     `bun:"account_subtype" json:"account_subtype"`
	IsDefault      bool       `bun:"is_default" json:"is_default"`
	Position       int        `bun:"position" json:"position"`
	ArchivedAt     *time.Time `bun:"archived_at" json:"archived_at"`
	CreatedAt      time.Time  `bun:"created_at" json:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at" json:"updated_at"`
}

func toAccountRow(a domain.Account) accountRow {
	return accountRow{
		ID: a.ID, BusinessID: a.BusinessID, ParentID: a.ParentID, Name: a.Name, AccountNumber: a.AccountNumber,
		StableName: a.StableName, Normality: string(a.Normality), AccountType: string(a.Type),
		AccountSubtype: a.Subtype, IsDefault: a.Default, Position: a.Position, ArchivedAt: a.ArchivedAt,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}

func (r accountRow) account() domain.Account {
	a := domain.Account{
		ID: r.ID, BusinessID: r.BusinessID, ParentID: r.ParentID, Name: r.Name, AccountNumber: r.AccountNumber,
		StableName: r.StableName, Normality: domain.Direction(r.Normality), Type: domain.AccountType(r.AccountType),
		Subtype: r.AccountSubtype, Default: r.IsDefault, Position: r.Position, ArchivedAt: r.ArchivedAt,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if a.ArchivedAt != nil {
		t := a.ArchivedAt.UTC()
		a.ArchivedAt = &t
	}
	return a
}

func accounts(rows []accountRow) []domain.Account {
	out := make([]domain.Account, len(rows))
	for i, r := range rows {
		out[i] = r.account()
	}
	return out
}

// SeedAccounts implements app.Store: one multi-row insert that skips rows
// conflicting on the id or on the business's stable name.
func (s *Store) SeedAccounts(ctx context.Context, as []domain.Account) (int, error) {
	db := s.conn(ctx)
	if len(as) == 0 {
		return 0, nil
	}
	rows := make([]accountRow, len(as))
	for i, a := range as {
		rows[i] = toAccountRow(a)
	}
	res, err := db.NewInsert().Model(&rows).On("CONFLICT DO NOTHING").Exec(ctx)
	if err != nil {
		return 0, wrap("seed accounts", err)
	}
	n, err := res.RowsAffected()
	return int(n), wrap("seed accounts", err)
}

// InsertAccount implements app.Store.
func (s *Store) InsertAccount(ctx context.Context, a domain.Account) error {
	db := s.conn(ctx)
	r := toAccountRow(a)
	if _, err := db.NewInsert().Model(&r).Exec(ctx); err != nil {
		if pgdb.IsUniqueViolation(err) && pgdb.Constraint(err) == "ledger_accounts_stable_name_key" && a.StableName != nil {
			return domain.ErrDuplicateStableName(*a.StableName)
		}
		return wrap("insert account", err)
	}
	return nil
}

func (s *Store) findAccount(ctx context.Context, q *bun.SelectQuery, lock app.Lock) (domain.Account, bool, error) {
	var r accountRow
	err := selectLocked(q.Model(&r), lock).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Account{}, false, nil
	}
	if err != nil {
		return domain.Account{}, false, err
	}
	return r.account(), true, nil
}

// FindAccount implements app.Store.
func (s *Store) FindAccount(ctx context.Context, businessID, id uuid.UUID, lock app.Lock) (domain.Account, bool, error) {
	db := s.conn(ctx)
	return s.findAccount(ctx, db.NewSelect().Where("a.business_id = ? AND a.id = ?", businessID, id), lock)
}

// FindAccountByStableName implements app.Store.
func (s *Store) FindAccountByStableName(ctx context.Context, businessID uuid.UUID, name string, lock app.Lock) (domain.Account, bool, error) {
	db := s.conn(ctx)
	return s.findAccount(ctx, db.NewSelect().Where("a.business_id = ? AND a.stable_name = ?", businessID, name), lock)
}

// FindAccountsByRefs implements app.Store with one query. Rows are locked
// in id order, so concurrent postings never wait on each other in a cycle.
func (s *Store) FindAccountsByRefs(ctx context.Context, businessID uuid.UUID, refs []domain.AccountRef, lock app.Lock) ([]domain.Account, error) {
	db := s.conn(ctx)
	var ids []uuid.UUID
	var names []string
	for _, r := range refs {
		if r.IsStableName() {
			names = append(names, r.StableName)
		} else {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 && len(names) == 0 {
		return nil, nil
	}
	var rows []accountRow
	q := db.NewSelect().Model(&rows).Where("a.business_id = ?", businessID).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			if len(ids) > 0 {
				q = q.WhereOr("a.id IN (?)", bun.In(ids))
			}
			if len(names) > 0 {
				q = q.WhereOr("a.stable_name IN (?)", bun.In(names))
			}
			return q
		}).OrderExpr("a.id")
	if err := selectLocked(q, lock).Scan(ctx); err != nil {
		return nil, wrap("find accounts", err)
	}
	return accounts(rows), nil
}

// AccountsWithAncestors implements app.Store with a recursive query.
func (s *Store) AccountsWithAncestors(ctx context.Context, businessID uuid.UUID, ids []uuid.UUID) ([]domain.Account, error) {
	db := s.conn(ctx)
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []accountRow
	err := db.NewRaw(`
		WITH RECURSIVE up AS (
			SELECT a.* FROM ledger_accounts a WHERE a.business_id = ? AND a.id IN (?)
			UNION
			SELECT p.* FROM ledger_accounts p JOIN up ON p.id = up.parent_id AND p.business_id = up.business_id
		)
		SELECT * FROM up`, businessID, bun.In(ids)).Scan(ctx, &rows)
	if err != nil {
		return nil, wrap("accounts with ancestors", err)
	}
	return accounts(rows), nil
}

// AccountWithDescendants implements app.Store with a recursive query down
// the parent index.
func (s *Store) AccountWithDescendants(ctx context.Context, businessID, id uuid.UUID) ([]domain.Account, error) {
	db := s.conn(ctx)
	var rows []accountRow
	err := db.NewRaw(`
		WITH RECURSIVE down AS (
			SELECT a.*, 0 AS depth FROM ledger_accounts a WHERE a.business_id = ? AND a.id = ?
			UNION ALL
			SELECT c.*, down.depth + 1 FROM ledger_accounts c
			JOIN down ON c.parent_id = down.id AND c.business_id = down.business_id
			WHERE down.depth < 64
		)
		SELECT id, business_id, parent_id, name, account_number, stable_name, normality, account_type,
			account_subtype, is_default, position, archived_at, created_at, updated_at
		FROM down ORDER BY depth`, businessID, id).Scan(ctx, &rows)
	if err != nil {
		return nil, wrap("account with descendants", err)
	}
	return accounts(rows), nil
}

// ListAccounts implements app.Store.
func (s *Store) ListAccounts(ctx context.Context, businessID uuid.UUID, withArchived bool) ([]domain.Account, error) {
	db := s.conn(ctx)
	var rows []accountRow
	q := db.NewSelect().Model(&rows).Where("a.business_id = ?", businessID)
	if !withArchived {
		q = q.Where("a.archived_at IS NULL")
	}
	if err := q.OrderExpr("a.position, a.created_at, a.id").Scan(ctx); err != nil {
		return nil, wrap("list accounts", err)
	}
	return accounts(rows), nil
}

// UpdateAccount implements app.Store.
func (s *Store) UpdateAccount(ctx context.Context, a domain.Account) error {
	db := s.conn(ctx)
	r := toAccountRow(a)
	_, err := db.NewUpdate().Model(&r).
		Column("name", "account_number", "stable_name", "account_subtype", "archived_at", "updated_at").
		Where("a.business_id = ? AND a.id = ?", a.BusinessID, a.ID).Exec(ctx)
	if err != nil {
		if pgdb.IsUniqueViolation(err) && a.StableName != nil {
			return domain.ErrDuplicateStableName(*a.StableName)
		}
		return wrap("update account", err)
	}
	return nil
}

// AccountUse implements app.Store. The rules are found by the account's id
// anywhere in their draft (its category, a split's).
func (s *Store) AccountUse(ctx context.Context, businessID, id uuid.UUID) (domain.AccountUse, error) {
	var u struct {
		HasLines    bool `bun:"has_lines"`
		SubAccounts int  `bun:"sub_accounts"`
		Rules       int  `bun:"rules"`
	}
	err := s.conn(ctx).NewRaw(`
		SELECT
			EXISTS (SELECT 1 FROM ledger_lines WHERE business_id = ? AND account_id = ?) AS has_lines,
			(SELECT count(*) FROM ledger_accounts WHERE business_id = ? AND parent_id = ?) AS sub_accounts,
			(SELECT count(*) FROM categorization_rules
			  WHERE business_id = ? AND jsonb_path_exists(draft, ?::jsonpath, jsonb_build_object('id', ?::text))) AS rules`,
		businessID, id, businessID, id, businessID, anyValueIs, id.String()).Scan(ctx, &u)
	if err != nil {
		return domain.AccountUse{}, wrap("account use", err)
	}
	return domain.AccountUse{HasLines: u.HasLines, SubAccounts: u.SubAccounts, Rules: u.Rules}, nil
}

// anyValueIs is a JSON path that finds $id anywhere in a document (a
// parameter: Bun would take its question mark for a placeholder).
const anyValueIs = `$.** ? (@ == $id)`

// DeleteAccount implements app.Store.
func (s *Store) DeleteAccount(ctx context.Context, businessID, id uuid.UUID) error {
	_, err := s.conn(ctx).NewRaw("DELETE FROM ledger_accounts WHERE business_id = ? AND id = ?", businessID, id).Exec(ctx)
	if pgdb.IsForeignKeyViolation(err) {
		return apperr.New(apperr.Conflict, "a bank account or bank transaction uses the account: archive it instead").
			WithEnum(domain.EnumAccountInUse)
	}
	return wrap("delete account", err)
}

// AccountUsage implements app.Store.
func (s *Store) AccountUsage(ctx context.Context, businessID, id uuid.UUID) (domain.DebitCredit, int, error) {
	db := s.conn(ctx)
	var u struct {
		Debits   int64 `bun:"debits"`
		Credits  int64 `bun:"credits"`
		Children int   `bun:"children"`
	}
	err := db.NewRaw(`
		SELECT
			(SELECT coalesce(sum(amount) FILTER (WHERE direction = 'DEBIT'), 0)
			   FROM ledger_lines WHERE business_id = ? AND account_id = ?) AS debits,
			(SELECT coalesce(sum(amount) FILTER (WHERE direction = 'CREDIT'), 0)
			   FROM ledger_lines WHERE business_id = ? AND account_id = ?) AS credits,
			(SELECT count(*) FROM ledger_accounts
			  WHERE business_id = ? AND parent_id = ? AND archived_at IS NULL) AS children`,
		businessID, id, businessID, id, businessID, id).Scan(ctx, &u)
	if err != nil {
		return domain.DebitCredit{}, 0, wrap("account usage", err)
	}
	return domain.DebitCredit{Debits: moneyOf(u.Debits), Credits: moneyOf(u.Credits)}, u.Children, nil
}
