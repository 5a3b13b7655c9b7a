package service

import (
	"strconv"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/services/gateway/internal/clientip"
	"github.com/acctsuite/acct/services/gateway/internal/owners"
	"github.com/acctsuite/acct/services/gateway/internal/proxy"
	"github.com/acctsuite/acct/services/gateway/internal/ratelimit"
	"github.com/acctsuite/acct/services/gateway/internal/routes"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
)

// The edge's request path: the handler chain every routing-table row gets
// (entry checks, authentication, rate limits, tenancy, the proxy) and the
// public download route. service.go is the wiring around it.

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
			AllowHeaders:  strings.Join(s.cfg.CORSHeaders(), ","),
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
			if ok, wait := s.ips.Allow(clientip.LimitKey(s.clientIPs.ClientIP(c.Context()))); !ok {
				c.Response().Header.Del(fiber.HeaderWWWAuthenticate) // a 429, not a 401
				return rateLimited(c, wait)
			}
		}
		return err
	}
	// The owner lookup of the tenancy check presents it to auth-tokens.
	token, _ := authn.BearerToken(c.Get(fiber.HeaderAuthorization))
	c.SetUserContext(owners.WithCallerToken(c.UserContext(), token))
	return c.Next()
}

// limitClient charges the caller's bucket (a platform token's client, a
// business token's business) and the platform's cap over all its tokens.
func (s *Service) limitClient(c *fiber.Ctx) error {
	id, _ := httpauth.IdentityFrom(c)
	key := id.ClientID
	if id.IsBusiness() {
		key = id.ClientID + "/" + id.BusinessID.String()
	}
	if ok, wait := s.clients.Allow(key); !ok {
		return rateLimited(c, wait)
	}
	if ok, wait := s.platforms.Allow(id.ClientID); !ok {
		return rateLimited(c, wait)
	}
	return c.Next()
}

// limitIP charges the client IP's bucket in table l (an IPv6 client's
// /64: clientip.LimitKey).
func (s *Service) limitIP(l *ratelimit.Limiter) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if ok, wait := l.Allow(clientip.LimitKey(s.clientIPs.ClientIP(c.Context()))); !ok {
			return rateLimited(c, wait)
		}
		return c.Next()
	}
}

func rateLimited(c *fiber.Ctx, wait time.Duration) error {
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(ratelimit.RetryAfterSeconds(wait)))
	return apperr.New(apperr.RateLimited, "rate limit exceeded").WithEnum("RateLimited")
}
