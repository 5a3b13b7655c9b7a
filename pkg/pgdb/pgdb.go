// Package pgdb opens the suite's PostgreSQL connections (Bun on pgdriver,
// one schema per service through search_path), runs embedded SQL migrations
// safely from several processes at once, and normalises database errors.
package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Config is the database block of a service configuration.
type Config struct {
	URL            string `env:"DATABASE_URL,required"`
	Schema         string `env:"DB_SCHEMA"`
	MaxConns       int    `env:"DB_MAX_CONNS" envDefault:"20"`
	MigrateOnStart bool   `env:"MIGRATE_ON_START" envDefault:"true"`
}

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
	if c.Schema != "" && !ValidIdentifier(c.Schema) {
		return fmt.Errorf("DB_SCHEMA %q: must match [a-z_][a-z0-9_]* (at most 63 characters)", c.Schema)
	}
	if c.MaxConns < 1 {
		return fmt.Errorf("DB_MAX_CONNS %d: must be at least 1", c.MaxConns)
	}
	return nil
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
// search_path of every connection of the pool.
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
	dsn, _ := dsnOption(cfg.URL)
	connector := pgdriver.NewConnector(dsn, func(c *pgdriver.Config) {
		// Merge rather than replace: the URL may carry its own parameters.
		params := make(map[string]any, len(c.ConnParams)+1)
		for k, v := range c.ConnParams {
			params[k] = v
		}
		params["search_path"] = schema
		c.ConnParams = params
	})
	sqldb := sql.OpenDB(connector)
	sqldb.SetMaxOpenConns(cfg.MaxConns)
	sqldb.SetMaxIdleConns(cfg.MaxConns)
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
// transaction), committing when fn returns nil and rolling back otherwise.
func InTx(ctx context.Context, db bun.IDB, fn func(ctx context.Context, tx bun.Tx) error) error {
	return db.RunInTx(ctx, nil, fn)
}

// SQLState is the PostgreSQL error code of err ("" when err is not a server error).
func SQLState(err error) string {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C')
	}
	return ""
}

// Constraint is the name of the constraint err violated, if any.
func Constraint(err error) string {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('n')
	}
	return ""
}

// PostgreSQL error codes the suite reacts to.
const (
	CodeUniqueViolation     = "23505"
	CodeForeignKeyViolation = "23503"
	CodeCheckViolation      = "23514"
	CodeSerialization       = "40001"
	CodeDeadlock            = "40P01"
)

// IsUniqueViolation reports a duplicate key (SQLSTATE 23505).
func IsUniqueViolation(err error) bool { return SQLState(err) == CodeUniqueViolation }

// IsForeignKeyViolation reports a missing referenced row (SQLSTATE 23503).
func IsForeignKeyViolation(err error) bool { return SQLState(err) == CodeForeignKeyViolation }

// IsRetryable reports serialization failures and deadlocks, which succeed
// when the transaction is retried.
func IsRetryable(err error) bool {
	s := SQLState(err)
	return s == CodeSerialization || s == CodeDeadlock
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
