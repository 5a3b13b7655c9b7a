package http

import (
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/gofiber/fiber/v2"
)

type whoamiJSON struct {
	Type       string `json:"type"`
	ClientName string `json:"clientName"`
	ClientID   string `json:"clientId"`
}

// whoami is GET /whoami. Everything comes from the verified token (cname
// claim), so it needs no database: this is the gateway benchmark's endpoint.
func (h *Handlers) whoami(c *fiber.Ctx) error {
	id := identity(c)
	return httpx.OK(c, whoamiJSON{Type: "whoami", ClientName: id.ClientName, ClientID: id.ClientID})
}
