package pgdb_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func open(t *testing.T, url, schema string) *bun.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := pgdb.Open(ctx, pgdb.Config{URL: url, Schema: schema, MaxConns: 5})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     pgdb.Config
		wantErr string
	}{
		{"ok", pgdb.Config{URL: "postgres://u@h:5432/d?sslmode=disable", Schema: "auth", MaxConns: 1}, ""},
		{"ok default schema", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 20}, ""},
		{"missing url", pgdb.Config{MaxConns: 1}, "DATABASE_URL is required"},
		{"bad scheme", pgdb.Config{URL: "mysql://u@h/d", MaxConns: 1}, "DATABASE_URL"},
		{"bad sslmode", pgdb.Config{URL: "postgres://u@h/d?sslmode=bogus", MaxConns: 1}, "DATABASE_URL"},
		{"upper-case schema", pgdb.Config{URL: "postgres://u@h/d", Schema: "Auth", MaxConns: 1}, "DB_SCHEMA"},
		{"injection schema", pgdb.Config{URL: "postgres://u@h/d", Schema: `a"; drop`, MaxConns: 1}, "DB_SCHEMA"},
		{"digit first", pgdb.Config{URL: "postgres://u@h/d", Schema: "1a", MaxConns: 1}, "DB_SCHEMA"},
		{"too long", pgdb.Config{URL: "postgres://u@h/d", Schema: strings.Repeat("a", 64), MaxConns: 1}, "DB_SCHEMA"},
		{"zero conns", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 0}, "DB_MAX_CONNS"},
		{"no lock timeout", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, LockTimeout: 0}, ""},
		{"longest lock timeout", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, LockTimeout: pgdb.MaxLockTimeout}, ""},
		{"negative lock timeout", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, LockTimeout: -time.Second}, "DB_LOCK_TIMEOUT"},
		{"lock timeout past the read timeout", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, LockTimeout: 10 * time.Second}, "DB_LOCK_TIMEOUT"},
		{"server's parallel workers", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, ParallelWorkers: -1}, ""},
		{"bad parallel workers", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, ParallelWorkers: -2}, "DB_PARALLEL_WORKERS"},
		{"timeouts and pool", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 4, MaxIdleConns: 2, StatementTimeout: time.Second,
			IdleInTransactionTimeout: time.Minute, ConnMaxIdleTime: time.Minute, ConnMaxLifetime: time.Hour, SSLMode: "require"}, ""},
		{"negative statement timeout", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, StatementTimeout: -time.Second}, "DB_STATEMENT_TIMEOUT"},
		{"negative idle-in-transaction timeout", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, IdleInTransactionTimeout: -time.Second}, "DB_IDLE_IN_TRANSACTION_TIMEOUT"},
		{"more idle than open", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 2, MaxIdleConns: 3}, "DB_MAX_IDLE_CONNS"},
		{"negative lifetime", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, ConnMaxLifetime: -time.Second}, "DB_CONN_MAX_LIFETIME"},
		{"unknown sslmode", pgdb.Config{URL: "postgres://u@h/d", MaxConns: 1, SSLMode: "strict"}, "DB_SSLMODE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestOpenUsesSchema(t *testing.T) {
	ctx := context.Background()
	url := testkit.NewDatabase(t)
	a := open(t, url, "svc_a")
	b := open(t, url, "svc_b")
	for _, db := range []*bun.DB{a, b} {
		if _, err := db.ExecContext(ctx, "CREATE TABLE things (id int PRIMARY KEY)"); err != nil {
			t.Fatalf("create table: %v", err)
		}
	}
	if _, err := a.ExecContext(ctx, "INSERT INTO things VALUES (1), (2)"); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var n int
	if err := b.QueryRowContext(ctx, "SELECT count(*) FROM things").Scan(&n); err != nil || n != 0 {
		t.Fatalf("svc_b sees %d rows (%v), want 0", n, err)
	}
	if err := a.QueryRowContext(ctx, "SELECT count(*) FROM svc_a.things").Scan(&n); err != nil || n != 2 {
		t.Fatalf("svc_a.things has %d rows (%v), want 2", n, err)
	}
	// Opening again with an existing schema is fine.
	open(t, url, "svc_a")
}

// TestLockTimeoutBoundsWaits: with DB_LOCK_TIMEOUT every connection has
// lock_timeout, so a transaction queued behind another's advisory lock
// fails with a contention error (the API's 503) within the bound instead
// of waiting until the driver's read timeout breaks the connection.
func TestLockTimeoutBoundsWaits(t *testing.T) {
	ctx := context.Background()
	url := testkit.NewDatabase(t)
	db, err := pgdb.Open(ctx, pgdb.Config{URL: url, Schema: "locks", MaxConns: 4, LockTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	var setting string
	if err := db.QueryRowContext(ctx, "SHOW lock_timeout").Scan(&setting); err != nil || setting != "300ms" {
		t.Fatalf("lock_timeout = %q (%v), want 300ms", setting, err)
	}
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, "SELECT pg_advisory_xact_lock(42)"); err != nil {
		t.Fatalf("holder lock: %v", err)
	}
	start := time.Now()
	err = pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(42)")
		return err
	})
	waited := time.Since(start)
	if !pgdb.Contended(err) {
		t.Fatalf("waiter error = %v, want a contention error", err)
	}
	if waited < 250*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("waiter gave up after %s, want about 300ms", waited)
	}
	ae := pgdb.Classify(err)
	if ae == nil || ae.Status() != 503 || ae.Enum != "Contention" {
		t.Fatalf("Classify(%v) = %+v, want a 503 Contention", err, ae)
	}
	if pgdb.Classify(errors.New("boom")) != nil || pgdb.Classify(nil) != nil {
		t.Fatal("Classify named an error that is not contention")
	}

	// Without a timeout the setting stays PostgreSQL's (no limit).
	unbounded := open(t, url, "locks")
	if err := unbounded.QueryRowContext(ctx, "SHOW lock_timeout").Scan(&setting); err != nil || setting != "0" {
		t.Fatalf("lock_timeout without DB_LOCK_TIMEOUT = %q (%v), want 0", setting, err)
	}
	// Parallel plans are off unless asked (ParallelWorkers 0 is the
	// Config's zero value and DB_PARALLEL_WORKERS's default).
	if err := db.QueryRowContext(ctx, "SHOW max_parallel_workers_per_gather").Scan(&setting); err != nil || setting != "0" {
		t.Fatalf("max_parallel_workers_per_gather = %q (%v), want 0", setting, err)
	}
	server, err := pgdb.Open(ctx, pgdb.Config{URL: url, Schema: "locks", MaxConns: 1, ParallelWorkers: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	if err := server.QueryRowContext(ctx, "SHOW max_parallel_workers_per_gather").Scan(&setting); err != nil || setting != "2" {
		t.Fatalf("max_parallel_workers_per_gather with -1 = %q (%v), want the server's 2", setting, err)
	}
}

func TestOpenFailsWithoutServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := pgdb.Open(ctx, pgdb.Config{URL: "postgres://u@127.0.0.1:1/d?sslmode=disable", MaxConns: 1})
	if err == nil {
		t.Fatal("Open against a closed port succeeded")
	}
}

func set(name string, files map[string]string) pgdb.MigrationSet {
	fsys := fstest.MapFS{}
	for k, v := range files {
		fsys[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return pgdb.MigrationSet{Name: name, FS: fsys}
}

func appliedNames(t *testing.T, db *bun.DB, set string) []string {
	t.Helper()
	var names []string
	if err := db.NewSelect().TableExpr("bun_migrations_"+set).Column("name").Order("name").
		Scan(context.Background(), &names); err != nil {
		t.Fatalf("read applied migrations: %v", err)
	}
	return names
}

func TestMigrateIdempotentAndIncremental(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "svc")
	files := map[string]string{
		"20260101000001_accounts.up.sql":   "CREATE TABLE accounts (id int PRIMARY KEY);\nCREATE INDEX accounts_id ON accounts (id);",
		"20260101000001_accounts.down.sql": "DROP TABLE accounts;",
		"20260101000002_more.tx.up.sql":    "ALTER TABLE accounts ADD COLUMN name text;\n--bun:split\nINSERT INTO accounts VALUES (1, 'a');",
		"README.md":                        "not a migration",
	}
	for i := 0; i < 2; i++ {
		if err := pgdb.Migrate(ctx, db, set("svc", files)); err != nil {
			t.Fatalf("migrate run %d: %v", i, err)
		}
	}
	if got := appliedNames(t, db, "svc"); strings.Join(got, ",") != "20260101000001,20260101000002" {
		t.Fatalf("applied = %v", got)
	}
	files["20260101000003_extra.up.sql"] = "INSERT INTO accounts VALUES (2, 'b');"
	if err := pgdb.Migrate(ctx, db, set("svc", files)); err != nil {
		t.Fatalf("incremental migrate: %v", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM svc.accounts").Scan(&n); err != nil || n != 2 {
		t.Fatalf("accounts rows = %d (%v), want 2 (each migration ran once)", n, err)
	}
}

func TestMigrateSetsAreIndependent(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "svc")
	a := set("outbox", map[string]string{"20260101000001_a.up.sql": "CREATE TABLE a (id int);"})
	b := set("service", map[string]string{"20260101000001_b.up.sql": "CREATE TABLE b (id int);"})
	if err := pgdb.Migrate(ctx, db, a, b); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	for _, s := range []string{"outbox", "service"} {
		if got := appliedNames(t, db, s); len(got) != 1 {
			t.Fatalf("set %s applied %v, want one migration with the same id as the other set", s, got)
		}
	}
}

func TestMigrateRejectsBadSets(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "svc")
	tests := []struct {
		name string
		set  pgdb.MigrationSet
	}{
		{"bad name", set("Bad-Name", map[string]string{"20260101000001_a.up.sql": "SELECT 1"})},
		{"nil fs", pgdb.MigrationSet{Name: "x"}},
		{"empty fs", set("x", map[string]string{"notes.txt": "x"})},
		{"bad file name", set("x", map[string]string{"abc_a.up.sql": "SELECT 1"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := pgdb.Migrate(ctx, db, tt.set); err == nil {
				t.Fatal("Migrate succeeded, want error")
			}
		})
	}
}

func TestMigrateFailureStaysUnapplied(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "svc")
	bad := set("svc", map[string]string{
		"20260101000001_ok.up.sql":  "CREATE TABLE ok (id int);",
		"20260101000002_bad.up.sql": "CREATE TABLE broken (id nosuchtype);",
	})
	if err := pgdb.Migrate(ctx, db, bad); err == nil {
		t.Fatal("broken migration succeeded")
	}
	if got := appliedNames(t, db, "svc"); strings.Join(got, ",") != "20260101000001" {
		t.Fatalf("applied after failure = %v, want only the first", got)
	}
	fixed := set("svc", map[string]string{
		"20260101000001_ok.up.sql":  "CREATE TABLE ok (id int);",
		"20260101000002_bad.up.sql": "CREATE TABLE broken (id int);",
	})
	// The failed run released its locks, so the fixed release proceeds.
	if err := pgdb.Migrate(ctx, db, fixed); err != nil {
		t.Fatalf("fixed migrate: %v", err)
	}
	if got := appliedNames(t, db, "svc"); len(got) != 2 {
		t.Fatalf("applied = %v, want both", got)
	}
}

func TestMigrateClearsStaleLock(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "svc")
	s := set("svc", map[string]string{"20260101000001_a.up.sql": "CREATE TABLE a (id int);"})
	if err := pgdb.Migrate(ctx, db, s); err != nil {
		t.Fatal(err)
	}
	// A process that died between Lock and Unlock leaves this row behind.
	if _, err := db.ExecContext(ctx,
		`INSERT INTO bun_migration_locks_svc (table_name) VALUES ('bun_migrations_svc')`); err != nil {
		t.Fatalf("plant stale lock: %v", err)
	}
	s.FS.(fstest.MapFS)["20260101000002_b.up.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE b (id int);")}
	if err := pgdb.Migrate(ctx, db, s); err != nil {
		t.Fatalf("migrate with stale lock: %v", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM bun_migration_locks_svc").Scan(&n); err != nil || n != 0 {
		t.Fatalf("lock rows = %d (%v), want 0", n, err)
	}
}

func TestMigrateConcurrentProcesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	url := testkit.NewDatabase(t)
	files := map[string]string{
		"20260101000001_a.up.sql": "CREATE TABLE a (id int PRIMARY KEY);",
		// Not idempotent: running twice would fail with a duplicate key.
		"20260101000002_b.up.sql": "INSERT INTO a VALUES (1);",
	}
	const procs = 4
	dbs := make([]*bun.DB, procs)
	for i := range dbs {
		dbs[i] = open(t, url, "shared")
	}
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := range dbs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = pgdb.Migrate(ctx, dbs[i], set("svc", files))
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent migrate: %v", err)
	}
	if got := appliedNames(t, dbs[0], "svc"); len(got) != 2 {
		t.Fatalf("applied = %v", got)
	}
}

func TestMigrateWaitHonoursContext(t *testing.T) {
	url := testkit.NewDatabase(t)
	holder := open(t, url, "svc")
	ctx := context.Background()
	conn, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx,
		"SELECT pg_advisory_lock(hashtextextended(current_schema() || ':' || 'pgdb.migrate.svc', 0))"); err != nil {
		t.Fatalf("hold lock: %v", err)
	}
	waiter := open(t, url, "svc")
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	err = pgdb.Migrate(short, waiter, set("svc", map[string]string{"20260101000001_a.up.sql": "SELECT 1;"}))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Migrate while locked = %v, want deadline exceeded", err)
	}
}

func TestInTxAndErrors(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "svc")
	if _, err := db.ExecContext(ctx, `CREATE TABLE u (id int PRIMARY KEY, p int REFERENCES u(id))`); err != nil {
		t.Fatal(err)
	}
	errBoom := errors.New("boom")
	err := pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO u VALUES (1, NULL)"); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("InTx = %v, want boom", err)
	}
	count := func() int {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM u").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("rolled back tx left %d rows", n)
	}
	if err := pgdb.InTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO u VALUES (1, NULL)")
		return err
	}); err != nil {
		t.Fatalf("InTx commit: %v", err)
	}
	if n := count(); n != 1 {
		t.Fatalf("committed tx left %d rows, want 1", n)
	}

	_, dupErr := db.ExecContext(ctx, "INSERT INTO u VALUES (1, NULL)")
	_, fkErr := db.ExecContext(ctx, "INSERT INTO u VALUES (2, 99)")
	tests := []struct {
		name   string
		err    error
		unique bool
	}{
		{"duplicate", dupErr, true},
		{"foreign key", fkErr, false},
		{"wrapped duplicate", errors.Join(errors.New("ctx"), dupErr), true},
		{"other", errBoom, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pgdb.IsUniqueViolation(tt.err); got != tt.unique {
				t.Errorf("IsUniqueViolation = %v, want %v", got, tt.unique)
			}
		})
	}
}

// TestIsRetryable checks real server errors raised with each SQLSTATE and
// the client-side errors of a lost connection.
func TestIsRetryable(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "")
	raise := func(code string) error {
		t.Helper()
		_, err := db.ExecContext(ctx, "DO $$ BEGIN RAISE EXCEPTION 'raised' USING ERRCODE = '"+code+"'; END $$")
		if err == nil || pgdb.SQLState(err) != code {
			t.Fatalf("raise %s: got %v", code, err)
		}
		return err
	}
	_, syntaxErr := db.ExecContext(ctx, "SELEC 1")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"serialization failure", raise("40001"), true},
		{"deadlock", raise("40P01"), true},
		{"lock not available", raise("55P03"), true},
		{"statement timeout", raise("57014"), true},
		{"connection failure", raise("08006"), true},
		{"admin shutdown", raise("57P01"), true},
		{"too many connections", raise("53300"), true},
		{"wrapped deadlock", fmt.Errorf("post entry: %w", raise("40P01")), true},
		{"bad connection", driver.ErrBadConn, true},
		{"connection done", sql.ErrConnDone, true},
		{"EOF", fmt.Errorf("read: %w", io.EOF), true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"unique violation", raise("23505"), false},
		{"check violation", raise("23514"), false},
		{"syntax error", syntaxErr, false},
		{"domain error", errors.New("ledger account missing"), false},
		{"no rows", sql.ErrNoRows, false},
		{"caller's deadline", fmt.Errorf("call bank: %w", context.DeadlineExceeded), false},
		{"network timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pgdb.IsRetryable(tt.err); got != tt.want {
				t.Errorf("IsRetryable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestReadyCheck(t *testing.T) {
	ctx := context.Background()
	db := open(t, testkit.NewDatabase(t), "")
	check := pgdb.ReadyCheck(db, pgdb.DefaultSchema)
	if err := check(ctx); err != nil {
		t.Fatalf("ready: %v", err)
	}
	// Connections whose search_path is another schema's (a pooler set up
	// for another service) are not ready.
	if err := pgdb.ReadyCheck(db, "ledger")(ctx); err == nil || !strings.Contains(err.Error(), `not "ledger"`) {
		t.Fatalf("ready with another schema = %v, want the schema named", err)
	}
	db.Close()
	if err := check(ctx); err == nil {
		t.Fatal("ready after close = nil, want error")
	}
}
