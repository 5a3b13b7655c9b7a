package pgdb_test

import (
	"context"
	"errors"
	"testing"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

type ctxMark struct{}

// TestDeferred: a request's deferred transaction begins with its first
// unit of work, holds every later one as a savepoint (a failing one rolls
// back alone), is what stores see once begun, survives the cancellation of
// the handler's context, and commits or rolls back only when its owner
// says so.
func TestDeferred(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "svc")
	if _, err := db.ExecContext(ctx, `CREATE TABLE d (id int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	// Counted from the pool, outside any request's transaction.
	count := func() int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM d").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := func(ctx context.Context, id int) error {
		return pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO d VALUES (?)", id)
			return err
		})
	}
	errBoom := errors.New("boom")

	t.Run("commit", func(t *testing.T) {
		rctx, d := pgdb.Defer(ctx, db)
		if _, ok := d.Tx(); ok {
			t.Fatal("begun before any unit of work")
		}
		if got := pgdb.Conn(rctx, db); got != bun.IDB(db) {
			t.Fatalf("Conn before the first unit of work = %T, want the pool", got)
		}
		// The handler's own context, cancelled when it returns.
		hctx, cancel := context.WithCancel(rctx)
		if err := insert(hctx, 1); err != nil {
			t.Fatal(err)
		}
		// A failing unit of work rolls back to its savepoint only.
		if err := pgdb.InTx(hctx, db, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "INSERT INTO d VALUES (2)"); err != nil {
				return err
			}
			return errBoom
		}); !errors.Is(err, errBoom) {
			t.Fatalf("failing unit = %v", err)
		}
		// A duplicate key aborts its savepoint, not the request.
		if err := insert(hctx, 1); !pgdb.IsUniqueViolation(err) {
			t.Fatalf("duplicate insert = %v, want a unique violation", err)
		}
		if err := insert(hctx, 3); err != nil {
			t.Fatalf("unit after a failed one: %v", err)
		}
		cancel()
		if _, ok := pgdb.Conn(rctx, db).(bun.Tx); !ok {
			t.Fatal("Conn after the first unit of work is not the request's transaction")
		}
		var inside int
		if err := pgdb.Conn(rctx, db).NewRaw("SELECT count(*) FROM d").Scan(rctx, &inside); err != nil {
			t.Fatal(err)
		}
		if inside != 2 {
			t.Fatalf("the request sees %d rows of its own, want 2", inside)
		}
		if n := count(); n != 0 {
			t.Fatalf("%d rows visible before the commit", n)
		}
		if err := d.Commit(); err != nil {
			t.Fatalf("commit after the handler's context was cancelled: %v", err)
		}
		if n := count(); n != 2 {
			t.Fatalf("%d rows after the commit, want 2", n)
		}
		if err := insert(rctx, 4); !errors.Is(err, pgdb.ErrDeferredEnded) {
			t.Fatalf("unit of work after the end = %v, want ErrDeferredEnded", err)
		}
	})

	t.Run("rollback", func(t *testing.T) {
		rctx, d := pgdb.Defer(ctx, db)
		if err := insert(rctx, 10); err != nil {
			t.Fatal(err)
		}
		if err := d.Rollback(); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 2 {
			t.Fatalf("%d rows after a rollback, want the 2 committed before", n)
		}
		if err := d.Commit(); err != nil {
			t.Fatalf("a second end: %v", err)
		}
	})

	t.Run("never begun", func(t *testing.T) {
		_, d := pgdb.Defer(ctx, db)
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("another database is not deferred", func(t *testing.T) {
		other := open(t, testkit.NewDatabase(t), "svc")
		rctx, d := pgdb.Defer(ctx, other)
		defer d.Rollback()
		if err := insert(rctx, 20); err != nil {
			t.Fatal(err)
		}
		if _, ok := d.Tx(); ok {
			t.Fatal("a unit of work on another database began the deferred transaction")
		}
		if n := count(); n != 3 {
			t.Fatalf("%d rows, want 3", n)
		}
	})

	t.Run("nested units keep the caller's context", func(t *testing.T) {
		err := pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
			inner := context.WithValue(pgdb.WithTx(ctx, tx), ctxMark{}, "inner")
			return pgdb.InTx(inner, db, func(ctx context.Context, sp bun.Tx) error {
				if ctx.Value(ctxMark{}) != "inner" {
					return errors.New("the savepoint's function lost its caller's context")
				}
				_, err := sp.ExecContext(ctx, "INSERT INTO d VALUES (30)")
				return err
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 4 {
			t.Fatalf("%d rows, want 4", n)
		}
	})
}
