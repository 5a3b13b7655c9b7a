package httpapi

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/acctsync"
)

// Values of last_sync_status (the client's closed list).
const (
	syncSuccess = "SYNC_SUCCESS"
	syncFailure = "SYNC_FAILURE"
)

// connectionStatusJSON answers GET .../acctsync/connection-status: the
// client's StatusOfQuickbooksConnection fields (is_connected, is_syncing,
// last_synced_at, last_sync_status) and the connection's details.
type connectionStatusJSON struct {
	Type                 string     `json:"type"`
	IsConnected          bool       `json:"is_connected"`
	IsSyncing            bool       `json:"is_syncing"`
	RealmID              *string    `json:"realm_id"`
	ConnectedAt          *time.Time `json:"connected_at"`
	LastSyncedAt         *time.Time `json:"last_synced_at"`
	LastSyncStatus       *string    `json:"last_sync_status"`
	LastSyncError        *string    `json:"last_sync_error"`
	LastSuccessfulSyncAt *time.Time `json:"last_successful_sync_at"`
}

// syncStatusJSON answers GET .../acctsync/sync-from/status: the client's
// StatusOfSyncFromQuickbooks (is_syncing) and the sync's progress.
type syncStatusJSON struct {
	Type                 string     `json:"type"`
	IsConnected          bool       `json:"is_connected"`
	IsSyncing            bool       `json:"is_syncing"`
	State                string     `json:"state"`
	LastSyncedAt         *time.Time `json:"last_synced_at"`
	LastSyncStatus       *string    `json:"last_sync_status"`
	LastSyncError        *string    `json:"last_sync_error"`
	LastSuccessfulSyncAt *time.Time `json:"last_successful_sync_at"`
	StartedAt            *time.Time `json:"started_at"`
	AccountsRead         int        `json:"accounts_read"`
	Attempts             int        `json:"attempts"`
}

// syncRequestJSON answers POST .../acctsync/sync-from.
type syncRequestJSON struct {
	Type    string         `json:"type"`
	Started bool           `json:"started"`
	Resumed bool           `json:"resumed"`
	Sync    syncStatusJSON `json:"sync"`
}

// unlinkJSON answers POST .../acctsync/unlink.
type unlinkJSON struct {
	Type         string `json:"type"`
	IsConnected  bool   `json:"is_connected"`
	Unlinked     bool   `json:"unlinked"`
	TokenRevoked bool   `json:"token_revoked"`
}

func lastOutcome(v acctsync.SyncView) (status, reason *string) {
	if v.LastSyncedAt == nil {
		return nil, nil
	}
	s := syncSuccess
	if !v.LastSyncOK {
		s = syncFailure
		r := v.LastSyncError
		reason = &r
	}
	return &s, reason
}

func toConnectionStatus(v acctsync.SyncView) connectionStatusJSON {
	out := connectionStatusJSON{Type: "Acctsync_Connection_Status", IsConnected: v.Connected, IsSyncing: v.Syncing}
	if !v.Connected {
		return out
	}
	realm := v.RealmID
	out.RealmID, out.ConnectedAt = &realm, v.ConnectedAt
	out.LastSyncedAt, out.LastSuccessfulSyncAt = v.LastSyncedAt, v.LastSuccessAt
	out.LastSyncStatus, out.LastSyncError = lastOutcome(v)
	return out
}

func toSyncStatus(v acctsync.SyncView) syncStatusJSON {
	out := syncStatusJSON{
		Type: "Acctsync_Sync_Status", IsConnected: v.Connected, IsSyncing: v.Syncing, State: string(v.State),
		LastSyncedAt: v.LastSyncedAt, LastSuccessfulSyncAt: v.LastSuccessAt, StartedAt: v.StartedAt,
		AccountsRead: v.AccountsRead, Attempts: v.Attempts,
	}
	if out.State == "" {
		out.State = string(acctsync.SyncIdle)
	}
	out.LastSyncStatus, out.LastSyncError = lastOutcome(v)
	return out
}

func (h *handlers) connectionStatus(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	v, err := h.svc.SyncStatus(c.UserContext(), bid)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return httpx.OK(c, toConnectionStatus(v))
}

func (h *handlers) syncStatus(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	v, err := h.svc.SyncStatus(c.UserContext(), bid)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return httpx.OK(c, toSyncStatus(v))
}

// syncFrom answers 202 whether it started the sync or one was already
// running: either way a sync is under way.
func (h *handlers) syncFrom(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	r, err := h.svc.StartSync(c.UserContext(), bid)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"data": syncRequestJSON{
		Type: "Acctsync_Sync_Request", Started: r.Started, Resumed: r.Resumed, Sync: toSyncStatus(r.View),
	}})
}

func (h *handlers) unlink(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	u, err := h.svc.Unlink(c.UserContext(), bid)
	if err != nil {
		return err
	}
	return httpx.OK(c, unlinkJSON{Type: "Acctsync_Unlink", Unlinked: u.Removed, TokenRevoked: u.TokenRevoked})
}

func (h *handlers) ledgerAccounts(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	p, err := page.Parse(httpx.Query(c), acctsync.LedgerAccountPageSpec, h.codec, "acctsync-accounts|"+bid.String())
	if err != nil {
		return err
	}
	views, meta, err := h.svc.FindLedgerAccounts(c.UserContext(), bid, p)
	if err != nil {
		return err
	}
	out := make([]acctsyncAccountJSON, 0, len(views))
	for _, v := range views {
		out = append(out, toAcctsyncAccount(v))
	}
	return httpx.List(c, out, meta)
}
