package openapitest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acctsuite/acct/pkg/openapi"
)

// MergesWithTheSuite fails t unless MergeWithTheSuite succeeds.
func MergesWithTheSuite(t testing.TB, services, self string, doc []byte) {
	t.Helper()
	if err := MergeWithTheSuite(services, self, doc); err != nil {
		t.Fatal(err)
	}
}

// MergeWithTheSuite merges doc, the OpenAPI document of the service in
// folder self under services (a path such as "../../.." from a service's
// internal/service tests), with every other service's document and
// document fragment, as the gateway does.
func MergeWithTheSuite(services, self string, doc []byte) error {
	ours, err := openapi.Load(doc)
	if err != nil {
		return err
	}
	docs := []*openapi3.T{ours}
	others, err := filepath.Glob(filepath.Join(services, "*", "openapi.yaml"))
	if err != nil {
		return err
	}
	fragments, err := filepath.Glob(filepath.Join(services, "*", "internal", "*", "*", "openapi.yaml"))
	if err != nil {
		return err
	}
	own := filepath.Join(services, self) + string(filepath.Separator)
	for _, path := range append(others, fragments...) {
		if strings.HasPrefix(path, own) {
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		d, err := openapi.Load(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		docs = append(docs, d)
	}
	if len(docs) < 2 {
		return fmt.Errorf("no other service documents found under %s", services)
	}
	if _, err := openapi.Merge(docs...); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	return nil
}
