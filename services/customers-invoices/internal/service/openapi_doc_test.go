package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acctsuite/acct/pkg/openapi"
	customersinvoices "github.com/acctsuite/acct/services/customers-invoices"
)

func TestOpenAPIDocumentLoads(t *testing.T) {
	doc, err := openapi.Load(customersinvoices.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/v1/businesses/{businessId}/customers",
		"/v1/businesses/{businessId}/customers/{customerId}",
		"/v1/businesses/{businessId}/customers/{customerId}/archive",
		"/v1/businesses/{businessId}/invoices",
		"/v1/businesses/{businessId}/invoices/{invoiceId}",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/void",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/payment",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/payment/",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/write-off",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/write-offs/{writeOffId}",
		"/v1/businesses/{businessId}/invoices/payments",
		"/v1/businesses/{businessId}/invoices/payments/bulk-delete",
		"/v1/businesses/{businessId}/invoices/payments/{paymentId}",
		"/v1/businesses/{businessId}/invoices/payments/{paymentId}/tags",
		"/v1/businesses/{businessId}/invoices/tags",
		"/v1/businesses/{businessId}/invoices/payments/tags",
	} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
}

// TestOpenAPIDocumentMerges merges the document with the other services'
// as the gateway does: a component named like one of theirs must be
// defined identically, or the merged /openapi.json breaks.
func TestOpenAPIDocumentMerges(t *testing.T) {
	ours, err := openapi.Load(customersinvoices.OpenAPI)
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
		if strings.Contains(path, "/customers-invoices/") {
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
