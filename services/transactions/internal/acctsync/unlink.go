package acctsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
)

// Unlinked is the answer of Unlink.
type Unlinked struct {
	// Removed is false when the business had no connection (unlinking is
	// idempotent).
	Removed bool
	// TokenRevoked reports that the provider revoked the connection's
	// grant (or no longer knew it).
	TokenRevoked bool
}

// Unlink removes the business's connection: its sealed tokens, imported
// accounts, mapping and sync state go in one transaction, then the grant
// is revoked at the provider with the refresh token just deleted. The
// removal does not wait for the provider: when the revocation fails (the
// provider is down, or acctsync is not configured here) the connection is
// gone all the same and TokenRevoked is false; the provider's tokens then
// lapse on their own (nobody holds them any more).
func (s *Service) Unlink(ctx context.Context, businessID uuid.UUID) (Unlinked, error) {
	conn, found, err := s.store.Disconnect(ctx, businessID)
	if err != nil {
		return Unlinked{}, fmt.Errorf("unlink %s: %w", businessID, err)
	}
	if !found {
		return Unlinked{}, nil
	}
	out := Unlinked{Removed: true}
	if s.provider == nil || s.cipher == nil {
		return out, nil
	}
	refresh, err := s.cipher.Open(conn.RefreshTokenEnc, tokenAAD(conn.BusinessID, conn.RealmID, "refresh"))
	if err == nil {
		err = s.provider.Revoke(ctx, refresh)
	}
	switch {
	case err == nil, errors.Is(err, ErrGrantRejected):
		out.TokenRevoked = true
	default:
		s.log.LogAttrs(ctx, slog.LevelWarn, "acctsync: token revocation failed after unlink",
			slog.String("business_id", businessID.String()), slog.String("error", err.Error()))
	}
	return out, nil
}
