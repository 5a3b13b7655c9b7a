package domain

import (
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/party"
)

// VendorKind is a Vendor's pkg/party kind: its messages name a vendor,
// its errors are InvalidVendor and VendorNameRequired.
type VendorKind struct{}

// Kind implements party.Kinded.
func (VendorKind) Kind() party.Kind { return vendors }

var vendors = party.Kind{Noun: "vendor", EnumInvalid: EnumInvalidVendor, EnumNameRequired: EnumVendorNameRequired}

// Vendor is one vendor of a business: a counterparty (pkg/party has its
// fields and rules) that may have been merged into another.
type Vendor struct {
	party.Party[VendorKind]
	// MergedIntoID is the vendor this one was merged into (it is then
	// ARCHIVED, its bills and credits moved to that vendor).
	MergedIntoID *uuid.UUID
}

// VendorStatus is a vendor's state: ACTIVE vendors are listed by default,
// ARCHIVED ones only on request (and stay readable by id).
type VendorStatus = party.Status

// The vendor statuses (the spec's closed enum).
const (
	StatusActive   = party.StatusActive
	StatusArchived = party.StatusArchived
)

// VendorInput is a checked POST /vendors body.
type VendorInput = party.Input

// VendorPatch is a checked PATCH /vendors/{id} body: what to change.
type VendorPatch = party.Patch

// VendorFilter is the listing filter of GET /vendors.
type VendorFilter = party.Filter

// ParseVendorInput reads a POST /vendors body (party.Kind.ParseInput):
// every violation is named in one 400 InvalidPayload (error_enum
// InvalidVendor, VendorNameRequired or InvalidTags for the first one).
func ParseVendorInput(raw []byte) (VendorInput, error) { return vendors.ParseInput(raw) }

// ParseVendorPatch reads a PATCH /vendors/{id} body (party.Kind.ParsePatch).
func ParseVendorPatch(raw []byte) (VendorPatch, error) { return vendors.ParsePatch(raw) }

// ParseVendorFilter reads the listing filters of GET /vendors
// (party.ParseFilter).
func ParseVendorFilter(q url.Values) (VendorFilter, error) { return party.ParseFilter(q) }

// NewVendor is the ACTIVE vendor id of businessID created from in at now
// (version 1).
func NewVendor(businessID, id uuid.UUID, in VendorInput, now time.Time) Vendor {
	return Vendor{Party: party.New[VendorKind](businessID, id, in, now)}
}

// ArchivePatch is the patch of POST /vendors/{id}/archive.
func ArchivePatch() VendorPatch { return party.ArchivePatch() }

// Apply is party.Party.Apply, and a merged vendor reactivated stands alone
// again (MergedIntoID cleared).
func (v Vendor) Apply(p VendorPatch, now time.Time) (Vendor, bool, error) {
	next, changed, err := v.Party.Apply(p, now)
	if err != nil || !changed {
		return v, false, err
	}
	out := Vendor{Party: next, MergedIntoID: v.MergedIntoID}
	if next.Status != StatusArchived && v.Status != next.Status {
		out.MergedIntoID = nil
	}
	return out, true, nil
}
