// Package pgdb opens the suite's PostgreSQL connections (Bun on pgdriver,
// one schema per service through search_path), runs embedded SQL migrations
// safely from several processes at once, and normalises database errors.
package pgdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Config is the database block of a service configuration.
type Config struct {
	URL            string `env:"DATABASE_URL,required"`
	Schema         string `env:"DB_SCHEMA"`
	MaxConns       int    `env:"DB_MAX_CONNS" envDefault:"20"`
	MigrateOnStart bool   `env:"MIGRATE_ON_START" envDefault:"true"`
	// LockTimeout bounds every wait for a lock (row, table or advisory
	// lock; PostgreSQL's lock_timeout on each connection): a request that
	// queues behind others gives up with SQLSTATE 55P03, which the HTTP
	// layer answers 503 with Retry-After, instead of holding a connection
	// until the driver's read timeout breaks it. 0 waits without limit.
	LockTimeout time.Duration `env:"DB_LOCK_TIMEOUT" envDefault:"5s"`
	// ParallelWorkers is max_parallel_workers_per_gather on each
	// connection. 0 (the default) plans every query serially: an API
	// request reads a few rows, and a parallel plan (which PostgreSQL picks
	// when it overestimates, e.g. rows from a set-returning function) costs
	// milliseconds of worker start-up per query and competes with the
	// other requests for the cores. -1 keeps the server's setting (a
	// reporting workload may want it).
	ParallelWorkers int `env:"DB_PARALLEL_WORKERS" envDefault:"0"`
	// SSLMode and SSLRootCert, when set, replace the URL's sslmode and
	// sslrootcert: for a URL that comes whole from a Secret and names
	// neither (CloudNativePG's), verify-full against a mounted CA.
	SSLMode     string `env:"DB_SSLMODE"`
	SSLRootCert string `env:"DB_SSLROOTCERT"`
	// StatementTimeout is statement_timeout on each connection (0: the
	// server's); IdleInTransactionTimeout is
	// idle_in_transaction_session_timeout (0: the server's), which ends a
	// session a bug left in an open transaction, with its locks.
	StatementTimeout         time.Duration `env:"DB_STATEMENT_TIMEOUT" envDefault:"0"`
	IdleInTransactionTimeout time.Duration `env:"DB_IDLE_IN_TRANSACTION_TIMEOUT" envDefault:"1m"`
	// MaxIdleConns is how many idle connections the pool keeps (0:
	// MaxConns); ConnMaxIdleTime closes a connection idle that long, and
	// ConnMaxLifetime one that old (0: never), so a pool shrinks after a
	// burst and spreads over new servers (failover, PgBouncer) in time.
	MaxIdleConns    int           `env:"DB_MAX_IDLE_CONNS" envDefault:"0"`
	ConnMaxIdleTime time.Duration `env:"DB_CONN_MAX_IDLE_TIME" envDefault:"5m"`
	ConnMaxLifetime time.Duration `env:"DB_CONN_MAX_LIFETIME" envDefault:"30m"`
}

// sslModes are the sslmode values pgdriver supports.
var sslModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// MaxLockTimeout is the longest LockTimeout accepted: below the driver's
// 10 s read timeout, so a lock wait always ends as a database error, never
// as a broken connection.
const MaxLockTimeout = 9 * time.Second

// DefaultSchema is used when Config.Schema is empty.
const DefaultSchema = "public"

var identRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// ValidIdentifier reports whether s is a safe unquoted PostgreSQL name
// (lower case, at most 63 bytes); schema and migration set names must be.
func ValidIdentifier(s string) bool { return identRE.MatchString(s) }

// Validate checks the configuration without connecting.
func (c Config) Validate() error {
	if c.URL == "" {
		return errors.New("DATABASE_URL is required")
	}
	if _, err := dsnOption(c.URL); err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	if c.SSLMode != "" && !slices.Contains(sslModes, c.SSLMode) {
		return fmt.Errorf("DB_SSLMODE %q: must be one of %s", c.SSLMode, strings.Join(sslModes, ", "))
	}
	if _, err := c.dsn(); err != nil {
		return fmt.Errorf("DB_SSLMODE/DB_SSLROOTCERT: %w", err)
	}
	if c.StatementTimeout < 0 || c.IdleInTransactionTimeout < 0 {
		return errors.New("DB_STATEMENT_TIMEOUT and DB_IDLE_IN_TRANSACTION_TIMEOUT must not be negative (0: the server's)")
	}
	if c.MaxIdleConns < 0 || c.MaxIdleConns > max(c.MaxConns, 1) {
		return fmt.Errorf("DB_MAX_IDLE_CONNS %d: must be between 0 (DB_MAX_CONNS) and DB_MAX_CONNS", c.MaxIdleConns)
	}
	if c.ConnMaxIdleTime < 0 || c.ConnMaxLifetime < 0 {
		return errors.New("DB_CONN_MAX_IDLE_TIME and DB_CONN_MAX_LIFETIME must not be negative (0: never)")
	}
	if c.Schema != "" && !ValidIdentifier(c.Schema) {
		return fmt.Errorf("DB_SCHEMA %q: must match [a-z_][a-z0-9_]* (at most 63 characters)", c.Schema)
	}
	if c.MaxConns < 1 {
		return fmt.Errorf("DB_MAX_CONNS %d: must be at least 1", c.MaxConns)
	}
	if c.LockTimeout < 0 || c.LockTimeout > MaxLockTimeout {
		return fmt.Errorf("DB_LOCK_TIMEOUT %s: must be between 0 and %s", c.LockTimeout, MaxLockTimeout)
	}
	if c.ParallelWorkers < -1 || c.ParallelWorkers > 64 {
		return fmt.Errorf("DB_PARALLEL_WORKERS %d: must be -1 (server setting) or between 0 and 64", c.ParallelWorkers)
	}
	return nil
}

// dsn is the URL with SSLMode and SSLRootCert applied.
func (c Config) dsn() (pgdriver.Option, error) {
	if c.SSLMode == "" && c.SSLRootCert == "" {
		return dsnOption(c.URL)
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("invalid PostgreSQL URL: %w", err)
	}
	q := u.Query()
	if c.SSLMode != "" {
		q.Set("sslmode", c.SSLMode)
	}
	if c.SSLRootCert != "" {
		q.Set("sslrootcert", c.SSLRootCert)
	}
	u.RawQuery = q.Encode()
	return dsnOption(u.String())
}

// dsnOption parses the URL up front: pgdriver.WithDSN panics on bad input.
func dsnOption(dsn string) (opt pgdriver.Option, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid PostgreSQL URL: %v", r)
		}
	}()
	opt = pgdriver.WithDSN(dsn)
	opt(&pgdriver.Config{})
	return opt, nil
}

// Open connects to cfg.URL, creates cfg.Schema if missing and makes it the
// search_path of every connection of the pool. Connections probe their peer
// with TCP keepalives (see keepAliveDialer).
func Open(ctx context.Context, cfg Config) (*bun.DB, error) {
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 20
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	schema := cfg.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	dsn, _ := cfg.dsn()
	connector := pgdriver.NewConnector(dsn, func(c *pgdriver.Config) {
		// Merge rather than replace: the URL may carry its own parameters.
		params := make(map[string]any, len(c.ConnParams)+1)
		for k, v := range c.ConnParams {
			params[k] = v
		}
		params["search_path"] = schema
		if cfg.LockTimeout > 0 {
			params["lock_timeout"] = fmt.Sprintf("%dms", cfg.LockTimeout.Milliseconds())
		}
		if cfg.ParallelWorkers >= 0 {
			params["max_parallel_workers_per_gather"] = fmt.Sprint(cfg.ParallelWorkers)
		}
		if cfg.StatementTimeout > 0 {
			params["statement_timeout"] = fmt.Sprintf("%dms", cfg.StatementTimeout.Milliseconds())
		}
		if cfg.IdleInTransactionTimeout > 0 {
			params["idle_in_transaction_session_timeout"] = fmt.Sprintf("%dms", cfg.IdleInTransactionTimeout.Milliseconds())
		}
		c.ConnParams = params
		c.Dialer = keepAliveDialer(c)
	})
	sqldb := sql.OpenDB(connector)
	sqldb.SetMaxOpenConns(cfg.MaxConns)
	idle := cfg.MaxIdleConns
	if idle == 0 {
		idle = cfg.MaxConns
	}
	sqldb.SetMaxIdleConns(idle)
	sqldb.SetConnMaxIdleTime(cfg.ConnMaxIdleTime)
	sqldb.SetConnMaxLifetime(cfg.ConnMaxLifetime)
	db := bun.NewDB(sqldb, pgdialect.New())

	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	if schema != DefaultSchema {
		if err := ensureSchema(ctx, db, schema); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	return db, nil
}

// keepAliveDialer is pgdriver's dialer with TCP keepalive probes after 10 s
// of silence, 5 s apart, 3 of them: a server that vanished without closing
// the connection (host down, network partition) is noticed within about
// 25 s instead of pgdriver's 5-minute keepalive period or the OS's hours.
// That matters most for connections that sit idle in a read, such as
// LISTEN, and for the outbox relay's lock session, whose loss hands
// leadership over.
func keepAliveDialer(c *pgdriver.Config) func(ctx context.Context, network, addr string) (net.Conn, error) {
	keepAlive := net.KeepAliveConfig{Enable: true, Idle: 10 * time.Second, Interval: 5 * time.Second, Count: 3}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{Timeout: c.DialTimeout, KeepAliveConfig: keepAlive}
		return d.DialContext(ctx, network, addr)
	}
}

func ensureSchema(ctx context.Context, db *bun.DB, schema string) error {
	_, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS ?", bun.Ident(schema))
	// Two processes creating the schema at once race on the catalog's unique
	// index even with IF NOT EXISTS; the loser finds it made.
	if err != nil && !IsUniqueViolation(err) {
		return fmt.Errorf("create schema %s: %w", schema, err)
	}
	return nil
}

// InTx runs fn in a transaction (a savepoint when db is already a
// transaction, or when ctx's unit of work or deferred request transaction
// encloses it: Enclosing), committing when fn returns nil and rolling back
// otherwise.
func InTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context, tx bun.Tx) error) error {
	conn, err := Enclosing(ctx, db)
	if err != nil {
		return err
	}
	return RunInTx(ctx, conn, fn)
}

// SQLState is the PostgreSQL error code of err ("" when err is not a server error).
func SQLState(err error) string {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C')
	}
	return ""
}

// PostgreSQL error codes the suite reacts to.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
	codeCheckViolation      = "23514"
	codeSerialization       = "40001" // serialization_failure
	codeDeadlock            = "40P01" // deadlock_detected
	codeLockNotAvailable    = "55P03" // lock_not_available (lock_timeout, NOWAIT)
	codeQueryCanceled       = "57014" // query_canceled (statement_timeout)
	codeTooManyConnections  = "53300" // too_many_connections
)

// Constraint is the name of the constraint err violated, if any (to tell
// which unique index a duplicate hit).
func Constraint(err error) string {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('n')
	}
	return ""
}

// IsUniqueViolation reports a duplicate key (SQLSTATE 23505).
func IsUniqueViolation(err error) bool { return SQLState(err) == codeUniqueViolation }

// IsForeignKeyViolation reports a missing referenced row (SQLSTATE 23503).
func IsForeignKeyViolation(err error) bool { return SQLState(err) == codeForeignKeyViolation }

// IsCheckViolation reports a failed CHECK or constraint trigger raised with
// SQLSTATE 23514 (the ledger's balance trigger).
func IsCheckViolation(err error) bool { return SQLState(err) == codeCheckViolation }

// IsRetryable reports errors that say nothing about the statement and that
// the same transaction, run again a little later, can get past: conflicts
// with concurrent transactions (serialization failure, deadlock, lock or
// statement timeout), a server that is restarting or full (57P01-57P03,
// 53300, class 08), and a lost connection (driver.ErrBadConn, EOF, network
// errors). Event consumers retry these without limit instead of treating
// them as a bad event.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	switch s := SQLState(err); {
	case s == codeSerialization, s == codeDeadlock, s == codeLockNotAvailable, s == codeQueryCanceled,
		s == codeTooManyConnections:
		return true
	case strings.HasPrefix(s, "08"): // connection exception
		return true
	case s == "57P01", s == "57P02", s == "57P03": // admin/crash shutdown, cannot connect now
		return true
	case s != "":
		return false // any other server error is about the statement
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false // the caller's deadline, not the database (and a net.Error look-alike)
	}
	var netErr net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &netErr)
}

// Contended reports the errors of a transaction that lost to concurrent
// ones and would pass if sent again: a lock wait over lock_timeout, a
// serialization failure, a deadlock, or no connection slot left.
func Contended(err error) bool {
	switch SQLState(err) {
	case codeLockNotAvailable, codeSerialization, codeDeadlock, codeTooManyConnections:
		return true
	}
	return false
}

// Classify turns a contended transaction's error into the API's 503
// (httpx.Options.Classify): the request did nothing and may be retried
// after the Retry-After the HTTP layer adds. Other errors are left alone
// (nil).
func Classify(err error) *apperr.Error {
	if !Contended(err) {
		return nil
	}
	return apperr.Wrap(apperr.Unavailable, err, "the database is busy with concurrent changes to the same data; nothing was changed, retry later").
		WithEnum("Contention")
}

// ReadyCheck is a readiness probe for httpx.Health.
func ReadyCheck(db *bun.DB) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := db.PingContext(ctx); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		return nil
	}
}
