package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// billKeys are the keys every bill body has.
var billKeys = []string{"type", "id", "business_id", "external_id", "bill_number", "status", "terms", "received_at", "due_at",
	"paid_at", "voided_at", "memo", "reference_number", "metadata", "line_items", "additional_sales_taxes",
	"additional_sales_taxes_total", "subtotal", "sales_taxes_total", "total_amount", "outstanding_balance",
	"payment_allocations", "imported_at", "updated_at", "vendor", "transaction_tags"}

func checkBill(t *testing.T, b map[string]any) {
	t.Helper()
	for _, k := range billKeys {
		if _, ok := b[k]; !ok {
			t.Errorf("bill lacks %q", k)
		}
	}
	if len(b) != len(billKeys) || b["type"] != "Bill" {
		t.Errorf("bill has %d keys (want %d), type %v", len(b), len(billKeys), b["type"])
	}
	checkShape(t, b["vendor"].(map[string]any))
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
	list := e.Do(req("POST", base(bid)+"/bills/bulk", tok, map[string]any{"bills": []any{
		mk(va, "2026-01-10T00:00:00Z", 300, "R1"), mk(va, "2026-02-10T00:00:00Z", 100, "R2"), mk(vb, "2026-03-10T00:00:00Z", 200, "R3"),
	}}), 201)["data"].([]any)
	if len(list) != 3 {
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
		{"", "R1,R2,R3"},
		{"sort_by=total_amount", "R2,R3,R1"},
		{"sort_by=received_at&sort_order=DESC", "R3,R2,R1"},
		{"status=RECEIVED", "R2,R3"},
		{"status=VOIDED,PAID", "R1"},
		{"vendor_id=" + va, "R1,R2"},
		{"vendor_external_id=va", "R1,R2"},
		{"received_at_start=2026-02-01&received_at_end=2026-03-10", "R2,R3"},
		{"reference_number=R3", "R3"},
		{"limit=2", "R1,R2"},
	} {
		if got := strings.Join(billIDs(c.query), ","); got != c.want {
			t.Errorf("%q: %s, want %s", c.query, got, c.want)
		}
	}
	for _, q := range []string{"status=NOPE", "vendor_id=x", "received_at_start=yesterday", "received_at_start=2026-03-01&received_at_end=2026-01-01", "sort_by=name"} {
		e.DoInvalid(req("GET", base(bid)+"/bills?"+q, tok, nil), 400, "")
	}

	// Merging vendor b into a moves its bill.
	e.Do(req("POST", base(bid)+"/vendors/"+va+"/merge", tok, map[string]any{"vendor_to_archive_id": vb}), 200)
	if got := strings.Join(billIDs("vendor_id="+va), ","); got != "R1,R2,R3" {
		t.Fatalf("after the merge vendor a has %s", got)
	}
}
