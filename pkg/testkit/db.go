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
	return OpenSchema(t, NewDatabase(t), schema, sets...)
}

// OpenSchema opens the database at url with its own schema (several
// "services" can share one test database, each in its schema), applies the
// migration sets and closes the pool at cleanup.
func OpenSchema(t testing.TB, url, schema string, sets ...pgdb.MigrationSet) *bun.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := pgdb.Open(ctx, pgdb.Config{URL: url, Schema: schema, MaxConns: 20})
	if err != nil {
		t.Fatalf("testkit: open schema %q: %v", schema, err)
	}
	// Registered after NewDatabase's drop, so it runs first (LIFO).
	t.Cleanup(func() { _ = db.Close() })
	if len(sets) > 0 {
		if err := pgdb.Migrate(ctx, db, sets...); err != nil {
			t.Fatalf("testkit: migrate schema %q: %v", schema, err)
		}
	}
	return db
}
