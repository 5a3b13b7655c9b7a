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
		return Synced{}, connectionChanged()
	}
	return Synced{RealmID: conn.RealmID, SyncedAt: now, AccountsImported: len(accounts)}, nil
}

// accessToken returns a usable access token of conn: the stored one while
// it is valid (and force is false), otherwise a refreshed one, stored
// before it is returned. The refresh runs with the connection locked: a
// process that waited for another's refresh finds a new TokenVersion and
// uses that pair instead of spending the refresh token a second time.
func (s *Service) accessToken(ctx context.Context, seen Connection, force bool) (string, Connection, error) {
	if !force && s.clock().Add(refreshLeeway).Before(seen.AccessExpiresAt) {
		access, err := s.cipher.Open(seen.AccessTokenEnc, tokenAAD(seen.BusinessID, seen.RealmID, "access"))
		if err != nil {
			return "", seen, fmt.Errorf("acctsync %s: %w", seen.BusinessID, err)
		}
		return access, seen, nil
	}
	conn, found, err := s.store.UpdateConnection(ctx, seen.BusinessID, func(c *Connection) (bool, error) {
		if c.RealmID != seen.RealmID {
			return false, connectionChanged()
		}
		if c.TokenVersion != seen.TokenVersion {
			return false, nil // refreshed (or reconnected) meanwhile: use that pair
		}
		refresh, err := s.cipher.Open(c.RefreshTokenEnc, tokenAAD(c.BusinessID, c.RealmID, "refresh"))
		if err != nil {
			return false, fmt.Errorf("acctsync %s: %w", c.BusinessID, err)
		}
		tokens, err := s.provider.Refresh(ctx, refresh)
		if err != nil {
			s.log.LogAttrs(ctx, slog.LevelWarn, "acctsync: token refresh failed",
				slog.String("business_id", c.BusinessID.String()), slog.String("error", err.Error()))
			return false, providerError("refresh", err)
		}
		if err := s.sealTokens(c, tokens, s.clock()); err != nil {
			return false, err
		}
		return true, nil
	})
	if err != nil {
		return "", seen, err
	}
	if !found {
		return "", seen, connectionChanged()
	}
	access, err := s.cipher.Open(conn.AccessTokenEnc, tokenAAD(conn.BusinessID, conn.RealmID, "access"))
	if err != nil {
		return "", seen, fmt.Errorf("acctsync %s: %w", conn.BusinessID, err)
	}
	return access, conn, nil
}

func connectionChanged() *apperr.Error {
	return apperr.New(apperr.Conflict, "the acctsync connection changed during the sync; try again").WithEnum(EnumConnectionChanged)
}
