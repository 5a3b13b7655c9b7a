package acctsync

import (
	"errors"

	"github.com/acctsuite/acct/pkg/apperr"
)

// Errors a Provider wraps so the use cases can answer the right status
// without knowing the provider's wire format.
var (
	// ErrProviderUnavailable: the provider could not be reached or
	// answered 5xx.
	ErrProviderUnavailable = errors.New("acctsync: provider unavailable")
	// ErrProviderBadAnswer: the provider answered something we cannot read
	// (malformed JSON, a balance that is not an amount, a cyclic chart).
	ErrProviderBadAnswer = errors.New("acctsync: unreadable provider answer")
	// ErrGrantRejected: the token endpoint refused the authorization code
	// or refresh token (invalid_grant: unknown, expired, used or revoked).
	ErrGrantRejected = errors.New("acctsync: provider rejected the grant")
	// ErrClientRejected: the token endpoint refused our client credentials
	// or redirect URL (a configuration problem on our side).
	ErrClientRejected = errors.New("acctsync: provider rejected the client")
	// ErrAccessDenied: the API refused the access token (401/403).
	ErrAccessDenied = errors.New("acctsync: provider refused the access token")
	// ErrRevokeUnsupported: the provider has no token revocation.
	ErrRevokeUnsupported = errors.New("acctsync: provider cannot revoke tokens")
)

// Stable error_enum values of acctsync's 4xx answers.
const (
	EnumInvalidState           = "AcctsyncInvalidState"
	EnumAuthorizationDenied    = "AcctsyncAuthorizationDenied"
	EnumAuthorizationRejected  = "AcctsyncAuthorizationCodeRejected"
	EnumNotConnected           = "AcctsyncNotConnected"
	EnumReauthorizationNeeded  = "AcctsyncReauthorizationRequired"
	EnumAccountNotFound        = "AcctsyncAccountNotFound"
	EnumInvalidCallbackRequest = "AcctsyncInvalidCallback"
	EnumConnectionChanged      = "AcctsyncConnectionChanged"
)

// notConfigured is the answer of the provider-facing use cases when
// acctsync has no client credentials on this server.
func notConfigured() *apperr.Error {
	return apperr.New(apperr.Unavailable,
		"acctsync is not configured on this server (ACCTSYNC_CLIENT_ID is unset)")
}

func invalidState() *apperr.Error {
	return apperr.New(apperr.InvalidParameters,
		"the authorization state is unknown, expired or already used; start again with POST /v1/businesses/{businessId}/acctsync/authorize").
		WithEnum(EnumInvalidState).WithMeta("fields", map[string]string{"state": "unknown, expired or already used"})
}

// providerError turns a provider failure during step into the API's
// answer: the client's fault (a rejected code) is 400, a revoked refresh
// token 409, everything on the provider's or our configuration's side 503
// with a description that says which.
func providerError(step string, err error) error {
	switch {
	case errors.Is(err, ErrGrantRejected) && step == "exchange":
		return apperr.Wrap(apperr.InvalidParameters, err,
			"the accounting provider rejected the authorization code (expired or already used); start again").
			WithEnum(EnumAuthorizationRejected)
	case errors.Is(err, ErrGrantRejected), errors.Is(err, ErrAccessDenied) && step == "refresh":
		return apperr.Wrap(apperr.Conflict, err,
			"the accounting provider no longer accepts this connection's tokens; authorize it again").
			WithEnum(EnumReauthorizationNeeded)
	case errors.Is(err, ErrClientRejected):
		return apperr.Wrap(apperr.Unavailable, err,
			"the accounting provider rejected this server's acctsync client credentials; check the acctsync configuration")
	case errors.Is(err, ErrProviderBadAnswer):
		return apperr.Wrap(apperr.Unavailable, err,
			"the accounting provider answered with data that could not be read; nothing was imported")
	default:
		return apperr.Wrap(apperr.Unavailable, err,
			"the accounting provider is unavailable; nothing was imported, try again later")
	}
}
