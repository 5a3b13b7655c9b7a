// Package postgres is the reports service's read model on PostgreSQL (Bun),
// with the embedded schema migrations (migrations/). Every query is scoped
// by business_id; every table's key starts with it.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/reports/internal/app"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's own tables (schema reports).
var Migrations = pgdb.Embedded("reports", migrationFiles, "migrations")

var (
	_ app.Store       = (*Store)(nil)
	_ app.ExportStore = (*Store)(nil)
	_ app.Snapshot    = Snapshot{}
)

// Store implements the app's stores on db: every method runs in the
// transaction its context carries (pgdb.Conn), else on the pool.
type Store struct {
	db *bun.DB
}

// New makes the store on db.
func New(db *bun.DB) *Store { return &Store{db: db} }

// conn is the transaction ctx carries, or the pool.
func (s *Store) conn(ctx context.Context) bun.IDB { return pgdb.Conn(ctx, s.db) }

// LockBusiness implements app.Store: a transaction lock per business that
// serialises the writers of its read model (the consumers and a rebuild).
func (s *Store) LockBusiness(ctx context.Context, bid uuid.UUID) error {
	db := s.conn(ctx)
	_, err := db.NewRaw("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "reports:"+bid.String()).Exec(ctx)
	return wrap("lock business", err)
}

// txReadOnly is a read-only transaction that sees one snapshot throughout.
var txReadOnly = sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}

// Snapshot implements app.Snapshot on DB: fn runs in a read-only,
// repeatable-read transaction that its context carries to the stores (in
// a savepoint of the transaction ctx already carries, if any).
type Snapshot struct {
	DB *bun.DB
}

// Do runs fn in the snapshot; the transaction ends when fn returns.
func (s Snapshot) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	return pgdb.Conn(ctx, s.DB).RunInTx(ctx, &txReadOnly, func(ctx context.Context, tx bun.Tx) error {
		return fn(pgdb.WithTx(ctx, tx))
	})
}

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
