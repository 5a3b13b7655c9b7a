package service

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/servicekit"

	"github.com/acctsuite/acct/services/gateway/internal/config"
	"github.com/acctsuite/acct/services/gateway/internal/routes"
)

// TestRoutesCommand: `gateway routes` prints the whole routing table as
// one line of JSON, each row with its methods, path, upstream, auth,
// tenancy and limit, as tools outside the gateway read it.
func TestRoutesCommand(t *testing.T) {
	load := servicekit.Loader(func() (config.Config, error) {
		return testConfig("http://127.0.0.1:1/.well-known/jwks.json", "http://127.0.0.1:1"), nil
	}, New)
	var out bytes.Buffer
	if err := servicekit.Execute(t.Context(), load, []string{"routes"}, &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.TrimSpace(out.String()), "\n"); n != 0 {
		t.Fatalf("want one line, got %d more:\n%s", n, out.String())
	}
	var got routes.Listing
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(got.Routes) != len(routes.Table) {
		t.Fatalf("%d routes printed, the table has %d", len(got.Routes), len(routes.Table))
	}
	for i, r := range routes.Table {
		g := got.Routes[i]
		if g.Path != r.Path || g.Upstream != r.Upstream || g.Auth != r.Auth.String() || g.Limit != r.Limit.String() ||
			strings.Join(g.Methods, ",") != strings.Join(r.Methods, ",") {
			t.Errorf("row %d = %+v, want %+v", i, g, r)
		}
		if want := r.Tenancy.String(); strings.Join(g.Tenancy, "+") != strings.TrimSuffix(want, "none") {
			t.Errorf("row %d (%s): tenancy %v, want %s", i, r.Path, g.Tenancy, want)
		}
	}
	if err := servicekit.Execute(t.Context(), load, []string{"routes", "extra"}, &out); err == nil {
		t.Fatal("routes with an argument: no error")
	}
}
