// Package postgres is the webhooks service's store on PostgreSQL (Bun),
// with the embedded schema migrations (migrations/). Endpoints are scoped
// by their platform's client id; their secrets are sealed at rest.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"sync"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/secretbox"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's own tables (schema webhooks).
var Migrations = pgdb.Embedded("webhooks", migrationFiles, "migrations")

// NotifyChannel is the PostgreSQL channel a commit that enqueued
// deliveries notifies (the dispatchers listen to it).
const NotifyChannel = "webhooks_due"

// Store implements app.Store on db: every method runs in the unit of
// work's transaction when its context carries one (pgdb.Conn).
type Store struct {
	db        *bun.DB
	box       *secretbox.Box
	endpoints endpointCache
	// spread is how many lanes an unordered endpoint's deliveries take
	// in turn (turns: the next of each endpoint, *atomic.Uint64 by id).
	spread int
	turns  sync.Map
}

// New makes the store on db; box seals the endpoints' secrets.
func New(db *bun.DB, box *secretbox.Box) *Store { return &Store{db: db, box: box, spread: 8} }

func (s *Store) conn(ctx context.Context) bun.IDB { return pgdb.Conn(ctx, s.db) }

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// secretAAD binds a sealed secret to its endpoint and role.
func secretAAD(id uuid.UUID, role string) []byte {
	return []byte("webhooks/endpoint/" + id.String() + "/" + role)
}

func (s *Store) seal(id uuid.UUID, role, secret string) ([]byte, error) {
	return s.box.Seal([]byte(secret), secretAAD(id, role))
}

func (s *Store) open(id uuid.UUID, role string, sealed []byte) (string, error) {
	b, err := s.box.Open(sealed, secretAAD(id, role))
	if err != nil {
		return "", fmt.Errorf("open the %s of endpoint %s (is WEBHOOKS_SECRET_KEY the key it was sealed with?): %w", role, id, err)
	}
	return string(b), nil
}
