package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/mileage"
)

func TestOpenAPIDocumentLoads(t *testing.T) {
	doc, err := openapi.Load(mileage.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/v1/businesses/{businessId}/mileage/vehicles",
		"/v1/businesses/{businessId}/mileage/vehicles/{vehicleId}",
		"/v1/businesses/{businessId}/mileage/vehicles/{vehicleId}/archive",
		"/v1/businesses/{businessId}/mileage/vehicles/{vehicleId}/reactivate",
		"/v1/businesses/{businessId}/mileage/trips",
		"/v1/businesses/{businessId}/mileage/trips/bulk",
		"/v1/businesses/{businessId}/mileage/trips/{tripId}",
		"/v1/businesses/{businessId}/mileage/summary",
	} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
}

// TestOpenAPIDocumentMerges merges the document with the other services'
// as the gateway does.
func TestOpenAPIDocumentMerges(t *testing.T) {
	openapitest.MergesWithTheSuite(t, "../../..", "mileage", mileage.OpenAPI)
}
