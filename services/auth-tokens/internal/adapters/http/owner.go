package http

import (
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tenancy"
	"github.com/gofiber/fiber/v2"
)

type ownerJSON struct {
	ClientID string `json:"client_id"`
}

// owner is GET /internal/v1/businesses/{businessId}/owner, the gateway's
// tenancy lookup (not routed publicly).
func (h *Handlers) owner(c *fiber.Ctx) error {
	bid, err := httpx.UUIDParam(c, "businessId")
	if err != nil {
		return err
	}
	owner, found, err := h.app.OwnerOf(c.UserContext(), bid)
	if err != nil {
		return err
	}
	if !found {
		return tenancy.NotFound()
	}
	return c.JSON(ownerJSON{ClientID: owner})
}
