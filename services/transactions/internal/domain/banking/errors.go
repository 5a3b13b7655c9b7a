package banking

import (
	"github.com/acctsuite/acct/pkg/apperr"
)

// Stable error_enum values of the 4xx errors of this package. Clients match
// on them, so they never change once published.
const (
	// Categorize request.
	EnumInvalidCategorization  = "InvalidCategorization"
	EnumInvalidSplitAmount     = "InvalidSplitAmount"
	EnumSplitAmountMismatch    = "SplitAmountMismatch"
	EnumTooManySplitEntries    = "TooManySplitEntries"
	EnumDuplicateNotSplittable = "DuplicateNotSplittable"
	EnumTaxCodeNotAllowed      = "TaxCodeNotAllowed"
	EnumUnknownTaxCode         = "UnknownTaxCode"
	EnumCategoryIsBankAccount  = "CategoryIsBankAccount"

	// Imports and recorded transactions.
	EnumInvalidTransaction   = "InvalidTransaction"
	EnumTooManyTransactions  = "TooManyTransactions"
	EnumNoTransactions       = "NoTransactions"
	EnumDuplicateExternalID  = "DuplicateExternalId"
	EnumMetadataTooLarge     = "MetadataTooLarge"
	EnumAmountOutOfRange     = "AmountOutOfRange"
	EnumInvalidMultipart     = "InvalidMultipart"
	EnumUnknownPart          = "UnknownPart"
	EnumEmptyRecordRequest   = "EmptyRecordRequest"
	EnumTooManyFiles         = "TooManyFiles"
	EnumDuplicateFilename    = "DuplicateFilename"
	EnumMissingFilename      = "MissingFilename"
	EnumFileTooLarge         = "FileTooLarge"
	EnumTransactionTooLarge  = "TransactionPartTooLarge"
	EnumUnsupportedMediaType = "UnsupportedMediaType"

	// Listing filters and rules.
	EnumInvalidFilter = "InvalidFilter"
	EnumInvalidRule   = "InvalidCategorizationRule"

	// Custom accounts.
	EnumInvalidCustomAccount = "InvalidCustomAccount"
)

// fieldError is a 400 naming one field with its enum.
func fieldError(t apperr.Type, field, enum, reason string) *apperr.Error {
	return apperr.FieldErrors(t, map[string]string{field: reason}).WithEnum(enum)
}
