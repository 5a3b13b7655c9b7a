package acctsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/page"
)

// Tokens is a token pair as the provider issued it.
type Tokens struct {
	AccessToken  string
	RefreshToken string
	TokenType    string
	// ExpiresIn is the access token's lifetime from issue.
	ExpiresIn time.Duration
	// RefreshExpiresIn is the refresh token's lifetime (QuickBooks Online's
	// x_refresh_token_expires_in); 0 when the provider did not say.
	RefreshExpiresIn time.Duration
}

// Provider is the external accounting software: its OAuth 2.0 endpoints and
// its chart of accounts. Errors wrap the Err* values of this package.
type Provider interface {
	// AuthCodeURL is the provider's authorization URL carrying state.
	AuthCodeURL(state string) string
	// Exchange trades an authorization code for tokens.
	Exchange(ctx context.Context, code string) (Tokens, error)
	// Refresh trades a refresh token for a new pair.
	Refresh(ctx context.Context, refreshToken string) (Tokens, error)
	// Accounts reads the company's whole chart of accounts.
	Accounts(ctx context.Context, accessToken, realmID string) ([]ExternalAccount, error)
	// AccountsPage reads one page of the chart from position start
	// (FirstCursor for the first); next is the position of the following
	// page, done reports the last page.
	AccountsPage(ctx context.Context, accessToken, realmID string, start int) (accounts []ExternalAccount, next int, done bool, err error)
	// Revoke revokes a token and the grant it belongs to (ErrGrantRejected
	// when the provider no longer knows it).
	Revoke(ctx context.Context, token string) error
}

// Connection is a business's link to its external company, with its tokens
// sealed by the TokenCipher.
type Connection struct {
	BusinessID       uuid.UUID
	RealmID          string
	ConnectedBy      string // platform client that authorized it
	ConnectedAt      time.Time
	AccessTokenEnc   []byte
	RefreshTokenEnc  []byte
	TokenType        string
	AccessExpiresAt  time.Time
	RefreshExpiresAt *time.Time
	// TokenVersion grows with every stored token pair, so a process can
	// tell that another one refreshed since it read the connection.
	TokenVersion int64
	LastSyncedAt *time.Time
}

// Import is a complete read of the external chart, stored as one unit.
type Import struct {
	BusinessID uuid.UUID
	RealmID    string
	Accounts   []ExternalAccount
	Mappings   []Mapping
	At         time.Time
}

// Store keeps states, connections and imported accounts. Each method is
// atomic.
type Store interface {
	// SaveState records a pending authorization and drops the states that
	// expired before now.
	SaveState(ctx context.Context, s State, now time.Time) error
	// ConsumeState deletes and returns the state with this hash: a state
	// is read at most once, whatever happens next.
	ConsumeState(ctx context.Context, hash []byte) (State, bool, error)
	// Connect stores (or replaces) the business's connection and its
	// import in one transaction.
	Connect(ctx context.Context, c Connection, imp Import) error
	// Connection reads the business's connection.
	Connection(ctx context.Context, businessID uuid.UUID) (Connection, bool, error)
	// UpdateConnection runs fn on the business's connection with the row
	// locked, so concurrent refreshes of one connection take turns; when
	// fn reports a change, the connection is stored with TokenVersion+1.
	// false when there is no connection.
	UpdateConnection(ctx context.Context, businessID uuid.UUID, fn func(c *Connection) (changed bool, err error)) (Connection, bool, error)
	// ReplaceAccounts stores a new import for an existing connection to the
	// same realm in one transaction; false when there is no such
	// connection any more.
	ReplaceAccounts(ctx context.Context, imp Import) (bool, error)
	// AccountTree reads one imported account of the business with all its
	// sub-accounts.
	AccountTree(ctx context.Context, businessID, accountID uuid.UUID) (AccountNode, bool, error)
	// RootAccounts lists one page of the business's top-level imported
	// accounts (those whose parent is not imported), each with all its
	// sub-accounts.
	RootAccounts(ctx context.Context, businessID uuid.UUID, p page.Params) ([]AccountNode, page.Meta, error)
	// Disconnect deletes the business's connection with its tokens,
	// imported accounts, mapping and sync state, and returns what it
	// deleted; false when there was none.
	Disconnect(ctx context.Context, businessID uuid.UUID) (Connection, bool, error)

	// SyncState reads the business's sync (false: never asked for).
	SyncState(ctx context.Context, businessID uuid.UUID) (SyncState, bool, error)
	// UpdateSync runs fn on the business's connection and sync state (a
	// zero state with BusinessID set when there is none), both locked,
	// then stores the state fn left and applies its change in the same
	// transaction; an error from fn writes nothing. false when there is no
	// connection.
	UpdateSync(ctx context.Context, businessID uuid.UUID, fn func(c Connection, st *SyncState) (SyncChange, error)) (SyncState, bool, error)
	// ClaimableSyncs lists up to limit businesses whose sync a worker may
	// claim at now (queued, or running under an expired lease).
	ClaimableSyncs(ctx context.Context, now time.Time, limit int) ([]uuid.UUID, error)
	// StagedAccounts reads the accounts the business's current sync has
	// read so far.
	StagedAccounts(ctx context.Context, businessID uuid.UUID) ([]ExternalAccount, error)
}

// SyncChange is what UpdateSync writes with the new sync state.
type SyncChange struct {
	// ResetStaging drops the pages staged by an earlier sync.
	ResetStaging bool
	// Stage adds one page of read accounts (replacing any staged under
	// the same provider id).
	Stage []ExternalAccount
	// Import replaces the imported chart and mapping with this one
	// (ReplaceAccounts' rules) and drops the staged pages.
	Import *Import
}

// LocalAccounts finds accounts of the local ledger by id.
type LocalAccounts interface {
	FindAccount(ctx context.Context, businessID, accountID uuid.UUID) (LedgerAccount, bool, error)
}

// LocalAccountsByStableName finds accounts of the local ledger by stable
// name (BANK_ACCOUNTS, SALES...), for the default mapping.
type LocalAccountsByStableName interface {
	FindAccountByStableName(ctx context.Context, businessID uuid.UUID, stableName string) (LedgerAccount, bool, error)
}

// Options are the collaborators of the Service.
type Options struct {
	Store Store
	// Provider is nil when acctsync is not configured; the use cases that
	// need it then answer 503.
	Provider Provider
	// Cipher seals the tokens; required with Provider.
	Cipher *TokenCipher
	// Local resolves mapped local accounts; nil shows none.
	Local LocalAccounts
	// LocalByStableName drives the default mapping; nil maps nothing.
	LocalByStableName LocalAccountsByStableName
	// MappingRules replace DefaultMappingRules when non-nil.
	MappingRules []MappingRule
	// StateTTL is how long an authorization may take (default 10 minutes).
	StateTTL time.Duration
	// SyncLease is how long a sync run holds its claim without reading a
	// page (default 2 minutes): a run silent for longer is taken to be
	// dead, and another worker resumes its sync.
	SyncLease time.Duration
	// SyncPoll is how often the sync worker looks for syncs to resume
	// (default 15 seconds).
	SyncPoll time.Duration
	// SyncWorkers bounds the syncs one process runs at once (default 4).
	SyncWorkers int
	// Now is the clock (default time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// DefaultStateTTL is the lifetime of an authorization state.
const DefaultStateTTL = 10 * time.Minute

// refreshLeeway refreshes an access token this long before it expires, so
// it never expires between the check and the provider call.
const refreshLeeway = time.Minute

// Defaults of the sync options.
const (
	DefaultSyncLease   = 2 * time.Minute
	DefaultSyncPoll    = 15 * time.Second
	DefaultSyncWorkers = 4
)

// Service holds the acctsync use cases.
type Service struct {
	store    Store
	provider Provider
	cipher   *TokenCipher
	local    LocalAccounts
	byStable LocalAccountsByStableName
	rules    []MappingRule
	stateTTL time.Duration
	now      func() time.Time
	log      *slog.Logger

	syncLease time.Duration
	syncPoll  time.Duration
	// kick wakes the sync worker when a sync is asked for; slots bounds
	// the runs of this process.
	kick  chan struct{}
	slots chan struct{}
}

// New checks the options and makes the Service.
func New(o Options) (*Service, error) {
	if o.Store == nil {
		return nil, errors.New("acctsync: Store is required")
	}
	if o.Provider != nil && o.Cipher == nil {
		return nil, errors.New("acctsync: a Provider needs a Cipher for its tokens")
	}
	s := &Service{store: o.Store, provider: o.Provider, cipher: o.Cipher, local: o.Local,
		byStable: o.LocalByStableName, rules: o.MappingRules, stateTTL: o.StateTTL, now: o.Now, log: o.Logger}
	if s.rules == nil {
		s.rules = DefaultMappingRules()
	}
	if s.stateTTL <= 0 {
		s.stateTTL = DefaultStateTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.syncLease, s.syncPoll = o.SyncLease, o.SyncPoll
	if s.syncLease <= 0 {
		s.syncLease = DefaultSyncLease
	}
	if s.syncPoll <= 0 {
		s.syncPoll = DefaultSyncPoll
	}
	workers := o.SyncWorkers
	if workers <= 0 {
		workers = DefaultSyncWorkers
	}
	s.kick, s.slots = make(chan struct{}, 1), make(chan struct{}, workers)
	return s, nil
}

// Enabled reports whether a provider is configured.
func (s *Service) Enabled() bool { return s.provider != nil }

func (s *Service) clock() time.Time { return s.now().UTC() }

// tokenAAD binds a sealed token to its business, realm and role.
func tokenAAD(businessID uuid.UUID, realmID, role string) string {
	return fmt.Sprintf("acctsync/%s/%s/%s", businessID, realmID, role)
}

// sealTokens puts a fresh pair into c (its expiries counted from now).
func (s *Service) sealTokens(c *Connection, t Tokens, now time.Time) error {
	access, err := s.cipher.Seal(t.AccessToken, tokenAAD(c.BusinessID, c.RealmID, "access"))
	if err != nil {
		return err
	}
	refresh, err := s.cipher.Seal(t.RefreshToken, tokenAAD(c.BusinessID, c.RealmID, "refresh"))
	if err != nil {
		return err
	}
	c.AccessTokenEnc, c.RefreshTokenEnc, c.TokenType = access, refresh, t.TokenType
	c.AccessExpiresAt = now.Add(t.ExpiresIn)
	c.RefreshExpiresAt = nil
	if t.RefreshExpiresIn > 0 {
		exp := now.Add(t.RefreshExpiresIn)
		c.RefreshExpiresAt = &exp
	}
	return nil
}

// mapAccounts applies the default mapping rule: per account, the first
// candidate stable name that exists in the local ledger with the same
// account type.
func (s *Service) mapAccounts(ctx context.Context, businessID uuid.UUID, accounts []ExternalAccount) ([]Mapping, error) {
	if s.byStable == nil {
		return nil, nil
	}
	type hit struct {
		acct  LedgerAccount
		found bool
	}
	cache := map[string]hit{}
	var out []Mapping
	for _, a := range accounts {
		want := a.Classification.AccountType()
		for _, c := range MappingCandidates(a, s.rules) {
			h, ok := cache[c.StableName]
			if !ok {
				la, found, err := s.byStable.FindAccountByStableName(ctx, businessID, c.StableName)
				if err != nil {
					return nil, fmt.Errorf("find local account %s: %w", c.StableName, err)
				}
				h = hit{acct: la, found: found}
				cache[c.StableName] = h
			}
			if h.found && h.acct.AccountType == want {
				out = append(out, Mapping{ExternalID: a.ExternalID, LocalAccountID: h.acct.ID, Rule: c.Rule})
				break
			}
		}
	}
	return out, nil
}

// checkChart refuses an external chart that cannot be stored as a tree:
// duplicate ids, unknown classifications or a parent cycle.
func checkChart(accounts []ExternalAccount) error {
	parent := make(map[string]string, len(accounts))
	for _, a := range accounts {
		if a.ExternalID == "" {
			return fmt.Errorf("%w: an account has no id", ErrProviderBadAnswer)
		}
		if _, dup := parent[a.ExternalID]; dup {
			return fmt.Errorf("%w: account id %q appears twice", ErrProviderBadAnswer, a.ExternalID)
		}
		if !a.Classification.Valid() {
			return fmt.Errorf("%w: account %q has classification %q", ErrProviderBadAnswer, a.ExternalID, a.Classification)
		}
		parent[a.ExternalID] = a.ParentExternalID
	}
	for id := range parent {
		seen := map[string]bool{}
		for cur := id; cur != ""; cur = parent[cur] {
			if seen[cur] {
				return fmt.Errorf("%w: account %q is its own ancestor", ErrProviderBadAnswer, id)
			}
			seen[cur] = true
		}
	}
	return nil
}
