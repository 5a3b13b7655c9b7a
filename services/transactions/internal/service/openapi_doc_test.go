package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acctsuite/acct/pkg/openapi"
)

func TestOpenAPIDocumentLoads(t *testing.T) {
	doc, err := openapi.Load(openAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/v1/businesses/{businessId}/ledger/chart",
		"/v1/businesses/{businessId}/ledger/accounts",
		"/v1/businesses/{businessId}/ledger/accounts/{accountId}",
		"/v1/businesses/{businessId}/ledger/accounts/{accountId}/archive",
		"/v1/businesses/{businessId}/categories",
		"/v1/businesses/{businessId}/ledger/entries",
		"/v1/businesses/{businessId}/ledger/entries/{entryId}",
		"/v1/businesses/{businessId}/ledger/entries/{entryId}/reverse",
		"/v1/businesses/{businessId}/ledger/journal-entries",
		"/v1/businesses/{businessId}/ledger/balances",
		"/v1/businesses/{businessId}/ledger/accounts/{accountId}/lines",
		"/v1/businesses/{businessId}/ledger/entries/exports/csv",
		"/v1/businesses/{businessId}/ledger/balances/exports/csv",
		"/v1/businesses/{businessId}/acctsync/authorize",
		"/v1/businesses/{businessId}/acctsync/ledger/accounts/{accountId}",
		"/v1/acctsync/callback",
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
	ours, err := openapi.Load(openAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	docs := []*openapi3.T{ours}
	others, err := filepath.Glob("../../../*/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range others {
		if strings.Contains(path, "/transactions/") {
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
