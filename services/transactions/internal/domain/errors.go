package domain

import "github.com/acctsuite/acct/pkg/apperr"

// Stable error_enum values of the ledger's 4xx errors. Clients match on
// them, so they never change once published.
const (
	EnumUnbalancedEntry     = "UnbalancedEntry"
	EnumTooFewLines         = "TooFewLineItems"
	EnumTooManyLines        = "TooManyLineItems"
	EnumInvalidLine         = "InvalidLineItem"
	EnumUnknownAccount      = "UnknownAccount"
	EnumAccountArchived     = "AccountArchived"
	EnumAccountTypeMismatch = "AccountTypeMismatch"
	EnumDuplicateStableName = "DuplicateStableName"
	EnumImmutableField      = "ImmutableField"
	EnumDefaultAccount      = "DefaultAccount"
	EnumAccountInUse        = "AccountInUse"
	EnumAlreadyReversed     = "EntryAlreadyReversed"
	EnumReversalOfReversal  = "EntryIsReversal"
	EnumEntryOwnedBySource  = "EntryOwnedBySource"
	EnumSourceConflict      = "SourceConflict"
	EnumLiveEntryExists     = "LiveEntryExists"
	EnumDuplicateExternalID = "DuplicateExternalId"
	EnumAccountNotFound     = "AccountNotFound"
	EnumEntryNotFound       = "EntryNotFound"
	EnumMetadataTooLarge    = "MetadataTooLarge"
)

// ErrAccountNotFound is the 404 of an account id the business does not have.
func ErrAccountNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "ledger account not found").WithEnum(EnumAccountNotFound)
}

// ErrEntryNotFound is the 404 of an entry id the business does not have.
func ErrEntryNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "ledger entry not found").WithEnum(EnumEntryNotFound)
}

// ErrDuplicateStableName is the 409 of a stable name the business already uses.
func ErrDuplicateStableName(name string) *apperr.Error {
	return apperr.Newf(apperr.Conflict, "the business already has an account with stable name %q", name).
		WithEnum(EnumDuplicateStableName).WithMeta("stable_name", name)
}

// ErrUnknownAccount is the 400 of an account reference in a body that names
// no account of the business (unknown id, unknown stable name, or another
// business's account: existence is not revealed).
func ErrUnknownAccount(field string, ref AccountRef) *apperr.Error {
	return apperr.FieldErrors(apperr.InvalidPayload, map[string]string{field: "unknown " + ref.String()}).
		WithEnum(EnumUnknownAccount)
}
