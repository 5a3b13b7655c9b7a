package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
)

// A bill, bill payment or vendor credit naming an account the business's
// chart (acct.accounts.v1) does not have, or has archived, is a 400
// UnknownAccount naming the field, with nothing stored or published:
// before, bills-tags published a posting the ledger could not post and the
// transactions consumer dead-lettered it (found by contract fuzzing).
func TestAccountsNamedAreTheChart(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "Paper Co"}, 201)["id"].(string)
	live, archived, unknown := uuid.New(), uuid.New(), uuid.NewString()
	e.ledgerAccounts(bid, false, []uuid.UUID{live})
	e.ledgerAccounts(bid, true, []uuid.UUID{archived})
	byID := func(id string) map[string]any { return map[string]any{"type": "AccountId", "id": id} }
	byName := func(n string) map[string]any { return map[string]any{"type": "StableName", "stable_name": n} }
	b1 := e.simpleBill(bid, tok, vendor, 10000, "")
	b2 := e.simpleBill(bid, tok, vendor, 10000, "")
	credit := data(e.Do(req("POST", base(bid)+"/bills/vendor-credits", tok, map[string]any{"vendor_id": vendor,
		"received_at": "2026-02-15T09:00:00Z", "line_items": []any{map[string]any{"amount": 1000, "expense_account_identifier": byID(live.String())}}}), 201))["id"].(string)
	pay := data(e.Do(req("POST", base(bid)+"/bills/bill-payments", tok, map[string]any{"paid_at": "2026-02-10T12:00:00Z",
		"method": "ACH", "amount": 1000, "payment_clearing_account_identifier": byID(live.String()),
		"bill_payment_allocations": []any{alloc(b1, 1000)}}), 201))["id"].(string)

	billBody := func(line map[string]any) map[string]any {
		line["unit_price"] = 100
		return map[string]any{"vendor_id": vendor, "received_at": "2026-02-01T00:00:00Z", "line_items": []any{line}}
	}
	before := e.counts()
	for _, tt := range []struct {
		name, method, path, field string
		body                      map[string]any
	}{
		{"bill, unknown id", "POST", "/bills", "line_items[0].account_identifier", billBody(map[string]any{"account_identifier": byID(unknown)})},
		{"bill, archived", "POST", "/bills", "line_items[0].account_identifier", billBody(map[string]any{"account_identifier": byID(archived.String())})},
		{"bill, not a chart stable name", "POST", "/bills", "line_items[0].account_identifier", billBody(map[string]any{"account_identifier": byName("OFFICE_SUPPLIES")})},
		{"bill, prepayment", "POST", "/bills", "line_items[0].prepayment_account_identifier", billBody(map[string]any{"prepayment_account_identifier": byID(unknown)})},
		{"bill, tax account", "POST", "/bills", "line_items[0].sales_taxes[0].tax_account", billBody(map[string]any{
			"sales_taxes": []any{map[string]any{"tax_account": byID(unknown), "amount": 1}}})},
		{"bill update", "PATCH", "/bills/" + b2, "line_items[0].account_identifier", map[string]any{"line_items": []any{
			map[string]any{"unit_price": 10000, "account_identifier": byID(unknown)}}}},
		{"vendor credit", "POST", "/bills/vendor-credits", "line_items[0].expense_account_identifier", map[string]any{"vendor_id": vendor,
			"received_at": "2026-02-15T09:00:00Z", "line_items": []any{map[string]any{"amount": 1000, "expense_account_identifier": byID(unknown)}}}},
		{"vendor credit update", "PATCH", "/bills/vendor-credits/" + credit, "line_items[0].expense_account_identifier", map[string]any{
			"line_items": []any{map[string]any{"amount": 1000, "expense_account_identifier": byName("NOT_AN_ACCOUNT")}}}},
		{"bill payment", "POST", "/bills/bill-payments", "payment_clearing_account_identifier", map[string]any{"paid_at": "2026-02-10T12:00:00Z",
			"method": "ACH", "amount": 1, "payment_clearing_account_identifier": byID(archived.String()), "bill_payment_allocations": []any{alloc(b1, 1)}}},
		{"bill payment update", "POST", "/bills/bill-payments/" + pay + "/update", "payment_clearing_account_identifier", map[string]any{
			"payment_clearing_account_identifier": byID(unknown)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := e.with(t)
			m := e.DoInvalid(req(tt.method, base(bid)+tt.path, tok, tt.body), 400, app.EnumUnknownAccount)
			if _, ok := fieldsOf(m)[tt.field]; !ok {
				t.Fatalf("fields = %v, want %s", fieldsOf(m), tt.field)
			}
		})
	}
	if after := e.counts(); after != before {
		t.Fatalf("refused writes stored or published: vendors and outbox rows %v → %v", before, after)
	}

	// Until the business's chart has reached the service, naming an
	// account is a 503 (retry); the defaults and the default chart's
	// expense accounts by stable name need no chart.
	other := e.Svc.SeedBusiness(t, "client-a")
	e.DoInvalid(req("POST", base(other)+"/bills", tok, map[string]any{"vendor_external_id": "v", "received_at": "2026-02-01T00:00:00Z",
		"line_items": []any{map[string]any{"unit_price": 100, "account_identifier": byID(live.String())}}}), apperr.Status(apperr.Unavailable), "")
	e.Do(req("POST", base(other)+"/bills", tok, map[string]any{"vendor_external_id": "v", "received_at": "2026-02-01T00:00:00Z",
		"line_items": []any{map[string]any{"unit_price": 100, "account_identifier": byName("UNCATEGORIZED_EXPENSES")},
			map[string]any{"unit_price": 100, "account_identifier": byName("RENT")}}}), 201)
}
