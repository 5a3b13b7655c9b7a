package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acctsuite/acct/pkg/openapi"
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
	ours, err := openapi.Load(mileage.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	docs := []*openapi3.T{ours}
	others, _ := filepath.Glob("../../../*/openapi.yaml")
	fragments, _ := filepath.Glob("../../../*/internal/*/*/openapi.yaml")
	for _, path := range append(others, fragments...) {
		if strings.Contains(path, "/mileage/") {
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
		t.Fatal("no other service documents found")
	}
	if _, err := openapi.Merge(docs...); err != nil {
		t.Fatalf("merge: %v", err)
	}
}
