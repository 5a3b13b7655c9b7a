// Package postgres is the bills-tags service's store on PostgreSQL
// (Bun), with the embedded schema migrations (migrations/). Every query is
// scoped by business_id; every table's key starts with it.
package postgres

import (
	"embed"
	"fmt"
	"strings"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/pgdb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's own tables (schema bills).
var Migrations = pgdb.Embedded("bills", migrationFiles, "migrations")

// Store implements the app's stores. It holds no connection: every method
// runs on the bun.IDB it is given.
type Store struct {
	// Table is the local copy of the businesses' charts of accounts
	// (ledger_accounts, acct.accounts.v1): it implements app.AccountStore.
	chart.Table
}

// New makes the store.
func New() *Store { return &Store{} }

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
