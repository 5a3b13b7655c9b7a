// Package service wires auth-tokens onto the service kit: the key ring and
// the use cases on the kit's database, start-up work (signing keys, the
// bootstrap client), the key rotation loop, the HTTP routes and the admin
// command. The kit does the rest (see pkg/servicekit).
package service

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/idempotency"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/servicekit"
	authtokens "github.com/acctsuite/acct/services/auth-tokens"
	httpadapter "github.com/acctsuite/acct/services/auth-tokens/internal/adapters/http"
	"github.com/acctsuite/acct/services/auth-tokens/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/acctsuite/acct/services/auth-tokens/internal/config"
	"github.com/acctsuite/acct/services/auth-tokens/internal/signing"
)

// keySyncInterval is how often signing keys are checked for rotation.
const keySyncInterval = time.Minute

// Service holds what Setup built (tests reach the use cases through it).
type Service struct {
	App  *app.App
	Keys *app.KeyRing
}

// New describes auth-tokens to the kit; the returned Service is filled in
// when the kit runs Setup.
func New(cfg config.Config) (*Service, servicekit.Definition) {
	s := &Service{}
	return s, servicekit.Definition{
		Name:       config.ServiceName,
		Base:       &cfg.Base,
		Data:       &cfg.Data,
		Migrations: []pgdb.MigrationSet{postgres.Migrations},
		Produces:   []string{events.TopicBusiness},
		OpenAPI:    authtokens.OpenAPI,
		Setup:      func(ctx context.Context, k *servicekit.Kit) error { return s.setup(cfg, k) },
		Commands:   map[string]servicekit.Command{"admin": s.admin},
	}
}

func (s *Service) setup(cfg config.Config, k *servicekit.Kit) error {
	var err error
	if s.App, s.Keys, err = NewApp(cfg, k.DB(), k.Logger()); err != nil {
		return err
	}
	store := postgres.New(k.DB())
	// auth-tokens verifies with its own key ring and owns the businesses.
	k.SetVerifier(authn.NewVerifier(s.App.Keys(), authn.VerifierOptions{Issuer: cfg.TokenIssuer}))
	k.SetOwners(store)
	k.OnStart(func(ctx context.Context) error {
		if err := s.Keys.Sync(ctx); err != nil {
			return err
		}
		if cfg.BootstrapClientID == "" {
			return nil
		}
		if err := s.App.EnsureClient(ctx, cfg.BootstrapClientID, cfg.BootstrapClientName, cfg.BootstrapClientSecret); err != nil {
			return fmt.Errorf("bootstrap client: %w", err)
		}
		k.Logger().Info("bootstrap client ready", slog.String("client_id", cfg.BootstrapClientID))
		return nil
	})
	k.Go(func(ctx context.Context) { s.Keys.Run(ctx, keySyncInterval) })
	httpadapter.New(httpadapter.Options{
		App:         s.App,
		Verifier:    k.Verifier(),
		Owners:      store,
		Cursors:     k.Cursors(),
		Idempotency: k.Idempotency(),
		// Token answers are never stored for replay (they hold bearer tokens).
		TokenIdempotency: idempotency.Middleware(k.DB(), idempotency.Options{Logger: k.Logger(), NoStore: true}),
	}).Register(k.App())
	return nil
}

// NewApp builds the use cases and the key ring on db.
func NewApp(cfg config.Config, db *bun.DB, logger *slog.Logger) (*app.App, *app.KeyRing, error) {
	cipher, err := signing.NewCipher(cfg.EncryptionKey())
	if err != nil {
		return nil, nil, err
	}
	store := postgres.New(db)
	keys := app.NewKeyRing(store, cipher, app.KeyRingConfig{
		Issuer:      cfg.TokenIssuer,
		Rotation:    cfg.SigningKeyRotation,
		MaxLifetime: app.MaxTokenLifetime(cfg.BusinessTokenMaxSeconds),
		PublishLead: cfg.SigningKeyPublishLead,
	}, logger)
	a, err := app.New(app.Config{
		Issuer: cfg.TokenIssuer, BusinessTokenMaxSeconds: cfg.BusinessTokenMaxSeconds, SecretChecks: cfg.SecretChecks(),
	}, store, store, keys, logger)
	if err != nil {
		return nil, nil, err
	}
	return a, keys, nil
}
