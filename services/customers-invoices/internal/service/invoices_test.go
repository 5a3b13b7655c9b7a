package service

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// realistic is an invoice with a fractional quantity sent as a string, a
// whole one sent as a number, a line discount, a named line tax, an
// additional discount and tax, and tips:
//
//	line 1: 1.5 × 120.00 = 180.00, − 10.00 discount, + 13.60 CA state tax = 183.60
//	line 2: 2 × 24.99 = 49.98 to a revenue account given by id
//	subtotal 229.98, discounts 10.00 + 5.00, taxes 13.60 + 1.00, tips 3.00 → 232.58
func realistic(revenue uuid.UUID) map[string]any {
	return map[string]any{
		"external_id": "inv-1001", "invoice_number": "1001", "customer_external_id": "crm-77",
		"sent_at": "2026-03-01T10:00:00Z", "due_at": "2026-03-31T00:00:00Z",
		"memo": "March work", "custom_payment_instructions": "Pay by ACH", "reference_number": "PO-9",
		"metadata": map[string]any{"order": "A-1", "priority": 2},
		"tags":     []any{map[string]any{"key": "project", "value": "apollo"}},
		"line_items": []any{
			map[string]any{
				"external_id": "l-1", "product": "Consulting", "description": "Senior hours", "unit_price": 12000,
				"quantity": "1.5", "discount_amount": 1000, "memo": "on site",
				"sales_taxes": []any{map[string]any{"tax_account": map[string]any{"type": "Tax_Name", "name": "ca state"}, "amount": 1360}},
				"tags":        []any{map[string]any{"key": "team", "value": "blue"}},
			},
			map[string]any{
				"description": "Widget", "unit_price": "2499", "quantity": 2,
				"account_identifier": map[string]any{"type": "AccountId", "id": revenue.String()},
			},
		},
		"additional_discount":    500,
		"additional_sales_taxes": []any{map[string]any{"tax_account": map[string]any{"type": "Tax_Name", "name": "City"}, "amount": 100}},
		"tips":                   300,
	}
}

func TestCreateInvoice(t *testing.T) {
	iv := newInvoicing(t)
	revenue := iv.ledgerAccounts(false, uuid.New())[0]

	t.Run("amounts of a realistic invoice", func(t *testing.T) {
		iv := iv.with(t)
		before := iv.rowCounts()
		seq := iv.lastSeq()
		inv := iv.create(realistic(revenue), 201)
		checkInvoiceShape(t, inv)
		amounts(t, inv, map[string]int64{"subtotal": 22998, "additional_discount": 500, "total_discount": 1500,
			"additional_sales_taxes_total": 100, "sales_taxes_total": 1460, "total_tax": 1460, "tips": 300,
			"total_amount": 23258, "outstanding_balance": 23258})
		if inv["status"] != "SENT" || inv["paid_at"] != nil || inv["voided_at"] != nil || inv["business_id"] != iv.bid.String() ||
			inv["external_id"] != "inv-1001" || inv["invoice_number"] != "1001" || inv["memo"] != "March work" ||
			inv["custom_payment_instructions"] != "Pay by ACH" || inv["reference_number"] != "PO-9" ||
			inv["sent_at"] != "2026-03-01T10:00:00Z" || inv["due_at"] != "2026-03-31T00:00:00Z" {
			t.Fatalf("invoice = %v", inv)
		}
		if m := obj(inv["metadata"]); m["order"] != "A-1" || m["priority"] != float64(2) {
			t.Errorf("metadata = %v", m)
		}
		if tg := list(inv["transaction_tags"]); len(tg) != 1 || obj(tg[0])["key"] != "project" {
			t.Errorf("tags = %v", tg)
		}
		ast := list(inv["additional_sales_taxes"])
		if len(ast) != 1 || obj(obj(ast[0])["tax_account"])["name"] != "CITY" || num(t, obj(ast[0])["amount"]) != 100 {
			t.Errorf("additional taxes = %v", ast)
		}

		lines := list(inv["line_items"])
		if len(lines) != 2 {
			t.Fatalf("lines = %v", lines)
		}
		l1, l2 := obj(lines[0]), obj(lines[1])
		amounts(t, l1, map[string]int64{"unit_price": 12000, "subtotal": 18000, "discount_amount": 1000, "sales_taxes_total": 1360, "total_amount": 18360})
		amounts(t, l2, map[string]int64{"unit_price": 2499, "subtotal": 4998, "discount_amount": 0, "sales_taxes_total": 0, "total_amount": 4998})
		if l1["quantity"] != "1.5" || l2["quantity"] != "2" {
			t.Errorf("quantities %v and %v, want \"1.5\" and \"2\"", l1["quantity"], l2["quantity"])
		}
		if l1["invoice_id"] != inv["id"] || l1["external_id"] != "l-1" || l1["product"] != "Consulting" || l1["description"] != "Senior hours" ||
			l1["memo"] != "on site" || l2["external_id"] != nil || l2["product"] != nil || l2["memo"] != nil {
			t.Errorf("line texts: %v / %v", l1, l2)
		}
		sales := events.DefaultAccountID(iv.bid, invoice.DefaultRevenueAccount).String()
		if a := obj(l1["account_identifier"]); a["type"] != "AccountId" || a["id"] != sales {
			t.Errorf("line 1 account = %v, want SALES's id %s", a, sales)
		}
		if la := obj(l1["ledger_account"]); obj(la["stable_name"])["stable_name"] != "SALES" {
			t.Errorf("line 1 ledger account = %v", la)
		}
		if a := obj(l2["account_identifier"]); a["id"] != revenue.String() || obj(l2["ledger_account"])["stable_name"] != nil {
			t.Errorf("line 2 account = %v / %v", a, l2["ledger_account"])
		}
		tax := obj(list(l1["sales_taxes"])[0])
		if ta := obj(tax["tax_account"]); ta["type"] != "Tax_Name" || ta["name"] != "CA_STATE" || num(t, tax["amount"]) != 1360 {
			t.Errorf("line tax = %v", tax)
		}
		if sn := obj(obj(tax["tax_ledger_account"])["stable_name"]); sn["stable_name"] != "SALES_TAXES_PAYABLE:CA_STATE" {
			t.Errorf("tax ledger account = %v", tax["tax_ledger_account"])
		}
		if tg := list(l1["transaction_tags"]); len(tg) != 1 || obj(tg[0])["value"] != "blue" || len(list(l2["transaction_tags"])) != 0 {
			t.Errorf("line tags %v / %v", tg, l2["transaction_tags"])
		}

		// The customer crm-77 did not exist: it was created, nameless.
		cust := obj(inv["customer"])
		if cust["external_id"] != "crm-77" || cust["individual_name"] != nil || cust["company_name"] != nil ||
			inv["customer_id"] != cust["id"] || inv["recipient_name"] != nil {
			t.Fatalf("customer = %v (recipient %v)", cust, inv["recipient_name"])
		}
		checkShape(t, cust)

		// One invoice, two lines, one customer; its events: customer.upserted, invoice.upserted.
		after := iv.rowCounts()
		if after["invoices"] != before["invoices"]+1 || after["invoice_lines"] != before["invoice_lines"]+2 ||
			after["customers"] != before["customers"]+1 {
			t.Fatalf("rows %v -> %v", before, after)
		}
		evs := iv.outbox(iv.bid, seq)
		if len(evs) != 2 || evs[0].Type != events.TypeCustomerUpserted || evs[1].Type != events.TypeInvoiceUpserted {
			t.Fatalf("events = %v", evs)
		}
		up := decode[events.InvoiceUpserted](t, evs[1])
		if up.Invoice.ID.String() != inv["id"] || up.Invoice.Version != 1 || up.Invoice.TotalAmount != 23258 || up.Invoice.Status != "SENT" {
			t.Fatalf("snapshot = %+v", up.Invoice)
		}
		p := up.Posting
		if debits := checkPosting(t, p, "INVOICE", inv["id"].(string), 1, true); debits != 23258 {
			t.Fatalf("posting debits %d", debits)
		}
		// A/R takes the total; revenue (net of every discount), each tax and the tips are credited.
		if lineOf(p, invoice.AccountsReceivable, "DEBIT") != 23258 || lineOf(p, "CA_STATE", "CREDIT") != 1360 ||
			lineOf(p, "CITY", "CREDIT") != 100 || lineOf(p, invoice.Tips, "CREDIT") != 300 ||
			lineOf(p, "SALES", "CREDIT")+lineOf(p, revenue.String(), "CREDIT") != 22998-1500 {
			t.Fatalf("posting lines = %+v", p.Lines)
		}
		if !p.EntryAt.Equal(mustTime(t, "2026-03-01T10:00:00Z")) {
			t.Errorf("entry at %v", p.EntryAt)
		}

		// GET answers the same invoice.
		got := iv.get(inv["id"].(string))
		for _, k := range []string{"total_amount", "subtotal", "status", "sent_at", "customer_id", "metadata", "recipient_name"} {
			if !equalJSON(got[k], inv[k]) {
				t.Errorf("GET %s = %v, create answered %v", k, got[k], inv[k])
			}
		}
		if !equalJSON(got["line_items"], inv["line_items"]) {
			t.Errorf("GET lines %v\ncreate lines %v", got["line_items"], inv["line_items"])
		}
		// The created customer exists and can be given an email without a name.
		cpath := iv.path("/customers/%s", cust["id"])
		if c := data(iv.Do(req("GET", cpath, iv.tok, nil), 200)); c["external_id"] != "crm-77" || c["status"] != "ACTIVE" {
			t.Fatalf("customer = %v", c)
		}
		if c := data(iv.Do(req("PATCH", cpath, iv.tok, map[string]any{"email": "ap@crm77.example"}), 200)); c["email"] != "ap@crm77.example" || c["company_name"] != nil {
			t.Fatalf("patched customer = %v", c)
		}
	})

	t.Run("the same external_id again answers the stored invoice", func(t *testing.T) {
		iv := iv.with(t)
		first := iv.create(with(simple("crm-1", 1000), "external_id", "dup-1"), 201)
		before := iv.rowCounts()
		again := iv.create(with(simple("crm-other", 99999), "external_id", "dup-1", "memo", "changed"), 200)
		iv.sameCounts(before)
		if again["id"] != first["id"] || num(t, again["total_amount"]) != 1000 || again["memo"] != nil || again["updated_at"] != first["updated_at"] {
			t.Fatalf("second create = %v", again)
		}
		if obj(again["customer"])["external_id"] != "crm-1" {
			t.Fatalf("customer = %v", again["customer"])
		}
	})

	t.Run("customer by id, by a known external id, by both", func(t *testing.T) {
		iv := iv.with(t)
		c := iv.env.create(iv.bid, iv.tok, map[string]any{"company_name": "Known Co", "external_id": "known-1"}, 201)
		before := iv.rowCounts()
		byID := iv.create(with(simple("", 500), "customer_external_id", nil, "customer_id", c["id"]), 201)
		byExt := iv.create(simple("known-1", 500), 201)
		both := iv.create(with(simple("known-1", 500), "customer_id", c["id"]), 201)
		for _, inv := range []map[string]any{byID, byExt, both} {
			if inv["customer_id"] != c["id"] || inv["recipient_name"] != "Known Co" || obj(inv["customer"])["company_name"] != "Known Co" {
				t.Fatalf("invoice customer = %v / %v", inv["customer_id"], inv["customer"])
			}
		}
		if after := iv.rowCounts(); after["customers"] != before["customers"] {
			t.Fatal("a known customer was created again")
		}
		// An external id with spaces around it names the same customer.
		if inv := iv.create(simple(" known-1 ", 500), 201); inv["customer_id"] != c["id"] {
			t.Fatalf("customer_external_id ' known-1 ' named %v", inv["customer_id"])
		}
	})

	t.Run("timestamps are kept to the microsecond, as stored", func(t *testing.T) {
		iv := iv.with(t)
		inv := iv.create(with(simple("crm-1", 100), "sent_at", "2026-03-01T10:00:00.123456789+02:00", "due_at", "2026-04-01T00:00:00.0000009Z"), 201)
		got := iv.get(inv["id"].(string))
		if inv["sent_at"] != "2026-03-01T08:00:00.123456Z" || got["sent_at"] != inv["sent_at"] ||
			inv["due_at"] != "2026-04-01T00:00:00Z" || got["due_at"] != inv["due_at"] {
			t.Fatalf("created %v / %v, read %v / %v", inv["sent_at"], inv["due_at"], got["sent_at"], got["due_at"])
		}
	})

	t.Run("a zero invoice is PAID at once", func(t *testing.T) {
		iv := iv.with(t)
		inv := iv.create(simple("crm-1", 0), 201)
		if inv["status"] != "PAID" || inv["paid_at"] != inv["sent_at"] || num(t, inv["outstanding_balance"]) != 0 {
			t.Fatalf("zero invoice = %v", inv)
		}
	})

	t.Run("defaults: quantity 1, no tax account, SALES", func(t *testing.T) {
		iv := iv.with(t)
		inv := iv.create(map[string]any{
			"customer_external_id": "crm-1", "sent_at": "2026-03-01T10:00:00Z",
			"line_items": []any{map[string]any{"product": "Thing", "unit_price": 1234,
				"sales_taxes": []any{map[string]any{"amount": 99}}}},
		}, 201)
		l := obj(list(inv["line_items"])[0])
		tax := obj(list(l["sales_taxes"])[0])
		if l["quantity"] != "1" || num(t, l["total_amount"]) != 1333 || obj(tax["tax_account"])["name"] != "SALES_TAXES_PAYABLE" {
			t.Fatalf("line = %v", l)
		}
	})
}

func TestCreateInvoiceInvalid(t *testing.T) {
	iv := newInvoicing(t)
	other := iv.Business("client-b")
	foreign := iv.env.create(other, iv.Token("client-b"), map[string]any{"company_name": "Theirs"}, 201)
	mine := iv.env.create(iv.bid, iv.tok, map[string]any{"company_name": "Mine", "external_id": "mine-1"}, 201)
	iv.env.create(iv.bid, iv.tok, map[string]any{"company_name": "Other", "external_id": "other-1"}, 201)
	line := func(kv ...any) map[string]any {
		return with(map[string]any{"product": "P", "unit_price": 1000, "quantity": "1"}, kv...)
	}
	lines := func(ls ...map[string]any) []any {
		out := make([]any, len(ls))
		for i, l := range ls {
			out[i] = l
		}
		return out
	}
	ok := simple("crm-new", 1000)
	tests := []struct {
		name  string
		body  any
		enum  string
		field string
	}{
		{"sent_at missing", with(ok, "sent_at", nil), invoice.EnumInvalidInvoice, "sent_at"},
		{"sent_at not a date-time", with(ok, "sent_at", "2026-03-01"), "", ""},
		{"no customer", with(ok, "customer_external_id", nil), invoice.EnumInvalidInvoice, "customer_id"},
		{"blank customer_external_id", with(ok, "customer_external_id", "  "), invoice.EnumInvalidInvoice, "customer_external_id"},
		{"no line items", with(ok, "line_items", []any{}), invoice.EnumInvalidLine, "line_items"},
		{"line items missing", with(ok, "line_items", nil), invoice.EnumInvalidLine, "line_items"},
		{"line without product or description", with(ok, "line_items", lines(line("product", nil))), invoice.EnumInvalidLine, "line_items[0].product"},
		{"unit price missing", with(ok, "line_items", lines(line("unit_price", nil))), invoice.EnumInvalidInvoice, "line_items[0].unit_price"},
		{"negative unit price", with(ok, "line_items", lines(line("unit_price", -1))), invoice.EnumInvalidLine, "line_items[0].unit_price"},
		{"fractional cents", with(ok, "line_items", lines(line("unit_price", 10.5))), invoice.EnumInvalidInvoice, "line_items[0].unit_price"},
		{"zero quantity", with(ok, "line_items", lines(line("quantity", "0"))), invoice.EnumInvalidLine, "line_items[0].quantity"},
		{"negative quantity", with(ok, "line_items", lines(line("quantity", -2))), invoice.EnumInvalidLine, "line_items[0].quantity"},
		{"quantity too precise", with(ok, "line_items", lines(line("quantity", "1.0000001"))), invoice.EnumInvalidInvoice, "line_items[0].quantity"},
		{"quantity not a number", with(ok, "line_items", lines(line("quantity", "two"))), invoice.EnumInvalidInvoice, "line_items[0].quantity"},
		{"negative discount", with(ok, "line_items", lines(line("discount_amount", -5))), invoice.EnumInvalidLine, "line_items[0].discount_amount"},
		{"discount over the subtotal", with(ok, "line_items", lines(line("discount_amount", 1001))), invoice.EnumInvalidLine, "line_items[0].discount_amount"},
		{"additional discount over the total", with(ok, "additional_discount", 1001), invoice.EnumDiscountTooLarge, "additional_discount"},
		{"negative additional discount", with(ok, "additional_discount", -1), invoice.EnumInvalidLine, "additional_discount"},
		{"negative tips", with(ok, "tips", -1), invoice.EnumInvalidLine, "tips"},
		{"negative tax", with(ok, "line_items", lines(line("sales_taxes", []any{map[string]any{"amount": -1}}))), invoice.EnumInvalidLine, "line_items[0].sales_taxes[0].amount"},
		{"bad tax name", with(ok, "additional_sales_taxes", []any{map[string]any{"tax_account": map[string]any{"type": "Tax_Name", "name": "$$"}, "amount": 1}}), invoice.EnumInvalidLine, "additional_sales_taxes[0].tax_account.name"},
		{"bad tax account type", with(ok, "additional_sales_taxes", []any{map[string]any{"tax_account": map[string]any{"type": "Rate", "name": "X"}, "amount": 1}}), invoice.EnumInvalidInvoice, "additional_sales_taxes[0].tax_account.type"},
		{"bad account_identifier type", with(ok, "line_items", lines(line("account_identifier", map[string]any{"type": "Name", "id": uuid.NewString()}))), invoice.EnumInvalidInvoice, "line_items[0].account_identifier.type"},
		{"AccountId without id", with(ok, "line_items", lines(line("account_identifier", map[string]any{"type": "AccountId"}))), invoice.EnumInvalidInvoice, "line_items[0].account_identifier"},
		{"StableName with an id", with(ok, "line_items", lines(line("account_identifier", map[string]any{"type": "StableName", "stable_name": "SALES", "id": uuid.NewString()}))), invoice.EnumInvalidInvoice, "line_items[0].account_identifier"},
		{"account id not a uuid", with(ok, "line_items", lines(line("account_identifier", map[string]any{"type": "AccountId", "id": "sales"}))), "", ""},
		{"metadata over 1 KB", with(ok, "metadata", map[string]any{"blob": strings.Repeat("x", 1100)}), invoice.EnumMetadataTooLarge, "metadata"},
		{"metadata not an object", with(ok, "metadata", []any{1, 2}), invoice.EnumInvalidInvoice, "metadata"},
		{"unknown property", with(ok, "discount", 5), "", "discount"},
		{"unknown line property", with(ok, "line_items", lines(line("price", 5))), "", "price"},
		{"memo too long", with(ok, "memo", strings.Repeat("m", 2001)), invoice.EnumInvalidInvoice, "memo"},
		{"too many tags", with(ok, "tags", manyTags(51)), tags.EnumInvalidTags, "tags"},
		{"customer of another business", with(ok, "customer_external_id", nil, "customer_id", foreign["id"]), app.EnumUnknownCustomer, "customer_id"},
		{"unknown customer id", with(ok, "customer_external_id", nil, "customer_id", uuid.NewString()), app.EnumUnknownCustomer, "customer_id"},
		{"customer id and external id disagree", with(ok, "customer_external_id", "other-1", "customer_id", mine["id"]), app.EnumCustomerMismatch, "customer_external_id"},
		{"customer id with an unknown external id", with(ok, "customer_external_id", "nobody", "customer_id", mine["id"]), app.EnumCustomerMismatch, "customer_external_id"},
		{"not an object", `[1]`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iv := iv.with(t)
			before := iv.rowCounts()
			m := iv.DoInvalid(req("POST", iv.path("/invoices"), iv.tok, tt.body), 400, tt.enum)
			if m["type"] != "InvalidPayload" {
				t.Fatalf("error = %v", m)
			}
			if tt.field != "" && fieldsOf(m)[tt.field] == nil {
				t.Fatalf("error does not name %s: %v", tt.field, m)
			}
			iv.sameCounts(before)
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		iv := iv.with(t)
		r := req("POST", iv.path("/invoices"), iv.tok, `{}`)
		r.Header.Set("Content-Type", "text/plain")
		iv.DoInvalid(r, 415, "")
	})
	t.Run("no token", func(t *testing.T) {
		iv := iv.with(t)
		iv.DoInvalid(req("POST", iv.path("/invoices"), "", ok), 401, "")
	})
}

func manyTags(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"key": "k", "value": "v" + strings.Repeat("x", i)}
	}
	return out
}

func TestGetInvoice(t *testing.T) {
	iv := newInvoicing(t)
	inv := iv.create(simple("crm-1", 1000), 201)
	if got := iv.get(inv["id"].(string)); got["id"] != inv["id"] {
		t.Fatalf("get = %v", got)
	}
	iv.DoInvalid(req("GET", iv.path("/invoices/%s", uuid.NewString()), iv.tok, nil), 404, app.EnumInvoiceNotFound)
	iv.DoInvalid(req("GET", iv.path("/invoices/nope"), iv.tok, nil), 400, "")
	// Another business of the same client does not see it.
	other := iv.Business("client-a")
	iv.DoInvalid(req("GET", base(other)+"/invoices/"+inv["id"].(string), iv.tok, nil), 404, app.EnumInvoiceNotFound)
}

func TestPatchInvoice(t *testing.T) {
	iv := newInvoicing(t)
	inv := iv.create(with(simple("crm-1", 1000), "memo", "first", "due_at", "2026-04-01T00:00:00Z"), 201)
	id := inv["id"].(string)
	path := iv.path("/invoices/%s", id)

	t.Run("texts only: the entry is posted again with the new version", func(t *testing.T) {
		iv := iv.with(t)
		seq := iv.lastSeq()
		got := data(iv.Do(req("PATCH", path, iv.tok, map[string]any{"memo": "second", "due_at": nil, "invoice_number": "A-7"}), 200))
		if got["memo"] != "second" || got["due_at"] != nil || got["invoice_number"] != "A-7" || num(t, got["total_amount"]) != 1000 ||
			got["updated_at"] == inv["updated_at"] || got["imported_at"] != inv["imported_at"] {
			t.Fatalf("patched = %v", got)
		}
		evs := iv.outbox(iv.bid, seq)
		if len(evs) != 1 || evs[0].Type != events.TypeInvoiceUpserted {
			t.Fatalf("events = %v", evs)
		}
		up := decode[events.InvoiceUpserted](t, evs[0])
		if up.Invoice.Version != 2 {
			t.Fatalf("version %d", up.Invoice.Version)
		}
		checkPosting(t, up.Posting, "INVOICE", id, 2, true)
	})

	t.Run("amounts are computed again", func(t *testing.T) {
		iv := iv.with(t)
		seq := iv.lastSeq()
		got := data(iv.Do(req("PATCH", path, iv.tok, map[string]any{
			"line_items": []any{
				map[string]any{"product": "A", "unit_price": 333, "quantity": "1.5"},                      // 499.5 → 500
				map[string]any{"product": "B", "unit_price": 1000, "quantity": 3, "discount_amount": 250}, // 2750
			},
			"tips": 50,
		}), 200))
		amounts(t, got, map[string]int64{"subtotal": 3500, "total_discount": 250, "tips": 50, "total_amount": 3300, "outstanding_balance": 3300})
		if len(list(got["line_items"])) != 2 || got["memo"] != "second" {
			t.Fatalf("patched = %v", got)
		}
		up := decode[events.InvoiceUpserted](t, iv.outbox(iv.bid, seq)[0])
		if up.Invoice.Version != 3 || up.Invoice.TotalAmount != 3300 {
			t.Fatalf("snapshot %+v", up.Invoice)
		}
		if debits := checkPosting(t, up.Posting, "INVOICE", id, 3, true); debits != 3300 {
			t.Fatalf("posting debits %d", debits)
		}
		if again := iv.get(id); num(t, again["total_amount"]) != 3300 || len(list(again["line_items"])) != 2 {
			t.Fatalf("read back = %v", again)
		}
	})

	t.Run("an empty patch writes nothing", func(t *testing.T) {
		iv := iv.with(t)
		cur := iv.get(id)
		before := iv.rowCounts()
		got := data(iv.Do(req("PATCH", path, iv.tok, map[string]any{}), 200))
		iv.sameCounts(before)
		if !equalJSON(got, cur) {
			t.Fatalf("answer %v\nwant %v", got, cur)
		}
	})

	t.Run("customer change", func(t *testing.T) {
		iv := iv.with(t)
		got := data(iv.Do(req("PATCH", path, iv.tok, map[string]any{"customer_external_id": "crm-2"}), 200))
		if obj(got["customer"])["external_id"] != "crm-2" {
			t.Fatalf("customer = %v", got["customer"])
		}
	})

	t.Run("invalid patches write nothing", func(t *testing.T) {
		for _, tt := range []struct {
			name  string
			body  any
			field string
		}{
			{"external_id is immutable", map[string]any{"external_id": "x"}, "external_id"},
			{"unknown property", map[string]any{"colour": "red"}, "colour"},
			{"sent_at cannot be cleared", map[string]any{"sent_at": nil}, "sent_at"},
			{"no lines", map[string]any{"line_items": []any{}}, "line_items"},
			{"negative tips", map[string]any{"tips": -1}, "tips"},
			{"metadata too large", map[string]any{"metadata": map[string]any{"x": strings.Repeat("y", 1024)}}, "metadata"},
			{"unknown customer", map[string]any{"customer_id": uuid.NewString()}, "customer_id"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				iv := iv.with(t)
				before := iv.rowCounts()
				m := iv.DoInvalid(req("PATCH", path, iv.tok, tt.body), 400, "")
				if fieldsOf(m)[tt.field] == nil {
					t.Fatalf("error does not name %s: %v", tt.field, m)
				}
				iv.sameCounts(before)
			})
		}
		iv := iv.with(t)
		iv.DoInvalid(req("PATCH", iv.path("/invoices/%s", uuid.NewString()), iv.tok, map[string]any{"memo": "x"}), 404, app.EnumInvoiceNotFound)
	})

	t.Run("after a payment: 409", func(t *testing.T) {
		iv := iv.with(t)
		iv.pay(map[string]any{"paid_at": "2026-03-05T00:00:00Z", "method": "CASH", "amount": 100,
			"invoice_payments": []any{map[string]any{"invoice_id": id, "amount": 100}}}, 201)
		before := iv.rowCounts()
		cur := iv.get(id)
		m := iv.Do(req("PATCH", path, iv.tok, map[string]any{"memo": "late"}), 409)
		if m["error_enum"] != invoice.EnumNotEditable {
			t.Fatalf("error = %v", m)
		}
		iv.sameCounts(before)
		if again := iv.get(id); again["memo"] != cur["memo"] || again["updated_at"] != cur["updated_at"] {
			t.Fatal("the refused patch changed the invoice")
		}
	})
}

func TestVoidInvoice(t *testing.T) {
	iv := newInvoicing(t)
	inv := iv.create(simple("crm-1", 5000), 201)
	id := inv["id"].(string)
	seq := iv.lastSeq()

	voided := data(iv.Do(req("POST", iv.path("/invoices/%s/void", id), iv.tok, nil), 200))
	checkInvoiceShape(t, voided)
	if voided["status"] != "VOIDED" || voided["voided_at"] == nil || num(t, voided["outstanding_balance"]) != 0 ||
		num(t, voided["total_amount"]) != 5000 || voided["paid_at"] != nil {
		t.Fatalf("voided = %v", voided)
	}
	evs := iv.outbox(iv.bid, seq)
	if len(evs) != 1 || evs[0].Type != events.TypeInvoiceUpserted {
		t.Fatalf("events = %v", evs)
	}
	up := decode[events.InvoiceUpserted](t, evs[0])
	checkPosting(t, up.Posting, "INVOICE", id, 2, false)
	if up.Invoice.Status != "VOIDED" || up.Invoice.OutstandingBalance != 0 {
		t.Fatalf("snapshot = %+v", up.Invoice)
	}

	// Twice: unchanged, nothing written.
	before := iv.rowCounts()
	again := data(iv.Do(req("POST", iv.path("/invoices/%s/void", id), iv.tok, nil), 200))
	if again["voided_at"] != voided["voided_at"] || again["updated_at"] != voided["updated_at"] {
		t.Fatalf("second void = %v", again)
	}
	iv.sameCounts(before)

	// A voided invoice takes no payment, no write-off, no patch.
	if m := iv.Do(req("POST", iv.path("/invoices/payments"), iv.tok, map[string]any{"paid_at": "2026-03-05T00:00:00Z", "method": "CASH",
		"amount": 100, "invoice_payments": []any{map[string]any{"invoice_id": id, "amount": 100}}}), 400); m["error_enum"] != invoice.EnumInvoiceVoided {
		t.Fatalf("error = %v", m)
	}
	iv.Do(req("POST", iv.path("/invoices/%s/write-off", id), iv.tok, map[string]any{"amount": 100}), 409)
	iv.Do(req("PATCH", iv.path("/invoices/%s", id), iv.tok, map[string]any{"memo": "x"}), 409)
	iv.sameCounts(before)

	t.Run("with payments: 409", func(t *testing.T) {
		iv := iv.with(t)
		paid := iv.create(simple("crm-1", 5000), 201)
		iv.pay(map[string]any{"paid_at": "2026-03-05T00:00:00Z", "method": "ACH", "amount": 5000,
			"invoice_payments": []any{map[string]any{"invoice_id": paid["id"], "amount": 5000}}}, 201)
		before := iv.rowCounts()
		m := iv.Do(req("POST", iv.path("/invoices/%s/void", paid["id"]), iv.tok, nil), 409)
		if m["error_enum"] != invoice.EnumHasPayments {
			t.Fatalf("error = %v", m)
		}
		iv.sameCounts(before)
		if got := iv.get(paid["id"].(string)); got["status"] != "PAID" {
			t.Fatalf("status = %v", got["status"])
		}
	})
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/void", uuid.NewString()), iv.tok, nil), 404, app.EnumInvoiceNotFound)
}

func TestDeleteInvoice(t *testing.T) {
	iv := newInvoicing(t)
	inv := iv.create(simple("crm-1", 5000), 201)
	id := inv["id"].(string)
	wo := iv.writeOff(id, map[string]any{"amount": 1000}, 201)
	seq := iv.lastSeq()
	before := iv.rowCounts()

	resp, _ := iv.V.Do(t, iv.HTTP, req("DELETE", iv.path("/invoices/%s", id), iv.tok, nil))
	if resp.StatusCode != 204 {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	after := iv.rowCounts()
	if after["invoices"] != before["invoices"]-1 || after["invoice_lines"] != before["invoice_lines"]-1 ||
		after["invoice_write_offs"] != before["invoice_write_offs"]-1 {
		t.Fatalf("rows %v -> %v", before, after)
	}
	iv.DoInvalid(req("GET", iv.path("/invoices/%s", id), iv.tok, nil), 404, app.EnumInvoiceNotFound)
	iv.DoInvalid(req("GET", iv.path("/invoices/%s/write-offs/%s", id, wo["id"]), iv.tok, nil), 404, app.EnumWriteOffNotFound)
	iv.DoInvalid(req("DELETE", iv.path("/invoices/%s", id), iv.tok, nil), 404, app.EnumInvoiceNotFound)

	// The write-off's entry and the invoice's are reversed.
	evs := iv.outbox(iv.bid, seq)
	if len(evs) != 2 || evs[0].Type != events.TypeInvoiceWriteOffUpserted || evs[1].Type != events.TypeInvoiceDeleted {
		t.Fatalf("events = %v", evs)
	}
	w := decode[events.InvoiceWriteOffUpserted](t, evs[0])
	checkPosting(t, w.Posting, "INVOICE_WRITE_OFF", wo["id"].(string), 2, false)
	if !w.WriteOff.Voided {
		t.Fatalf("write-off = %+v", w.WriteOff)
	}
	del := decode[events.InvoiceDeleted](t, evs[1])
	if del.InvoiceID.String() != id {
		t.Fatalf("deleted = %+v", del)
	}
	// created (1), write-off (2), deleted (3)
	checkPosting(t, del.Posting, "INVOICE", id, 3, false)

	t.Run("with payments: 409", func(t *testing.T) {
		iv := iv.with(t)
		paid := iv.create(simple("crm-1", 5000), 201)
		iv.pay(map[string]any{"paid_at": "2026-03-05T00:00:00Z", "method": "ACH", "amount": 10,
			"invoice_payments": []any{map[string]any{"invoice_id": paid["id"], "amount": 10}}}, 201)
		before := iv.rowCounts()
		m := iv.Do(req("DELETE", iv.path("/invoices/%s", paid["id"]), iv.tok, nil), 409)
		if m["error_enum"] != invoice.EnumHasPayments {
			t.Fatalf("error = %v", m)
		}
		iv.sameCounts(before)
		iv.get(paid["id"].(string))
	})
}
