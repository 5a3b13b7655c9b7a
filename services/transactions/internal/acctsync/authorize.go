package acctsync

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// Authorize starts a connection for businessID on behalf of clientID: it
// keeps a fresh single-use state (hashed) for StateTTL and returns the
// provider's authorization URL that carries it.
func (s *Service) Authorize(ctx context.Context, businessID uuid.UUID, clientID string) (string, error) {
	if s.provider == nil {
		return "", notConfigured()
	}
	token, hash, err := newStateToken(businessID)
	if err != nil {
		return "", err
	}
	now := s.clock()
	st := State{Hash: hash, BusinessID: businessID, ClientID: clientID, CreatedAt: now, ExpiresAt: now.Add(s.stateTTL)}
	if err := s.store.SaveState(ctx, st, now); err != nil {
		return "", fmt.Errorf("authorize %s: save state: %w", businessID, err)
	}
	return s.provider.AuthCodeURL(token), nil
}
