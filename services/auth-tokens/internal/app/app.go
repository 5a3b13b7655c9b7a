// Package app holds the auth-tokens use cases: client credentials, token
// issuance, businesses and signing-key rotation. It depends on the stores it
// declares here, never on HTTP or SQL.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/auth-tokens/internal/credentials"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
	"github.com/google/uuid"
)

// EventSource is the CloudEvents source of the events this service publishes.
const EventSource = "acct/auth-tokens"

// PlatformTokenTTL is the lifetime of client-credentials tokens (the spec's 3600 s).
const PlatformTokenTTL = time.Hour

// DefaultBusinessTokenTTL is session_duration when the caller gives none.
const DefaultBusinessTokenTTL = time.Hour

// MinBusinessTokenSeconds is the smallest session_duration accepted.
const MinBusinessTokenSeconds = 60

// ClientStore persists platform clients.
type ClientStore interface {
	FindClient(ctx context.Context, id string) (domain.Client, bool, error)
	CreateClient(ctx context.Context, c domain.Client) error
	// UpsertClient creates c or replaces the name and secret hash of the
	// client with its id.
	UpsertClient(ctx context.Context, c domain.Client) error
}

// BusinessFilter restricts a business listing.
type BusinessFilter struct {
	ClientID   string     // owner; always set
	BusinessID *uuid.UUID // business tokens see only their business
}

// BusinessStore persists businesses; writes enqueue their events in the
// same transaction (transactional outbox).
type BusinessStore interface {
	// CreateBusiness inserts b and evt. When the client already has a
	// business with b's external id it writes nothing and returns that
	// business with created false.
	CreateBusiness(ctx context.Context, b domain.Business, evt func(domain.Business) (events.Event, error)) (domain.Business, bool, error)
	FindBusiness(ctx context.Context, id uuid.UUID) (domain.Business, bool, error)
	FindBusinesses(ctx context.Context, f BusinessFilter, p page.Params) ([]domain.Business, page.Meta, error)
	// UpdateBusiness loads the business under a row lock, lets fn change it
	// and saves it with the events fn returns, all in one transaction.
	UpdateBusiness(ctx context.Context, id uuid.UUID, fn func(*domain.Business) ([]events.Event, error)) (domain.Business, error)
	OwnerOf(ctx context.Context, id uuid.UUID) (string, bool, error)
}

// Config holds the use cases' settings.
type Config struct {
	Issuer                  string
	BusinessTokenMaxSeconds int
	HashParams              credentials.Params // for new secrets; DefaultParams when zero
	// SecretChecks bounds concurrent argon2id checks on the token endpoint
	// and sets the verified-secret cache (zero values: the defaults).
	SecretChecks credentials.CheckerOptions
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// App is the set of use cases.
type App struct {
	clients    ClientStore
	businesses BusinessStore
	keys       *KeyRing
	checker    *credentials.Checker
	cfg        Config
	log        *slog.Logger
	clk        clock.Clock
}

// New assembles the use cases.
func New(cfg Config, clients ClientStore, businesses BusinessStore, keys *KeyRing, logger *slog.Logger) (*App, error) {
	if cfg.HashParams == (credentials.Params{}) {
		cfg.HashParams = credentials.DefaultParams
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	checker, err := credentials.NewChecker(cfg.HashParams, cfg.SecretChecks)
	if err != nil {
		return nil, err
	}
	// Microseconds: what PostgreSQL keeps, so a create answers the same
	// timestamps a later read does.
	return &App{clients: clients, businesses: businesses, keys: keys, checker: checker, cfg: cfg, log: logger, clk: clock.Fixed(cfg.Now)}, nil
}

// now is the time a use case stamps (pkg/clock: UTC, microseconds).
func (a *App) now() time.Time { return a.clk.Now() }

// Keys is the signing key ring.
func (a *App) Keys() *KeyRing { return a.keys }

// MaxTokenLifetime is the longest lifetime of any token this service issues;
// retired signing keys stay published that long.
func MaxTokenLifetime(businessTokenMaxSeconds int) time.Duration {
	return max(PlatformTokenTTL, time.Duration(businessTokenMaxSeconds)*time.Second)
}

// newID returns a time-ordered UUID (v7) for new rows.
func newID() (uuid.UUID, error) { return uuid.NewV7() }
