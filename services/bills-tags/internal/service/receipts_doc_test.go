package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	billstags "github.com/acctsuite/acct/services/bills-tags"
)

// receiptPaths are the receipt routes the service serves.
var receiptPaths = []string{
	"/v1/businesses/{businessId}/receipts/import",
	"/v1/businesses/{businessId}/receipts",
	"/v1/businesses/{businessId}/receipts/{businessDocumentId}",
	"/v1/businesses/{businessId}/receipts/{businessDocumentId}/create-bill",
	"/v1/businesses/{businessId}/receipts/{businessDocumentId}/reject",
}

func TestOpenAPIDocumentsReceipts(t *testing.T) {
	doc, err := openapi.Load(billstags.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range receiptPaths {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
	imp := doc.Paths.Value(receiptPaths[0]).Post
	if imp == nil || imp.RequestBody == nil || imp.RequestBody.Value.Content.Get("multipart/form-data") == nil {
		t.Fatal("the import's multipart body is undocumented")
	}
}
