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
	if len(order) != 6 {
		t.Fatalf("distinct paths = %v", order)
	}
	if got := allowed["/v1/businesses"]; !slices.Equal(got, []string{http.MethodGet, http.MethodHead, http.MethodPost}) {
		t.Errorf("allowed(/v1/businesses) = %v", got)
	}
	if got := allowed["/oauth2/token"]; !slices.Equal(got, []string{http.MethodPost}) {
		t.Errorf("allowed(/oauth2/token) = %v", got)
	}
	if got := Upstreams(Table); !slices.Equal(got, []string{AuthTokens}) {
		t.Errorf("Upstreams = %v", got)
	}
}

func TestConcrete(t *testing.T) {
	got := Concrete("/v1/businesses/:businessId/auth-token", map[string]string{"businessId": "b1"})
	if got != "/v1/businesses/b1/auth-token" {
		t.Fatalf("Concrete = %q", got)
	}
}
