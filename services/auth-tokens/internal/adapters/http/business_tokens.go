package http

import (
	"bytes"
	"github.com/acctsuite/acct/pkg/httpauth"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/gofiber/fiber/v2"
)

type businessTokenBody struct {
	SessionDuration *int `json:"session_duration"`
}

// createBusinessToken is POST /v1/businesses/{businessId}/auth-token. The
// body is optional; the answer is the spec's AuthToken in the usual data
// wrapper (only the OAuth token endpoint answers unwrapped). It creates
// nothing durable, and its answer is a secret: see Options.TokenIdempotency.
func (h *Handlers) createBusinessToken(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	var body businessTokenBody
	if len(bytes.TrimSpace(c.Body())) > 0 {
		if err := httpx.BindJSON(c, &body); err != nil {
			return err
		}
	}
	tok, err := h.app.MintBusinessToken(c.UserContext(), identity(c), bid, body.SessionDuration)
	if err != nil {
		return err
	}
	noStore(c)
	return httpx.OK(c, tokenResponse{AccessToken: tok.AccessToken, ExpiresIn: tok.ExpiresIn, TokenType: "Bearer"})
}
