// Package postgres is the customers-invoices service's store on PostgreSQL
// (Bun), with the embedded schema migrations (migrations/). Every query is
// scoped by business_id; every table's key starts with it.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/pgdb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's own tables (schema invoicing).
var Migrations = pgdb.Embedded("invoicing", migrationFiles, "migrations")

// Store implements the app's stores on db: every method runs in the unit
// of work's transaction when its context carries one (pgdb.Conn).
type Store struct {
	db *bun.DB
	// Table is the local copy of the businesses' charts of accounts
	// (ledger_accounts, acct.accounts.v1): chart.Handler keeps it, and
	// CheckAccounts reads it.
	chart.Table
}

// New makes the store on db.
func New(db *bun.DB) *Store { return &Store{db: db} }

// conn is the unit of work's transaction, or the pool.
func (s *Store) conn(ctx context.Context) bun.IDB { return pgdb.Conn(ctx, s.db) }

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// likePattern is s as a literal inside an ILIKE '%...%' pattern
// (backslash is PostgreSQL's default LIKE escape).
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}
