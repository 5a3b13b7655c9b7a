package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/tags"

	"github.com/acctsuite/acct/services/bills-tags/internal/domain"
	billpkg "github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// TestCrossTenant calls every route of one client's business with the
// tokens of others: each answers 404 and changes nothing. A vendor of
// one business addressed under another business of the same client is 404
// too.
func TestCrossTenant(t *testing.T) {
	e := newEnv(t)
	owner := e.Token("client-a")
	bid := e.business("client-a")
	mine := e.business("client-a") // the same client's other business
	c := e.create(bid, owner, map[string]any{"company_name": "Private Co", "external_id": "secret-1"}, 201)
	id := c["id"].(string)
	b := base(bid)
	bill := data(e.Do(req("POST", b+"/bills", owner, twoLineBill(id)), 201))["id"].(string)
	payBody := map[string]any{"paid_at": "2026-03-05T00:00:00Z", "method": "CASH", "amount": 100,
		"bill_payment_allocations": []any{alloc(bill, 100)}}
	pay := data(e.Do(req("POST", b+"/bills/bill-payments", owner, payBody), 201))["id"].(string)
	tagBody := map[string]any{"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "transaction_ids": []any{pay}}
	untagBody := map[string]any{"tag_ids": []any{uuid.NewString()}}
	routes := []servicetest.Route{
		{Method: "POST", Path: b + "/vendors", Body: map[string]any{"company_name": "Intruder", "external_id": "secret-1"}},
		{Method: "GET", Path: b + "/vendors"},
		{Method: "GET", Path: b + "/vendors?external_id=secret-1"},
		{Method: "GET", Path: b + "/vendors/" + id},
		{Method: "PATCH", Path: b + "/vendors/" + id, Body: map[string]any{"company_name": "Hijacked"}},
		{Method: "POST", Path: b + "/vendors/" + id + "/update", Body: map[string]any{"company_name": "Hijacked"}},
		{Method: "POST", Path: b + "/vendors/" + id + "/archive"},
		{Method: "POST", Path: b + "/vendors/" + id + "/merge", Body: map[string]any{"vendor_to_archive_id": uuid.NewString()}},
		{Method: "POST", Path: b + "/bills", Body: twoLineBill(id)},
		{Method: "POST", Path: b + "/bills/bulk", Body: []any{twoLineBill(id)}},
		{Method: "GET", Path: b + "/bills"},
		{Method: "GET", Path: b + "/bills/" + bill},
		{Method: "PATCH", Path: b + "/bills/" + bill, Body: map[string]any{"memo": "x"}},
		{Method: "POST", Path: b + "/bills/" + bill + "/update", Body: map[string]any{"memo": "x"}},
		{Method: "POST", Path: b + "/bills/" + bill + "/void"},
		{Method: "POST", Path: b + "/bills/bill-payments", Body: payBody},
		{Method: "GET", Path: b + "/bills/bill-payments/" + pay},
		{Method: "POST", Path: b + "/bills/bill-payments/" + pay + "/update", Body: map[string]any{"memo": "x"}},
		{Method: "DELETE", Path: b + "/bills/bill-payments/" + pay},
		{Method: "POST", Path: b + "/bills/bill-payments/tags", Body: tagBody},
		{Method: "DELETE", Path: b + "/bills/bill-payments/tags", Body: untagBody},
	}
	// Every business exists before the counts are taken.
	strangers := e.Strangers("client-a", "client-b", mine, e.business("client-b"))
	before := e.counts()
	e.RefuseStrangers(strangers, b, routes)
	if e.counts() != before {
		t.Fatal("a refused request wrote")
	}
	if got := data(e.Do(req("GET", b+"/vendors/"+id, owner, nil), 200)); got["company_name"] != "Private Co" || got["status"] != "ACTIVE" {
		t.Fatalf("vendor changed: %v", got)
	}

	// The owner, addressing one business's vendor through the other.
	other := base(mine)
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"GET", other + "/vendors/" + id, nil},
		{"PATCH", other + "/vendors/" + id, map[string]any{"memo": "x"}},
		{"POST", other + "/vendors/" + id + "/update", map[string]any{"memo": "x"}},
		{"POST", other + "/vendors/" + id + "/archive", nil},
		{"POST", other + "/vendors/" + id + "/merge", map[string]any{"vendor_to_archive_id": uuid.NewString()}},
	} {
		e.DoInvalid(req(r.method, r.path, owner, r.body), 404, domain.EnumVendorNotFound)
	}
	// The other business's bill routes: its bill is 404, its vendor unknown.
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"GET", other + "/bills/" + bill, nil},
		{"PATCH", other + "/bills/" + bill, map[string]any{"memo": "x"}},
		{"POST", other + "/bills/" + bill + "/update", map[string]any{"memo": "x"}},
		{"POST", other + "/bills/" + bill + "/void", nil},
	} {
		e.DoInvalid(req(r.method, r.path, owner, r.body), 404, billpkg.EnumBillNotFound)
	}
	e.DoInvalid(req("POST", other+"/bills", owner, twoLineBill(id)), 400, billpkg.EnumInvalidBill)
	// Its payment routes: the payment is 404, the bill unknown.
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"GET", other + "/bills/bill-payments/" + pay, nil},
		{"POST", other + "/bills/bill-payments/" + pay + "/update", map[string]any{"memo": "x"}},
		{"DELETE", other + "/bills/bill-payments/" + pay, nil},
		{"POST", other + "/bills/bill-payments/tags", tagBody},
	} {
		e.DoInvalid(req(r.method, r.path, owner, r.body), 404, billpkg.EnumPaymentNotFound)
	}
	e.DoInvalid(req("POST", other+"/bills/bill-payments", owner, payBody), 400, billpkg.EnumInvalidPayment)
	if removed := e.Do(req("DELETE", other+"/bills/bill-payments/tags", owner, map[string]any{
		"tag_ids": []any{tags.TagID(tags.DefinitionID(bid, "k", "v"), uuid.MustParse(pay)).String()}}), 200)["tags"].([]any); len(removed) != 0 {
		t.Fatalf("the other business removed %v", removed)
	}
	if got := data(e.Do(req("GET", b+"/bills/"+bill, owner, nil), 200)); got["outstanding_balance"] != got["total_amount"].(float64)-100 {
		t.Fatalf("the bill's balance changed: %v", got["outstanding_balance"])
	}
	if got := e.Do(req("GET", other+"/bills", owner, nil), 200)["data"].([]any); len(got) != 0 {
		t.Fatalf("the other business lists %d bills", len(got))
	}
	if list := e.list(mine, owner, "include_archived=true")["data"].([]any); len(list) != 0 {
		t.Fatalf("the other business lists %d vendors", len(list))
	}
	// The other business's external ids are its own: the same one creates
	// a new vendor there.
	if o := e.create(mine, owner, map[string]any{"company_name": "Mine", "external_id": "secret-1"}, 201); o["id"] == id {
		t.Fatal("the other business got the first business's vendor")
	}
}
