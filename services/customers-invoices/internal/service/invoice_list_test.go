package service

import (
	"slices"
	"strings"
	"testing"

	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
)

// invoiceFixture is six invoices that the list filters tell apart:
//
//	     customer sent   due    total  ref  memo           status
//	i1   cust-1   01-10  02-10   1000  R-1  Alpha project  SENT
//	i2   cust-1   01-20  -       5000  R-2  beta phase     PARTIALLY_PAID
//	i3   cust-2   02-05  02-28  20000  R-3  -              PAID
//	i4   cust-2   02-15  03-15   7500  -    Alpha          VOIDED
//	i5   cust-2   03-01  01-31   3000  R-5  gamma ALPHA    PARTIALLY_WRITTEN_OFF
//	i6   cust-1   03-05  -      12000  -    -              WRITTEN_OFF (number SPECIAL-9, external id ext-special)
//
// i1 is patched last, so that updated_at order is i2..i6, i1.
type invoiceFixture struct {
	ids    []string // i1..i6
	c1, c2 string
	names  map[string]string
}

func newInvoiceFixture(iv *invoicing) invoiceFixture {
	iv.T.Helper()
	c1 := iv.env.create(iv.bid, iv.tok, map[string]any{"company_name": "One", "external_id": "cust-1"}, 201)["id"].(string)
	c2 := iv.env.create(iv.bid, iv.tok, map[string]any{"company_name": "Two", "external_id": "cust-2"}, 201)["id"].(string)
	type spec struct {
		cust, sent, due string
		total           int
		ref, memo       any
		extra           []any
	}
	specs := []spec{
		{"cust-1", "2026-01-10", "2026-02-10", 1000, "R-1", "Alpha project", nil},
		{"cust-1", "2026-01-20", "", 5000, "R-2", "beta phase", nil},
		{"cust-2", "2026-02-05", "2026-02-28", 20000, "R-3", nil, nil},
		{"cust-2", "2026-02-15", "2026-03-15", 7500, nil, "Alpha", nil},
		{"cust-2", "2026-03-01", "2026-01-31", 3000, "R-5", "gamma ALPHA", nil},
		{"cust-1", "2026-03-05", "", 12000, nil, nil, []any{"invoice_number", "SPECIAL-9", "external_id", "ext-special"}},
	}
	f := invoiceFixture{c1: c1, c2: c2, names: map[string]string{}}
	for i, s := range specs {
		body := with(simple(s.cust, s.total), "sent_at", s.sent+"T12:00:00Z", "reference_number", s.ref, "memo", s.memo)
		if s.due != "" {
			body["due_at"] = s.due + "T00:00:00Z"
		}
		body = with(body, s.extra...)
		id := iv.create(body, 201)["id"].(string)
		f.ids = append(f.ids, id)
		f.names[id] = "i" + string(rune('1'+i))
	}
	iv.pay(payment(1000, alloc(f.ids[1], 1000)), 201)
	iv.pay(payment(20000, alloc(f.ids[2], 20000)), 201)
	iv.Do(req("POST", iv.path("/invoices/%s/void", f.ids[3]), iv.tok, nil), 200)
	iv.writeOff(f.ids[4], map[string]any{"amount": 500}, 201)
	iv.writeOff(f.ids[5], map[string]any{"amount": 12000}, 201)
	iv.Do(req("PATCH", iv.path("/invoices/%s", f.ids[0]), iv.tok, map[string]any{"reference_number": "R-1"}), 200)
	return f
}

// pick names the fixture's invoices by number (1-based).
func (f invoiceFixture) pick(ns ...int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = f.ids[n-1]
	}
	return out
}

func (f invoiceFixture) show(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		if n, ok := f.names[id]; ok {
			out[i] = n
		} else {
			out[i] = id
		}
	}
	return strings.Join(out, ",")
}

// listInvoices gets one page with the query and returns the whole answer.
func (iv *invoicing) listInvoices(query string) map[string]any {
	iv.T.Helper()
	path := iv.path("/invoices")
	if query != "" {
		path += "?" + query
	}
	return iv.Do(req("GET", path, iv.tok, nil), 200)
}

func TestListInvoicesFilters(t *testing.T) {
	iv := newInvoicing(t)
	f := newInvoiceFixture(iv)
	// Another business's invoice matching every filter.
	other := iv.Business("client-a")
	data(iv.Do(req("POST", base(other)+"/invoices", iv.tok, with(simple("cust-1", 1000), "sent_at", "2026-01-10T12:00:00Z",
		"due_at", "2026-02-10T00:00:00Z", "reference_number", "R-1", "memo", "Alpha")), 201))

	tests := []struct {
		query string
		want  []int
	}{
		{"", []int{1, 2, 3, 4, 5, 6}},
		{"status=SENT", []int{1}},
		{"status=PAID,VOIDED", []int{3, 4}},
		{"status=PAID&status=PARTIALLY_PAID", []int{2, 3}},
		{"status=PARTIALLY_WRITTEN_OFF", []int{5}},
		{"status=WRITTEN_OFF", []int{6}},
		{"status=VOIDED,%20SENT", []int{1, 4}},
		{"due_at_start=2026-02-10", []int{1, 3, 4}},
		{"due_at_end=2026-02-28", []int{1, 3, 5}},
		{"due_at_start=2026-02-11&due_at_end=2026-03-01", []int{3}},
		{"due_at_start=2026-01-31T00:00:01Z", []int{1, 3, 4}},
		{"sent_at_start=2026-02-05", []int{3, 4, 5, 6}},
		{"sent_at_end=2026-01-20", []int{1, 2}},
		{"sent_at_start=2026-01-15T00:00:00Z&sent_at_end=2026-02-10T00:00:00Z", []int{2, 3}},
		{"customer_id=" + f.c1, []int{1, 2, 6}},
		{"customer_external_id=cust-2", []int{3, 4, 5}},
		{"customer_id=" + f.c2 + "&customer_external_id=cust-2", []int{3, 4, 5}},
		{"customer_external_id=nobody", nil},
		{"reference_number=R-2", []int{2}},
		{"reference_number=r-2", nil},
		{"reference_numbers=R-1,R-3,R-9", []int{1, 3}},
		{"min_total_amount=5000", []int{2, 3, 4, 6}},
		{"max_total_amount=5000", []int{1, 2, 5}},
		{"min_total_amount=3000&max_total_amount=7500", []int{2, 4, 5}},
		{"min_total_amount=0", []int{1, 2, 3, 4, 5, 6}},
		{"memo=Alpha", []int{4}},
		{"memo=alpha", nil},
		{"memo_contains=alpha", []int{1, 4, 5}},
		{"memo_contains=%25", nil},
		{"q=special", []int{6}},
		{"q=EXT-SPEC", []int{6}},
		{"q=r-3", []int{3}},
		{"q=beta", []int{2}},
		{"status=PARTIALLY_PAID,VOIDED,SENT&customer_id=" + f.c1, []int{1, 2}},
		{"memo_contains=alpha&min_total_amount=2000&due_at_end=2026-03-31", []int{4, 5}},
		{"show_sales_receipts=true&status=SENT", []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			iv := iv.with(t)
			page := iv.listInvoices(tt.query)
			got := ids(page)
			if f.show(got) != f.show(f.pick(tt.want...)) {
				t.Fatalf("?%s listed %s, want %s", tt.query, f.show(got), f.show(f.pick(tt.want...)))
			}
			if p := obj(obj(page["meta"])["pagination"]); p["sort_by"] != "sent_at" || p["sort_order"] != "ASC" || p["has_more"] != false {
				t.Fatalf("pagination = %v", p)
			}
		})
	}

	t.Run("every item is a full invoice with its customer and write-offs", func(t *testing.T) {
		iv := iv.with(t)
		for _, x := range list(iv.listInvoices("")["data"]) {
			inv := obj(x)
			checkInvoiceShape(t, inv)
			got := iv.get(inv["id"].(string))
			if !equalJSON(inv, got) {
				t.Fatalf("listed %v\nGET     %v", inv, got)
			}
		}
		inv := obj(list(iv.listInvoices("status=PARTIALLY_WRITTEN_OFF")["data"])[0])
		if len(list(inv["write_offs"])) != 1 || obj(inv["customer"])["external_id"] != "cust-2" || inv["recipient_name"] != "Two" {
			t.Fatalf("listed = %v", inv)
		}
	})

	t.Run("an unknown customer_external_id answers an empty page", func(t *testing.T) {
		iv := iv.with(t)
		page := iv.listInvoices("customer_external_id=nobody&show_total_count=true&sort_by=due_at&sort_order=DESC")
		p := obj(obj(page["meta"])["pagination"])
		if len(list(page["data"])) != 0 || p["sort_by"] != "due_at" || p["sort_order"] != "DESC" || p["total_count"] != float64(0) {
			t.Fatalf("page = %v", page)
		}
	})

	t.Run("bad values", func(t *testing.T) {
		for _, tt := range []struct{ query, param, enum string }{
			{"status=OPEN", "status", ""},
			{"status=SENT,ISSUED", "status", ""},
			{"min_total_amount=-1", "min_total_amount", ""},
			{"min_total_amount=1.5", "min_total_amount", ""},
			{"max_total_amount=abc", "max_total_amount", ""},
			{"max_total_amount=-100", "max_total_amount", ""},
			{"min_total_amount=500&max_total_amount=100", "max_total_amount", ""},
			{"due_at_start=yesterday", "due_at_start", ""},
			{"due_at_end=2026-13-01", "due_at_end", ""},
			{"sent_at_start=03/01/2026", "sent_at_start", ""},
			{"sent_at_start=2026-03-01&sent_at_end=2026-02-01", "sent_at_end", ""},
			{"customer_id=nope", "customer_id", ""},
			{"customer_id=" + f.c1 + "&customer_external_id=cust-2", "customer_external_id", app.EnumCustomerMismatch},
			{"customer_id=" + f.c1 + "&customer_external_id=nobody", "customer_external_id", app.EnumCustomerMismatch},
			{"memo=a&memo=b", "memo", ""},
			{"reference_number=", "reference_number", ""},
			{"unknown=1", "unknown", ""},
			{"customer=" + f.c1, "customer", ""},
			{"show_sales_receipts=maybe", "show_sales_receipts", ""},
			{"sort_by=amount", "sort_by", ""},
			{"sort_order=UP", "sort_order", ""},
			{"limit=0", "limit", ""},
			{"limit=501", "limit", ""},
			{"show_total_count=perhaps", "show_total_count", ""},
			{"cursor=not-a-cursor", "cursor", ""},
		} {
			t.Run(tt.query, func(t *testing.T) {
				iv := iv.with(t)
				m := iv.DoInvalid(req("GET", iv.path("/invoices?%s", tt.query), iv.tok, nil), 400, tt.enum)
				if m["type"] != "InvalidParameters" || fieldsOf(m)[tt.param] == nil {
					t.Fatalf("error does not name %s: %v", tt.param, m)
				}
			})
		}
	})
}

func TestListInvoicesPagination(t *testing.T) {
	iv := newInvoicing(t)
	f := newInvoiceFixture(iv)

	walk := func(t *testing.T, query string) ([]string, []map[string]any) {
		t.Helper()
		var got []string
		var metas []map[string]any
		cursor := ""
		for range 10 {
			q := query
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			page := iv.with(t).listInvoices(q)
			p := obj(obj(page["meta"])["pagination"])
			metas = append(metas, p)
			got = append(got, ids(page)...)
			if p["has_more"] != true {
				if p["cursor"] != nil {
					t.Fatalf("last page has a cursor: %v", p)
				}
				return got, metas
			}
			cursor = p["cursor"].(string)
		}
		t.Fatal("more than 10 pages")
		return nil, nil
	}
	// The invoices without a due date sort last (ascending), tied by id.
	noDue := f.pick(2, 6)
	slices.Sort(noDue)
	dueAsc := append(f.pick(5, 1, 3, 4), noDue...)
	dueDesc := slices.Clone(dueAsc)
	slices.Reverse(dueDesc)
	tests := []struct {
		query string
		want  []string
		pages int
	}{
		{"limit=2&show_total_count=true", f.pick(1, 2, 3, 4, 5, 6), 3},
		{"limit=4&sort_by=sent_at&sort_order=DESC", f.pick(6, 5, 4, 3, 2, 1), 2},
		{"limit=2&sort_by=due_at", dueAsc, 3},
		{"limit=5&sort_by=due_at&sort_order=DESC", dueDesc, 2},
		{"limit=3&sort_by=total_amount", f.pick(1, 5, 2, 4, 6, 3), 2},
		{"limit=1&sort_by=total_amount&sort_order=DESC", f.pick(3, 6, 4, 2, 5, 1), 6},
		{"limit=2&sort_by=updated_at", f.pick(2, 3, 4, 5, 6, 1), 3},
		{"limit=4&sort_by=updated_at&sort_order=DESC", f.pick(1, 6, 5, 4, 3, 2), 2},
		{"limit=1&status=PAID,SENT,VOIDED&sort_by=total_amount", f.pick(1, 4, 3), 3},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, metas := walk(t, tt.query)
			if f.show(got) != f.show(tt.want) {
				t.Fatalf("walk = %s, want %s", f.show(got), f.show(tt.want))
			}
			if len(metas) != tt.pages {
				t.Fatalf("%d pages, want %d", len(metas), tt.pages)
			}
		})
	}
	t.Run("total_count", func(t *testing.T) {
		_, metas := walk(t, "limit=2&show_total_count=true&status=PAID,SENT")
		if metas[0]["total_count"] != float64(2) {
			t.Fatalf("metas = %v", metas)
		}
		_, metas = walk(t, "limit=2")
		if _, ok := metas[0]["total_count"]; ok {
			t.Fatalf("total_count without show_total_count: %v", metas[0])
		}
	})
	t.Run("a cursor works only with its sort and filters", func(t *testing.T) {
		iv := iv.with(t)
		cur := obj(obj(iv.listInvoices("limit=2")["meta"])["pagination"])["cursor"].(string)
		for _, q := range []string{"status=SENT", "sort_by=total_amount", "sort_order=DESC", "q=a", "memo_contains=x"} {
			iv.DoInvalid(req("GET", iv.path("/invoices?limit=2&cursor=%s&%s", cur, q), iv.tok, nil), 400, "")
		}
		other := iv.Business("client-a")
		iv.DoInvalid(req("GET", base(other)+"/invoices?limit=2&cursor="+cur, iv.tok, nil), 400, "")
		if got := ids(iv.listInvoices("limit=10&cursor=" + cur)); len(got) != 4 {
			t.Fatalf("rest = %v", got)
		}
	})
	t.Run("an empty business", func(t *testing.T) {
		iv := iv.with(t)
		other := iv.Business("client-a")
		page := iv.Do(req("GET", base(other)+"/invoices?show_total_count=true", iv.tok, nil), 200)
		if len(list(page["data"])) != 0 || obj(obj(page["meta"])["pagination"])["total_count"] != float64(0) {
			t.Fatalf("page = %v", page)
		}
	})
}
