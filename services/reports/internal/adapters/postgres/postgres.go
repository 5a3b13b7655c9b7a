// Package postgres is the reports service's read model on PostgreSQL (Bun),
// with the embedded schema migrations (migrations/). Every query is scoped
// by business_id; every table's key starts with it.
package postgres

import (
	"embed"
	"fmt"

	"github.com/acctsuite/acct/pkg/pgdb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's own tables (schema reports).
var Migrations = pgdb.Embedded("reports", migrationFiles, "migrations")

// Store implements the app's store. It holds no connection: every method
// runs on the bun.IDB it is given.
type Store struct{}

// New makes the store.
func New() *Store { return &Store{} }

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
