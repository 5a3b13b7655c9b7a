package pgdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// MigrationSet is a named group of SQL migrations. FS's root holds bun-style
// files: 20260101000001_name.up.sql (optional .down.sql; use .tx.up.sql to
// run a file in one transaction). Each set keeps its own bookkeeping tables,
// so packages (outbox, consumer, ...) and the service migrate independently.
type MigrationSet struct {
	Name string
	FS   fs.FS
}

// lockPoll is how often a process waiting for another's migration retries.
const lockPoll = 200 * time.Millisecond

// Migrate applies the unapplied migrations of each set, in order. Each set
// uses the tables bun_migrations_<name> and bun_migration_locks_<name> in
// the connection's schema. It is idempotent and safe when several processes
// start at once: a PostgreSQL advisory lock serialises them.
func Migrate(ctx context.Context, db *bun.DB, sets ...MigrationSet) error {
	for _, set := range sets {
		if err := migrateSet(ctx, db, set); err != nil {
			return fmt.Errorf("migrate %s: %w", set.Name, err)
		}
	}
	return nil
}

func migrateSet(ctx context.Context, db *bun.DB, set MigrationSet) (err error) {
	if !ValidIdentifier(set.Name) {
		return fmt.Errorf("migration set name %q must match [a-z_][a-z0-9_]*", set.Name)
	}
	if set.FS == nil {
		return errors.New("migration set has no FS")
	}
	migrations := migrate.NewMigrations()
	if err := migrations.Discover(set.FS); err != nil {
		return fmt.Errorf("discover: %w", err)
	}
	if len(migrations.Sorted()) == 0 {
		return errors.New("no *.up.sql files at the FS root")
	}

	unlock, err := advisoryLock(ctx, db, "pgdb.migrate."+set.Name)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()

	m := migrate.NewMigrator(db, migrations,
		migrate.WithTableName("bun_migrations_"+set.Name),
		migrate.WithLocksTableName("bun_migration_locks_"+set.Name),
		// A failed migration must stay unapplied so a fixed release retries it.
		migrate.WithMarkAppliedOnSuccess(true),
	)
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if err := m.Lock(ctx); err != nil {
		// We hold the advisory lock, so a lock row is a leftover of a
		// process that died mid-migration: clear it and take it again.
		if uerr := m.Unlock(ctx); uerr != nil {
			return fmt.Errorf("clear stale lock: %w", uerr)
		}
		if err := m.Lock(ctx); err != nil {
			return err
		}
	}
	defer func() {
		// A fresh context: the lock row must go even when ctx was cancelled.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if uerr := m.Unlock(uctx); uerr != nil {
			err = errors.Join(err, fmt.Errorf("unlock: %w", uerr))
		}
	}()
	if _, err := m.Migrate(ctx); err != nil {
		return err
	}
	return nil
}

// advisoryLock takes a session-level advisory lock keyed by the current
// schema and name on a dedicated connection, polling so ctx can cancel the
// wait. The returned func releases it.
func advisoryLock(ctx context.Context, db *bun.DB, name string) (func() error, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("advisory lock: %w", err)
	}
	const key = "hashtextextended(current_schema() || ':' || ?, 0)"
	for {
		var ok bool
		if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock("+key+")", name).Scan(&ok); err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("advisory lock: %w", err)
		}
		if ok {
			break
		}
		select {
		case <-ctx.Done():
			_ = conn.Close()
			return nil, fmt.Errorf("waiting for migration lock: %w", ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	return func() error {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_, err := conn.ExecContext(uctx, "SELECT pg_advisory_unlock("+key+")", name)
		return errors.Join(err, conn.Close())
	}, nil
}

// Embedded is the MigrationSet of the SQL files in dir of an embedded FS
// (`//go:embed migrations/*.sql`). A wrong dir is a programming error
// caught at start-up, hence the panic.
func Embedded(name string, files fs.FS, dir string) MigrationSet {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(fmt.Sprintf("pgdb: migrations %s: %v", name, err))
	}
	return MigrationSet{Name: name, FS: sub}
}
