package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	billstags "github.com/acctsuite/acct/services/bills-tags"
)

func TestOpenAPIDocumentLoads(t *testing.T) {
	doc, err := openapi.Load(billstags.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range documentedPaths {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
}

// TestOpenAPIDocumentMerges merges the document with the other services'
// as the gateway does: a component named like one of theirs must be
// defined identically, or the merged /openapi.json breaks.
func TestOpenAPIDocumentMerges(t *testing.T) {
	openapitest.MergesWithTheSuite(t, "../../..", "bills-tags", billstags.OpenAPI)
}

// documentedPaths are the routes the service serves.
var documentedPaths = []string{
	"/v1/businesses/{businessId}/vendors",
	"/v1/businesses/{businessId}/vendors/{vendorId}",
	"/v1/businesses/{businessId}/vendors/{vendorId}/update",
	"/v1/businesses/{businessId}/vendors/{vendorId}/archive",
	"/v1/businesses/{businessId}/vendors/{vendorId}/merge",
	"/v1/businesses/{businessId}/bills",
	"/v1/businesses/{businessId}/bills/bulk",
	"/v1/businesses/{businessId}/bills/{billId}",
	"/v1/businesses/{businessId}/bills/{billId}/update",
	"/v1/businesses/{businessId}/bills/{billId}/void",
	"/v1/businesses/{businessId}/bills/bill-payments",
	"/v1/businesses/{businessId}/bills/bill-payments/tags",
	"/v1/businesses/{businessId}/bills/bill-payments/{paymentId}",
	"/v1/businesses/{businessId}/bills/bill-payments/{paymentId}/update",
}
