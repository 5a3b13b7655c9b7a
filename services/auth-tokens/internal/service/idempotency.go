package service

import (
	"log/slog"

	"github.com/acctsuite/acct/pkg/idempotency"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/services/auth-tokens/internal/adapters/postgres"
	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"
)

// migrationSets lists the schema's migration sets, platform tables first.
func migrationSets() []pgdb.MigrationSet {
	return []pgdb.MigrationSet{outbox.Migrations, idempotency.Migrations, postgres.Migrations}
}

// idempotencyMiddleware guards creating POSTs with Idempotency-Key, scoped
// to the caller's client id (which authn puts in the locals).
func idempotencyMiddleware(db *bun.DB, logger *slog.Logger) fiber.Handler {
	return idempotency.Middleware(db, idempotency.Options{Logger: logger})
}
