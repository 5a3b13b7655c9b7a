// Package httpapi is acctsync's HTTP adapter: the Fiber handlers of
// POST /v1/businesses/{businessId}/acctsync/authorize, the public OAuth
// callback GET /v1/acctsync/callback, the connection's status, sync and
// unlink routes, the imported ledger accounts (list and one), and the
// OpenAPI fragment that documents them. Handlers parse, call the acctsync
// use cases and render; errors go to httpx's error handler.
package httpapi

import (
	_ "embed"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
)

// OpenAPI is the OpenAPI 3 fragment of the three endpoints (a complete,
// valid document; merge its paths and schemas into the service's).
//
//go:embed openapi.yaml
var OpenAPI []byte

// Options are the collaborators of the routes.
type Options struct {
	Service *acctsync.Service
	// Auth authenticates bearer tokens (servicekit's k.Authenticate()).
	Auth fiber.Handler
	// Business authorises the :businessId path parameter
	// (k.RequireBusiness()).
	Business fiber.Handler
	// SuccessURL, when set, is where a successful callback redirects the
	// browser (acctsync.Config.SuccessURL).
	SuccessURL string
	// Cursors signs the list's pagination cursors (servicekit's
	// k.Cursors()).
	Cursors *page.Codec
}

type handlers struct {
	svc        *acctsync.Service
	successURL string
	codec      *page.Codec
}

// Register mounts the routes on r. The callback is public: the provider
// sends the user's browser there without our bearer token, and the state
// it carries proves which business started the flow.
func Register(r fiber.Router, o Options) {
	h := &handlers{svc: o.Service, successURL: o.SuccessURL, codec: o.Cursors}
	const p = "/v1/businesses/:businessId/acctsync"
	r.Post(p+"/authorize", o.Auth, o.Business, h.authorize)
	r.Get(p+"/connection-status", o.Auth, o.Business, h.connectionStatus)
	r.Post(p+"/sync-from", o.Auth, o.Business, h.syncFrom)
	r.Get(p+"/sync-from/status", o.Auth, o.Business, h.syncStatus)
	r.Post(p+"/unlink", o.Auth, o.Business, h.unlink)
	r.Get(p+"/ledger/accounts", o.Auth, o.Business, h.ledgerAccounts)
	r.Get(p+"/ledger/accounts/:accountId", o.Auth, o.Business, h.ledgerAccount)
	r.Get("/v1/acctsync/callback", h.callback)
}

// authorizationParams is the spec's Acctsync_Authorization_Params.
type authorizationParams struct {
	RedirectURL string `json:"redirect_url"`
	Type        string `json:"type"`
}

func (h *handlers) authorize(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	id, _ := httpauth.IdentityFrom(c)
	redirect, err := h.svc.Authorize(c.UserContext(), bid, id.ClientID)
	if err != nil {
		return err
	}
	// The URL carries a live CSRF state: keep it out of caches.
	c.Set(fiber.HeaderCacheControl, "no-store")
	return httpx.OK(c, authorizationParams{RedirectURL: redirect, Type: "Acctsync_Authorization_Params"})
}

// connectionJSON answers a successful callback when no success URL is set.
type connectionJSON struct {
	Type             string    `json:"type"`
	BusinessID       uuid.UUID `json:"business_id"`
	RealmID          string    `json:"realm_id"`
	ConnectedAt      time.Time `json:"connected_at"`
	AccountsImported int       `json:"accounts_imported"`
}

func (h *handlers) callback(c *fiber.Ctx) error {
	// The URL holds a one-time code: no caching, and no Referer carrying
	// it to the page we redirect to.
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	q := c.Context().QueryArgs()
	for _, name := range []string{"code", "state", "realmId", "error", "error_description"} {
		if len(q.PeekMulti(name)) > 1 {
			return apperr.Field(name, "must appear at most once").WithEnum(acctsync.EnumInvalidCallbackRequest)
		}
	}
	done, err := h.svc.CompleteAuthorization(c.UserContext(), acctsync.Callback{
		Code: c.Query("code"), State: c.Query("state"), RealmID: c.Query("realmId"),
		Error: c.Query("error"), ErrorDescription: c.Query("error_description"),
	})
	if err != nil {
		return err
	}
	if h.successURL != "" {
		u, err := url.Parse(h.successURL)
		if err != nil {
			return err
		}
		v := u.Query()
		v.Set("acctsync", "connected")
		v.Set("business_id", done.BusinessID.String())
		v.Set("realm_id", done.RealmID)
		u.RawQuery = v.Encode()
		return c.Redirect(u.String(), fiber.StatusSeeOther)
	}
	return httpx.OK(c, connectionJSON{
		Type: "Acctsync_Connection", BusinessID: done.BusinessID, RealmID: done.RealmID,
		ConnectedAt: done.ConnectedAt, AccountsImported: done.AccountsImported,
	})
}

func (h *handlers) ledgerAccount(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	accountID, err := httpx.UUIDParam(c, "accountId")
	if err != nil {
		return err
	}
	v, err := h.svc.FindLedgerAccount(c.UserContext(), bid, accountID)
	if err != nil {
		return err
	}
	return httpx.OK(c, toAcctsyncAccount(v))
}
