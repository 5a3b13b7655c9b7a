// Package service assembles the gateway: the fiber app from pkg/httpx, token
// verification against auth-tokens' JWKS, tenancy checks, per-client rate
// limits, CORS, and one streaming reverse proxy per upstream, all driven by
// the routing table in internal/routes.
package service

import (
	"context"
	"errors"
	"fmt"
	"github.com/acctsuite/acct/pkg/httpauth"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/openapi"
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
	clients   *ratelimit.Limiter // per client id, token routes
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
		Setup: s.setup,
	}
}

// Load reads the configuration from the environment and describes the
// gateway (the binary's main).
func Load() (servicekit.Definition, error) {
	cfg, err := config.Load()
	if err != nil {
		return servicekit.Definition{}, err
	}
	_, def := New(cfg)
	return def, nil
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

// register mounts the gateway's routes: CORS, the entry middleware, the
// merged OpenAPI document, and one handler chain per routing-table row.
func (s *Service) register(app *fiber.App) {
	// Multipart uploads must stream to the service, not be parsed (and
	// spooled) by the gateway.
	app.Server().DisablePreParseMultipartForm = true

	if len(s.cfg.CORSAllowedOrigins) > 0 {
		app.Use(cors.New(cors.Config{
			AllowOrigins:  strings.Join(s.cfg.CORSAllowedOrigins, ","),
			AllowMethods:  "GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS",
			AllowHeaders:  "Authorization,Content-Type,Idempotency-Key,X-Request-Id,traceparent,tracestate",
			ExposeHeaders: "X-Request-Id,Retry-After,Location,Content-Disposition",
			MaxAge:        600,
		}))
	}
	app.Use(entry)

	openapi.Serve(app, s.docs.Document)

	if s.download != nil {
		// Public: the signature in the URL is the credential.
		app.Get(storage.DownloadRoute, s.limitIP(s.ips), s.download)
	}
	for _, r := range routes.Table {
		handlers := make([]fiber.Handler, 0, 6)
		switch {
		case r.Auth == routes.Token:
			handlers = append(handlers, s.authenticate, s.limitClient)
		case r.Limit == routes.Credentials:
			handlers = append(handlers, s.limitIP(s.tokenIPs))
		default:
			handlers = append(handlers, s.limitIP(s.ips))
		}
		// Tenancy before platform-only: a business token naming another
		// business learns nothing (404) rather than "forbidden".
		if r.Tenancy.Has(routes.Business) {
			handlers = append(handlers, httpauth.RequireBusiness(routes.BusinessParam, s.owners))
		}
		if r.Tenancy.Has(routes.PlatformOnly) {
			handlers = append(handlers, httpauth.RequirePlatform())
		}
		handlers = append(handlers, s.upstreams[r.Upstream].Forward)
		for _, m := range routes.Methods(r) {
			app.Add(m, r.Path, handlers...)
		}
	}
	// Known paths under another method: 405 with Allow, as an error object.
	order, allowed := routes.Paths(routes.Table)
	for _, p := range order {
		allow := strings.Join(allowed[p], ", ")
		app.All(p, func(c *fiber.Ctx) error {
			c.Set(fiber.HeaderAllow, allow)
			return apperr.Newf(apperr.MethodNotAllowed, "method %s not allowed on this route", c.Method()).WithEnum("MethodNotAllowed")
		})
	}
}

// entry runs first on every request: client-supplied identity headers are
// removed before anything reads them, paths that could be read two ways are
// refused (the proxy forwards the raw path the router matched), and a
// request whose streamed body was not forwarded gets its connection closed
// (the unread bytes would otherwise be parsed as the next request).
func entry(c *fiber.Ctx) error {
	httpauth.StripIdentityHeaders(&c.Request().Header)
	var err error
	if routes.Ambiguous(c.Request().URI().PathOriginal()) {
		err = apperr.New(apperr.InvalidParameters, "the path has dot segments or encoded slashes").WithEnum("AmbiguousPath")
	} else {
		err = c.Next()
	}
	if c.Request().Header.ContentLength() != 0 && c.Locals(proxy.BodyConsumedKey) == nil {
		c.Context().SetConnectionClose()
	}
	return err
}

// authenticate verifies the bearer token. A request whose token is missing
// or invalid is charged to its client IP's bucket, so a flood of bad tokens
// is throttled (429) like any anonymous traffic, while valid tokens from the
// same address (verified from the cache) are limited per client as usual.
func (s *Service) authenticate(c *fiber.Ctx) error {
	if _, err := httpauth.Authenticate(c, s.verifier); err != nil {
		if apperr.Is(err, apperr.Unauthenticated) {
			if ok, wait := s.ips.Allow(s.clientIPs.ClientIP(c.Context()).String()); !ok {
				c.Response().Header.Del(fiber.HeaderWWWAuthenticate) // a 429, not a 401
				return rateLimited(c, wait)
			}
		}
		return err
	}
	return c.Next()
}

// limitClient charges the authenticated client's bucket; all tokens of a
// client (platform and business ones) share it.
func (s *Service) limitClient(c *fiber.Ctx) error {
	id, _ := httpauth.IdentityFrom(c)
	if ok, wait := s.clients.Allow(id.ClientID); !ok {
		return rateLimited(c, wait)
	}
	return c.Next()
}

// limitIP charges the client IP's bucket in table l.
func (s *Service) limitIP(l *ratelimit.Limiter) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if ok, wait := l.Allow(s.clientIPs.ClientIP(c.Context()).String()); !ok {
			return rateLimited(c, wait)
		}
		return c.Next()
	}
}

func rateLimited(c *fiber.Ctx, wait time.Duration) error {
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(ratelimit.RetryAfterSeconds(wait)))
	return apperr.New(apperr.RateLimited, "rate limit exceeded").WithEnum("RateLimited")
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
