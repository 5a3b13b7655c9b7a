package testkit

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
)

// DB opens a fresh database through pgdb.Open with the given schema (""
// for public), applies the migration sets in order and closes the pool at
// cleanup: the usual start of a repository or service integration test.
func DB(t testing.TB, schema string, sets ...pgdb.MigrationSet) *bun.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := pgdb.Open(ctx, pgdb.Config{URL: NewDatabase(t), Schema: schema, MaxConns: 10})
	if err != nil {
		t.Fatalf("testkit: open database: %v", err)
	}
	// Registered after NewDatabase's drop, so it runs first (LIFO).
	t.Cleanup(func() { _ = db.Close() })
	if len(sets) > 0 {
		if err := pgdb.Migrate(ctx, db, sets...); err != nil {
			t.Fatalf("testkit: migrate: %v", err)
		}
	}
	return db
}
