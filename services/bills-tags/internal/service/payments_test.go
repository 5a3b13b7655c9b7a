package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// paymentKeys are the keys every bill payment body has.
var paymentKeys = []string{"type", "id", "business_id", "external_id", "at", "paid_at", "method", "amount", "processor",
	"payment_clearing_account_identifier", "memo", "reference_number", "metadata", "imported_at", "updated_at",
	"allocations", "bill_payment_allocations", "transaction_tags"}

func checkPayment(t *testing.T, p map[string]any) {
	t.Helper()
	for _, k := range paymentKeys {
		if _, ok := p[k]; !ok {
			t.Errorf("payment lacks %q", k)
		}
	}
	if len(p) != len(paymentKeys) {
		t.Errorf("payment has %d keys, want %d", len(p), len(paymentKeys))
	}
}

// outboxOf decodes the outbox payloads of type typ whose JSON path
// (a Postgres #>> path such as '{payment,id}') equals id, oldest first.
func outboxOf[T any](e *env, typ, path, id string) []T {
	e.T.Helper()
	var rows []json.RawMessage
	if err := e.DB.NewRaw("SELECT data FROM outbox WHERE type = ? AND data #>> ? = ? ORDER BY seq", typ, path, id).
		Scan(context.Background(), &rows); err != nil {
		e.T.Fatal(err)
	}
	out := make([]T, len(rows))
	for i, r := range rows {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			e.T.Fatal(err)
		}
	}
	return out
}

// simpleBill posts a one-line bill of cents for vendor and returns its id.
func (e *env) simpleBill(bid uuid.UUID, tok, vendor string, cents int, extID string) string {
	e.T.Helper()
	body := map[string]any{"vendor_id": vendor, "received_at": "2026-02-01T00:00:00Z",
		"line_items": []any{map[string]any{"unit_price": cents}}}
	if extID != "" {
		body["external_id"] = extID
	}
	return data(e.Do(req("POST", base(bid)+"/bills", tok, body), 201))["id"].(string)
}

func (e *env) getBill(bid uuid.UUID, tok, id string) map[string]any {
	e.T.Helper()
	b := data(e.Do(req("GET", base(bid)+"/bills/"+id, tok, nil), 200))
	checkBill(e.T, b)
	return b
}

func alloc(bill string, amount int) map[string]any {
	return map[string]any{"bill_id": bill, "amount": amount}
}

func TestBillPayments(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "Paper Co"}, 201)["id"].(string)
	b1 := e.simpleBill(bid, tok, vendor, 10000, "")
	b2 := e.simpleBill(bid, tok, vendor, 5000, "bill-ext-2")

	body := map[string]any{
		"paid_at": "2026-02-10T12:00:00Z", "method": "ACH", "amount": "9000", "external_id": "pay-1", "processor": "bank",
		"memo": "Feb run", "reference_number": "R-1", "metadata": map[string]any{"batch": 3},
		"tags": []any{map[string]any{"key": "dept", "value": "ops"}},
		"bill_payment_allocations": []any{
			map[string]any{"bill_id": b1, "amount": 4000, "tags": []any{map[string]any{"key": "project", "value": "x"}}, "memo": "part"},
			map[string]any{"bill_external_id": "bill-ext-2", "amount": 5000},
		},
	}
	p := data(e.Do(req("POST", base(bid)+"/bills/bill-payments", tok, body), 201))
	checkPayment(t, p)
	pid := p["id"].(string)
	if p["amount"] != 9000.0 || p["method"] != "ACH" || p["at"] != "2026-02-10T12:00:00Z" ||
		p["payment_clearing_account_identifier"].(map[string]any)["stable_name"] != "BANK_ACCOUNTS" {
		t.Fatalf("payment = %v", p)
	}
	als := p["allocations"].([]any)
	if len(als) != 2 || als[0].(map[string]any)["bill_id"] != b1 || als[1].(map[string]any)["bill_id"] != b2 ||
		als[0].(map[string]any)["payment_id"] != pid || len(als[0].(map[string]any)["transaction_tags"].([]any)) != 1 {
		t.Fatalf("allocations = %v", als)
	}

	g1, g2 := e.getBill(bid, tok, b1), e.getBill(bid, tok, b2)
	if g1["status"] != "PARTIALLY_PAID" || g1["outstanding_balance"] != 6000.0 || g1["paid_at"] != nil {
		t.Fatalf("bill 1 = %v", g1)
	}
	if g2["status"] != "PAID" || g2["outstanding_balance"] != 0.0 || g2["paid_at"] != "2026-02-10T12:00:00Z" {
		t.Fatalf("bill 2 = %v", g2)
	}
	pa := g1["payment_allocations"].([]any)
	if len(pa) != 1 || pa[0].(map[string]any)["payment_id"] != pid || pa[0].(map[string]any)["amount"] != 4000.0 {
		t.Fatalf("payment_allocations = %v", pa)
	}

	// Events: the payment with its posting, each bill without one.
	pe := outboxOf[events.BillPaymentUpserted](e, events.TypeBillPaymentUpserted, "{payment,id}", pid)
	if len(pe) != 1 || pe[0].Payment.Version != 1 || len(pe[0].Payment.Allocations) != 2 || pe[0].Payment.Amount != 9000 {
		t.Fatalf("payment events = %+v", pe)
	}
	post := pe[0].Posting
	if err := post.Check(); err != nil || post.EntryType != "BILL_PAYMENT" || post.SourceType != events.SourceBillPayment ||
		post.Version != 1 || len(post.Lines) != 3 {
		t.Fatalf("posting %+v: %v", post, err)
	}
	if l := post.Lines[0]; l.Account.StableName != bill.AccountsPayable || l.Direction != "DEBIT" || l.Amount != 4000 || len(l.Tags) != 2 {
		t.Fatalf("A/P line = %+v", l)
	}
	if l := post.Lines[2]; l.Account.StableName != "BANK_ACCOUNTS" || l.Direction != "CREDIT" || l.Amount != 9000 {
		t.Fatalf("clearing line = %+v", l)
	}
	for _, id := range []string{b1, b2} {
		be := e.billEvents(id)
		if last := be[len(be)-1]; len(be) != 2 || last.Posting != nil || last.Bill.Version != 2 {
			t.Fatalf("bill events of %s = %+v", id, be)
		}
	}

	t.Run("idempotent on external_id", func(t *testing.T) {
		e := e.with(t)
		again := data(e.Do(req("POST", base(bid)+"/bills/bill-payments", tok, body), 200))
		if again["id"] != pid {
			t.Fatalf("retry created %v", again["id"])
		}
		if got := e.getBill(bid, tok, b1); got["outstanding_balance"] != 6000.0 {
			t.Fatalf("retry paid again: %v", got["outstanding_balance"])
		}
	})

	t.Run("get", func(t *testing.T) {
		e := e.with(t)
		got := data(e.Do(req("GET", base(bid)+"/bills/bill-payments/"+pid, tok, nil), 200))
		checkPayment(t, got)
		if got["memo"] != "Feb run" || got["metadata"].(map[string]any)["batch"] != 3.0 {
			t.Fatalf("payment = %v", got)
		}
	})

	t.Run("update re-allocates", func(t *testing.T) {
		e := e.with(t)
		up := data(e.Do(req("POST", base(bid)+"/bills/bill-payments/"+pid+"/update", tok, map[string]any{
			"amount": 12000, "bill_payment_allocations": []any{alloc(b1, 10000), alloc(b2, 2000)},
			"payment_clearing_account_identifier": map[string]any{"type": "StableName", "stable_name": "CASH"},
		}), 200))
		if up["amount"] != 12000.0 || up["payment_clearing_account_identifier"].(map[string]any)["stable_name"] != "CASH" {
			t.Fatalf("updated = %v", up)
		}
		// The allocation to b1 keeps its id.
		if up["allocations"].([]any)[0].(map[string]any)["id"] != als[0].(map[string]any)["id"] {
			t.Fatal("the allocation to the same bill changed id")
		}
		g1, g2 := e.getBill(bid, tok, b1), e.getBill(bid, tok, b2)
		if g1["status"] != "PAID" || g1["outstanding_balance"] != 0.0 || g2["status"] != "PARTIALLY_PAID" ||
			g2["outstanding_balance"] != 3000.0 || g2["paid_at"] != nil {
			t.Fatalf("bills = %v / %v", g1, g2)
		}
		pe := outboxOf[events.BillPaymentUpserted](e, events.TypeBillPaymentUpserted, "{payment,id}", pid)
		last := pe[len(pe)-1]
		if last.Payment.Version != 2 || last.Posting.Version != 2 || last.Posting.Lines[2].Account.StableName != "CASH" {
			t.Fatalf("update event = %+v", last)
		}
		// Over the balance with this payment's share taken back: b2 owes
		// 5000 before this payment.
		e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments/"+pid+"/update", tok, map[string]any{
			"amount": 5001, "bill_payment_allocations": []any{alloc(b2, 5001)}}), 400, bill.EnumOverpaid)
		e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments/"+pid+"/update", tok, map[string]any{"amount": 11999}), 400, bill.EnumAllocationMismatch)
		e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments/"+pid+"/update", tok, map[string]any{"external_id": "x"}), 400, bill.EnumInvalidPayment)
		e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments/"+uuid.NewString()+"/update", tok, map[string]any{"memo": "x"}), 404, bill.EnumPaymentNotFound)
	})

	t.Run("a paid bill is locked", func(t *testing.T) {
		e := e.with(t)
		e.DoInvalid(req("PATCH", base(bid)+"/bills/"+b1, tok, map[string]any{"memo": "x"}), 409, bill.EnumNotEditable)
		e.DoInvalid(req("POST", base(bid)+"/bills/"+b1+"/void", tok, nil), 409, bill.EnumHasPayments)
	})

	t.Run("tags", func(t *testing.T) {
		e := e.with(t)
		m := e.Do(req("POST", base(bid)+"/bills/bill-payments/tags", tok, map[string]any{
			"key_values":      []any{map[string]any{"key": "Region", "value": "EU"}, map[string]any{"key": "dept", "value": "ops"}},
			"transaction_ids": []any{pid}}), 200)
		if _, wrapped := m["data"]; wrapped {
			t.Fatal("the tags answer has a data wrapper")
		}
		added := m["tags"].([]any)
		if len(added) != 1 || added[0].(map[string]any)["key"] != "Region" {
			t.Fatalf("added = %v (dept/ops was there already)", added)
		}
		tagID := added[0].(map[string]any)["id"].(string)
		want := tags.TagID(tags.DefinitionID(bid, "Region", "EU"), uuid.MustParse(pid)).String()
		if tagID != want {
			t.Fatalf("tag id %s, want the deterministic %s", tagID, want)
		}
		got := data(e.Do(req("GET", base(bid)+"/bills/bill-payments/"+pid, tok, nil), 200))
		if len(got["transaction_tags"].([]any)) != 2 {
			t.Fatalf("tags = %v", got["transaction_tags"])
		}
		pe := outboxOf[events.BillPaymentUpserted](e, events.TypeBillPaymentUpserted, "{payment,id}", pid)
		if last := pe[len(pe)-1]; last.Payment.Version != 3 || len(last.Payment.Tags) != 2 || len(last.Posting.Lines[2].Tags) != 2 {
			t.Fatalf("tag event = %+v", last)
		}
		removed := e.Do(req("DELETE", base(bid)+"/bills/bill-payments/tags", tok, map[string]any{"tag_ids": []any{tagID, uuid.NewString()}}), 200)["tags"].([]any)
		if len(removed) != 1 || removed[0].(map[string]any)["id"] != tagID {
			t.Fatalf("removed = %v", removed)
		}
		if again := e.Do(req("DELETE", base(bid)+"/bills/bill-payments/tags", tok, map[string]any{"tag_ids": []any{tagID}}), 200)["tags"].([]any); len(again) != 0 {
			t.Fatalf("removed twice: %v", again)
		}
		e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments/tags", tok, map[string]any{
			"key_values": []any{map[string]any{"key": "a", "value": "b"}}, "transaction_ids": []any{pid, uuid.NewString()}}), 404, bill.EnumPaymentNotFound)
		e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments/tags", tok, map[string]any{
			"key_values": []any{}, "transaction_ids": []any{pid}}), 400, tags.EnumInvalidTags)
		e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments/tags", tok, map[string]any{
			"key_values": []any{map[string]any{"key": "a", "value": "b"}}, "transaction_ids": []any{}}), 400, bill.EnumInvalidPayment)
		e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments/tags", tok, map[string]any{"nope": 1}), 400, bill.EnumInvalidPayment)
		e.DoInvalid(req("DELETE", base(bid)+"/bills/bill-payments/tags", tok, map[string]any{"tag_ids": []any{}}), 400, bill.EnumInvalidPayment)
	})

	t.Run("delete restores the bills", func(t *testing.T) {
		e := e.with(t)
		before := outboxOf[events.BillPaymentUpserted](e, events.TypeBillPaymentUpserted, "{payment,id}", pid)
		lastVersion := before[len(before)-1].Payment.Version
		if resp, body := e.V.Do(t, e.HTTP, req("DELETE", base(bid)+"/bills/bill-payments/"+pid, tok, nil)); resp.StatusCode != 204 || len(body) != 0 {
			t.Fatalf("delete: %d %s", resp.StatusCode, body)
		}
		g1, g2 := e.getBill(bid, tok, b1), e.getBill(bid, tok, b2)
		for _, g := range []map[string]any{g1, g2} {
			if g["status"] != "RECEIVED" || g["outstanding_balance"] != g["total_amount"] || g["paid_at"] != nil ||
				len(g["payment_allocations"].([]any)) != 0 {
				t.Fatalf("bill after delete = %v", g)
			}
		}
		del := outboxOf[events.BillPaymentDeleted](e, events.TypeBillPaymentDeleted, "{payment_id}", pid)
		if len(del) != 1 || del[0].Posting == nil || len(del[0].Posting.Lines) != 0 || del[0].Posting.Version != lastVersion+1 ||
			del[0].Posting.SourceType != events.SourceBillPayment || del[0].Posting.Check() != nil {
			t.Fatalf("deleted event = %+v", del)
		}
		e.DoInvalid(req("GET", base(bid)+"/bills/bill-payments/"+pid, tok, nil), 404, bill.EnumPaymentNotFound)
		e.DoInvalid(req("DELETE", base(bid)+"/bills/bill-payments/"+pid, tok, nil), 404, bill.EnumPaymentNotFound)
		// The bill is editable again.
		e.Do(req("PATCH", base(bid)+"/bills/"+b1, tok, map[string]any{"memo": "editable"}), 200)
	})
}

// TestBillPaymentRules: each 400 names its field, and nothing is written.
func TestBillPaymentRules(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "Paper Co"}, 201)["id"].(string)
	b1 := e.simpleBill(bid, tok, vendor, 1000, "")
	b2 := e.simpleBill(bid, tok, vendor, 1000, "")
	voided := e.simpleBill(bid, tok, vendor, 1000, "")
	e.Do(req("POST", base(bid)+"/bills/"+voided+"/void", tok, nil), 200)
	ok := func() map[string]any {
		return map[string]any{"paid_at": "2026-02-10T00:00:00Z", "method": "CASH", "amount": 500,
			"bill_payment_allocations": []any{alloc(b1, 500)}}
	}
	with := func(k string, v any) map[string]any {
		m := ok()
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name  string
		body  any
		enum  string
		field string
	}{
		{"no paid_at", with("paid_at", nil), bill.EnumInvalidPayment, "paid_at"},
		{"no method", with("method", nil), bill.EnumInvalidPayment, "method"},
		{"bad method", with("method", "BARTER"), bill.EnumInvalidPayment, "method"},
		{"no amount", with("amount", nil), bill.EnumInvalidPayment, "amount"},
		{"zero amount", with("amount", 0), bill.EnumInvalidPayment, "amount"},
		{"no allocations", with("bill_payment_allocations", []any{}), bill.EnumInvalidPayment, "bill_payment_allocations"},
		{"allocation without bill", with("bill_payment_allocations", []any{map[string]any{"amount": 500}}), bill.EnumInvalidPayment, "bill_payment_allocations[0].bill_id"},
		{"unknown bill", with("bill_payment_allocations", []any{alloc(uuid.NewString(), 500)}), bill.EnumInvalidPayment, "bill_payment_allocations[0].bill_id"},
		{"unknown bill external id", with("bill_payment_allocations", []any{map[string]any{"bill_external_id": "nope", "amount": 500}}), bill.EnumInvalidPayment, "bill_payment_allocations[0].bill_external_id"},
		{"sum mismatch", with("bill_payment_allocations", []any{alloc(b1, 400)}), bill.EnumAllocationMismatch, "bill_payment_allocations"},
		{"same bill twice", with("bill_payment_allocations", []any{alloc(b1, 250), alloc(b1, 250)}), bill.EnumInvalidPayment, "bill_payment_allocations[1].bill_id"},
		{"zero allocation", with("bill_payment_allocations", []any{alloc(b1, 500), alloc(b2, 0)}), bill.EnumInvalidPayment, "bill_payment_allocations[1].amount"},
		{"overpaid", map[string]any{"paid_at": "2026-02-10T00:00:00Z", "method": "CASH", "amount": 1001,
			"bill_payment_allocations": []any{alloc(b2, 1001)}}, bill.EnumOverpaid, "bill_payment_allocations[0].amount"},
		{"voided bill", with("bill_payment_allocations", []any{alloc(voided, 500)}), bill.EnumBillVoided, "bill_payment_allocations[0].bill_id"},
		{"bad clearing account", with("payment_clearing_account_identifier", map[string]any{"type": "Tax_Name"}), bill.EnumInvalidPayment, "payment_clearing_account_identifier.type"},
		{"metadata too large", with("metadata", map[string]any{"k": strings.Repeat("x", 1100)}), bill.EnumMetadataTooLarge, "metadata"},
		{"unknown property", with("fee", 1), bill.EnumInvalidPayment, "body"},
		{"bad tags", with("tags", []any{map[string]any{"key": "", "value": "x"}}), tags.EnumInvalidTags, ""},
		{"not an object", "[1]", bill.EnumInvalidPayment, "body"},
	}
	before := e.counts()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.with(t)
			m := e.DoInvalid(req("POST", base(bid)+"/bills/bill-payments", tok, c.body), 400, c.enum)
			if c.field != "" {
				if _, named := fieldsOf(m)[c.field]; !named {
					t.Fatalf("fields = %v, want %s", fieldsOf(m), c.field)
				}
			}
		})
	}
	if e.counts() != before {
		t.Fatal("a refused payment wrote")
	}
	for _, id := range []string{b1, b2} {
		if g := e.getBill(bid, tok, id); g["outstanding_balance"] != 1000.0 || g["status"] != "RECEIVED" {
			t.Fatalf("bill changed: %v", g)
		}
	}
	e.DoInvalid(req("GET", base(bid)+"/bills/bill-payments/not-a-uuid", tok, nil), 400, "")
	e.DoInvalid(req("GET", base(bid)+"/bills/bill-payments/"+uuid.NewString(), tok, nil), 404, bill.EnumPaymentNotFound)
	// The SDK's method labels are accepted.
	p := data(e.Do(req("POST", base(bid)+"/bills/bill-payments", tok, with("method", "Other")), 201))
	if p["method"] != "OTHER" {
		t.Fatalf("method = %v", p["method"])
	}
}
