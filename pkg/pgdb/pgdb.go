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
	// DirectURL, when set, says that URL goes through a transaction-mode
	// pooler (PgBouncer pool_mode=transaction, a managed pooler) and is a
	// direct connection to the server for what needs one session: the
	// outbox relay's advisory-lock leadership, LISTEN, migrations and
	// their lock. The pooled connections then carry no session
	// parameters (a pooler refuses them, and could not keep them): the
	// pooler's server connections must have search_path set to the
	// service's schema (and should have the timeouts), which Open checks.
	// DirectMaxConns bounds the direct pool.
	DirectURL      string `env:"DATABASE_DIRECT_URL"`
	DirectMaxConns int    `env:"DB_DIRECT_MAX_CONNS" envDefault:"4"`
}

// Pooled reports whether URL goes through a transaction-mode pooler
// (DirectURL is set).
func (c Config) Pooled() bool { return c.DirectURL != "" }

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
	if c.DirectURL != "" {
		if _, err := c.dsnOf(c.DirectURL); err != nil {
			return fmt.Errorf("DATABASE_DIRECT_URL with DB_SSLMODE/DB_SSLROOTCERT: %w", err)
		}
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
	if c.DirectURL != "" {
		if _, err := dsnOption(c.DirectURL); err != nil {
			return fmt.Errorf("DATABASE_DIRECT_URL: %w", err)
		}
		if c.DirectMaxConns < 2 {
			// The relay's leader session and its LISTEN connection.
			return fmt.Errorf("DB_DIRECT_MAX_CONNS %d: must be at least 2", c.DirectMaxConns)
		}
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
func (c Config) dsn() (pgdriver.Option, error) { return c.dsnOf(c.URL) }

// dsnOf is raw (URL or DirectURL) with SSLMode and SSLRootCert applied.
func (c Config) dsnOf(raw string) (pgdriver.Option, error) {
	if c.SSLMode == "" && c.SSLRootCert == "" {
		return dsnOption(raw)
	}
	u, err := url.Parse(raw)
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
//
// When cfg.Pooled (DATABASE_DIRECT_URL is set), cfg.URL is a
// transaction-mode pooler: the pool sends no session parameters, and Open
// fails unless the pooler's server connections already have the schema as
// their search_path (PoolerDrift tells which other settings differ). Use
// OpenSession for what needs a session of its own.
func Open(ctx context.Context, cfg Config) (*bun.DB, error) {
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 20
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Pooled() {
		db, err := open(ctx, cfg, cfg.URL, cfg.MaxConns, true)
		if err != nil {
			return nil, err
		}
		if err := checkSession(ctx, db); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("DATABASE_URL: %w: set DATABASE_DIRECT_URL to a direct connection to PostgreSQL "+
				"for what needs a session, and set this service's search_path on the pooler", err)
		}
		return db, nil
	}
	db, err := open(ctx, cfg, cfg.URL, cfg.MaxConns, false)
	if err != nil {
		return nil, err
	}
	if err := CheckSchema(ctx, db, cfg.SchemaName()); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("%w: behind a transaction pooler (DATABASE_DIRECT_URL is set) the pooler's server "+
			"connections must have search_path set to %s, e.g. PgBouncer's connect_query='SET search_path TO %s' "+
			"on this service's database entry, or ALTER ROLE <its own role> SET search_path TO %s",
			err, cfg.SchemaName(), cfg.SchemaName(), cfg.SchemaName())
	}
	return db, nil
}

// OpenSession opens the connections that need a server session of their
// own, which a transaction-mode pooler cannot give (session advisory locks,
// LISTEN, session settings): to cfg.DirectURL with at most
// cfg.DirectMaxConns connections when it is set, otherwise the same as
// Open.
func OpenSession(ctx context.Context, cfg Config) (*bun.DB, error) {
	if !cfg.Pooled() {
		return Open(ctx, cfg)
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 20
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	db, err := open(ctx, cfg, cfg.DirectURL, cfg.DirectMaxConns, true)
	if err != nil {
		return nil, err
	}
	if err := checkSession(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("DATABASE_DIRECT_URL: %w: it must reach PostgreSQL directly, not through the pooler", err)
	}
	return db, nil
}

// errNoSession says a connection does not keep its session between
// statements.
var errNoSession = errors.New("the connection does not keep its session between statements " +
	"(a transaction-mode pooler such as PgBouncer with pool_mode=transaction)")

// sessionProbeWait is how long checkSession waits for the second
// statement: a direct session answers at once (this leaves room for a
// loaded machine), a pooler with no server connection to spare makes it
// wait (one with spare connections answers at once without the marker).
const sessionProbeWait = 8 * time.Second

// checkSession fails when db's connections do not keep their server
// session between statements, which is what a transaction-mode pooler
// does: their session settings (search_path, timeouts), session advisory
// locks and LISTEN would silently apply to whatever server connection
// served one statement. It sets a marker on one connection, has a second
// connection hold a transaction (which takes the server connection the
// first just released: PgBouncer reuses the most recent one), and reads
// the marker back on the first. A direct session reads it at once; behind
// a pooler the read lands on another server connection (no marker) or
// waits for one. It needs two connections; a pool of one is not checked.
func checkSession(ctx context.Context, db *bun.DB) error {
	if db.DB.Stats().MaxOpenConnections == 1 {
		return nil
	}
	marker, holder, err := twoConns(ctx, db)
	if err != nil {
		return err
	}
	defer marker.Close()
	defer holder.Close()
	token := fmt.Sprintf("%d", time.Now().UnixNano())
	if _, err := marker.ExecContext(ctx, "SELECT set_config('acct.session_probe', ?, false)", token); err != nil {
		return fmt.Errorf("session check: %w", err)
	}
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("session check: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "SELECT 1"); err != nil {
		return fmt.Errorf("session check: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, sessionProbeWait)
	defer cancel()
	var got sql.NullString
	err = marker.QueryRowContext(rctx, "SELECT current_setting('acct.session_probe', true)").Scan(&got)
	switch {
	case rctx.Err() != nil && ctx.Err() == nil:
		return errNoSession
	case err != nil:
		return fmt.Errorf("session check: %w", err)
	case got.String != token:
		return errNoSession
	}
	return nil
}

func twoConns(ctx context.Context, db *bun.DB) (bun.Conn, bun.Conn, error) {
	a, err := db.Conn(ctx)
	if err != nil {
		return bun.Conn{}, bun.Conn{}, fmt.Errorf("session check: %w", err)
	}
	b, err := db.Conn(ctx)
	if err != nil {
		_ = a.Close()
		return bun.Conn{}, bun.Conn{}, fmt.Errorf("session check: %w", err)
	}
	return a, b, nil
}

// SchemaName is Schema, or DefaultSchema when it is empty.
func (c Config) SchemaName() string {
	if c.Schema == "" {
		return DefaultSchema
	}
	return c.Schema
}

// sessionParams are the settings every connection of a service's pool has,
// sent as startup parameters on a direct connection; behind a pooler, its
// server connections must carry them (PoolerDrift).
func (c Config) sessionParams() map[string]string {
	params := map[string]string{"search_path": c.SchemaName()}
	if c.LockTimeout > 0 {
		params["lock_timeout"] = fmt.Sprintf("%dms", c.LockTimeout.Milliseconds())
	}
	if c.ParallelWorkers >= 0 {
		params["max_parallel_workers_per_gather"] = fmt.Sprint(c.ParallelWorkers)
	}
	if c.StatementTimeout > 0 {
		params["statement_timeout"] = fmt.Sprintf("%dms", c.StatementTimeout.Milliseconds())
	}
	if c.IdleInTransactionTimeout > 0 {
		params["idle_in_transaction_session_timeout"] = fmt.Sprintf("%dms", c.IdleInTransactionTimeout.Milliseconds())
	}
	return params
}

func open(ctx context.Context, cfg Config, rawURL string, maxConns int, session bool) (*bun.DB, error) {
	schema := cfg.SchemaName()
	dsn, _ := cfg.dsnOf(rawURL)
	connector := pgdriver.NewConnector(dsn, func(c *pgdriver.Config) {
		// Merge rather than replace: the URL may carry its own parameters.
		params := make(map[string]any, len(c.ConnParams)+5)
		for k, v := range c.ConnParams {
			params[k] = v
		}
		if session {
			for k, v := range cfg.sessionParams() {
				params[k] = v
			}
		}
		c.ConnParams = params
		c.Dialer = keepAliveDialer(c)
	})
	sqldb := sql.OpenDB(connector)
	sqldb.SetMaxOpenConns(maxConns)
	idle := cfg.MaxIdleConns
	if idle == 0 || idle > maxConns {
		idle = maxConns
	}
	sqldb.SetMaxIdleConns(idle)
	sqldb.SetConnMaxIdleTime(cfg.ConnMaxIdleTime)
	sqldb.SetConnMaxLifetime(cfg.ConnMaxLifetime)
	db := bun.NewDB(sqldb, pgdialect.New())

	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		if strings.Contains(err.Error(), "unsupported startup parameter") {
			return nil, fmt.Errorf("connect to postgres: %w (this server is a connection pooler such as PgBouncer: "+
				"set DATABASE_DIRECT_URL to a direct connection to PostgreSQL, for what needs a session, and keep "+
				"DATABASE_URL on the pooler)", err)
		}
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

// CheckSchema fails unless the connection's current schema is schema: a
// pooler that drops the search_path startup parameter, or server
// connections set up for another service, would otherwise have every
// query read and write the wrong tables (or none).
func CheckSchema(ctx context.Context, db bun.IDB, schema string) error {
	var got sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&got); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if got.String != schema {
		return fmt.Errorf("postgres: the connection's current schema is %q, not %q", got.String, schema)
	}
	return nil
}

// PoolerDrift lists the session settings a pooled connection (Open with
// DATABASE_DIRECT_URL) has that differ from what cfg asks for (lock and
// statement timeouts, parallel workers), each as "name: have X, want Y";
// a service logs them at start. Timeouts are compared in milliseconds.
func PoolerDrift(ctx context.Context, db bun.IDB, cfg Config) ([]string, error) {
	want := cfg.sessionParams()
	delete(want, "search_path") // Open checks it
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	var drift []string
	for _, n := range names {
		var have string
		if err := db.QueryRowContext(ctx, "SELECT setting FROM pg_settings WHERE name = ?", n).Scan(&have); err != nil {
			return nil, fmt.Errorf("postgres: read %s: %w", n, err)
		}
		w := strings.TrimSuffix(want[n], "ms")
		if have != w {
			drift = append(drift, fmt.Sprintf("%s: have %s, want %s", n, have, w))
		}
	}
	return drift, nil
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

// ReadyCheck is a readiness probe for httpx.Health: the database answers,
// with schema as the connection's current schema (CheckSchema), so a pooler
// handing out server connections set up for something else fails the probe
// instead of the requests.
func ReadyCheck(db *bun.DB, schema string) func(ctx context.Context) error {
	return func(ctx context.Context) error { return CheckSchema(ctx, db, schema) }
}
