package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
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
}
