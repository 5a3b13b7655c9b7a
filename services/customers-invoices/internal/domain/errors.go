// Package domain holds the customers-invoices service's entities and rules:
// what a customer is, how a request creating, changing or listing customers
// is read and checked, and what a change does to a customer. It imports no
// HTTP, database or broker package; its errors are apperr errors the HTTP
// layer renders as they are.
package domain

import (
	"github.com/acctsuite/acct/pkg/apperr"
)

// Stable error_enum values of the 4xx errors of this package. Clients match
// on them, so they never change once published.
const (
	// EnumInvalidCustomer: a create or patch body breaks a rule (meta.fields
	// names every offending field). Tag violations use tags.EnumInvalidTags.
	EnumInvalidCustomer = "InvalidCustomer"
	// EnumCustomerNameRequired: the customer would have neither an
	// individual_name nor a company_name.
	EnumCustomerNameRequired = "CustomerNameRequired"
	// EnumInvalidFilter: a listing query parameter is invalid.
	EnumInvalidFilter = "InvalidFilter"
	// EnumCustomerNotFound: no such customer in the business (another
	// business's customer included: existence is not revealed).
	EnumCustomerNotFound = "CustomerNotFound"
	// EnumDuplicateExternalID: a patch gives the customer an external_id
	// another customer of the business already has.
	EnumDuplicateExternalID = "DuplicateExternalId"
)

// ErrCustomerNotFound is the 404 of a customer id the business does not
// have.
func ErrCustomerNotFound() *apperr.Error {
	return apperr.New(apperr.NotFound, "customer not found").WithEnum(EnumCustomerNotFound)
}

// ErrDuplicateExternalID is the 409 of a patch that would give a second
// customer of the business the same external_id.
func ErrDuplicateExternalID(externalID string) *apperr.Error {
	return apperr.New(apperr.Conflict, "another customer of the business has this external_id").
		WithEnum(EnumDuplicateExternalID).WithMeta("fields", map[string]string{"external_id": "already used by another customer"}).
		WithMeta("external_id", externalID)
}
