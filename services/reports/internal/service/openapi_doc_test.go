package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/reports"
)

func TestOpenAPIDocumentLoads(t *testing.T) {
	doc, err := openapi.Load(reports.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Paths.Value("/v1/businesses/{businessId}/reports/profit-and-loss") == nil {
		t.Error("profit-and-loss undocumented")
	}
	if doc.Paths.Value("/v1/businesses/{businessId}/reports/profit-and-loss-comparison") == nil {
		t.Error("profit-and-loss-comparison undocumented")
	}
}

// TestOpenAPIDocumentMerges: the gateway merges every service's document
// into one; shared components must be defined identically.
func TestOpenAPIDocumentMerges(t *testing.T) {
	openapitest.MergesWithTheSuite(t, "../../..", "reports", reports.OpenAPI)
}
