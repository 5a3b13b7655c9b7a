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

// violations collects every offending field of one request so that a
// client learns all its mistakes from one answer. The error's enum is the
// one of the first violation recorded, so callers record the most telling
// checks first.
type violations struct {
	typ    apperr.Type
	fields map[string]string
	enum   string
	extra  map[string]any
}

func newViolations(t apperr.Type) *violations {
	return &violations{typ: t, fields: map[string]string{}}
}

// add records a violation of field; a field keeps its first reason.
func (v *violations) add(field, enum, reason string) {
	if _, dup := v.fields[field]; dup {
		return
	}
	if v.enum == "" {
		v.enum = enum
	}
	v.fields[field] = reason
}

// meta adds a meta entry besides the fields (e.g. the expected total).
func (v *violations) meta(key string, value any) {
	if v.extra == nil {
		v.extra = map[string]any{}
	}
	v.extra[key] = value
}

// has reports whether field already has a violation.
func (v *violations) has(field string) bool { _, ok := v.fields[field]; return ok }

// any reports whether anything was recorded.
func (v *violations) any() bool { return len(v.fields) > 0 }

// merge copies the field violations of an *apperr.Error (from pkg/tags or
// pkg/money) into v; other errors are returned for the caller to pass on.
func (v *violations) merge(err error) error {
	if err == nil {
		return nil
	}
	ae := apperr.From(err)
	if ae.Status() >= 500 {
		return err
	}
	fields, _ := ae.Meta["fields"].(map[string]string)
	if len(fields) == 0 {
		v.add("", ae.Enum, ae.Message)
		return nil
	}
	enum := ae.Enum
	if enum == "" {
		enum = string(ae.Type)
	}
	for f, r := range fields {
		v.add(f, enum, r)
	}
	return nil
}

// err is the 400 naming every violation, or nil.
func (v *violations) err() error {
	if !v.any() {
		return nil
	}
	e := apperr.FieldErrors(v.typ, v.fields).WithEnum(v.enum)
	for k, val := range v.extra {
		e.WithMeta(k, val)
	}
	return e
}

// fieldError is a 400 naming one field with its enum.
func fieldError(t apperr.Type, field, enum, reason string) *apperr.Error {
	return apperr.FieldErrors(t, map[string]string{field: reason}).WithEnum(enum)
}
