package routes

import (
	"net/http"
	"slices"
	"testing"
)

func TestTableIsValid(t *testing.T) {
	if err := Validate(Table); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		route Route
		ok    bool
	}{
		{"public", Route{Methods: []string{"GET"}, Path: "/a", Upstream: "x"}, true},
		{"business", Route{Methods: []string{"GET"}, Path: "/v1/businesses/:businessId", Upstream: "x", Auth: Token, Tenancy: Business}, true},
		{"no methods", Route{Path: "/a", Upstream: "x"}, false},
		{"no upstream", Route{Methods: []string{"GET"}, Path: "/a"}, false},
		{"public with tenancy", Route{Methods: []string{"GET"}, Path: "/a", Upstream: "x", Tenancy: PlatformOnly}, false},
		{"business without param", Route{Methods: []string{"GET"}, Path: "/a/:id", Upstream: "x", Auth: Token, Tenancy: Business}, false},
		{"wildcard", Route{Methods: []string{"GET"}, Path: "/files/*", Upstream: "x"}, false},
		{"greedy parameter", Route{Methods: []string{"GET"}, Path: "/files/+", Upstream: "x"}, false},
		{"optional parameter", Route{Methods: []string{"GET"}, Path: "/a/:id?", Upstream: "x"}, false},
		{"relative pattern", Route{Methods: []string{"GET"}, Path: "a", Upstream: "x"}, false},
		{"credentials limit on public route", Route{Methods: []string{"POST"}, Path: "/token", Upstream: "x", Limit: Credentials}, true},
		{"credentials limit on token route", Route{Methods: []string{"POST"}, Path: "/token", Upstream: "x", Auth: Token, Limit: Credentials}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate([]Route{tt.route})
			if (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestTenancyHasAndString(t *testing.T) {
	tests := []struct {
		t        Tenancy
		business bool
		platform bool
		str      string
	}{
		{TenancyNone, false, false, "none"},
		{PlatformOnly, false, true, "platform-only"},
		{Business, true, false, "business"},
		{Business | PlatformOnly, true, true, "business+platform-only"},
	}
	for _, tt := range tests {
		if got := tt.t.Has(Business); got != tt.business {
			t.Errorf("%v.Has(Business) = %v", tt.t, got)
		}
		if got := tt.t.Has(PlatformOnly); got != tt.platform {
			t.Errorf("%v.Has(PlatformOnly) = %v", tt.t, got)
		}
		if got := tt.t.String(); got != tt.str {
			t.Errorf("String() = %q, want %q", got, tt.str)
		}
	}
}

func TestPathsAndMethods(t *testing.T) {
	order, allowed := Paths(Table)
	if len(order) != 139 {
		t.Fatalf("distinct paths = %v", order)
	}
	if got := allowed["/v1/businesses"]; !slices.Equal(got, []string{http.MethodGet, http.MethodHead, http.MethodPost}) {
		t.Errorf("allowed(/v1/businesses) = %v", got)
	}
	if got := allowed["/v1/businesses/:businessId"]; !slices.Equal(got, []string{http.MethodGet, http.MethodHead, http.MethodPatch}) {
		t.Errorf("allowed(/v1/businesses/:businessId) = %v", got)
	}
	if got := allowed["/v1/businesses/:businessId/accounting-config"]; !slices.Equal(got, []string{http.MethodGet, http.MethodHead}) {
		t.Errorf("allowed(/v1/businesses/:businessId/accounting-config) = %v", got)
	}
	if got := allowed["/oauth2/token"]; !slices.Equal(got, []string{http.MethodPost}) {
		t.Errorf("allowed(/oauth2/token) = %v", got)
	}
	if got := allowed["/v1/businesses/:businessId/tags/dimensions"]; !slices.Equal(got, []string{http.MethodGet, http.MethodPost, http.MethodHead}) {
		t.Errorf("allowed(tags/dimensions) = %v", got)
	}
	if got := Upstreams(Table); !slices.Equal(got, []string{AuthTokens, Transactions, CustomersInvoices, BillsTags, Reports, Mileage, Webhooks}) {
		t.Errorf("Upstreams = %v", got)
	}
}

func TestConcrete(t *testing.T) {
	got := Concrete("/v1/businesses/:businessId/auth-token", map[string]string{"businessId": "b1"})
	if got != "/v1/businesses/b1/auth-token" {
		t.Fatalf("Concrete = %q", got)
	}
}

// TestBusinessPatchIsPlatformOnly: a business token may read its business
// but not change it (auth-tokens answers 403 too).
func TestBusinessPatchIsPlatformOnly(t *testing.T) {
	for _, r := range Table {
		if r.Path != "/v1/businesses/:"+BusinessParam {
			continue
		}
		for _, m := range r.Methods {
			wantPlatformOnly := m == http.MethodPatch
			if r.Tenancy.Has(PlatformOnly) != wantPlatformOnly || !r.Tenancy.Has(Business) {
				t.Errorf("%s %s: tenancy %v", m, r.Path, r.Tenancy)
			}
		}
	}
}

func TestAmbiguous(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/v1/businesses/0b6f5c1e-6a8e-4a39-9a39-1d8f0c6a0b11", false},
		{"/", false},
		{"/v1/businesses/", false},
		{"/a/.../b", false},
		{"/a/.b/c.", false},
		{"/a/%41", false},
		{"/a/%2", false},
		{"/a/b%2", false},
		{"/a/..", true},
		{"/a/../b", true},
		{"/a/./b", true},
		{"/.", true},
		{"/a/%2e%2e/b", true},
		{"/a/%2E./b", true},
		{"/a/.%2e", true},
		{"/a/%2e", true},
		{"/a/b%2Fc", true},
		{"/a/b%2fc", true},
		{"/a/..%2Fb", true},
		{"/a/b%5Cc", true},
		{"/a/b\\c", true},
		{"/a/b%00", true},
	}
	for _, tt := range tests {
		if got := Ambiguous([]byte(tt.path)); got != tt.want {
			t.Errorf("Ambiguous(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestReportsExportRoutes: the reports' exports go to the reports service,
// behind a token and the business's tenancy.
func TestReportsExportRoutes(t *testing.T) {
	want := map[string]string{
		"/v1/businesses/:businessId/reports/transactions/exports/csv":               http.MethodGet,
		"/v1/businesses/:businessId/reports/transactions/exports/excel":             http.MethodGet,
		"/v1/businesses/:businessId/reports/profit-and-loss/exports/comparison-csv": http.MethodPost,
	}
	for _, r := range Table {
		m, ok := want[r.Path]
		if !ok {
			continue
		}
		delete(want, r.Path)
		if !slices.Equal(r.Methods, []string{m}) || r.Upstream != Reports || r.Auth != Token || r.Tenancy != Business {
			t.Errorf("%+v", r)
		}
	}
	if len(want) != 0 {
		t.Errorf("missing routes %v", want)
	}
}

// TestLedgerDetailRoutes: the general ledger detail and the ledger's CSV
// exports go to the transactions service, behind a token and the
// business's tenancy.
func TestLedgerDetailRoutes(t *testing.T) {
	want := map[string]bool{
		"/v1/businesses/:businessId/ledger/accounts/:accountId/lines": true,
		"/v1/businesses/:businessId/ledger/entries/exports/csv":       true,
		"/v1/businesses/:businessId/ledger/balances/exports/csv":      true,
	}
	for _, r := range Table {
		if !want[r.Path] {
			continue
		}
		delete(want, r.Path)
		if !slices.Equal(r.Methods, []string{http.MethodGet}) || r.Upstream != Transactions || r.Auth != Token || r.Tenancy != Business {
			t.Errorf("%+v", r)
		}
	}
	if len(want) != 0 {
		t.Errorf("missing routes %v", want)
	}
}

func TestList(t *testing.T) {
	got := List([]Route{
		{Methods: []string{http.MethodPost}, Path: "/oauth2/token", Upstream: "a", Auth: Public, Limit: Credentials},
		{Methods: []string{http.MethodGet}, Path: "/whoami", Upstream: "a", Auth: Token},
		{Methods: []string{http.MethodGet, http.MethodPatch}, Path: "/v1/businesses/:businessId", Upstream: "a", Auth: Token, Tenancy: Business | PlatformOnly},
	})
	want := []Row{
		{Methods: []string{"POST"}, Path: "/oauth2/token", Upstream: "a", Auth: "public", Tenancy: []string{}, Limit: "credentials"},
		{Methods: []string{"GET"}, Path: "/whoami", Upstream: "a", Auth: "token", Tenancy: []string{}, Limit: "standard"},
		{Methods: []string{"GET", "PATCH"}, Path: "/v1/businesses/:businessId", Upstream: "a", Auth: "token", Tenancy: []string{"business", "platform-only"}, Limit: "standard"},
	}
	if len(got.Routes) != len(want) {
		t.Fatalf("List = %+v", got)
	}
	for i := range want {
		g, w := got.Routes[i], want[i]
		if !slices.Equal(g.Methods, w.Methods) || g.Path != w.Path || g.Upstream != w.Upstream || g.Auth != w.Auth ||
			!slices.Equal(g.Tenancy, w.Tenancy) || g.Limit != w.Limit {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
	if n := len(List(Table).Routes); n != len(Table) {
		t.Fatalf("List(Table) has %d rows, the table %d", n, len(Table))
	}
}
