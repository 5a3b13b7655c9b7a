package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

// newBusiness is a create-business body with a unique external id.
func newBusiness(t *testing.T, name string) map[string]any {
	return businessBody("e2e-"+randomHex(t, 6), name)
}

// businessBody is a valid business to create, named name, with external id ext.
func businessBody(ext, name string) map[string]any {
	return map[string]any{
		"external_id":             ext,
		"legal_name":              name,
		"tin":                     "12-3456789",
		"us_state":                "CA",
		"country":                 "US",
		"entity_type":             "LLC",
		"phone_number":            "+14155550100",
		"activation_at":           "2026-01-01",
		"naics_code":              "541211",
		"default_reporting_basis": "ACCRUAL",
	}
}

// createBusiness posts body and returns the created business's id.
func createBusiness(t *testing.T, api *apiClient, token string, body map[string]any) string {
	t.Helper()
	r := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: "/v1/businesses", Token: token, JSON: body})
	data := r.Data(t)
	id, _ := data["id"].(string)
	if _, err := uuid.Parse(id); err != nil {
		t.Fatalf("%s: id %q is not a uuid", r, id)
	}
	for _, field := range []string{"external_id", "legal_name", "country", "default_reporting_basis"} {
		if data[field] != body[field] {
			t.Errorf("%s: %s = %v, want %v", r, field, data[field], body[field])
		}
	}
	if data["type"] != "Business" {
		t.Errorf("%s: type = %v, want Business", r, data["type"])
	}
	return id
}

// mintBusinessToken asks for a token limited to businessID.
func mintBusinessToken(t *testing.T, api *apiClient, token, businessID string) string {
	t.Helper()
	r := api.expect(t, http.StatusOK, request{Method: http.MethodPost, Path: "/v1/businesses/" + businessID + "/auth-token",
		Token: token, JSON: map[string]any{"session_duration": 900}})
	data := r.Data(t)
	tok, _ := data["access_token"].(string)
	if tok == "" || data["token_type"] != "Bearer" {
		t.Fatalf("%s: want an AuthToken with access_token and token_type Bearer", r)
	}
	if exp, _ := data["expires_in"].(float64); exp != 900 {
		t.Errorf("%s: expires_in = %v, want the requested session_duration 900", r, data["expires_in"])
	}
	return tok
}

// TestPlatformAndBusinessTokens walks the integration path of a platform:
// token, businesses, whoami, business-scoped tokens and their limits.
func TestPlatformAndBusinessTokens(t *testing.T) {
	stack := StartStack(t)
	api := newAPIClient(stack.BaseURL)

	t.Run("wrong secret is invalid_client", func(t *testing.T) {
		r := api.expect(t, http.StatusUnauthorized, tokenRequest(stack.ClientID, "not-the-secret"))
		if got := r.JSON(t)["error"]; got != "invalid_client" {
			t.Fatalf("%s: error = %v, want invalid_client (RFC 6749 §5.2)", r, got)
		}
	})
	t.Run("no token is an error object", func(t *testing.T) {
		r := api.do(t, request{Method: http.MethodGet, Path: "/whoami"})
		assertErrorObject(t, r, http.StatusUnauthorized, "Unauthenticated")
		if got := r.Header.Get("WWW-Authenticate"); len(got) < 6 || got[:6] != "Bearer" {
			t.Errorf("%s: WWW-Authenticate = %q, want Bearer", r, got)
		}
	})

	platform := api.token(t, stack.ClientID, stack.ClientSecret)

	t.Run("whoami", func(t *testing.T) {
		data := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: "/whoami", Token: platform}).Data(t)
		if data["type"] != "whoami" || data["clientId"] != stack.ClientID {
			t.Fatalf("whoami = %v, want type whoami and clientId %s", data, stack.ClientID)
		}
		if name, _ := data["clientName"].(string); name == "" {
			t.Fatalf("whoami = %v, want a clientName", data)
		}
	})

	bodyA := newBusiness(t, "E2E Alpha LLC")
	businessA := createBusiness(t, api, platform, bodyA)
	businessB := createBusiness(t, api, platform, newBusiness(t, "E2E Beta LLC"))

	t.Run("same external_id is previously imported", func(t *testing.T) {
		r := api.expect(t, http.StatusOK, request{Method: http.MethodPost, Path: "/v1/businesses", Token: platform, JSON: bodyA})
		data := r.Data(t)
		if data["id"] != businessA {
			t.Fatalf("%s: id = %v, want the existing business %s", r, data["id"], businessA)
		}
		if data["previously_imported"] != true {
			t.Fatalf("%s: previously_imported = %v, want true", r, data["previously_imported"])
		}
	})

	t.Run("platform token reads its business", func(t *testing.T) {
		data := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: "/v1/businesses/" + businessA, Token: platform}).Data(t)
		if data["id"] != businessA || data["legal_name"] != bodyA["legal_name"] {
			t.Fatalf("business = %v, want %s", data, businessA)
		}
	})

	business := mintBusinessToken(t, api, platform, businessA)

	tests := []struct {
		name     string
		req      request
		status   int
		errType  string // empty for a success
		checkOwn bool
	}{
		{name: "sees its own business", req: request{Method: http.MethodGet, Path: "/v1/businesses/" + businessA, Token: business}, status: http.StatusOK, checkOwn: true},
		{name: "another business of the same platform is not found", req: request{Method: http.MethodGet, Path: "/v1/businesses/" + businessB, Token: business}, status: http.StatusNotFound, errType: "NotFound"},
		{name: "an unknown business is not found", req: request{Method: http.MethodGet, Path: "/v1/businesses/" + uuid.NewString(), Token: business}, status: http.StatusNotFound, errType: "NotFound"},
		{name: "cannot mint tokens", req: request{Method: http.MethodPost, Path: "/v1/businesses/" + businessA + "/auth-token", Token: business, JSON: map[string]any{}}, status: http.StatusForbidden, errType: "Forbidden"},
		{name: "cannot create businesses", req: request{Method: http.MethodPost, Path: "/v1/businesses", Token: business, JSON: newBusiness(t, "Nope LLC")}, status: http.StatusForbidden, errType: "Forbidden"},
		{name: "platform token on an unknown business is not found", req: request{Method: http.MethodGet, Path: "/v1/businesses/" + uuid.NewString(), Token: platform}, status: http.StatusNotFound, errType: "NotFound"},
		{name: "tampered token is unauthenticated", req: request{Method: http.MethodGet, Path: "/whoami", Token: business + "x"}, status: http.StatusUnauthorized, errType: "Unauthenticated"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("business token: %s", tt.name), func(t *testing.T) {
			r := api.do(t, tt.req)
			if tt.errType != "" {
				assertErrorObject(t, r, tt.status, tt.errType)
				return
			}
			if r.Status != tt.status {
				t.Fatalf("%s: status %d, want %d", r, r.Status, tt.status)
			}
			if tt.checkOwn && r.Data(t)["id"] != businessA {
				t.Fatalf("%s: want business %s", r, businessA)
			}
		})
	}

	// The ledger across containers: auth-tokens publishes business.created,
	// the transactions container seeds the chart; a journal entry posted
	// through the gateway shows in the balances; the business token reaches
	// its own ledger only.
	t.Run("ledger follows the business", func(t *testing.T) {
		base := "/v1/businesses/" + businessA
		chart := api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/ledger/chart", Token: platform}).Data(t)
		if roots, _ := chart["accounts"].([]any); len(roots) != 5 {
			t.Fatalf("chart roots = %d, want 5", len(roots))
		}
		api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/ledger/journal-entries", Token: platform, JSON: map[string]any{
			"external_id": "e2e-opening", "entry_at": "2026-01-02T00:00:00Z", "created_by": "e2e", "memo": "opening balance",
			"line_items": []map[string]any{
				{"account_identifier": map[string]any{"type": "StableName", "stable_name": "CASH"}, "amount": "5000", "direction": "DEBIT"},
				{"account_identifier": map[string]any{"type": "StableName", "stable_name": "OPENING_BALANCE_EQUITY"}, "amount": 5000, "direction": "CREDIT"},
			},
		}})
		balances := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/ledger/balances", Token: business}).Data(t)
		if !hasBalance(balances["accounts"].([]any), "CASH", 5000) {
			t.Fatalf("balances = %v, want CASH 5000", balances)
		}
		r := api.do(t, request{Method: http.MethodGet, Path: "/v1/businesses/" + businessB + "/ledger/chart", Token: business})
		assertErrorObject(t, r, http.StatusNotFound, "NotFound")
	})

	// The customers: the customers-invoices container learns the
	// business from business.created (tenancy), then a platform creates a
	// customer idempotently, finds it as the client SDK searches, patches
	// and archives it; the business token reads its own customers only.
	t.Run("customers", func(t *testing.T) {
		base := "/v1/businesses/" + businessA + "/customers"
		api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base, Token: platform})
		body := map[string]any{"external_id": "e2e-cust-" + randomHex(t, 4), "individual_name": "Ann Lee", "company_name": "Acme Corp",
			"email": "ann@acme.example", "mobile_phone": "+1 415 555 0100", "memo": "net 30",
			"tags": []map[string]any{{"key": "region", "value": "west"}}}
		created := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base, Token: platform, JSON: body}).Data(t)
		id, _ := created["id"].(string)
		if created["type"] != "CustomerData" || created["status"] != "ACTIVE" || created["notes"] != "net 30" || created["office_phone"] != nil {
			t.Fatalf("created customer = %v", created)
		}
		if tags, _ := created["transaction_tags"].([]any); len(tags) != 1 {
			t.Fatalf("transaction_tags = %v", created["transaction_tags"])
		}
		again := api.expect(t, http.StatusOK, request{Method: http.MethodPost, Path: base, Token: platform, JSON: body}).Data(t)
		if again["id"] != id {
			t.Fatalf("the same external_id made another customer: %v", again)
		}
		found := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "?q=acme&identity_status=IDENTIFIED", Token: business}).JSON(t)
		if rows, _ := found["data"].([]any); len(rows) != 1 || rows[0].(map[string]any)["id"] != id {
			t.Fatalf("search = %v", found)
		}
		patched := api.expect(t, http.StatusOK, request{Method: http.MethodPatch, Path: base + "/" + id, Token: platform,
			JSON: map[string]any{"email": nil, "status": "ACTIVE", "office_phone": "555-0199"}}).Data(t)
		if patched["email"] != nil || patched["office_phone"] != "555-0199" || patched["memo"] != "net 30" {
			t.Fatalf("patched customer = %v", patched)
		}
		archived := api.expect(t, http.StatusOK, request{Method: http.MethodPost, Path: base + "/" + id + "/archive", Token: platform}).Data(t)
		if archived["status"] != "ARCHIVED" || archived["archived_at"] == nil {
			t.Fatalf("archived customer = %v", archived)
		}
		if rows, _ := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base, Token: platform}).JSON(t)["data"].([]any); len(rows) != 0 {
			t.Fatalf("the default listing shows the archived customer: %v", rows)
		}
		api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/" + id, Token: business})
		r := api.do(t, request{Method: http.MethodGet, Path: "/v1/businesses/" + businessB + "/customers", Token: business})
		assertErrorObject(t, r, http.StatusNotFound, "NotFound")
		r = api.do(t, request{Method: http.MethodGet, Path: base + "?include_archived=maybe", Token: platform})
		assertErrorObject(t, r, http.StatusBadRequest, "InvalidParameters")
	})

	// The scenario: customer → invoice with a tax and a discount →
	// partial payment → write-off of the rest → statuses and balances →
	// the customer archived (its invoices kept) → the payment bulk-deleted
	// → balances restored → the ledger's A/R equals the open balances.
	t.Run("invoices post to the ledger", func(t *testing.T) {
		biz := createBusiness(t, api, platform, newBusiness(t, "E2E Invoicing Inc"))
		base := "/v1/businesses/" + biz
		api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/ledger/chart", Token: platform})
		api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/customers", Token: platform})
		cust := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/customers", Token: platform, JSON: map[string]any{
			"external_id": "e2e-inv-cust", "company_name": "Globex",
		}}).Data(t)["id"].(string)
		inv := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/invoices", Token: platform, JSON: map[string]any{
			"external_id": "e2e-inv-1", "invoice_number": "1001", "sent_at": "2026-03-02T09:00:00Z", "customer_id": cust,
			"line_items": []map[string]any{{
				"product": "Widget", "unit_price": 5000, "quantity": "2", "discount_amount": 1000,
				"sales_taxes": []map[string]any{{"tax_account": map[string]any{"type": "Tax_Name", "name": "STATE"}, "amount": 720}},
			}},
		}}).Data(t)
		id := inv["id"].(string)
		if inv["subtotal"] != 10000.0 || inv["total_amount"] != 9720.0 || inv["outstanding_balance"] != 9720.0 || inv["status"] != "SENT" {
			t.Fatalf("invoice = %v", inv)
		}
		pay := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/invoices/" + id + "/payment", Token: platform, JSON: map[string]any{
			"amount": 5000, "method": "ACH", "paid_at": "2026-03-05T12:00:00Z", "reference_number": "ACH-1",
		}}).Data(t)
		if pay["amount"] != 5000.0 || pay["at"] == nil {
			t.Fatalf("payment = %v", pay)
		}
		got := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/invoices/" + id, Token: platform}).Data(t)
		if got["status"] != "PARTIALLY_PAID" || got["outstanding_balance"] != 4720.0 {
			t.Fatalf("after the payment: %v", got)
		}
		api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/invoices/" + id + "/write-off", Token: platform, JSON: map[string]any{
			"amount": 4720, "write_off_mode": "EXPENSE",
		}})
		got = api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/invoices/" + id, Token: platform}).Data(t)
		if got["status"] != "WRITTEN_OFF" || got["outstanding_balance"] != 0.0 {
			t.Fatalf("after the write-off: %v", got)
		}
		api.expect(t, http.StatusOK, request{Method: http.MethodPost, Path: base + "/customers/" + cust + "/archive", Token: platform})
		got = api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/invoices/" + id, Token: platform}).Data(t)
		if c, _ := got["customer"].(map[string]any); c == nil || c["status"] != "ARCHIVED" {
			t.Fatalf("the archived customer's invoice: %v", got)
		}
		deleted := api.expect(t, http.StatusOK, request{Method: http.MethodPost, Path: base + "/invoices/payments/bulk-delete", Token: platform,
			JSON: map[string]any{"ids": []string{pay["id"].(string)}}}).Data(t)
		if deleted["deleted_count"] != 1.0 {
			t.Fatalf("bulk delete = %v", deleted)
		}
		got = api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/invoices/" + id, Token: platform}).Data(t)
		if got["status"] != "PARTIALLY_WRITTEN_OFF" || got["outstanding_balance"] != 5000.0 {
			t.Fatalf("after the payment's deletion: %v", got)
		}
		// The ledger follows through acct.invoicing.v1: A/R is the open
		// 5000, the write-off is bad debt, the tax its own liability.
		deadline := time.Now().Add(time.Minute)
		for {
			nodes := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/ledger/balances", Token: platform}).Data(t)["accounts"].([]any)
			if hasBalance(nodes, "ACCOUNTS_RECEIVABLE", 5000) && hasBalance(nodes, "BAD_DEBT", 4720) && hasBalance(nodes, "UNDEPOSITED_FUNDS", 0) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the ledger never matched the invoice: %v", nodes)
			}
			time.Sleep(250 * time.Millisecond)
		}
	})

	// The scenario: bank transactions and invoices over three months
	// and two tags, the comparison on both bases, its CSV export.
	t.Run("reports on both bases", func(t *testing.T) { reportsScenario(t, api, stack, platform) })

	// The scenario: vendor, bill, tagged partial payment, vendor
	// credit, receipt import → bill; the ledger's A/P equals the open bills.
	t.Run("bills, credits and a receipt", func(t *testing.T) { billsScenario(t, api, platform) })

	// The scenario: two vehicles, trips of each purpose over two
	// years (across the 2022 mid-year rate change), one deleted; the
	// summary by year and month, filtered by vehicle, purpose and dates.
	t.Run("mileage summary", func(t *testing.T) { mileageScenario(t, api, platform) })

	// The scenario: a platform subscribes an endpoint on this machine to
	// its business's Customer.created; a customer created through the
	// gateway reaches it, signed with the endpoint's secret.
	t.Run("webhooks: a signed Customer.created", func(t *testing.T) { webhooksScenario(t, api, stack, platform) })

	// The scenario: a Canadian business, a custom account, imported
	// transactions categorized single, split and with HST; the balances and
	// the journal reflect it; recategorizing leaves one live entry.
	t.Run("bank transactions post to the ledger", func(t *testing.T) {
		body := newBusiness(t, "E2E Canada Ltd")
		body["country"] = "CA"
		delete(body, "us_state")
		biz := createBusiness(t, api, platform, body)
		base := "/v1/businesses/" + biz
		api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/ledger/chart", Token: platform})
		acct := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/custom-accounts", Token: platform, JSON: map[string]any{
			"account_name": "Chequing", "institution_name": "E2E Bank", "account_type": "DEPOSITORY", "account_subtype": "CHECKING",
		}}).Data(t)["id"].(string)
		r := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/custom-accounts/" + acct + "/transactions", Token: platform, JSON: map[string]any{
			"transactions": []map[string]any{
				{"external_id": "e2e-hst", "amount": 11300, "direction": "DEBIT", "date": "2026-03-02", "description": "Lunch, Toronto"},
				{"external_id": "e2e-split", "amount": 10000, "direction": "DEBIT", "date": "2026-03-03", "description": "Supplies and lunch"},
				{"external_id": "e2e-sale", "amount": 5000, "direction": "CREDIT", "date": "2026-03-04", "description": "Sale"},
			},
		}})
		rows, _ := r.JSON(t)["data"].([]any)
		if len(rows) != 3 {
			t.Fatalf("%s: want the 3 created rows", r)
		}
		id := func(i int) string { return rows[i].(map[string]any)["id"].(string) }
		stable := func(name string) map[string]any { return map[string]any{"type": "StableName", "stable_name": name} }
		categorize := func(method, txn string, body map[string]any, status string) {
			t.Helper()
			got := api.expect(t, http.StatusOK, request{Method: method, Path: base + "/bank-transactions/" + txn + "/categorize", Token: platform, JSON: body}).Data(t)
			if got["categorization_status"] != status {
				t.Fatalf("categorize %s: status %v, want %s", txn, got["categorization_status"], status)
			}
		}
		categorize(http.MethodPut, id(2), map[string]any{"type": "Category", "category": stable("SALES")}, "CATEGORIZED")
		categorize(http.MethodPost, id(1), map[string]any{"type": "Split", "entries": []any{
			map[string]any{"category": stable("OFFICE_EXPENSES"), "amount": 6000},
			map[string]any{"category": stable("MEALS"), "amount": 4000},
		}}, "SPLIT")
		categorize(http.MethodPut, id(0), map[string]any{"type": "Category", "category": stable("MEALS"), "tax_code": "HST_ON"}, "CATEGORIZED")

		balances := func() []any {
			return api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/ledger/balances", Token: platform}).Data(t)["accounts"].([]any)
		}
		want := map[string]float64{"MEALS": 14000, "OFFICE_EXPENSES": 6000, "SALES": 5000, "SALES_TAXES_RECEIVABLE": 1300,
			"UNCATEGORIZED_EXPENSES": 0, "UNCATEGORIZED_REVENUE": 0}
		nodes := balances()
		for name, v := range want {
			if !hasBalance(nodes, name, v) {
				t.Errorf("balance of %s is not %v", name, v)
			}
		}

		// Recategorize the split as one category: its entry is reversed and
		// a new one posted; one entry of the transaction stays live.
		categorize(http.MethodPut, id(1), map[string]any{"type": "Category", "category": stable("OFFICE_EXPENSES")}, "CATEGORIZED")
		nodes = balances()
		if !hasBalance(nodes, "MEALS", 10000) || !hasBalance(nodes, "OFFICE_EXPENSES", 10000) || !hasBalance(nodes, "BANK_ACCOUNTS", -16300) {
			t.Errorf("after recategorizing, want MEALS 10000 (the HST expense), OFFICE_EXPENSES 10000, BANK_ACCOUNTS -16300")
		}
		entries := api.expect(t, http.StatusOK, request{Method: http.MethodGet, Path: base + "/ledger/entries?limit=500", Token: platform}).JSON(t)["data"].([]any)
		live, total := 0, 0
		for _, e := range entries {
			m := e.(map[string]any)
			if m["source_id"] != id(1) {
				continue
			}
			total++
			if m["reversal_id"] == nil && m["reversal_of_id"] == nil {
				live++
			}
		}
		// Uncategorized at import, split, single: three postings, two reversals.
		if live != 1 || total != 5 {
			t.Fatalf("entries of the recategorized transaction: %d live of %d, want 1 of 5", live, total)
		}
	})
}

func hasBalance(nodes []any, stable string, want float64) bool {
	for _, n := range nodes {
		m := n.(map[string]any)
		if m["stable_name"] == stable {
			return m["balance"] == want
		}
		if subs, _ := m["sub_accounts"].([]any); hasBalance(subs, stable, want) {
			return true
		}
	}
	return false
}
