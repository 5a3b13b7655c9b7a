package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
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
		"/v1/businesses/{businessId}/invoices/summary-stats",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/finalize-invoice",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/reset",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/payment/{paymentId}",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/refund",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/payment-methods",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/pdf",
		"/v1/businesses/{businessId}/invoices/{invoiceId}/html",
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
	openapitest.MergesWithTheSuite(t, "../../..", "customers-invoices", customersinvoices.OpenAPI)
}
