// Package service wires auth-tokens together: configuration → database →
// migrations → signing keys → bootstrap client → outbox relay → HTTP, and
// stops it in reverse order, flushing the outbox.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/telemetry"
	authtokens "github.com/acctsuite/acct/services/auth-tokens"
	httpadapter "github.com/acctsuite/acct/services/auth-tokens/internal/adapters/http"
	"github.com/acctsuite/acct/services/auth-tokens/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/acctsuite/acct/services/auth-tokens/internal/config"
	"github.com/acctsuite/acct/services/auth-tokens/internal/signing"
	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"
)

// keySyncInterval is how often signing keys are checked for rotation.
const keySyncInterval = time.Minute

// Service is the running auth-tokens.
type Service struct {
	cfg       config.Config
	log       *slog.Logger
	db        *bun.DB
	app       *app.App
	keys      *app.KeyRing
	pub       *outbox.KafkaPublisher
	relay     *outbox.Relay
	http      *fiber.App
	telemetry func(context.Context) error
}

// Migrate applies every migration set the service needs.
func Migrate(ctx context.Context, db *bun.DB) error {
	return pgdb.Migrate(ctx, db, migrationSets()...)
}

// OpenDB opens the service's database (for the migrate and admin commands).
func OpenDB(ctx context.Context, cfg config.Config) (*bun.DB, error) {
	return pgdb.Open(ctx, cfg.DB)
}

// NewApp builds the use cases on db without HTTP or relay (admin command).
func NewApp(ctx context.Context, cfg config.Config, db *bun.DB, logger *slog.Logger) (*app.App, *app.KeyRing, error) {
	cipher, err := signing.NewCipher(cfg.EncryptionKey())
	if err != nil {
		return nil, nil, err
	}
	store := postgres.New(db)
	keys := app.NewKeyRing(store, cipher, app.KeyRingConfig{
		Issuer:      cfg.TokenIssuer,
		Rotation:    cfg.SigningKeyRotation,
		MaxLifetime: app.MaxTokenLifetime(cfg.BusinessTokenMaxSeconds),
	}, logger)
	a, err := app.New(app.Config{Issuer: cfg.TokenIssuer, BusinessTokenMaxSeconds: cfg.BusinessTokenMaxSeconds}, store, store, keys, logger)
	if err != nil {
		return nil, nil, err
	}
	return a, keys, nil
}

// New builds the service; Run starts it.
func New(ctx context.Context, cfg config.Config, logger *slog.Logger) (_ *Service, err error) {
	s := &Service{cfg: cfg, log: logger}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.telemetry, err = telemetry.Setup(ctx, cfg.Telemetry); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	if s.db, err = OpenDB(ctx, cfg); err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	if cfg.DB.MigrateOnStart {
		if err := Migrate(ctx, s.db); err != nil {
			return nil, err
		}
	}
	if s.app, s.keys, err = NewApp(ctx, cfg, s.db, logger); err != nil {
		return nil, err
	}
	if err := s.keys.Sync(ctx); err != nil {
		return nil, err
	}
	if cfg.BootstrapClientID != "" {
		if err := s.app.EnsureClient(ctx, cfg.BootstrapClientID, cfg.BootstrapClientName, cfg.BootstrapClientSecret); err != nil {
			return nil, fmt.Errorf("bootstrap client: %w", err)
		}
		logger.Info("bootstrap client ready", slog.String("client_id", cfg.BootstrapClientID))
	}
	s.pub = outbox.NewKafkaPublisher(cfg.Brokers)
	s.relay = outbox.NewRelay(s.db, s.pub, logger, outbox.RelayOptions{})

	doc, err := openapi.Load(authtokens.OpenAPI)
	if err != nil {
		return nil, err
	}
	docJSON, err := openapi.MarshalJSON(doc)
	if err != nil {
		return nil, err
	}
	s.http = NewHTTP(cfg, s.app, postgres.New(s.db), docJSON, logger, s.db)
	return s, nil
}

// NewHTTP builds the HTTP app (also used by tests).
func NewHTTP(cfg config.Config, a *app.App, store *postgres.Store, docJSON []byte, logger *slog.Logger, db *bun.DB) *fiber.App {
	h := httpx.New(httpx.Options{Service: config.ServiceName, BodyLimit: cfg.BodyLimit, Logger: logger})
	httpx.Health(h, map[string]func(context.Context) error{"database": pgdb.ReadyCheck(db)})
	verifier := authn.NewVerifier(a.Keys(), authn.VerifierOptions{Issuer: cfg.TokenIssuer})
	httpadapter.New(httpadapter.Options{
		App:         a,
		Verifier:    verifier,
		Owners:      store,
		Cursors:     page.NewCodec([]byte(cfg.PageCursorSecret)),
		Idempotency: idempotencyMiddleware(db, logger),
	}).Register(h)
	openapi.Serve(h, func() []byte { return docJSON })
	httpx.Finish(h)
	return h
}

// App is the HTTP app (tests).
func (s *Service) App() *fiber.App { return s.http }

// Run serves until ctx ends, then drains HTTP and flushes the outbox.
func (s *Service) Run(ctx context.Context) error {
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	go func() {
		tctx, cancel := context.WithTimeout(bg, 10*time.Second)
		defer cancel()
		if err := events.EnsureTopics(tctx, s.cfg.Brokers, 3, events.TopicBusiness); err != nil {
			s.log.Warn("could not ensure topics; the relay will retry publishing", slog.Any("error", err))
		}
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.keys.Run(bg, keySyncInterval) }()
	relayErr := make(chan error, 1)
	go func() { defer wg.Done(); relayErr <- s.relay.Run(bg) }()

	s.log.Info("listening", slog.String("addr", s.cfg.Addr))
	serveErr := httpx.Serve(ctx, s.http, s.cfg.Addr, s.cfg.ShutdownTimeout)

	stop()
	wg.Wait()
	fctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	flushErr := s.relay.Flush(fctx)
	if flushErr != nil {
		flushErr = fmt.Errorf("flush outbox: %w", flushErr)
	}
	return errors.Join(serveErr, <-relayErr, flushErr)
}

// Close releases what New opened.
func (s *Service) Close() {
	if s.pub != nil {
		_ = s.pub.Close()
	}
	if s.db != nil {
		_ = s.db.Close()
	}
	if s.telemetry != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.telemetry(ctx)
	}
}
