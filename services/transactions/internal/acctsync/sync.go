package acctsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Synced describes a completed re-import.
type Synced struct {
	RealmID          string
	SyncedAt         time.Time
	AccountsImported int
}

func notConnected() *apperr.Error {
	return apperr.New(apperr.NotFound, "this business has no acctsync connection").WithEnum(EnumNotConnected)
}

// SyncAccounts re-imports the business's external chart of accounts with
// the stored tokens, refreshing the access token first when it has
// expired (and once more if the provider refuses it anyway). The new pair
// is stored before it is used; the import replaces the previous one in one
// transaction.
func (s *Service) SyncAccounts(ctx context.Context, businessID uuid.UUID) (Synced, error) {
	if s.provider == nil {
		return Synced{}, notConfigured()
	}
	conn, found, err := s.store.Connection(ctx, businessID)
	if err != nil {
		return Synced{}, fmt.Errorf("sync %s: read connection: %w", businessID, err)
	}
	if !found {
		return Synced{}, notConnected()
	}
	access, conn, err := s.accessToken(ctx, conn, false)
	if err != nil {
		return Synced{}, err
	}
	accounts, err := s.provider.Accounts(ctx, access, conn.RealmID)
	if errors.Is(err, ErrAccessDenied) {
		// Revoked or expired early: one refresh, one retry.
		if access, conn, err = s.accessToken(ctx, conn, true); err != nil {
			return Synced{}, err
		}
		accounts, err = s.provider.Accounts(ctx, access, conn.RealmID)
	}
	if err == nil {
		err = checkChart(accounts)
	}
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "acctsync: chart sync failed",
			slog.String("business_id", businessID.String()), slog.String("error", err.Error()))
		return Synced{}, providerError("accounts", err)
	}
	mappings, err := s.mapAccounts(ctx, businessID, accounts)
	if err != nil {
		return Synced{}, fmt.Errorf("sync %s: %w", businessID, err)
	}
	now := s.clock()
	ok, err := s.store.ReplaceAccounts(ctx, Import{BusinessID: businessID, RealmID: conn.RealmID, Accounts: accounts, Mappings: mappings, At: now})
	if err != nil {
		return Synced{}, fmt.Errorf("sync %s: store: %w", businessID, err)
	}
	if !ok {
		return Synced{}, apperr.New(apperr.Conflict, "the acctsync connection changed during the sync; try again").WithEnum("AcctsyncConnectionChanged")
	}
	return Synced{RealmID: conn.RealmID, SyncedAt: now, AccountsImported: len(accounts)}, nil
}

// accessToken returns a usable access token of conn: the stored one while
// it is valid (and force is false), otherwise a refreshed one, stored
// before it is returned. When another process stored a refreshed pair
// first, that pair is used instead.
func (s *Service) accessToken(ctx context.Context, conn Connection, force bool) (string, Connection, error) {
	now := s.clock()
	if !force && now.Add(refreshLeeway).Before(conn.AccessExpiresAt) {
		access, err := s.cipher.Open(conn.AccessTokenEnc, tokenAAD(conn.BusinessID, conn.RealmID, "access"))
		if err != nil {
			return "", conn, fmt.Errorf("acctsync %s: %w", conn.BusinessID, err)
		}
		return access, conn, nil
	}
	refresh, err := s.cipher.Open(conn.RefreshTokenEnc, tokenAAD(conn.BusinessID, conn.RealmID, "refresh"))
	if err != nil {
		return "", conn, fmt.Errorf("acctsync %s: %w", conn.BusinessID, err)
	}
	tokens, err := s.provider.Refresh(ctx, refresh)
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "acctsync: token refresh failed",
			slog.String("business_id", conn.BusinessID.String()), slog.String("error", err.Error()))
		return "", conn, providerError("refresh", err)
	}
	next := conn
	if err := s.sealTokens(&next, tokens, s.clock()); err != nil {
		return "", conn, err
	}
	stored, err := s.store.UpdateTokens(ctx, next)
	if err != nil {
		return "", conn, fmt.Errorf("acctsync %s: store refreshed tokens: %w", conn.BusinessID, err)
	}
	if stored {
		next.TokenVersion++
		return tokens.AccessToken, next, nil
	}
	// Another process refreshed first: its pair is the one the provider
	// and the database agree on.
	latest, found, err := s.store.Connection(ctx, conn.BusinessID)
	if err != nil {
		return "", conn, fmt.Errorf("acctsync %s: reread connection: %w", conn.BusinessID, err)
	}
	if !found || latest.RealmID != conn.RealmID {
		return "", conn, apperr.New(apperr.Conflict, "the acctsync connection changed during the sync; try again").WithEnum("AcctsyncConnectionChanged")
	}
	access, err := s.cipher.Open(latest.AccessTokenEnc, tokenAAD(latest.BusinessID, latest.RealmID, "access"))
	if err != nil {
		return "", conn, fmt.Errorf("acctsync %s: %w", conn.BusinessID, err)
	}
	return access, latest, nil
}
