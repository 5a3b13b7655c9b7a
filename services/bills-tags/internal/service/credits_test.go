package service

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	billstags "github.com/acctsuite/acct/services/bills-tags"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"
)

// creditKeys are the keys every vendor credit body has: the spec's
// Vendor_Credit fields plus business_id, total_amount, unapplied_amount.
var creditKeys = []string{"type", "id", "business_id", "external_id", "vendor", "received_at", "line_items", "allocations",
	"total_amount", "unapplied_amount", "memo", "metadata", "reference_number", "transaction_tags", "created_at", "updated_at",
	"deleted_at"}

func checkCredit(t *testing.T, c map[string]any) {
	t.Helper()
	for _, k := range creditKeys {
		if _, ok := c[k]; !ok {
			t.Errorf("credit lacks %q", k)
		}
	}
	if len(c) != len(creditKeys) || c["type"] != "Vendor_Credit" {
		t.Errorf("credit has %d keys (want %d), type %v", len(c), len(creditKeys), c["type"])
	}
	v := c["vendor"].(map[string]any)
	for _, k := range []string{"type", "id", "external_id", "individual_name", "company_name", "email", "mobile_phone",
		"office_phone", "address_string", "memo", "transaction_tags"} {
		if _, ok := v[k]; !ok {
			t.Errorf("credit's vendor lacks %q", k)
		}
	}
	for _, l := range c["line_items"].([]any) {
		for _, k := range []string{"id", "amount", "ledger_account", "memo", "metadata", "reference_number", "transaction_tags"} {
			if _, ok := l.(map[string]any)[k]; !ok {
				t.Errorf("credit line lacks %q", k)
			}
		}
	}
	for _, a := range c["allocations"].([]any) {
		for _, k := range []string{"id", "vendor_credit_id", "amount", "bill_id"} {
			if _, ok := a.(map[string]any)[k]; !ok {
				t.Errorf("credit allocation lacks %q", k)
			}
		}
	}
}

func creditLine(cents int) map[string]any { return map[string]any{"amount": cents} }

func (e *env) creditEvents(id string) []events.VendorCreditUpserted {
	e.T.Helper()
	return outboxOf[events.VendorCreditUpserted](e, events.TypeVendorCreditUpserted, "{vendor_credit,id}", id)
}

// TestVendorCreditPathsDocumented: the credit routes are in the document.
func TestVendorCreditPathsDocumented(t *testing.T) {
	doc, err := openapi.Load(billstags.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/v1/businesses/{businessId}/bills/vendor-credits", "/v1/businesses/{businessId}/bills/vendor-credits/{vendorCreditId}"} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("path %s undocumented", p)
		}
	}
}

func TestVendorCredits(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "Paper Co", "external_id": "v-paper"}, 201)["id"].(string)
	b1 := e.simpleBill(bid, tok, vendor, 10000, "")
	b2 := e.simpleBill(bid, tok, vendor, 5000, "bill-ext-2")
	acct := uuid.NewString()
	e.ledgerAccounts(bid, false, []uuid.UUID{uuid.MustParse(acct)})

	body := map[string]any{
		"received_at": "2026-02-15T09:00:00Z", "vendor_external_id": "v-paper", "external_id": "vc-1",
		"memo": "Returned paper", "reference_number": "CM-1", "metadata": map[string]any{"rma": 7},
		"tags": []any{map[string]any{"key": "dept", "value": "ops"}},
		"line_items": []any{
			map[string]any{"amount": "6000", "expense_account_identifier": map[string]any{"type": "StableName", "stable_name": "OFFICE_EXPENSES"},
				"memo": "paper", "reference_number": "L1", "metadata": map[string]any{"sku": "A4"}, "tags": []any{map[string]any{"key": "project", "value": "x"}}},
			map[string]any{"amount": 1000, "expense_account_identifier": map[string]any{"type": "AccountId", "id": acct}},
		},
		"allocations": []any{alloc(b1, 4000), alloc(b2, 2000)},
	}
	c := data(e.Do(req("POST", base(bid)+"/bills/vendor-credits", tok, body), 201))
	checkCredit(t, c)
	cid := c["id"].(string)
	if c["total_amount"] != 7000.0 || c["unapplied_amount"] != 1000.0 || c["received_at"] != "2026-02-15T09:00:00Z" ||
		c["vendor"].(map[string]any)["id"] != vendor || c["deleted_at"] != nil || c["memo"] != "Returned paper" {
		t.Fatalf("credit = %v", c)
	}
	lines := c["line_items"].([]any)
	l0, l1 := lines[0].(map[string]any), lines[1].(map[string]any)
	if la := l0["ledger_account"].(map[string]any); la["stable_name"].(map[string]any)["stable_name"] != "OFFICE_EXPENSES" ||
		la["id"].(map[string]any)["id"] != events.DefaultAccountID(bid, "OFFICE_EXPENSES").String() || len(l0["transaction_tags"].([]any)) != 1 {
		t.Fatalf("line 0 = %v", l0)
	}
	if la := l1["ledger_account"].(map[string]any); la["id"].(map[string]any)["id"] != acct || la["stable_name"] != nil {
		t.Fatalf("line 1 = %v", l1)
	}
	als := c["allocations"].([]any)
	if len(als) != 2 || als[0].(map[string]any)["vendor_credit_id"] != cid || als[0].(map[string]any)["bill_id"] != b1 ||
		als[1].(map[string]any)["bill_external_id"] != "bill-ext-2" {
		t.Fatalf("allocations = %v", als)
	}
	g1, g2 := e.getBill(bid, tok, b1), e.getBill(bid, tok, b2)
	if g1["status"] != "PARTIALLY_PAID" || g1["outstanding_balance"] != 6000.0 || g2["status"] != "PARTIALLY_PAID" || g2["outstanding_balance"] != 3000.0 {
		t.Fatalf("bills = %v / %v", g1, g2)
	}

	// Events: the credit with its posting, each bill without one.
	ce := e.creditEvents(cid)
	if len(ce) != 1 || ce[0].VendorCredit.Version != 1 || ce[0].VendorCredit.TotalAmount != 7000 || ce[0].VendorCredit.Unapplied != 1000 ||
		len(ce[0].VendorCredit.Allocations) != 2 || ce[0].VendorCredit.VendorID.String() != vendor || !ce[0].VendorCredit.ReceivedAt.Equal(ce[0].Posting.EntryAt) {
		t.Fatalf("credit events = %+v", ce)
	}
	post := ce[0].Posting
	if err := post.Check(); err != nil || post.EntryType != "VENDOR_CREDIT" || post.SourceType != events.SourceVendorCredit ||
		post.SourceID != cid || post.Version != 1 || len(post.Lines) != 3 {
		t.Fatalf("posting %+v: %v", post, err)
	}
	if l := post.Lines[0]; l.Account.StableName != bill.AccountsPayable || l.Direction != "DEBIT" || l.Amount != 7000 {
		t.Fatalf("A/P line = %+v", l)
	}
	if l := post.Lines[1]; l.Account.StableName != "OFFICE_EXPENSES" || l.Direction != "CREDIT" || l.Amount != 6000 || len(l.Tags) != 2 {
		t.Fatalf("expense line = %+v", l)
	}
	if l := post.Lines[2]; l.Account.ID == nil || l.Account.ID.String() != acct || l.Amount != 1000 {
		t.Fatalf("expense line 2 = %+v", l)
	}
	for _, id := range []string{b1, b2} {
		be := e.billEvents(id)
		if last := be[len(be)-1]; len(be) != 2 || last.Posting != nil || last.Bill.Version != 2 {
			t.Fatalf("bill events of %s = %+v", id, be)
		}
	}

	t.Run("idempotent on external_id", func(t *testing.T) {
		e := e.with(t)
		again := data(e.Do(req("POST", base(bid)+"/bills/vendor-credits", tok, body), 200))
		if again["id"] != cid {
			t.Fatalf("retry created %v", again["id"])
		}
		if got := e.getBill(bid, tok, b1); got["outstanding_balance"] != 6000.0 {
			t.Fatalf("retry credited again: %v", got["outstanding_balance"])
		}
	})

	t.Run("get and list", func(t *testing.T) {
		e := e.with(t)
		got := data(e.Do(req("GET", base(bid)+"/bills/vendor-credits/"+cid, tok, nil), 200))
		checkCredit(t, got)
		if got["metadata"].(map[string]any)["rma"] != 7.0 || len(got["transaction_tags"].([]any)) != 1 {
			t.Fatalf("credit = %v", got)
		}
		// A second credit, without allocations.
		other := data(e.Do(req("POST", base(bid)+"/bills/vendor-credits", tok, map[string]any{
			"received_at": "2026-03-20T00:00:00Z", "vendor_id": vendor, "memo": "Rent rebate", "reference_number": "CM-2",
			"line_items": []any{creditLine(300)}}), 201))
		if other["unapplied_amount"] != 300.0 || len(other["allocations"].([]any)) != 0 {
			t.Fatalf("unallocated credit = %v", other)
		}
		for q, want := range map[string][]string{
			"":                              {cid, other["id"].(string)},
			"vendor_id=" + vendor:           {cid, other["id"].(string)},
			"vendor_external_id=v-paper":    {cid, other["id"].(string)},
			"vendor_external_id=nope":       nil,
			"received_at_start=2026-03-01":  {other["id"].(string)},
			"received_at_end=2026-02-15":    {cid},
			"reference_number=CM-2":         {other["id"].(string)},
			"reference_numbers=CM-9,CM-1":   {cid},
			"reference_numbers=CM-1,CM-2":   {cid, other["id"].(string)},
			"memo=Rent%20rebate":            {other["id"].(string)},
			"memo=rent":                     nil,
			"memo_contains=PAPER":           {cid},
			"sort_by=total_amount":          {other["id"].(string), cid},
			"sort_order=DESC":               {other["id"].(string), cid},
			"memo_contains=%25":             nil,
			"limit=1&show_total_count=true": {cid},
		} {
			path := base(bid) + "/bills/vendor-credits"
			if q != "" {
				path += "?" + q
			}
			m := e.Do(req("GET", path, tok, nil), 200)
			var ids []string
			for _, c := range m["data"].([]any) {
				checkCredit(t, c.(map[string]any))
				ids = append(ids, c.(map[string]any)["id"].(string))
			}
			if strings.Join(ids, ",") != strings.Join(want, ",") {
				t.Errorf("%q: %v, want %v", q, ids, want)
			}
		}
		// The next page.
		first := e.Do(req("GET", base(bid)+"/bills/vendor-credits?limit=1", tok, nil), 200)
		pg := first["meta"].(map[string]any)["pagination"].(map[string]any)
		if pg["has_more"] != true {
			t.Fatalf("pagination = %v", pg)
		}
		next := e.Do(req("GET", base(bid)+"/bills/vendor-credits?limit=1&cursor="+pg["cursor"].(string), tok, nil), 200)
		if ids(next)[0] != other["id"] {
			t.Fatalf("page 2 = %v", ids(next))
		}
		e.DoInvalid(req("GET", base(bid)+"/bills/vendor-credits?vendor_id=x", tok, nil), 400, bill.EnumInvalidFilter)
		e.DoInvalid(req("GET", base(bid)+"/bills/vendor-credits?received_at_start=yesterday", tok, nil), 400, bill.EnumInvalidFilter)
	})

	t.Run("a credited bill is locked", func(t *testing.T) {
		e := e.with(t)
		e.DoInvalid(req("PATCH", base(bid)+"/bills/"+b1, tok, map[string]any{"memo": "x"}), 409, bill.EnumNotEditable)
		e.DoInvalid(req("POST", base(bid)+"/bills/"+b1+"/void", tok, nil), 409, bill.EnumHasPayments)
	})

	t.Run("update re-allocates", func(t *testing.T) {
		e := e.with(t)
		up := data(e.Do(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, map[string]any{
			"allocations": []any{alloc(b2, 5000)}, "memo": nil, "reference_number": "CM-1b",
			"tags": []any{map[string]any{"key": "dept", "value": "ops"}, map[string]any{"key": "region", "value": "eu"}},
		}), 200))
		checkCredit(t, up)
		if up["memo"] != nil || up["reference_number"] != "CM-1b" || up["unapplied_amount"] != 2000.0 || len(up["transaction_tags"].([]any)) != 2 {
			t.Fatalf("updated = %v", up)
		}
		if up["allocations"].([]any)[0].(map[string]any)["id"] != als[1].(map[string]any)["id"] {
			t.Fatal("the allocation to the same bill changed id")
		}
		g1, g2 := e.getBill(bid, tok, b1), e.getBill(bid, tok, b2)
		if g1["status"] != "RECEIVED" || g1["outstanding_balance"] != 10000.0 || g2["status"] != "PAID" ||
			g2["outstanding_balance"] != 0.0 || g2["paid_at"] != "2026-02-15T09:00:00Z" {
			t.Fatalf("bills = %v / %v", g1, g2)
		}
		ce := e.creditEvents(cid)
		last := ce[len(ce)-1]
		if len(ce) != 2 || last.VendorCredit.Version != 2 || last.Posting.Version != 2 || last.VendorCredit.Unapplied != 2000 ||
			len(last.Posting.Lines[0].Tags) != 2 {
			t.Fatalf("update event = %+v", last)
		}
		// Over a bill with this credit's share taken back: b2 owes 5000
		// before it.
		m := e.DoInvalid(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, map[string]any{
			"allocations": []any{alloc(b2, 5001)}}), 400, bill.EnumOverpaid)
		if _, ok := fieldsOf(m)["allocations[0].amount"]; !ok {
			t.Fatalf("fields = %v", fieldsOf(m))
		}
		// Lines whose total falls under the allocations.
		m = e.DoInvalid(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, map[string]any{
			"line_items": []any{creditLine(4999)}}), 400, bill.EnumAllocationMismatch)
		if _, ok := fieldsOf(m)["allocations"]; !ok {
			t.Fatalf("fields = %v", fieldsOf(m))
		}
		e.DoInvalid(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, map[string]any{"external_id": "x"}), 400, bill.EnumInvalidCredit)
		e.DoInvalid(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, map[string]any{"vendor_id": vendor}), 400, bill.EnumInvalidCredit)
		e.DoInvalid(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, map[string]any{"metadata": map[string]any{"k": strings.Repeat("x", 1100)}}), 400, bill.EnumMetadataTooLarge)
		e.DoInvalid(req("PATCH", base(bid)+"/bills/vendor-credits/"+uuid.NewString(), tok, map[string]any{"memo": "x"}), 404, bill.EnumCreditNotFound)
		// Found by the contract fuzzer: a NUL reaching jsonb was a 500
		// (SQLSTATE 22P05); every text input is a 400 naming its field.
		for field, body := range map[string]string{
			"metadata":                       `{"metadata": {"k": "a\u0000b"}}`,
			"line_items[0].metadata":         `{"line_items": [{"amount": 5000, "metadata": {"\u0000": 1}}]}`,
			"memo":                           `{"memo": "a\u0000b"}`,
			"line_items[0].memo":             `{"line_items": [{"amount": 5000, "memo": "\u0000"}]}`,
			"reference_number":               `{"reference_number": "r\u0000"}`,
			"line_items[0].reference_number": `{"line_items": [{"amount": 5000, "reference_number": "\u0000"}]}`,
		} {
			m := e.DoInvalid(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, body), 400, "")
			if _, ok := fieldsOf(m)[field]; !ok {
				t.Fatalf("%s: %v does not name %s", body, m, field)
			}
		}
		if ce := e.creditEvents(cid); len(ce) != 2 {
			t.Fatalf("a refused update published: %d events", len(ce))
		}
		// New lines and no allocations: every bill owes its total again.
		up = data(e.Do(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, map[string]any{
			"allocations": []any{}, "line_items": []any{creditLine(2500)}, "received_at": "2026-02-16T00:00:00Z"}), 200))
		if up["total_amount"] != 2500.0 || up["unapplied_amount"] != 2500.0 || len(up["allocations"].([]any)) != 0 {
			t.Fatalf("updated = %v", up)
		}
		if g := e.getBill(bid, tok, b2); g["status"] != "RECEIVED" || g["outstanding_balance"] != 5000.0 || g["paid_at"] != nil {
			t.Fatalf("bill 2 = %v", g)
		}
		last = e.creditEvents(cid)[2]
		if last.Posting.Version != 3 || len(last.Posting.Lines) != 2 || last.Posting.Lines[0].Amount != 2500 ||
			last.Posting.EntryAt.Format("2006-01-02") != "2026-02-16" {
			t.Fatalf("posting = %+v", last.Posting)
		}
	})

	t.Run("merge moves the credits", func(t *testing.T) {
		e := e.with(t)
		keep := e.create(bid, tok, map[string]any{"company_name": "Keeper"}, 201)["id"].(string)
		e.Do(req("POST", base(bid)+"/vendors/"+keep+"/merge", tok, map[string]any{"vendor_to_archive_id": vendor}), 200)
		got := data(e.Do(req("GET", base(bid)+"/bills/vendor-credits/"+cid, tok, nil), 200))
		if got["vendor"].(map[string]any)["id"] != keep {
			t.Fatalf("credit's vendor = %v", got["vendor"])
		}
		ce := e.creditEvents(cid)
		if last := ce[len(ce)-1]; last.VendorCredit.VendorID.String() != keep || last.VendorCredit.Version != 4 || last.Posting.Check() != nil {
			t.Fatalf("merge event = %+v", last)
		}
		// The moved bill and credit still match.
		e.Do(req("PATCH", base(bid)+"/bills/vendor-credits/"+cid, tok, map[string]any{"allocations": []any{alloc(b1, 100)}}), 200)
	})
}

// TestVendorCreditRules: each 400 names its field, and nothing is written.
func TestVendorCreditRules(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	vendor := e.create(bid, tok, map[string]any{"company_name": "Paper Co"}, 201)["id"].(string)
	stranger := e.create(bid, tok, map[string]any{"company_name": "Other Co"}, 201)["id"].(string)
	b1 := e.simpleBill(bid, tok, vendor, 1000, "")
	b2 := e.simpleBill(bid, tok, vendor, 1000, "")
	theirs := e.simpleBill(bid, tok, stranger, 1000, "")
	voided := e.simpleBill(bid, tok, vendor, 1000, "")
	e.Do(req("POST", base(bid)+"/bills/"+voided+"/void", tok, nil), 200)
	ok := func() map[string]any {
		return map[string]any{"received_at": "2026-02-10T00:00:00Z", "vendor_id": vendor, "line_items": []any{creditLine(500)},
			"allocations": []any{alloc(b1, 500)}}
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
		{"no received_at", with("received_at", nil), bill.EnumInvalidCredit, "received_at"},
		{"no vendor", with("vendor_id", nil), bill.EnumInvalidCredit, "vendor_id"},
		{"both vendor references", with("vendor_external_id", "x"), bill.EnumInvalidCredit, "vendor_external_id"},
		{"unknown vendor", with("vendor_id", uuid.NewString()), bill.EnumInvalidCredit, "vendor_id"},
		{"no lines", with("line_items", []any{}), bill.EnumInvalidCredit, "line_items"},
		{"zero line", with("line_items", []any{creditLine(0)}), bill.EnumInvalidCredit, "line_items[0].amount"},
		{"negative line", with("line_items", []any{creditLine(-5)}), bill.EnumInvalidCredit, "line_items[0].amount"},
		{"bad expense account", with("line_items", []any{map[string]any{"amount": 5, "expense_account_identifier": map[string]any{"type": "Tax_Name"}}}), bill.EnumInvalidCredit, "line_items[0].expense_account_identifier.type"},
		{"line metadata too large", with("line_items", []any{map[string]any{"amount": 5, "metadata": map[string]any{"k": strings.Repeat("x", 1100)}}}), bill.EnumInvalidCredit, "line_items[0].metadata"},
		{"allocation without bill", with("allocations", []any{map[string]any{"amount": 5}}), bill.EnumInvalidCredit, "allocations[0].bill_id"},
		{"unknown bill", with("allocations", []any{alloc(uuid.NewString(), 5)}), bill.EnumInvalidCredit, "allocations[0].bill_id"},
		{"another vendor's bill", with("allocations", []any{alloc(theirs, 5)}), bill.EnumInvalidCredit, "allocations[0].bill_id"},
		{"same bill twice", with("allocations", []any{alloc(b1, 1), alloc(b1, 1)}), bill.EnumInvalidCredit, "allocations[1].bill_id"},
		{"zero allocation", with("allocations", []any{alloc(b1, 0)}), bill.EnumInvalidCredit, "allocations[0].amount"},
		{"over the credit", with("allocations", []any{alloc(b1, 300), alloc(b2, 201)}), bill.EnumAllocationMismatch, "allocations"},
		{"over the bill", map[string]any{"received_at": "2026-02-10T00:00:00Z", "vendor_id": vendor, "line_items": []any{creditLine(5000)},
			"allocations": []any{alloc(b2, 1001)}}, bill.EnumOverpaid, "allocations[0].amount"},
		{"voided bill", with("allocations", []any{alloc(voided, 5)}), bill.EnumBillVoided, "allocations[0].bill_id"},
		{"metadata too large", with("metadata", map[string]any{"k": strings.Repeat("x", 1100)}), bill.EnumMetadataTooLarge, "metadata"},
		{"unknown property", with("amount", 1), bill.EnumInvalidCredit, "body"},
		{"bad tags", with("tags", []any{map[string]any{"key": "", "value": "x"}}), tags.EnumInvalidTags, ""},
		{"not an object", "[1]", bill.EnumInvalidCredit, "body"},
	}
	before := e.counts()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.with(t)
			m := e.DoInvalid(req("POST", base(bid)+"/bills/vendor-credits", tok, c.body), 400, c.enum)
			if c.field != "" {
				if _, named := fieldsOf(m)[c.field]; !named {
					t.Fatalf("fields = %v, want %s", fieldsOf(m), c.field)
				}
			}
		})
	}
	if e.counts() != before {
		t.Fatal("a refused credit wrote")
	}
	for _, id := range []string{b1, b2} {
		if g := e.getBill(bid, tok, id); g["outstanding_balance"] != 1000.0 || g["status"] != "RECEIVED" {
			t.Fatalf("bill changed: %v", g)
		}
	}
	e.DoInvalid(req("GET", base(bid)+"/bills/vendor-credits/not-a-uuid", tok, nil), 400, "")
	e.DoInvalid(req("GET", base(bid)+"/bills/vendor-credits/"+uuid.NewString(), tok, nil), 404, bill.EnumCreditNotFound)
	// The whole credit on a part of a bill, then a credit paying a bill
	// off: PAID on the credit's day.
	c := data(e.Do(req("POST", base(bid)+"/bills/vendor-credits", tok, with("allocations", []any{alloc(b2, 500)})), 201))
	if c["unapplied_amount"] != 0.0 || c["total_amount"] != 500.0 {
		t.Fatalf("credit = %v", c)
	}
	if g := e.getBill(bid, tok, b2); g["status"] != "PARTIALLY_PAID" || g["outstanding_balance"] != 500.0 {
		t.Fatalf("bill = %v", g)
	}
	full := data(e.Do(req("POST", base(bid)+"/bills/vendor-credits", tok, map[string]any{"received_at": "2026-02-11T00:00:00Z",
		"vendor_id": vendor, "line_items": []any{creditLine(1000)}, "allocations": []any{alloc(b1, 1000)}}), 201))
	if full["unapplied_amount"] != 0.0 {
		t.Fatalf("credit = %v", full)
	}
	if g := e.getBill(bid, tok, b1); g["status"] != "PAID" || g["paid_at"] != "2026-02-11T00:00:00Z" || g["outstanding_balance"] != 0.0 {
		t.Fatalf("bill = %v", g)
	}
	// A credit from an unknown external vendor creates it (as a bill does).
	nv := data(e.Do(req("POST", base(bid)+"/bills/vendor-credits", tok, map[string]any{"received_at": "2026-02-11T00:00:00Z",
		"vendor_external_id": "new-vendor", "line_items": []any{creditLine(10)}}), 201))
	if v := nv["vendor"].(map[string]any); v["external_id"] != "new-vendor" {
		t.Fatalf("vendor = %v", v)
	}
}

// TestVendorCreditsCrossTenant: every credit route answers 404 to tokens
// of other businesses, and one business's credit is 404 under another
// business of the same client.
func TestVendorCreditsCrossTenant(t *testing.T) {
	e := newEnv(t)
	owner := e.Token("client-a")
	bid := e.business("client-a")
	mine := e.business("client-a")
	vendor := e.create(bid, owner, map[string]any{"company_name": "Private Co"}, 201)["id"].(string)
	bl := e.simpleBill(bid, owner, vendor, 1000, "")
	b := base(bid)
	body := map[string]any{"received_at": "2026-02-10T00:00:00Z", "vendor_id": vendor, "line_items": []any{creditLine(500)},
		"allocations": []any{alloc(bl, 100)}}
	cid := data(e.Do(req("POST", b+"/bills/vendor-credits", owner, body), 201))["id"].(string)
	routes := []servicetest.Route{
		{Method: "POST", Path: b + "/bills/vendor-credits", Body: body},
		{Method: "GET", Path: b + "/bills/vendor-credits"},
		{Method: "GET", Path: b + "/bills/vendor-credits?vendor_id=" + vendor},
		{Method: "GET", Path: b + "/bills/vendor-credits/" + cid},
		{Method: "PATCH", Path: b + "/bills/vendor-credits/" + cid, Body: map[string]any{"memo": "x", "allocations": []any{}}},
	}
	// Every business exists before the counts are taken.
	strangers := e.Strangers("client-a", "client-b", mine, e.business("client-b"))
	before := e.counts()
	e.RefuseStrangers(strangers, b, routes)
	if e.counts() != before {
		t.Fatal("a refused request wrote")
	}
	other := base(mine)
	e.DoInvalid(req("GET", other+"/bills/vendor-credits/"+cid, owner, nil), 404, bill.EnumCreditNotFound)
	e.DoInvalid(req("PATCH", other+"/bills/vendor-credits/"+cid, owner, map[string]any{"allocations": []any{}}), 404, bill.EnumCreditNotFound)
	e.DoInvalid(req("POST", other+"/bills/vendor-credits", owner, body), 400, bill.EnumInvalidCredit)
	if got := e.Do(req("GET", other+"/bills/vendor-credits", owner, nil), 200)["data"].([]any); len(got) != 0 {
		t.Fatalf("the other business lists %d credits", len(got))
	}
	if g := e.getBill(bid, owner, bl); g["outstanding_balance"] != 900.0 {
		t.Fatalf("the bill's balance changed: %v", g["outstanding_balance"])
	}
	if got := data(e.Do(req("GET", b+"/bills/vendor-credits/"+cid, owner, nil), 200)); got["memo"] != nil || len(got["allocations"].([]any)) != 1 {
		t.Fatalf("credit changed: %v", got)
	}
}
