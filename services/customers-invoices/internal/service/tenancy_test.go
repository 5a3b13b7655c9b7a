package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/customers-invoices/internal/domain"
)

// TestCrossTenant calls every route of one client's business with the
// tokens of others: each answers 404 and changes nothing. A customer of
// one business addressed under another business of the same client is 404
// too.
func TestCrossTenant(t *testing.T) {
	e := newEnv(t)
	owner := e.Token("client-a")
	bid := e.Business("client-a")
	mine := e.Business("client-a") // the same client's other business
	c := e.create(bid, owner, map[string]any{"company_name": "Private Co", "external_id": "secret-1"}, 201)
	id := c["id"].(string)
	b := base(bid)
	routes := []struct {
		method, path string
		body         any
	}{
		{"POST", b + "/customers", map[string]any{"company_name": "Intruder", "external_id": "secret-1"}},
		{"GET", b + "/customers", nil},
		{"GET", b + "/customers?external_id=secret-1", nil},
		{"GET", b + "/customers/" + id, nil},
		{"PATCH", b + "/customers/" + id, map[string]any{"company_name": "Hijacked"}},
		{"POST", b + "/customers/" + id + "/archive", nil},
	}
	strangers := map[string]string{
		"another client's platform token":   e.Token("client-b"),
		"a business token of another one":   e.Svc.Tokens.Business(t, "client-a", mine),
		"the other client's business token": e.Svc.Tokens.Business(t, "client-b", e.Business("client-b")),
		"a token of an unknown business":    e.Svc.Tokens.Business(t, "client-a", uuid.New()),
	}
	before := e.counts()
	for who, tok := range strangers {
		for _, r := range routes {
			t.Run(who+" "+r.method+" "+r.path[len(b):], func(t *testing.T) {
				e := e.with(t)
				m := e.DoInvalid(req(r.method, r.path, tok, r.body), 404, "BusinessNotFound")
				if m["type"] != "NotFound" {
					t.Fatalf("error = %v", m)
				}
			})
		}
	}
	if e.counts() != before {
		t.Fatal("a refused request wrote")
	}
	if got := data(e.Do(req("GET", b+"/customers/"+id, owner, nil), 200)); got["company_name"] != "Private Co" || got["status"] != "ACTIVE" {
		t.Fatalf("customer changed: %v", got)
	}

	// The owner, addressing one business's customer through the other.
	other := base(mine)
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"GET", other + "/customers/" + id, nil},
		{"PATCH", other + "/customers/" + id, map[string]any{"memo": "x"}},
		{"POST", other + "/customers/" + id + "/archive", nil},
	} {
		e.DoInvalid(req(r.method, r.path, owner, r.body), 404, domain.EnumCustomerNotFound)
	}
	if list := e.list(mine, owner, "include_archived=true")["data"].([]any); len(list) != 0 {
		t.Fatalf("the other business lists %d customers", len(list))
	}
	// The other business's external ids are its own: the same one creates
	// a new customer there.
	if o := e.create(mine, owner, map[string]any{"company_name": "Mine", "external_id": "secret-1"}, 201); o["id"] == id {
		t.Fatal("the other business got the first business's customer")
	}
}
