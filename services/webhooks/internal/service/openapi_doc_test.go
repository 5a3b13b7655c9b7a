package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/webhooks"
)

func TestOpenAPIDocumentLoads(t *testing.T) {
	doc, err := openapi.Load(webhooks.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/v1/webhooks/event-types",
		"/v1/webhooks/endpoints",
		"/v1/webhooks/endpoints/{endpointId}",
		"/v1/webhooks/endpoints/{endpointId}/rotate-secret",
		"/v1/webhooks/endpoints/{endpointId}/test",
		"/v1/webhooks/endpoints/{endpointId}/deliveries",
		"/v1/webhooks/endpoints/{endpointId}/deliveries/{deliveryId}/resend",
		"/v1/webhooks/endpoints/{endpointId}/recover",
	} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
}

// TestOpenAPIDocumentMerges merges the document with the other services'
// as the gateway does.
func TestOpenAPIDocumentMerges(t *testing.T) {
	openapitest.MergesWithTheSuite(t, "../../..", "webhooks", webhooks.OpenAPI)
}

// TestCatalogMatchesTheDocument: every example of the catalog is a
// WebhookEvent as the document describes it (the body a platform gets).
func TestCatalogMatchesTheDocument(t *testing.T) {
	e := newEnv(t, envOptions{})
	list := e.Do(req("GET", "/v1/webhooks/event-types", e.Token("plat-a"), nil), 200)["data"].([]any)
	if len(list) != 13*3+4 {
		t.Fatalf("%d event types", len(list))
	}
	names := map[string]bool{}
	for _, x := range list {
		m := x.(map[string]any)
		names[m["name"].(string)] = true
		if m["example"].(map[string]any)["type"] != m["name"] {
			t.Fatalf("example of %v", m)
		}
	}
	for _, n := range []string{"BankTransaction.created", "VendorCredit.archived", "Receipt.parsed", "JournalEntry.posted", "Webhook.test", "Endpoint.disabled"} {
		if !names[n] {
			t.Fatalf("%s missing", n)
		}
	}
}
