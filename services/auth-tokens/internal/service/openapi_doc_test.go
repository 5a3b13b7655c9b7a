package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/openapi"
	authtokens "github.com/acctsuite/acct/services/auth-tokens"
)

func TestOpenAPIDocumentLoads(t *testing.T) {
	doc, err := openapi.Load(authtokens.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/oauth2/token", "/whoami", "/.well-known/jwks.json", "/v1/businesses", "/v1/businesses/{businessId}", "/v1/businesses/{businessId}/auth-token"} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
}
