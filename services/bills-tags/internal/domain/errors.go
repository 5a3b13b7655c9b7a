// Package domain holds the bills-tags service's entities and rules:
// what a vendor is, how a request creating, changing or listing vendors
// is read and checked, and what a change does to a vendor. It imports no
// HTTP, database or broker package; its errors are apperr errors the HTTP
// layer renders as they are.
package domain

import (
	"github.com/acctsuite/acct/pkg/apperr"
)

// Stable error_enum values of the 4xx errors of this package. Clients match
// on them, so they never change once published.
const (
	// EnumInvalidVendor: a create or patch body breaks a rule (meta.fields
	// names every offending field). Tag violations use tags.EnumInvalidTags.
	EnumInvalidVendor = "InvalidVendor"
	// EnumVendorNameRequired: the vendor would have neither an
	// individual_name nor a company_name.
	EnumVendorNameRequired = "VendorNameRequired"
	// EnumInvalidFilter: a listing query parameter is invalid.
	EnumInvalidFilter = "InvalidFilter"
	// EnumVendorNotFound: no such vendor in the business (another
	// business's vendor included: existence is not revealed).
	EnumVendorNotFound = "VendorNotFound"
	// EnumDuplicateExternalID: a patch gives the vendor an external_id
	// another vendor of the business already has.
	EnumDuplicateExternalID = "DuplicateExternalId"
)

// ErrVendorNotFound is the 404 of a vendor id the business does not
// have.
func ErrVendorNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "vendor not found").WithEnum(EnumVendorNotFound)
}

// ErrDuplicateExternalID is the 409 of a patch that would give a second
// vendor of the business the same external_id.
func ErrDuplicateExternalID(externalID string) *apperr.Error {
	return apperr.New(apperr.Conflict, "another vendor of the business has this external_id").
		WithEnum(EnumDuplicateExternalID).WithMeta("fields", map[string]string{"external_id": "already used by another vendor"}).
		WithMeta("external_id", externalID)
}

// Error enums of a vendor merge.
const (
	// EnumInvalidMerge: the merge body breaks a rule (a vendor merged into
	// itself, a missing or malformed vendor_to_archive_id).
	EnumInvalidMerge = "InvalidMerge"
	// EnumVendorArchived: the vendor kept by a merge is archived.
	EnumVendorArchived = "VendorArchived"
)

// ErrVendorArchived is the 409 of a merge into an archived vendor.
func ErrVendorArchived() *apperr.Error {
	return apperr.New(apperr.Conflict, "the vendor is archived: reactivate it (status ACTIVE) before merging into it").
		WithEnum(EnumVendorArchived)
}
