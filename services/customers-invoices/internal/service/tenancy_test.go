package service

import (
	"testing"

	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
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
	routes := []servicetest.Route{
		{Method: "POST", Path: b + "/customers", Body: map[string]any{"company_name": "Intruder", "external_id": "secret-1"}},
		{Method: "GET", Path: b + "/customers"},
		{Method: "GET", Path: b + "/customers?external_id=secret-1"},
		{Method: "GET", Path: b + "/customers/" + id},
		{Method: "PATCH", Path: b + "/customers/" + id, Body: map[string]any{"company_name": "Hijacked"}},
		{Method: "POST", Path: b + "/customers/" + id + "/archive"},
	}
	// Every business exists before the counts are taken.
	strangers := e.Strangers("client-a", "client-b", mine, e.Business("client-b"))
	before := e.counts()
	e.RefuseStrangers(strangers, b, routes)
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
