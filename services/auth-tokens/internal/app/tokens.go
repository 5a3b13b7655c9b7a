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

// Kinds of RefusedToken.
const (
	// RefusedExpired is a platform token of the client that expired an
	// hour ago.
	RefusedExpired = "expired"
	// RefusedUnknownBusiness is a business token of the client, valid for
	// ten minutes, for a business id that exists nowhere.
	RefusedUnknownBusiness = "unknown-business"
)

// RefusedToken signs, for the existing client clientID, a token every
// protected route must refuse (kind RefusedExpired: 401) or find no
// business for (kind RefusedUnknownBusiness: 404): the tenancy matrix
// needs such tokens signed by the real key. It never mints a token that
// grants access: the expired one is past its expiry when signed, and the
// business id of the other is a fresh one no business has.
func (a *App) RefusedToken(ctx context.Context, clientID, kind string) (IssuedToken, error) {
	c, found, err := a.clients.FindClient(ctx, clientID)
	if err != nil {
		return IssuedToken{}, fmt.Errorf("find client: %w", err)
	}
	if !found {
		return IssuedToken{}, fmt.Errorf("no client %q", clientID)
	}
	id := authn.Identity{ClientID: c.ID, ClientName: c.Name, Scope: authn.ScopePlatform}
	signer, err := a.keys.Signer()
	if err != nil {
		return IssuedToken{}, err
	}
	ttl := time.Hour
	switch kind {
	case RefusedExpired:
		// Issued two hours ago for one hour.
		issuedAt := a.cfg.Now().Add(-2 * time.Hour)
		signer = signer.WithClock(func() time.Time { return issuedAt })
	case RefusedUnknownBusiness:
		bid, err := newID()
		if err != nil {
			return IssuedToken{}, err
		}
		if _, exists, err := a.businesses.FindBusiness(ctx, bid); err != nil || exists {
			return IssuedToken{}, fmt.Errorf("business id %s is not unknown (exists %v): %v", bid, exists, err)
		}
		id.Scope, id.BusinessID, ttl = authn.ScopeBusiness, bid, 10*time.Minute
	default:
		return IssuedToken{}, fmt.Errorf("unknown kind %q (want %s or %s)", kind, RefusedExpired, RefusedUnknownBusiness)
	}
	tok, issued, err := signer.Issue(id, ttl)
	if err != nil {
		return IssuedToken{}, fmt.Errorf("issue token: %w", err)
	}
	return IssuedToken{AccessToken: tok, ExpiresIn: int(time.Until(issued.ExpiresAt) / time.Second), Identity: issued}, nil
}
