// Package postgres is the auth-tokens store on PostgreSQL (Bun): clients,
// businesses (with their outbox events in the same transaction) and signing
// keys, plus the embedded schema migrations.
package postgres

import (
	"context"
	"embed"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/uptrace/bun"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's own tables.
var Migrations = pgdb.Embedded("auth", migrationFiles, "migrations")

// Store implements the app's stores.
type Store struct {
	db *bun.DB
}

// New wraps an open database.
func New(db *bun.DB) *Store { return &Store{db: db} }

// DB is the underlying handle (tests).
func (s *Store) DB() *bun.DB { return s.db }

func inTx(ctx context.Context, db *bun.DB, fn func(ctx context.Context, tx bun.Tx) error) error {
	return pgdb.InTx(ctx, db, fn)
}
