package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/pkg/tenancy"
	"github.com/acctsuite/acct/services/auth-tokens/internal/credentials"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
	"github.com/google/uuid"
)

// ErrInvalidClient means unknown client or wrong secret; callers answer the
// same way for both.
var ErrInvalidClient = errors.New("invalid client credentials")

// ErrBusy means the secret could not be checked now (every argon2id slot
// taken): the caller should answer 503 with Retry-After. It is
// credentials.ErrBusy; IssueClientToken wraps it.
var ErrBusy = credentials.ErrBusy

// IssuedToken is an access token and its lifetime.
type IssuedToken struct {
	AccessToken string
	ExpiresIn   int // seconds
	Identity    authn.Identity
}

// IssueClientToken checks client credentials and issues a platform token.
func (a *App) IssueClientToken(ctx context.Context, clientID, secret string) (IssuedToken, error) {
	var (
		c     domain.Client
		found bool
		err   error
	)
	if domain.ValidClientID(clientID) {
		c, found, err = a.clients.FindClient(ctx, clientID)
		if err != nil {
			return IssuedToken{}, fmt.Errorf("find client: %w", err)
		}
	}
	// Always spend the hash, even for unknown ids: timing must not reveal
	// which client ids exist.
	ok, err := a.checker.Check(ctx, clientID, secret, c.SecretHash, found)
	if err != nil {
		return IssuedToken{}, fmt.Errorf("check secret of %s: %w", clientID, err)
	}
	if !ok {
		return IssuedToken{}, ErrInvalidClient
	}
	return a.issue(authn.Identity{ClientID: c.ID, ClientName: c.Name, Scope: authn.ScopePlatform}, PlatformTokenTTL)
}

// MintBusinessToken issues a token limited to business bid for the platform
// client caller. sessionSeconds nil means the default lifetime.
func (a *App) MintBusinessToken(ctx context.Context, caller authn.Identity, bid uuid.UUID, sessionSeconds *int) (IssuedToken, error) {
	if !caller.IsPlatform() {
		return IssuedToken{}, apperr.New(apperr.Forbidden, "business tokens cannot mint tokens").WithEnum("PlatformTokenRequired")
	}
	ttl := DefaultBusinessTokenTTL
	if sessionSeconds != nil {
		s := *sessionSeconds
		if s < MinBusinessTokenSeconds || s > a.cfg.BusinessTokenMaxSeconds {
			return IssuedToken{}, apperr.PayloadField("session_duration",
				fmt.Sprintf("must be an integer between %d and %d", MinBusinessTokenSeconds, a.cfg.BusinessTokenMaxSeconds))
		}
		ttl = time.Duration(s) * time.Second
	}
	if err := tenancy.Authorize(ctx, caller, bid, a.businesses); err != nil {
		return IssuedToken{}, err
	}
	return a.issue(authn.Identity{ClientID: caller.ClientID, ClientName: caller.ClientName, Scope: authn.ScopeBusiness, BusinessID: bid}, ttl)
}

func (a *App) issue(id authn.Identity, ttl time.Duration) (IssuedToken, error) {
	signer, err := a.keys.Signer()
	if err != nil {
		return IssuedToken{}, err
	}
	tok, issued, err := signer.Issue(id, ttl)
	if err != nil {
		return IssuedToken{}, fmt.Errorf("issue token: %w", err)
	}
	return IssuedToken{AccessToken: tok, ExpiresIn: int(ttl / time.Second), Identity: issued}, nil
}
