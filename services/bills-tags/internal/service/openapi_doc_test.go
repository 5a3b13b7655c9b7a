package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acctsuite/acct/pkg/openapi"
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
	ours, err := openapi.Load(billstags.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	docs := []*openapi3.T{ours}
	// Every document of the other services, their fragments included
	// (transactions' acctsync).
	others, err := filepath.Glob("../../../*/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fragments, err := filepath.Glob("../../../*/internal/*/*/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	others = append(others, fragments...)
	for _, path := range others {
		if strings.Contains(path, "/bills-tags/") {
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := openapi.Load(raw)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, doc)
	}
	if len(docs) < 2 {
		t.Fatalf("no other service documents found next to this one (%v)", others)
	}
	if _, err := openapi.Merge(docs...); err != nil {
		t.Fatalf("merge with %v: %v", others, err)
	}
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
