package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/acctsuite/acct/services/auth-tokens/internal/credentials"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
)

// NewClientCredentials is a freshly created client and its secret, which is
// shown once and never stored in clear.
type NewClientCredentials struct {
	Client domain.Client
	Secret string
}

// CreateClient registers a platform client with a generated UUID id and
// secret (the admin command).
func (a *App) CreateClient(ctx context.Context, name string) (NewClientCredentials, error) {
	id, err := newID()
	if err != nil {
		return NewClientCredentials{}, err
	}
	secret, err := credentials.NewSecret()
	if err != nil {
		return NewClientCredentials{}, err
	}
	hash, err := credentials.Hash(secret, a.cfg.HashParams)
	if err != nil {
		return NewClientCredentials{}, err
	}
	c, err := domain.NewClient(id.String(), name, hash, a.now().UTC())
	if err != nil {
		return NewClientCredentials{}, err
	}
	if err := a.clients.CreateClient(ctx, c); err != nil {
		return NewClientCredentials{}, fmt.Errorf("create client: %w", err)
	}
	return NewClientCredentials{Client: c, Secret: secret}, nil
}

// EnsureClient creates or updates a client with a known id and secret (the
// BOOTSTRAP_CLIENT_* start-up path); running it again is harmless. The hash
// is rewritten only when the secret changed, so restarts stay cheap.
func (a *App) EnsureClient(ctx context.Context, id, name, secret string) error {
	if secret == "" {
		return errors.New("bootstrap client needs a secret")
	}
	existing, found, err := a.clients.FindClient(ctx, id)
	if err != nil {
		return fmt.Errorf("find client %s: %w", id, err)
	}
	if found && existing.Name == name {
		if ok, verr := credentials.Verify(secret, existing.SecretHash); verr == nil && ok {
			return nil
		}
	}
	hash, err := credentials.Hash(secret, a.cfg.HashParams)
	if err != nil {
		return err
	}
	c, err := domain.NewClient(id, name, hash, a.now().UTC())
	if err != nil {
		return err
	}
	if err := a.clients.UpsertClient(ctx, c); err != nil {
		return fmt.Errorf("upsert client %s: %w", id, err)
	}
	return nil
}
