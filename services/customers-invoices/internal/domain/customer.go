package domain

import (
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/party"
)

// CustomerKind is a Customer's pkg/party kind: its messages name a
// customer, its errors are InvalidCustomer and CustomerNameRequired.
type CustomerKind struct{}

// Kind implements party.Kinded.
func (CustomerKind) Kind() party.Kind { return customers }

var customers = party.Kind{Noun: "customer", EnumInvalid: EnumInvalidCustomer, EnumNameRequired: EnumCustomerNameRequired}

// Customer is one customer of a business (pkg/party has its fields and
// rules).
type Customer = party.Party[CustomerKind]

// CustomerStatus is a customer's state: ACTIVE customers are listed by
// default, ARCHIVED ones only on request (and stay readable by id).
type CustomerStatus = party.Status

// The customer statuses (the spec's closed enum).
const (
	StatusActive   = party.StatusActive
	StatusArchived = party.StatusArchived
)

// CustomerInput is a checked POST /customers body.
type CustomerInput = party.Input

// CustomerPatch is a checked PATCH /customers/{id} body: what to change.
type CustomerPatch = party.Patch

// CustomerFilter is the listing filter of GET /customers.
type CustomerFilter = party.Filter

// ParseCustomerInput reads a POST /customers body (party.Kind.ParseInput):
// every violation is named in one 400 InvalidPayload (error_enum
// InvalidCustomer, CustomerNameRequired or InvalidTags for the first one).
func ParseCustomerInput(raw []byte) (CustomerInput, error) { return customers.ParseInput(raw) }

// ParseCustomerPatch reads a PATCH /customers/{id} body
// (party.Kind.ParsePatch).
func ParseCustomerPatch(raw []byte) (CustomerPatch, error) { return customers.ParsePatch(raw) }

// ParseCustomerFilter reads the listing filters of GET /customers
// (party.ParseFilter).
func ParseCustomerFilter(q url.Values) (CustomerFilter, error) { return party.ParseFilter(q) }

// NewCustomer is the ACTIVE customer id of businessID created from in at
// now (version 1).
func NewCustomer(businessID, id uuid.UUID, in CustomerInput, now time.Time) Customer {
	return party.New[CustomerKind](businessID, id, in, now)
}

// ArchivePatch is the patch of POST /customers/{id}/archive.
func ArchivePatch() CustomerPatch { return party.ArchivePatch() }
