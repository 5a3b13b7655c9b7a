package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
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
		"/v1/businesses/{businessId}/acctsync/ledger/accounts",
		"/v1/businesses/{businessId}/acctsync/connection-status",
		"/v1/businesses/{businessId}/acctsync/sync-from",
		"/v1/businesses/{businessId}/acctsync/sync-from/status",
		"/v1/businesses/{businessId}/acctsync/unlink",
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
	openapitest.MergesWithTheSuite(t, "../../..", "transactions", openAPIDocument())
}
