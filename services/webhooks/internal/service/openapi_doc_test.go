package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acctsuite/acct/pkg/openapi"
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
	ours, err := openapi.Load(webhooks.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	docs := []*openapi3.T{ours}
	others, _ := filepath.Glob("../../../*/openapi.yaml")
	fragments, _ := filepath.Glob("../../../*/internal/*/*/openapi.yaml")
	for _, path := range append(others, fragments...) {
		if strings.Contains(path, "/webhooks/") {
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
