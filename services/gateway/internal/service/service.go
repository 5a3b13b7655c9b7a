// Package service assembles the gateway: the fiber app from pkg/httpx, token
// verification against auth-tokens' JWKS, tenancy checks, per-client rate
// limits, CORS, and one streaming reverse proxy per upstream, all driven by
// the routing table in internal/routes.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/telemetry"
	"github.com/acctsuite/acct/pkg/tenancy"

	"github.com/acctsuite/acct/services/gateway/internal/apidocs"
	"github.com/acctsuite/acct/services/gateway/internal/clientip"
	"github.com/acctsuite/acct/services/gateway/internal/config"
	"github.com/acctsuite/acct/services/gateway/internal/owners"
	"github.com/acctsuite/acct/services/gateway/internal/proxy"
	"github.com/acctsuite/acct/services/gateway/internal/ratelimit"
	"github.com/acctsuite/acct/services/gateway/internal/routes"
)

// Service is the running gateway.
type Service struct {
	cfg       config.Config
	logger    *slog.Logger
	app       *fiber.App
	verifier  *authn.JWKSVerifier
	owners    *owners.Directory
	clientIPs *clientip.Resolver
	// Separate tables: a flood of addresses cannot evict clients' buckets.
	clients   *ratelimit.Limiter // per client id, token routes
	ips       *ratelimit.Limiter // per client IP, public routes and failed authentication
	tokenIPs  *ratelimit.Limiter // per client IP, credential-checking routes
	upstreams map[string]*proxy.Upstream
	docs      *apidocs.Aggregator

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// New builds the gateway and starts its background work (JWKS warm-up,
// OpenAPI aggregation); Close stops it.
func New(ctx context.Context, cfg config.Config, logger *slog.Logger) (*Service, error) {
	if err := routes.Validate(routes.Table); err != nil {
		return nil, err
	}
	clientIPs, err := clientip.New(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	urls := cfg.Upstreams.URLs()
	s := &Service{
		cfg:       cfg,
		logger:    logger,
		verifier:  authn.NewJWKSVerifier(cfg.JWKSURL, authn.VerifierOptions{}),
		owners:    owners.New(urls[routes.AuthTokens], owners.Options{Service: routes.AuthTokens}),
		clientIPs: clientIPs,
		clients:   ratelimit.New(cfg.RateLimitRPS, cfg.RateLimitBurst, cfg.RateLimitMaxClients),
		ips:       ratelimit.New(cfg.RateLimitRPS, cfg.RateLimitBurst, cfg.RateLimitMaxIPs),
		tokenIPs:  ratelimit.New(cfg.TokenRateLimitRPS, cfg.TokenRateLimitBurst, cfg.RateLimitMaxIPs),
		upstreams: map[string]*proxy.Upstream{},
	}
	used := map[string]string{}
	for _, name := range routes.Upstreams(routes.Table) {
		base, ok := urls[name]
		if !ok || base == "" {
			return nil, fmt.Errorf("gateway: no URL configured for upstream %s", name)
		}
		up, err := proxy.New(proxy.Options{
			Name:      name,
			BaseURL:   base,
			MaxConns:  cfg.UpstreamMaxConns,
			Timeout:   cfg.UpstreamTimeout,
			BodyLimit: int64(cfg.BodyLimit),
			Logger:    logger,
		})
		if err != nil {
			return nil, err
		}
		s.upstreams[name] = up
		used[name] = base
	}
	s.docs = apidocs.New(used, cfg.OpenAPIRefresh, logger)
	s.app = s.buildApp()

	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	s.wg.Go(func() { s.warmJWKS(bg) })
	s.wg.Go(func() { s.docs.Run(bg) })
	return s, nil
}

// App is the fiber app (tests serve it directly).
func (s *Service) App() *fiber.App { return s.app }

// Run serves HTTP until ctx ends, then drains within SHUTDOWN_TIMEOUT.
func (s *Service) Run(ctx context.Context) error {
	return httpx.Serve(ctx, s.app, s.cfg.Addr, s.cfg.ShutdownTimeout)
}

// Close stops the background work and drops idle upstream connections.
func (s *Service) Close() error {
	s.stop()
	s.wg.Wait()
	for _, up := range s.upstreams {
		up.Close()
	}
	return nil
}

// warmJWKS fetches the signing keys until it succeeds once, so /readyz turns
// green without waiting for the first request; afterwards the verifier keeps
// its cached keys (and serves) even while auth-tokens is down.
func (s *Service) warmJWKS(ctx context.Context) {
	delay := 200 * time.Millisecond
	for {
		err := s.verifier.Refresh(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		s.logger.DebugContext(ctx, "jwks not loaded yet", slog.String("error", err.Error()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, 5*time.Second)
	}
}

func (s *Service) jwksReady(ctx context.Context) error {
	if len(s.verifier.KeyIDs()) > 0 {
		return nil
	}
	if err := s.verifier.Refresh(ctx); err != nil {
		return fmt.Errorf("jwks not loaded: %w", err)
	}
	return nil
}

func (s *Service) buildApp() *fiber.App {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	app := httpx.New(httpx.Options{
		Service:   "gateway",
		BodyLimit: s.cfg.BodyLimit,
		// Long enough for large uploads and CSV downloads streaming through.
		ReadTimeout:       s.cfg.UpstreamTimeout,
		WriteTimeout:      s.cfg.UpstreamTimeout,
		Logger:            s.logger,
		StreamRequestBody: true,
		Metrics:           reg,
		// Hand-built access lines to the buffered stdout behind the
		// service logger (written only when LOG_LEVEL enables info).
		AccessLog: telemetry.Stdout(),
	})
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

	httpx.Health(app, map[string]func(context.Context) error{"jwks": s.jwksReady})
	openapi.Serve(app, s.docs.Document)

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
			handlers = append(handlers, tenancy.RequireBusiness(routes.BusinessParam, s.owners))
		}
		if r.Tenancy.Has(routes.PlatformOnly) {
			handlers = append(handlers, tenancy.RequirePlatform())
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
	httpx.Finish(app)
	return app
}

// entry runs first on every request: client-supplied identity headers are
// removed before anything reads them, paths that could be read two ways are
// refused (the proxy forwards the raw path the router matched), and a
// request whose streamed body was not forwarded gets its connection closed
// (the unread bytes would otherwise be parsed as the next request).
func entry(c *fiber.Ctx) error {
	authn.StripIdentityHeaders(&c.Request().Header)
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
	if _, err := authn.Authenticate(c, s.verifier); err != nil {
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
	id, _ := authn.IdentityFrom(c)
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
