// Package service assembles the gateway: the fiber app from pkg/httpx, token
// verification against auth-tokens' JWKS, tenancy checks, per-client rate
// limits, CORS, and one streaming reverse proxy per upstream, all driven by
// the routing table in internal/routes.
package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/telemetry"

	"github.com/acctsuite/acct/services/gateway/internal/apidocs"
	"github.com/acctsuite/acct/services/gateway/internal/clientip"
	"github.com/acctsuite/acct/services/gateway/internal/config"
	"github.com/acctsuite/acct/services/gateway/internal/owners"
	"github.com/acctsuite/acct/services/gateway/internal/proxy"
	"github.com/acctsuite/acct/services/gateway/internal/ratelimit"
	"github.com/acctsuite/acct/services/gateway/internal/routes"
)

// Service is the gateway's own parts, built by the kit's Setup.
type Service struct {
	cfg       config.Config
	logger    *slog.Logger
	verifier  authn.TokenVerifier
	owners    *owners.Directory
	clientIPs *clientip.Resolver
	// Separate tables: a flood of addresses cannot evict clients' buckets.
	clients   *ratelimit.Limiter // per caller (client, or client's business), token routes
	platforms *ratelimit.Limiter // per client id over all its tokens, token routes
	ips       *ratelimit.Limiter // per client IP, public routes and failed authentication
	tokenIPs  *ratelimit.Limiter // per client IP, credential-checking routes
	upstreams map[string]*proxy.Upstream
	docs      *apidocs.Aggregator
	kit       *servicekit.Kit
	// download serves the filesystem store's signed URLs (nil when off).
	download fiber.Handler
}

// New describes the gateway to the kit: no database, no events; the kit
// verifies tokens against JWKS_URL, serves /metrics on the admin port and
// runs the OpenAPI aggregation in the background.
func New(cfg config.Config) (*Service, servicekit.Definition) {
	s := &Service{cfg: cfg, upstreams: map[string]*proxy.Upstream{}}
	return s, servicekit.Definition{
		Name:             "gateway",
		Base:             &s.cfg.Base,
		Auth:             &s.cfg.Auth,
		DefaultBodyLimit: config.DefaultBodyLimit,
		DefaultAdminAddr: config.DefaultAdminAddr,
		HTTP: httpx.Options{
			// Long enough for large uploads and CSV downloads streaming through.
			ReadTimeout:       cfg.UpstreamTimeout,
			WriteTimeout:      cfg.UpstreamTimeout,
			StreamRequestBody: true,
			// Hand-built access lines to the buffered stdout behind the
			// service logger (written only when LOG_LEVEL enables info).
			AccessLog: telemetry.Stdout(),
		},
		Setup:    s.setup,
		Commands: map[string]servicekit.Command{"routes": printRoutes},
	}
}

// printRoutes is `gateway routes`: the routing table as one line of JSON
// (routes.Listing: methods, path, upstream, auth, tenancy, limit), for
// tools that cannot import the gateway (the tenancy matrix).
func printRoutes(_ context.Context, _ *servicekit.Kit, args []string, out io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("routes takes no arguments, got %q", args)
	}
	return json.NewEncoder(out).Encode(routes.List(routes.Table))
}

func (s *Service) setup(_ context.Context, k *servicekit.Kit) error {
	if err := routes.Validate(routes.Table); err != nil {
		return err
	}
	clientIPs, err := clientip.New(s.cfg.TrustedProxies)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	s.kit, s.logger, s.verifier, s.clientIPs = k, k.Logger(), k.Verifier(), clientIPs
	urls := s.cfg.Upstreams.URLs()
	s.owners = owners.New(urls[routes.AuthTokens], owners.Options{Service: routes.AuthTokens})
	// Separate tables: a flood of addresses cannot evict clients' buckets.
	s.clients = ratelimit.New(s.cfg.RateLimitRPS, s.cfg.RateLimitBurst, s.cfg.RateLimitMaxClients)
	capRPS, capBurst := s.cfg.PlatformLimit()
	s.platforms = ratelimit.New(capRPS, capBurst, s.cfg.RateLimitMaxClients)
	s.ips = ratelimit.New(s.cfg.RateLimitRPS, s.cfg.RateLimitBurst, s.cfg.RateLimitMaxIPs)
	s.tokenIPs = ratelimit.New(s.cfg.TokenRateLimitRPS, s.cfg.TokenRateLimitBurst, s.cfg.RateLimitMaxIPs)
	used := map[string]string{}
	for _, name := range routes.Upstreams(routes.Table) {
		base, ok := urls[name]
		if !ok || base == "" {
			return fmt.Errorf("gateway: no URL configured for upstream %s", name)
		}
		up, err := proxy.New(proxy.Options{
			Name:      name,
			BaseURL:   base,
			MaxConns:  s.cfg.UpstreamMaxConns,
			Timeout:   s.cfg.UpstreamTimeout,
			BodyLimit: int64(s.cfg.BodyLimit()),
			Logger:    s.logger,
		})
		if err != nil {
			return err
		}
		s.upstreams[name] = up
		used[name] = base
	}
	if on, key, err := s.cfg.DownloadRoute(); err != nil {
		return err
	} else if on {
		if s.download, err = storage.NewDownloadHandler(storage.DownloadOptions{Dir: s.cfg.StorageDir, SigningKey: key}); err != nil {
			return err
		}
	}
	s.docs = apidocs.New(used, s.cfg.OpenAPIRefresh, s.logger)
	// One merge before serving, so the first /openapi.json is complete when
	// the services are up; an upstream still starting is merged later.
	k.OnStart(func(ctx context.Context) error {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := s.docs.Refresh(rctx); err != nil {
			s.logger.Warn("openapi: not every service's document could be merged yet", "error", err)
		}
		return nil
	})
	k.Go(s.docs.Run)
	k.Go(func(ctx context.Context) {
		<-ctx.Done()
		for _, up := range s.upstreams {
			up.Close()
		}
	})
	s.register(k.App())
	return nil
}

// ErrUnknownUpstream is returned by Upstream for names not in the table.
var ErrUnknownUpstream = errors.New("gateway: unknown upstream")

// Upstream returns the proxy for a routing-table upstream name (tests).
func (s *Service) Upstream(name string) (*proxy.Upstream, error) {
	up, ok := s.upstreams[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownUpstream, name)
	}
	return up, nil
}

// Docs returns the OpenAPI aggregator (tests refresh it on demand).
func (s *Service) Docs() *apidocs.Aggregator { return s.docs }
