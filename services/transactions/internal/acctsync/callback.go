package acctsync

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Callback is what the provider sends the browser back with.
type Callback struct {
	Code    string
	State   string
	RealmID string
	// Error and ErrorDescription are set instead of Code when the user
	// declined or the provider refused the request.
	Error            string
	ErrorDescription string
}

// Connected describes a completed connection.
type Connected struct {
	BusinessID       uuid.UUID
	RealmID          string
	ConnectedAt      time.Time
	AccountsImported int
}

// Limits of the callback's parameters.
const (
	maxCodeLen  = 1024
	maxRealmLen = 32
)

// CompleteAuthorization finishes the flow Authorize started: it consumes
// the state (so it is never accepted twice, whatever happens next),
// exchanges the code, reads the external chart of accounts and stores the
// connection, its sealed tokens, the accounts and their default mapping in
// one transaction. Any failure leaves nothing written but the consumed
// state.
func (s *Service) CompleteAuthorization(ctx context.Context, in Callback) (Connected, error) {
	if s.provider == nil {
		return Connected{}, notConfigured()
	}
	if in.State == "" {
		return Connected{}, apperr.Field("state", "is required").WithEnum(EnumInvalidCallbackRequest)
	}
	tokenBusiness, hash, err := parseStateToken(in.State)
	if err != nil {
		return Connected{}, invalidState()
	}
	st, found, err := s.store.ConsumeState(ctx, hash)
	if err != nil {
		return Connected{}, fmt.Errorf("acctsync callback: consume state: %w", err)
	}
	if !found || checkState(st, tokenBusiness, hash, s.clock()) != nil {
		return Connected{}, invalidState()
	}
	if in.Error != "" {
		e := apperr.Newf(apperr.InvalidParameters, "the accounting provider did not authorize the connection: %s", in.Error).
			WithEnum(EnumAuthorizationDenied).WithMeta("provider_error", in.Error)
		if in.ErrorDescription != "" {
			e = e.WithMeta("provider_error_description", in.ErrorDescription)
		}
		return Connected{}, e
	}
	fields := map[string]string{}
	if in.Code == "" || len(in.Code) > maxCodeLen {
		fields["code"] = fmt.Sprintf("is required, at most %d characters", maxCodeLen)
	}
	if !validRealmID(in.RealmID) {
		fields["realmId"] = fmt.Sprintf("is required: the company id, 1 to %d digits", maxRealmLen)
	}
	if len(fields) > 0 {
		return Connected{}, apperr.FieldErrors(apperr.InvalidParameters, fields).WithEnum(EnumInvalidCallbackRequest)
	}

	tokens, err := s.provider.Exchange(ctx, in.Code)
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "acctsync: code exchange failed",
			slog.String("business_id", st.BusinessID.String()), slog.String("error", err.Error()))
		return Connected{}, providerError("exchange", err)
	}
	accounts, err := s.provider.Accounts(ctx, tokens.AccessToken, in.RealmID)
	if err == nil {
		err = checkChart(accounts)
	}
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "acctsync: chart import failed",
			slog.String("business_id", st.BusinessID.String()), slog.String("error", err.Error()))
		return Connected{}, providerError("accounts", err)
	}
	mappings, err := s.mapAccounts(ctx, st.BusinessID, accounts)
	if err != nil {
		return Connected{}, fmt.Errorf("acctsync callback %s: %w", st.BusinessID, err)
	}

	now := s.clock()
	conn := Connection{BusinessID: st.BusinessID, RealmID: in.RealmID, ConnectedBy: st.ClientID, ConnectedAt: now, LastSyncedAt: &now}
	if err := s.sealTokens(&conn, tokens, now); err != nil {
		return Connected{}, err
	}
	imp := Import{BusinessID: st.BusinessID, RealmID: in.RealmID, Accounts: accounts, Mappings: mappings, At: now}
	if err := s.store.Connect(ctx, conn, imp); err != nil {
		return Connected{}, fmt.Errorf("acctsync callback %s: store: %w", st.BusinessID, err)
	}
	return Connected{BusinessID: st.BusinessID, RealmID: in.RealmID, ConnectedAt: now, AccountsImported: len(accounts)}, nil
}

// validRealmID accepts QuickBooks Online company ids: digits only, which
// also keeps the id safe inside API paths.
func validRealmID(s string) bool {
	if s == "" || len(s) > maxRealmLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
