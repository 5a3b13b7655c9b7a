package http

import (
	"encoding/base64"
	"errors"
	"log/slog"
	"mime"
	"strings"

	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/gofiber/fiber/v2"
)

// oauthError is the RFC 6749 §5.2 error body.
type oauthError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description,omitempty"`
}

// tokenResponse is the RFC 6749 §5.1 success body (the spec's AuthToken).
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
	TokenType   string `json:"token_type"`
}

// busyRetryAfter is the Retry-After (seconds) of a 503 answered when every
// secret-check slot stayed taken: slots free up within milliseconds.
const busyRetryAfter = "1"

func writeOAuthError(c *fiber.Ctx, status int, code, desc string) error {
	noStore(c)
	if status == fiber.StatusUnauthorized {
		c.Set(fiber.HeaderWWWAuthenticate, `Basic realm="acct"`)
	}
	return c.Status(status).JSON(oauthError{Error: code, ErrorDescription: desc})
}

// noStore forbids caching a response that holds or concerns a bearer token
// (RFC 6749 §5.1): Pragma for HTTP/1.0 caches.
func noStore(c *fiber.Ctx) {
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderPragma, "no-cache")
}

func writeToken(c *fiber.Ctx, t app.IssuedToken) error {
	noStore(c)
	return c.Status(fiber.StatusOK).JSON(tokenResponse{AccessToken: t.AccessToken, ExpiresIn: t.ExpiresIn, TokenType: "Bearer"})
}

// token is POST /oauth2/token: the client-credentials grant.
func (h *Handlers) token(c *fiber.Ctx) error {
	mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mt != fiber.MIMEApplicationForm {
		return writeOAuthError(c, fiber.StatusBadRequest, "invalid_request", "Content-Type must be application/x-www-form-urlencoded")
	}
	form := c.Request().PostArgs()
	for _, p := range []string{"grant_type", "client_id", "client_secret", "scope"} {
		if len(form.PeekMulti(p)) > 1 {
			return writeOAuthError(c, fiber.StatusBadRequest, "invalid_request", "parameter "+p+" repeated")
		}
	}
	switch grant := string(form.Peek("grant_type")); grant {
	case "client_credentials":
	case "":
		return writeOAuthError(c, fiber.StatusBadRequest, "invalid_request", "grant_type is required")
	default:
		return writeOAuthError(c, fiber.StatusBadRequest, "unsupported_grant_type", "only client_credentials is supported")
	}

	formID, formSecret := string(form.Peek("client_id")), string(form.Peek("client_secret"))
	id, secret, basic, err := basicCredentials(c.Get(fiber.HeaderAuthorization))
	switch {
	case err != nil:
		return writeOAuthError(c, fiber.StatusUnauthorized, "invalid_client", "malformed Basic credentials")
	case basic && formSecret != "":
		return writeOAuthError(c, fiber.StatusBadRequest, "invalid_request", "use one client authentication method")
	case basic && formID != "" && formID != id:
		return writeOAuthError(c, fiber.StatusUnauthorized, "invalid_client", "client_id does not match the credentials")
	case !basic:
		// client_secret_post (RFC 6749 §2.3.1) for clients that cannot send Basic.
		id, secret = formID, formSecret
	}
	if id == "" || secret == "" {
		return writeOAuthError(c, fiber.StatusUnauthorized, "invalid_client", "client authentication required")
	}
	tok, err := h.app.IssueClientToken(c.UserContext(), id, secret)
	if errors.Is(err, app.ErrInvalidClient) {
		return writeOAuthError(c, fiber.StatusUnauthorized, "invalid_client", "client authentication failed")
	}
	if errors.Is(err, app.ErrBusy) {
		// Bounded argon2id work: shed load rather than queue (RFC 6749
		// §4.1.2.1's code, the one OAuth clients know for "retry later").
		c.Set(fiber.HeaderRetryAfter, busyRetryAfter)
		return writeOAuthError(c, fiber.StatusServiceUnavailable, "temporarily_unavailable", "too many token requests; retry after the Retry-After delay")
	}
	if err != nil {
		slog.ErrorContext(c.UserContext(), "issue token", slog.Any("error", err))
		return writeOAuthError(c, fiber.StatusInternalServerError, "server_error", "")
	}
	return writeToken(c, tok)
}

// basicCredentials parses `Authorization: Basic ...`; basic is false when
// the header is absent or another scheme.
func basicCredentials(header string) (id, secret string, basic bool, err error) {
	const scheme = "basic "
	if len(header) < len(scheme) || !strings.EqualFold(header[:len(scheme)], scheme) {
		return "", "", false, nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(header[len(scheme):]))
	if err != nil {
		return "", "", true, err
	}
	id, secret, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", true, errors.New("no colon in Basic credentials")
	}
	return id, secret, true, nil
}
