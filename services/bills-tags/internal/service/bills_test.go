package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/bills-tags/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// billKeys are the keys every bill body has (and paid_at once paid).
var billKeys = []string{"type", "id", "business_id", "external_id", "bill_number", "status", "terms", "received_at", "due_at",
	"voided_at", "memo", "reference_number", "metadata", "line_items", "additional_sales_taxes",
	"additional_sales_taxes_total", "subtotal", "sales_taxes_total", "total_amount", "outstanding_balance",
	"payment_allocations", "imported_at", "updated_at", "vendor", "transaction_tags"}

// billVendorOptional are the vendor keys a bill leaves out when null.
var billVendorOptional = []string{"individual_name", "email", "mobile_phone", "office_phone", "address_string", "notes"}

func checkBill(t *testing.T, b map[string]any) {
	t.Helper()
	for _, k := range billKeys {
		if _, ok := b[k]; !ok {
			t.Errorf("bill lacks %q", k)
		}
	}
	want := len(billKeys)
	if paid, ok := b["paid_at"]; ok {
		want++
		if paid == nil {
			t.Errorf("paid_at is null (left out when not paid)")
		}
	}
	if len(b) != want || b["type"] != "Bill" {
		t.Errorf("bill has %d keys (want %d), type %v", len(b), want, b["type"])
	}
	if b["due_at"] == nil {
		t.Errorf("due_at is null")
	}
	for i, l := range b["line_items"].([]any) {
		lm := l.(map[string]any)
		for _, k := range []string{"description", "external_id"} {
			if _, ok := lm[k].(string); !ok {
				t.Errorf("line %d: %s = %#v, want a string", i, k, lm[k])
			}
		}
		for _, k := range []string{"account_identifier", "prepayment_account_identifier"} {
			if a, ok := lm[k].(map[string]any); ok {
				if id, _ := a["id"].(string); uuid.Validate(id) != nil {
					t.Errorf("line %d: %s = %v, want an id", i, k, a)
				}
			}
		}
	}
	checkBillVendor(t, b["vendor"].(map[string]any))
}

// checkBillVendor fails unless v is a vendor in every key but the ones a
// bill leaves out when null (never present as null).
func checkBillVendor(t *testing.T, v map[string]any) {
	t.Helper()
	full := make(map[string]any, len(v)+len(billVendorOptional))
	for k, x := range v {
		full[k] = x
	}
	for _, k := range billVendorOptional {
		if x, ok := v[k]; ok && x == nil {
			t.Errorf("bill vendor has %s null (left out when null)", k)
		}
		if _, ok := v[k]; !ok {
			full[k] = nil
		}
	}
	checkShape(t, full)
}

// billEvents are the bill.upserted payloads of bill id, oldest first.
func (e *env) billEvents(id string) []events.BillUpserted {
	e.T.Helper()
	var rows []json.RawMessage
	if err := e.DB.NewRaw("SELECT data FROM outbox WHERE type = ? AND data->'bill'->>'id' = ? ORDER BY seq",
		events.TypeBillUpserted, id).Scan(context.Background(), &rows); err != nil {
		e.T.Fatal(err)
	}
	out := make([]events.BillUpserted, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return out
}

func (e *env) billCount() int {
	e.T.Helper()
	var n int
	if err := e.DB.NewRaw("SELECT count(*) FROM bills").Scan(context.Background(), &n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

func twoLineBill(vendor string) map[string]any {
	return map[string]any{
		"vendor_id": vendor, "received_at": "2026-03-01T10:00:00Z", "bill_terms": "NET_30", "bill_number": "B-1",
		"memo": "March supplies", "reference_number": "PO-7", "metadata": map[string]any{"k": "v"},
		"tags": []any{map[string]any{"key": "dept", "value": "ops"}},
		"line_items": []any{
			map[string]any{"product_name": "Paper", "unit_price": 1250, "quantity": "4", "discount_amount": 500,
				"account_identifier": map[string]any{"type": "StableName", "stable_name": "OFFICE_EXPENSES"},
				"sales_taxes":        []any{map[string]any{"tax_account": map[string]any{"type": "Tax_Name", "name": "vat"}, "amount": 360}}},
			map[string]any{"description": "Delivery", "unit_price": "999", "quantity": 1.5},
		},
		"additional_sales_taxes": []any{map[string]any{"amount": 40}},
	}
}

func TestCreateBill(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "Paper Co"}, 201)["id"].(string)

	b := data(e.Do(req("POST", base(bid)+"/bills", tok, twoLineBill(vendor)), 201))
	checkBill(t, b)
	// 4 × 12.50 − 5.00 + 3.60 = 48.60; 1.5 × 9.99 = 14.985 → 14.99; + 0.40.
	want := map[string]float64{"subtotal": 6499, "sales_taxes_total": 400, "additional_sales_taxes_total": 40,
		"total_amount": 6399, "outstanding_balance": 6399}
	for k, v := range want {
		if b[k] != v {
			t.Errorf("%s = %v, want %v", k, b[k], v)
		}
	}
	if b["status"] != "RECEIVED" || b["terms"] != "NET_30" || b["due_at"] != "2026-03-31T10:00:00Z" || b["paid_at"] != nil {
		t.Fatalf("bill = %v", b)
	}
	lines := b["line_items"].([]any)
	l0, l1 := lines[0].(map[string]any), lines[1].(map[string]any)
	if l0["total_amount"] != 4860.0 || l1["subtotal"] != 1499.0 || l1["quantity"] != 1.5 ||
		l1["account_identifier"].(map[string]any)["stable_name"] != bill.DefaultExpenseAccount {
		t.Fatalf("lines = %v", lines)
	}
	if b["vendor"].(map[string]any)["id"] != vendor {
		t.Fatalf("vendor = %v", b["vendor"])
	}
	evts := e.billEvents(b["id"].(string))
	if len(evts) != 1 || evts[0].Posting == nil || evts[0].Bill.TotalAmount != 6399 || evts[0].Bill.VendorID.String() != vendor {
		t.Fatalf("events = %+v", evts)
	}
	p := evts[0].Posting
	if err := p.Check(); err != nil || p.EntryType != "BILL" || p.SourceType != events.SourceBill || p.Version != 1 {
		t.Fatalf("posting %+v: %v", p, err)
	}
	last := p.Lines[len(p.Lines)-1]
	if last.Account.StableName != bill.AccountsPayable || last.Direction != "CREDIT" || last.Amount != 6399 {
		t.Fatalf("A/P line = %+v", last)
	}

	t.Run("idempotent on external_id", func(t *testing.T) {
		e := e.with(t)
		body := twoLineBill(vendor)
		body["external_id"] = "bill-ext-1"
		first := data(e.Do(req("POST", base(bid)+"/bills", tok, body), 201))
		n := e.billCount()
		again := data(e.Do(req("POST", base(bid)+"/bills", tok, body), 200))
		if again["id"] != first["id"] || e.billCount() != n {
			t.Fatal("a retried create wrote a second bill")
		}
	})

	t.Run("unknown vendor_external_id creates the vendor", func(t *testing.T) {
		e := e.with(t)
		body := twoLineBill(vendor)
		delete(body, "vendor_id")
		body["vendor_external_id"] = "new-vendor-9"
		delete(body, "bill_terms")
		body["due_at"] = "2026-03-05T10:00:00Z"
		got := data(e.Do(req("POST", base(bid)+"/bills", tok, body), 201))
		v := got["vendor"].(map[string]any)
		if v["external_id"] != "new-vendor-9" || v["id"] == vendor || got["terms"] != nil {
			t.Fatalf("bill = %v", got)
		}
		again := data(e.Do(req("POST", base(bid)+"/bills", tok, body), 201))
		if again["vendor"].(map[string]any)["id"] != v["id"] {
			t.Fatal("the second bill made another vendor")
		}
	})

	t.Run("4xx", func(t *testing.T) {
		e := e.with(t)
		n := e.billCount()
		cases := []struct {
			name   string
			mutate func(m map[string]any)
			field  string
			enum   string
		}{
			{"no received_at", func(m map[string]any) { delete(m, "received_at") }, "received_at", bill.EnumInvalidBill},
			{"no vendor", func(m map[string]any) { delete(m, "vendor_id") }, "vendor_id", bill.EnumInvalidBill},
			{"both vendors", func(m map[string]any) { m["vendor_external_id"] = "x" }, "vendor_external_id", bill.EnumInvalidBill},
			{"unknown vendor", func(m map[string]any) { m["vendor_id"] = uuid.NewString() }, "vendor_id", bill.EnumInvalidBill},
			{"bad terms", func(m map[string]any) { m["bill_terms"] = "NET_7" }, "bill_terms", bill.EnumInvalidBill},
			{"terms and due_at", func(m map[string]any) { m["due_at"] = "2026-04-01T00:00:00Z" }, "bill_terms", bill.EnumInvalidBill},
			{"due before received", func(m map[string]any) { delete(m, "bill_terms"); m["due_at"] = "2026-02-01T00:00:00Z" }, "due_at", bill.EnumInvalidBill},
			{"no lines", func(m map[string]any) { m["line_items"] = []any{} }, "line_items", bill.EnumInvalidBill},
			{"bad quantity", func(m map[string]any) {
				m["line_items"] = []any{map[string]any{"unit_price": 1, "quantity": "abc"}}
			}, "line_items[0].quantity", bill.EnumInvalidBill},
			{"discount above subtotal", func(m map[string]any) {
				m["line_items"] = []any{map[string]any{"unit_price": 100, "discount_amount": 101}}
			}, "line_items[0].discount_amount", bill.EnumInvalidBill},
			{"fractional cents", func(m map[string]any) {
				m["line_items"] = []any{map[string]any{"unit_price": 1.5}}
			}, "line_items[0].unit_price", bill.EnumInvalidBill},
			{"metadata over 1 KB", func(m map[string]any) { m["metadata"] = map[string]any{"x": strings.Repeat("a", 1100)} }, "metadata", bill.EnumMetadataTooLarge},
			{"metadata not an object", func(m map[string]any) { m["metadata"] = []any{1} }, "metadata", bill.EnumInvalidBill},
			{"bad account identifier", func(m map[string]any) {
				m["line_items"] = []any{map[string]any{"unit_price": 1, "account_identifier": map[string]any{"type": "Nope"}}}
			}, "line_items[0].account_identifier.type", bill.EnumInvalidBill},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e := e.with(t)
				body := twoLineBill(vendor)
				c.mutate(body)
				m := e.DoInvalid(req("POST", base(bid)+"/bills", tok, body), 400, c.enum)
				if fieldsOf(m)[c.field] == nil {
					t.Fatalf("fields %v do not name %s", fieldsOf(m), c.field)
				}
			})
		}
		body := twoLineBill(vendor)
		body["surprise"] = 1
		e.DoInvalid(req("POST", base(bid)+"/bills", tok, body), 400, bill.EnumInvalidBill)
		e.DoInvalid(req("POST", base(bid)+"/bills", tok, "[1]"), 400, bill.EnumInvalidBill)
		e.DoInvalid(req("GET", base(bid)+"/bills/"+uuid.NewString(), tok, nil), 404, bill.EnumBillNotFound)
		e.DoInvalid(req("GET", base(bid)+"/bills/not-a-uuid", tok, nil), 400, "")
		if e.billCount() != n {
			t.Fatal("a refused create wrote")
		}
	})
}

func TestBillUpdateVoid(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "V"}, 201)["id"].(string)
	other := e.create(bid, tok, map[string]any{"company_name": "W", "external_id": "w-1"}, 201)["id"].(string)
	b := data(e.Do(req("POST", base(bid)+"/bills", tok, twoLineBill(vendor)), 201))
	id := b["id"].(string)
	path := base(bid) + "/bills/" + id

	got := data(e.Do(req("PATCH", path, tok, map[string]any{
		"line_items": []any{map[string]any{"unit_price": 10000}}, "additional_sales_taxes": []any{},
		"bill_terms": "NET_10", "memo": nil, "vendor_external_id": "w-1",
	}), 200))
	checkBill(t, got)
	if got["total_amount"] != 10000.0 || got["outstanding_balance"] != 10000.0 || got["terms"] != "NET_10" || got["memo"] != nil ||
		got["vendor"].(map[string]any)["id"] != other || got["bill_number"] != "B-1" {
		t.Fatalf("patched = %v", got)
	}
	got = data(e.Do(req("POST", path+"/update", tok, map[string]any{"bill_number": "B-2"}), 200))
	if got["bill_number"] != "B-2" || got["total_amount"] != 10000.0 {
		t.Fatalf("updated = %v", got)
	}
	evts := e.billEvents(id)
	if len(evts) != 3 || evts[2].Posting.Version != 3 || evts[2].Posting.Lines[1].Amount != 10000 {
		t.Fatalf("events = %+v", evts)
	}
	e.DoInvalid(req("PATCH", path, tok, map[string]any{"external_id": "x"}), 400, bill.EnumInvalidBill)
	e.DoInvalid(req("PATCH", path, tok, map[string]any{"vendor_id": nil}), 400, bill.EnumInvalidBill)
	e.DoInvalid(req("PATCH", path, tok, map[string]any{"received_at": "2027-01-01T00:00:00Z", "due_at": "2026-01-01T00:00:00Z"}), 400, bill.EnumInvalidBill)
	e.DoInvalid(req("PATCH", base(bid)+"/bills/"+uuid.NewString(), tok, map[string]any{"memo": "x"}), 404, bill.EnumBillNotFound)

	v := data(e.Do(req("POST", path+"/void", tok, nil), 200))
	checkBill(t, v)
	if v["status"] != "VOIDED" || v["voided_at"] == nil || v["outstanding_balance"] != 0.0 {
		t.Fatalf("voided = %v", v)
	}
	evts = e.billEvents(id)
	if p := evts[len(evts)-1].Posting; p == nil || len(p.Lines) != 0 || p.Version != 4 {
		t.Fatalf("void posting = %+v", p)
	}
	before := e.counts()
	e.Do(req("POST", path+"/void", tok, nil), 200)
	if e.counts() != before {
		t.Fatal("a repeated void wrote")
	}
	e.DoInvalid(req("PATCH", path, tok, map[string]any{"memo": "x"}), 409, bill.EnumBillVoided)
	e.DoInvalid(req("POST", path+"/update", tok, map[string]any{"memo": "x"}), 409, bill.EnumBillVoided)
	e.DoInvalid(req("POST", base(bid)+"/bills/"+uuid.NewString()+"/void", tok, nil), 404, bill.EnumBillNotFound)
}

func TestBillsBulkAndList(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	va := e.create(bid, tok, map[string]any{"company_name": "A", "external_id": "va"}, 201)["id"].(string)
	vb := e.create(bid, tok, map[string]any{"company_name": "B"}, 201)["id"].(string)
	mk := func(vendor, received string, price int, ref string) map[string]any {
		return map[string]any{"vendor_id": vendor, "received_at": received, "reference_number": ref,
			"line_items": []any{map[string]any{"unit_price": price}}}
	}
	// R1..R3 have no due date (due on receipt), R4 one after R2's receipt.
	r4 := mk(vb, "2026-01-05T00:00:00Z", 400, "R4")
	r4["due_at"] = "2026-02-20T00:00:00Z"
	list := e.Do(req("POST", base(bid)+"/bills/bulk", tok, map[string]any{"bills": []any{
		mk(va, "2026-01-10T00:00:00Z", 300, "R1"), mk(va, "2026-02-10T00:00:00Z", 100, "R2"), mk(vb, "2026-03-10T00:00:00Z", 200, "R3"), r4,
	}}), 201)["data"].([]any)
	if len(list) != 4 {
		t.Fatalf("bulk = %v", list)
	}
	// All or none: the third bill is bad, nothing is written.
	n := e.billCount()
	m := e.DoInvalid(req("POST", base(bid)+"/bills/bulk", tok, []any{mk(va, "2026-01-01T00:00:00Z", 1, ""), map[string]any{"vendor_id": va}}), 400, bill.EnumInvalidBill)
	if fieldsOf(m)["bills[1].received_at"] == nil || e.billCount() != n {
		t.Fatalf("bulk error %v, bills %d -> %d", m, n, e.billCount())
	}
	e.DoInvalid(req("POST", base(bid)+"/bills/bulk", tok, map[string]any{"bills": []any{}}), 400, bill.EnumInvalidBill)
	// The void of the first makes a status to filter on.
	first := list[0].(map[string]any)["id"].(string)
	e.Do(req("POST", base(bid)+"/bills/"+first+"/void", tok, nil), 200)

	billIDs := func(query string) []string {
		var out []string
		for _, b := range e.Do(req("GET", base(bid)+"/bills?"+query, tok, nil), 200)["data"].([]any) {
			bm := b.(map[string]any)
			checkBill(t, bm)
			out = append(out, bm["reference_number"].(string))
		}
		return out
	}
	for _, c := range []struct {
		query string
		want  string
	}{
		{"", "R4,R1,R2,R3"},
		{"sort_by=total_amount", "R2,R3,R1,R4"},
		{"sort_by=received_at&sort_order=DESC", "R3,R2,R1,R4"},
		{"sort_by=due_at", "R1,R2,R4,R3"},
		{"due_at_start=2026-02-01&due_at_end=2026-02-28", "R4,R2"},
		{"status=RECEIVED", "R4,R2,R3"},
		{"status=VOIDED,PAID", "R1"},
		{"vendor_id=" + va, "R1,R2"},
		{"vendor_external_id=va", "R1,R2"},
		{"received_at_start=2026-02-01&received_at_end=2026-03-10", "R2,R3"},
		{"reference_number=R3", "R3"},
		{"limit=2", "R4,R1"},
	} {
		if got := strings.Join(billIDs(c.query), ","); got != c.want {
			t.Errorf("%q: %s, want %s", c.query, got, c.want)
		}
	}
	for _, q := range []string{"status=NOPE", "vendor_id=x", "received_at_start=yesterday", "received_at_start=2026-03-01&received_at_end=2026-01-01", "sort_by=name"} {
		e.DoInvalid(req("GET", base(bid)+"/bills?"+q, tok, nil), 400, "")
	}

	// Merging vendor b into a moves its bills.
	e.Do(req("POST", base(bid)+"/vendors/"+va+"/merge", tok, map[string]any{"vendor_to_archive_id": vb}), 200)
	if got := strings.Join(billIDs("vendor_id="+va), ","); got != "R4,R1,R2,R3" {
		t.Fatalf("after the merge vendor a has %s", got)
	}
}

// userAccount records an account of the business's own, named by its own
// stable name (an id of its own, not the default chart's), as the
// acct.accounts.v1 consumer does.
func (e *env) userAccount(bid uuid.UUID, stableName string) uuid.UUID {
	e.T.Helper()
	id := uuid.New()
	p := events.LedgerAccountsUpserted{BusinessID: bid, Accounts: []events.LedgerAccountSnapshot{{ID: id,
		StableName: &stableName, Name: "Tools", AccountType: "EXPENSE", UpdatedAt: time.Now().UTC()}}}
	evt, err := events.New(events.TopicAccounts, events.TypeLedgerAccountsUpserted, "acct/transactions", bid, p)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := chart.Apply(context.Background(), e.DB, postgres.New(e.DB), evt); err != nil {
		e.T.Fatal(err)
	}
	return id
}

// TestBillAnswerFields: the fields the client's Bill type requires are
// never null: a bill without a due date is due on receipt, paid_at is
// left out until paid, line texts are "" when empty, account identifiers
// carry the account's id, and the bill's vendor leaves out its null
// optional keys (the vendor routes still show them null).
func TestBillAnswerFields(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	tools := e.userAccount(bid, "MY_TOOLS")
	custom := uuid.New()
	e.ledgerAccounts(bid, false, []uuid.UUID{custom})
	vendor := e.create(bid, tok, map[string]any{"company_name": "Bare Co"}, 201)["id"].(string)
	full := e.create(bid, tok, map[string]any{"company_name": "Full Co", "individual_name": "Ann", "email": "a@full.test",
		"mobile_phone": "+1 555 0100", "office_phone": "+1 555 0101", "address_string": "1 Main St", "memo": "net 30"}, 201)["id"].(string)

	body := map[string]any{"vendor_id": vendor, "received_at": "2026-05-04T09:30:00Z", "line_items": []any{
		map[string]any{"unit_price": 1000, "account_identifier": map[string]any{"type": "StableName", "stable_name": "OFFICE_EXPENSES"}},
		map[string]any{"unit_price": 2000, "description": "Hammer", "external_id": "line-2",
			"account_identifier":            map[string]any{"type": "StableName", "stable_name": "MY_TOOLS"},
			"prepayment_account_identifier": map[string]any{"type": "StableName", "stable_name": "EQUIPMENT"}},
		map[string]any{"unit_price": 300},
		map[string]any{"unit_price": 400, "account_identifier": map[string]any{"type": "AccountId", "id": custom.String()}},
	}}
	wantIDs := []string{events.DefaultAccountID(bid, "OFFICE_EXPENSES").String(), tools.String(),
		events.DefaultAccountID(bid, bill.DefaultExpenseAccount).String(), custom.String()}
	checkFields := func(t *testing.T, route string, b map[string]any) {
		t.Helper()
		checkBill(t, b)
		if b["due_at"] != "2026-05-04T09:30:00Z" || b["due_at"] != b["received_at"] || b["terms"] != "DUE_ON_RECEIPT" {
			t.Errorf("%s: due_at %v, terms %v, want received_at and DUE_ON_RECEIPT", route, b["due_at"], b["terms"])
		}
		if _, ok := b["paid_at"]; ok {
			t.Errorf("%s: unpaid bill has paid_at %v", route, b["paid_at"])
		}
		// Strings, as the SDK types them, when none was given (the bills
		// below posted with an external id have "again").
		if ext, ok := b["external_id"].(string); !ok || (ext != "" && ext != "again") || b["bill_number"] != "" ||
			b["vendor"].(map[string]any)["external_id"] != "" {
			t.Errorf("%s: external_id %#v, bill_number %#v, vendor external_id %#v, want empty strings", route,
				b["external_id"], b["bill_number"], b["vendor"].(map[string]any)["external_id"])
		}
		lines := b["line_items"].([]any)
		if len(lines) != len(wantIDs) {
			t.Fatalf("%s: lines = %v", route, lines)
		}
		for i, l := range lines {
			lm := l.(map[string]any)
			if ai := lm["account_identifier"].(map[string]any); ai["id"] != wantIDs[i] {
				t.Errorf("%s: line %d account_identifier = %v, want id %s", route, i, ai, wantIDs[i])
			}
		}
		l0, l1, l3 := lines[0].(map[string]any), lines[1].(map[string]any), lines[3].(map[string]any)
		if l0["description"] != "" || l0["external_id"] != "" || l1["description"] != "Hammer" || l1["external_id"] != "line-2" {
			t.Errorf("%s: line texts %q %q / %q %q", route, l0["description"], l0["external_id"], l1["description"], l1["external_id"])
		}
		if ai := l0["account_identifier"].(map[string]any); ai["type"] != "StableName" || ai["stable_name"] != "OFFICE_EXPENSES" {
			t.Errorf("%s: line 0 account_identifier = %v", route, ai)
		}
		if ai := l3["account_identifier"].(map[string]any); ai["type"] != "AccountId" || ai["stable_name"] != nil {
			t.Errorf("%s: line 3 account_identifier = %v", route, ai)
		}
		if pa := l1["prepayment_account_identifier"].(map[string]any); pa["type"] != "StableName" || pa["stable_name"] != "EQUIPMENT" ||
			pa["id"] != events.DefaultAccountID(bid, "EQUIPMENT").String() {
			t.Errorf("%s: prepayment_account_identifier = %v", route, pa)
		}
		if l0["prepayment_account_identifier"] != nil {
			t.Errorf("%s: line 0 prepayment_account_identifier = %v", route, l0["prepayment_account_identifier"])
		}
		v := b["vendor"].(map[string]any)
		for _, k := range billVendorOptional {
			if _, ok := v[k]; ok {
				t.Errorf("%s: bill vendor has %s: %v", route, k, v[k])
			}
		}
		if v["id"] != vendor || v["company_name"] != "Bare Co" || v["memo"] != nil {
			t.Errorf("%s: vendor = %v", route, v)
		}
	}

	created := data(e.Do(req("POST", base(bid)+"/bills", tok, body), 201))
	checkFields(t, "POST /bills", created)
	id := created["id"].(string)
	path := base(bid) + "/bills/" + id
	checkFields(t, "GET /bills/{id}", data(e.Do(req("GET", path, tok, nil), 200)))
	listed := e.Do(req("GET", base(bid)+"/bills", tok, nil), 200)["data"].([]any)
	if len(listed) != 1 {
		t.Fatalf("list = %v", listed)
	}
	checkFields(t, "GET /bills", listed[0].(map[string]any))
	bodyExt := map[string]any{"external_id": "again"}
	for k, v := range body {
		bodyExt[k] = v
	}
	checkFields(t, "POST /bills (new, external_id)", data(e.Do(req("POST", base(bid)+"/bills", tok, bodyExt), 201)))
	checkFields(t, "POST /bills (existing external_id)", data(e.Do(req("POST", base(bid)+"/bills", tok, bodyExt), 200)))
	bulk := e.Do(req("POST", base(bid)+"/bills/bulk", tok, map[string]any{"bills": []any{body}}), 201)["data"].([]any)
	checkFields(t, "POST /bills/bulk", bulk[0].(map[string]any))
	checkFields(t, "PATCH /bills/{id}", data(e.Do(req("PATCH", path, tok, map[string]any{"memo": "m"}), 200)))

	// The event for the A/P aging still carries the due date as given
	// (none), not the one the answer shows.
	evts := e.billEvents(id)
	if len(evts) != 2 || evts[0].Bill.DueAt != nil || evts[1].Bill.DueAt != nil {
		t.Fatalf("bill.upserted due_at = %+v", evts)
	}

	// The vendor routes keep every key, null where empty.
	got := data(e.Do(req("GET", base(bid)+"/vendors/"+vendor, tok, nil), 200))
	checkShape(t, got)
	for _, k := range billVendorOptional {
		if x, ok := got[k]; !ok || x != nil {
			t.Errorf("GET /vendors/{id}: %s = %v (present %v), want null", k, x, ok)
		}
	}
	// A vendor with those keys set shows them in the bill.
	b := data(e.Do(req("POST", base(bid)+"/bills", tok, map[string]any{"vendor_id": full, "received_at": "2026-05-04T09:30:00Z",
		"bill_terms": "NET_15", "line_items": []any{map[string]any{"unit_price": 100}}}), 201))
	checkBill(t, b)
	v := b["vendor"].(map[string]any)
	if v["individual_name"] != "Ann" || v["email"] != "a@full.test" || v["mobile_phone"] != "+1 555 0100" ||
		v["office_phone"] != "+1 555 0101" || v["address_string"] != "1 Main St" || v["notes"] != "net 30" || v["memo"] != "net 30" {
		t.Fatalf("bill vendor = %v", v)
	}
	if b["terms"] != "NET_15" || b["due_at"] != "2026-05-19T09:30:00Z" {
		t.Fatalf("NET_15 bill: terms %v, due_at %v", b["terms"], b["due_at"])
	}

	// paid_at appears once the bill is paid in full.
	e.Do(req("POST", base(bid)+"/bills/bill-payments", tok, map[string]any{"paid_at": "2026-05-10T08:00:00Z", "method": "ACH",
		"amount": 100, "bill_payment_allocations": []any{alloc(b["id"].(string), 100)}}), 201)
	if g := e.getBill(bid, tok, b["id"].(string)); g["status"] != "PAID" || g["paid_at"] != "2026-05-10T08:00:00Z" {
		t.Fatalf("paid bill: status %v, paid_at %v", g["status"], g["paid_at"])
	}

	// Void answers the same fields.
	checkFields(t, "POST /bills/{id}/void", data(e.Do(req("POST", path+"/void", tok, nil), 200)))
}

// TestBillAccountIDBeforeChart: before the business's chart reaches the
// service, a default-chart account named by stable name is answered with
// the default chart's id.
func TestBillAccountIDBeforeChart(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.Svc.SeedBusiness(t, "client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "V"}, 201)["id"].(string)
	b := data(e.Do(req("POST", base(bid)+"/bills", tok, map[string]any{"vendor_id": vendor, "received_at": "2026-05-04T09:30:00Z",
		"line_items": []any{map[string]any{"unit_price": 100, "account_identifier": map[string]any{"type": "StableName", "stable_name": "TRAVEL"}}}}), 201))
	checkBill(t, b)
	ai := b["line_items"].([]any)[0].(map[string]any)["account_identifier"].(map[string]any)
	if ai["id"] != events.DefaultAccountID(bid, "TRAVEL").String() || ai["stable_name"] != "TRAVEL" {
		t.Fatalf("account_identifier = %v", ai)
	}
}
