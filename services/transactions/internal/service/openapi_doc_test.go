package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	transactions "github.com/acctsuite/acct/services/transactions"
)

func TestOpenAPIDocumentLoads(t *testing.T) {
	doc, err := openapi.Load(transactions.OpenAPI)
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
	} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
}
