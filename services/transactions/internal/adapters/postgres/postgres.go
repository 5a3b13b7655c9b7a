// Package postgres is the transactions service's store on PostgreSQL
// (Bun): the chart of accounts, the append-only journal and manual journal
// entries, with the embedded schema migrations. The schema guards the
// ledger itself: deferred constraint triggers refuse, at commit, an entry
// whose debits differ from its credits or that has fewer than two lines,
// and triggers refuse changing or deleting lines and entries (except
// recording an entry's reversal once). See migrations/.
package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/transactions/internal/app"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's own tables.
var Migrations = pgdb.Embedded("transactions", migrationFiles, "migrations")

// Store implements app.Store on db: every method runs in the unit of
// work's transaction when its context carries one (pgdb.Conn).
type Store struct {
	db *bun.DB
}

// New makes the ledger's store on db.
func New(db *bun.DB) *Store { return &Store{db: db} }

// conn is the unit of work's transaction, or the pool.
func (s *Store) conn(ctx context.Context) bun.IDB { return pgdb.Conn(ctx, s.db) }

var _ app.Store = (*Store)(nil)

// lockClause is the locking clause of a row-returning query.
func lockClause(l app.Lock) string {
	switch l {
	case app.LockShare:
		return "FOR KEY SHARE"
	case app.LockUpdate:
		return "FOR UPDATE"
	}
	return ""
}

// selectLocked adds the lock's clause to q.
func selectLocked(q *bun.SelectQuery, l app.Lock) *bun.SelectQuery {
	if c := lockClause(l); c != "" {
		return q.For(c[len("FOR "):])
	}
	return q
}

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
