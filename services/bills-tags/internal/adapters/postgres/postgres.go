// Package postgres is the bills-tags service's store on PostgreSQL
// (Bun), with the embedded schema migrations (migrations/). Every query is
// scoped by business_id; every table's key starts with it.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's own tables (schema bills).
var Migrations = pgdb.Embedded("bills", migrationFiles, "migrations")

// Store implements the app's stores on db: every method runs in the unit
// of work's transaction when its context carries one (pgdb.Conn).
type Store struct {
	// Table is the local copy of the businesses' charts of accounts
	// (ledger_accounts, acct.accounts.v1): chart.Store, which the
	// acct.accounts.v1 consumer keeps (chart.Handler) and CheckAccounts
	// reads.
	chart.Table
	db *bun.DB
}

// New makes the store on db.
func New(db *bun.DB) *Store { return &Store{db: db} }

// conn is the unit of work's transaction, or the pool.
func (s *Store) conn(ctx context.Context) bun.IDB { return pgdb.Conn(ctx, s.db) }

var _ app.AccountStore = (*Store)(nil)

// CheckAccounts implements app.AccountStore: chart.Check against the
// business's chart in the service's ledger_accounts.
func (s *Store) CheckAccounts(ctx context.Context, businessID uuid.UUID, fields []chart.Field, existsBeforeChart func(chart.Ref) bool) error {
	return chart.Check(ctx, s.conn(ctx), s.Table, businessID, fields, existsBeforeChart)
}

// StableAccountIDs implements app.AccountStore: the ids of the business's
// accounts named by stable name that ledger_accounts holds (chart.Table's
// AccountIDs).
func (s *Store) StableAccountIDs(ctx context.Context, businessID uuid.UUID, names []string) (map[string]uuid.UUID, error) {
	return s.Table.AccountIDs(ctx, s.conn(ctx), businessID, names)
}

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
