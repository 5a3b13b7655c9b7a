package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/party/partytest"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
)

// vendorKind is what tells vendors apart in the counterparty suite: the
// merged_into_id key, and events without memo and archived_at.
var vendorKind = partytest.Kind{
	Collection: "vendors", Type: "VendorData", ExtraKeys: []string{"merged_into_id"}, Table: "vendors",
	Topic: events.TopicBills, EventType: events.TypeVendorUpserted, Source: "acct/bills-tags", EventIDField: "vendor_id",
	EnumInvalid: domain.EnumInvalidVendor, EnumNameRequired: domain.EnumVendorNameRequired,
	EnumNotFound: domain.EnumVendorNotFound, EnumDuplicateExternalID: domain.EnumDuplicateExternalID,
}

// TestVendors: vendors pass the counterparty conformance suite that
// customers pass too.
func TestVendors(t *testing.T) {
	partytest.Run(t, vendorKind, func(t *testing.T) *servicetest.Env[Service] { return newEnv(t).Env })
}

// checkShape fails unless c is a vendor in every key.
func checkShape(t *testing.T, c map[string]any) {
	t.Helper()
	vendorKind.CheckShape(t, c)
}
