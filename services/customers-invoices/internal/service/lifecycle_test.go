package service

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/servicekit/servicetest"
	"github.com/acctsuite/acct/pkg/storage"
	"github.com/acctsuite/acct/pkg/testkit"
	customersinvoices "github.com/acctsuite/acct/services/customers-invoices"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/config"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// postings are the ledger postings an event carries (one, or a refund's
// two).
func postings(t *testing.T, ev outboxEvent) []events.LedgerPosting {
	t.Helper()
	var c struct {
		Posting  *events.LedgerPosting  `json:"posting"`
		Postings []events.LedgerPosting `json:"postings"`
	}
	if err := json.Unmarshal(ev.Data, &c); err != nil {
		t.Fatal(err)
	}
	if c.Posting != nil {
		return append([]events.LedgerPosting{*c.Posting}, c.Postings...)
	}
	return c.Postings
}

// arOf is what the postings add to ACCOUNTS_RECEIVABLE.
func arOf(ps []events.LedgerPosting) int64 {
	var n int64
	for i := range ps {
		n += lineOf(&ps[i], invoice.AccountsReceivable, "DEBIT") - lineOf(&ps[i], invoice.AccountsReceivable, "CREDIT")
	}
	return n
}

func TestSummaryStats(t *testing.T) {
	iv := newInvoicing(t)
	now := time.Now().UTC()
	day := func(d int) string { return now.AddDate(0, 0, d).Format(time.RFC3339) }
	// Overdue: due yesterday, 60.00 outstanding after a 40.00 payment.
	over := iv.create(with(simple("c1", 10000), "sent_at", day(-20), "due_at", day(-1)), 201)
	iv.pay(with(payment(4000, alloc(over["id"], 4000)), "paid_at", day(-2)), 201)
	// Upcoming: due in 10 days, and one without a due date.
	iv.create(with(simple("c1", 2500), "sent_at", day(-3), "due_at", day(10)), 201)
	iv.create(with(simple("c1", 1500), "sent_at", day(-3)), 201)
	// Counted nowhere: paid, voided, a draft, sent 13 months ago.
	paid := iv.create(with(simple("c1", 700), "sent_at", day(-5)), 201)
	iv.pay(with(payment(700, alloc(paid["id"], 700)), "paid_at", day(-40)), 201)
	v := iv.create(with(simple("c1", 900), "sent_at", day(-5)), 201)
	iv.Do(req("POST", iv.path("/invoices/%s/void", v["id"]), iv.tok, nil), 200)
	iv.create(with(simple("c1", 800), "status", "DRAFT"), 201)
	iv.create(with(simple("c1", 300), "sent_at", now.AddDate(-1, -1, 0).Format(time.RFC3339), "due_at", day(-380)), 201)

	got := data(iv.Do(req("GET", iv.path("/invoices/summary-stats"), iv.tok, nil), 200))
	inv, pays := obj(got["invoices"]), obj(got["invoice_payments"])
	if num(t, inv["overdue_count"]) != 1 || num(t, inv["overdue_total"]) != 6000 || num(t, inv["sent_count"]) != 2 ||
		num(t, inv["sent_total"]) != 4000 || num(t, pays["sum_total"]) != 4000 {
		t.Fatalf("summary = %v", got)
	}
	// Another business's summary is empty; the path is not an invoice id.
	other := base(iv.Business("client-a"))
	empty := data(iv.Do(req("GET", other+"/invoices/summary-stats", iv.tok, nil), 200))
	if num(t, obj(empty["invoices"])["sent_count"]) != 0 {
		t.Fatalf("other business: %v", empty)
	}
}

func TestDraftFinalize(t *testing.T) {
	iv := newInvoicing(t)
	seq := iv.lastSeq()
	d := iv.create(with(simple("c1", 5000), "status", "DRAFT", "sent_at", nil), 201)
	checkInvoiceShape(t, d)
	id := d["id"].(string)
	if d["status"] != "DRAFT" || d["sent_at"] != nil || num(t, d["outstanding_balance"]) != 0 {
		t.Fatalf("draft = %v", d)
	}
	evs := ofType(iv.outbox(iv.bid, seq), events.TypeInvoiceUpserted)
	if p := decode[events.InvoiceUpserted](t, evs[len(evs)-1]).Posting; p == nil || len(p.Lines) != 0 {
		t.Fatalf("a draft posted %+v", p)
	}
	// A draft takes no payment, write-off or refund; it can be edited.
	pay := map[string]any{"amount": 100, "method": "CASH", "paid_at": "2026-03-10T00:00:00Z"}
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/payment", id), iv.tok, pay), 409, invoice.EnumInvoiceDraft)
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/write-off", id), iv.tok, map[string]any{"amount": 100}), 409, invoice.EnumInvoiceDraft)
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/refund", id), iv.tok, map[string]any{"completed_at": "2026-03-10T00:00:00Z", "method": "CASH"}), 409, invoice.EnumInvoiceDraft)
	iv.Do(req("PATCH", iv.path("/invoices/%s", id), iv.tok, map[string]any{"memo": "draft memo"}), 200)
	if l := list(iv.Do(req("GET", iv.path("/invoices?status=DRAFT"), iv.tok, nil), 200)["data"]); len(l) != 1 {
		t.Fatalf("status=DRAFT lists %d", len(l))
	}
	if pm := data(iv.Do(req("GET", iv.path("/invoices/%s/payment-methods", id), iv.tok, nil), 200)); len(list(pm["payment_methods"])) != 0 {
		t.Fatalf("payment methods before finalizing: %v", pm)
	}

	seq = iv.lastSeq()
	f := data(iv.Do(req("PUT", iv.path("/invoices/%s/finalize-invoice", id), iv.tok, map[string]any{
		"payment_methods": []any{"CREDIT_CARD", "ACH"}, "custom_payment_instructions": "Pay by wire", "sent_at": "2026-03-05T00:00:00Z"}), 200))
	inner := obj(f["invoice"])
	checkInvoiceShape(t, inner)
	if f["status"] != "SENT" || inner["status"] != "SENT" || f["sent_at"] != "2026-03-05T00:00:00Z" || num(t, f["outstanding_balance"]) != 5000 ||
		f["custom_payment_instructions"] != "Pay by wire" || !equalJSON(f["payment_methods"], []any{"ACH", "CREDIT_CARD"}) || f["id"] != inner["id"] {
		t.Fatalf("finalized = %v", f)
	}
	ev := ofType(iv.outbox(iv.bid, seq), events.TypeInvoiceUpserted)
	if len(ev) != 1 {
		t.Fatalf("%d invoice events", len(ev))
	}
	p := decode[events.InvoiceUpserted](t, ev[0]).Posting
	if checkPosting(t, p, app.SourceInvoice, id, 3, true) != 5000 || lineOf(p, invoice.AccountsReceivable, "DEBIT") != 5000 {
		t.Fatalf("finalize posting %+v", p)
	}
	pm := data(iv.Do(req("GET", iv.path("/invoices/%s/payment-methods", id), iv.tok, nil), 200))
	if !equalJSON(pm["payment_methods"], []any{"ACH", "CREDIT_CARD"}) {
		t.Fatalf("payment methods = %v", pm)
	}
	// Finalizing again (empty body) changes nothing; it can now be paid.
	seq = iv.lastSeq()
	if again := data(iv.Do(req("PUT", iv.path("/invoices/%s/finalize-invoice", id), iv.tok, nil), 200)); again["updated_at"] != f["updated_at"] {
		t.Fatalf("second finalize changed the invoice: %v", again)
	}
	if n := len(iv.outbox(iv.bid, seq)); n != 0 {
		t.Fatalf("second finalize published %d events", n)
	}
	iv.Do(req("POST", iv.path("/invoices/%s/payment", id), iv.tok, pay), 201)
	iv.DoInvalid(req("PUT", iv.path("/invoices/%s/finalize-invoice", id), iv.tok, map[string]any{"payment_methods": []any{"BITCOIN"}}), 400, invoice.EnumInvalidInvoice)
	// A voided invoice cannot be finalized.
	v := iv.create(simple("c1", 100), 201)
	iv.Do(req("POST", iv.path("/invoices/%s/void", v["id"]), iv.tok, nil), 200)
	iv.DoInvalid(req("PUT", iv.path("/invoices/%s/finalize-invoice", v["id"]), iv.tok, nil), 409, invoice.EnumInvoiceVoided)
	// Without sent_at and without DRAFT, a create is still a 400.
	iv.DoInvalid(req("POST", iv.path("/invoices"), iv.tok, with(simple("c1", 100), "sent_at", nil)), 400, invoice.EnumInvalidInvoice)
}

func TestUpdatePayment(t *testing.T) {
	iv := newInvoicing(t)
	a := iv.create(simple("c1", 10000), 201)
	b := iv.create(simple("c1", 5000), 201)
	aid := a["id"].(string)
	p := data(iv.Do(req("POST", iv.path("/invoices/%s/payment/", aid), iv.tok,
		map[string]any{"amount": 4000, "method": "CHECK", "paid_at": "2026-03-10T00:00:00Z", "reference_number": "CHK-1", "external_id": "pay-x"}), 201))
	pid := p["id"].(string)

	seq := iv.lastSeq()
	body := map[string]any{"amount": 10000, "method": "ACH", "paid_at": "2026-03-12T00:00:00Z", "memo": "corrected"}
	up := data(iv.Do(req("PUT", iv.path("/invoices/%s/payment/%s", aid, pid), iv.tok, body), 200))
	if num(t, up["amount"]) != 10000 || up["method"] != "ACH" || up["at"] != "2026-03-12T00:00:00Z" || up["memo"] != "corrected" ||
		up["reference_number"] != nil || up["external_id"] != "pay-x" {
		t.Fatalf("updated payment = %v", up)
	}
	if got := iv.get(aid); got["status"] != "PAID" || num(t, got["outstanding_balance"]) != 0 || got["paid_at"] != "2026-03-12T00:00:00Z" {
		t.Fatalf("invoice after the update: %v", got)
	}
	evs := iv.outbox(iv.bid, seq)
	pe := ofType(evs, events.TypeInvoicePaymentUpserted)
	if len(pe) != 1 {
		t.Fatalf("%d payment events", len(pe))
	}
	pp := decode[events.InvoicePaymentUpserted](t, pe[0]).Posting
	if checkPosting(t, pp, app.SourcePayment, pid, 2, true) != 10000 || lineOf(pp, invoice.AccountsReceivable, "CREDIT") != 10000 {
		t.Fatalf("payment posting %+v", pp)
	}
	// Over-payment, another invoice's path, an unknown payment.
	iv.DoInvalid(req("PUT", iv.path("/invoices/%s/payment/%s", aid, pid), iv.tok, with(body, "amount", 10001)), 400, invoice.EnumOverpaid)
	iv.DoInvalid(req("PUT", iv.path("/invoices/%s/payment/%s", b["id"], pid), iv.tok, body), 404, app.EnumPaymentNotFound)
	iv.DoInvalid(req("PUT", iv.path("/invoices/%s/payment/%s", aid, b["id"]), iv.tok, body), 404, app.EnumPaymentNotFound)
	iv.DoInvalid(req("PUT", iv.path("/invoices/%s/payment/%s", aid, pid), iv.tok, map[string]any{"amount": 1}), 400, "")
	// A payment of two invoices is changed by deleting it.
	c := iv.create(simple("c1", 3000), 201)
	two := iv.pay(payment(3000, alloc(b["id"], 1000), alloc(c["id"], 2000)), 201)
	iv.DoInvalid(req("PUT", iv.path("/invoices/%s/payment/%s", b["id"], two["id"]), iv.tok, body), 409, invoice.EnumPaymentSpansInvoices)
}

func TestRefund(t *testing.T) {
	iv := newInvoicing(t)
	inv := iv.create(with(simple("c1", 10000), "additional_sales_taxes", []any{map[string]any{"amount": 800}}), 201)
	id := inv["id"].(string)
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/refund", id), iv.tok, map[string]any{"completed_at": "2026-03-20T00:00:00Z", "method": "CASH"}),
		409, invoice.EnumNothingToRefund)
	p := iv.pay(with(payment(10800, alloc(id, 10800)), "processor", "STRIPE", "fee", 300), 201)

	iv.DoInvalid(req("POST", iv.path("/invoices/%s/refund", id), iv.tok,
		map[string]any{"refunded_amount": 10801, "completed_at": "2026-03-20T00:00:00Z", "method": "CASH"}), 400, invoice.EnumRefundTooLarge)
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/refund", id), iv.tok, map[string]any{"method": "CASH"}), 400, invoice.EnumInvalidInvoice)

	seq := iv.lastSeq()
	body := map[string]any{"external_id": "rf-1", "refunded_amount": 5400, "completed_at": "2026-03-20T00:00:00Z", "method": "Other", "memo": "half"}
	r := data(iv.Do(req("POST", iv.path("/invoices/%s/refund", id), iv.tok, body), 201))
	if num(t, r["refunded_amount"]) != 5400 || r["status"] != "PAID" || r["is_dedicated"] != true || r["external_id"] != "rf-1" ||
		r["completed_at"] != "2026-03-20T00:00:00Z" || r["method"] != "OTHER" || r["memo"] != "half" {
		t.Fatalf("refund = %v", r)
	}
	got := iv.get(id)
	if got["status"] != "PAID" || num(t, got["outstanding_balance"]) != 0 || num(t, got["total_refunded"]) != 5400 || len(list(got["refund_allocations"])) != 1 {
		t.Fatalf("invoice after half a refund: %v", got)
	}
	evs := ofType(iv.outbox(iv.bid, seq), events.TypeInvoiceRefundUpserted)
	if len(evs) != 1 {
		t.Fatalf("%d refund events", len(evs))
	}
	ps := postings(t, evs[0])
	if len(ps) != 2 {
		t.Fatalf("%d postings", len(ps))
	}
	alloc0, pay0 := &ps[0], &ps[1]
	checkPosting(t, alloc0, events.SourceRefundAllocation, r["id"].(string), 1, true)
	checkPosting(t, pay0, events.SourceRefundPayment, r["id"].(string), 1, true)
	if lineOf(alloc0, invoice.CustomerRefunds, "DEBIT") != 5000 || lineOf(alloc0, invoice.SalesTaxesPayable, "DEBIT") != 400 ||
		lineOf(pay0, invoice.ProcessorClearing, "CREDIT") != 5400 || arOf(ps) != 0 || alloc0.EntryType != "REFUND_ALLOCATION" || pay0.EntryType != "REFUND_PAYMENT" {
		t.Fatalf("refund postings %+v %+v", alloc0, pay0)
	}
	// Idempotent on external_id; another invoice's refund id is a 400.
	again := data(iv.Do(req("POST", iv.path("/invoices/%s/refund", id), iv.tok, body), 200))
	if again["id"] != r["id"] {
		t.Fatalf("retry answered %v", again)
	}
	other := iv.create(simple("c1", 100), 201)
	iv.pay(payment(100, alloc(other["id"], 100)), 201)
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/refund", other["id"]), iv.tok, body), 400, invoice.EnumDuplicateExternalID)
	// The payment cannot go below what was refunded.
	iv.DoInvalid(req("POST", iv.path("/invoices/payments/bulk-delete"), iv.tok, map[string]any{"ids": []any{p["id"]}}), 409, invoice.EnumHasRefunds)
	iv.DoInvalid(req("PUT", iv.path("/invoices/%s/payment/%s", id, p["id"]), iv.tok,
		map[string]any{"amount": 5000, "method": "CASH", "paid_at": "2026-03-10T00:00:00Z"}), 409, invoice.EnumHasRefunds)

	// The rest (the default amount): REFUNDED, A/R untouched; no external_id is answered absent.
	rest := data(iv.Do(req("POST", iv.path("/invoices/%s/refund", id), iv.tok, map[string]any{"completed_at": "2026-03-21T00:00:00Z", "method": "ACH"}), 201))
	if num(t, rest["refunded_amount"]) != 5400 {
		t.Fatalf("default refund = %v", rest)
	}
	if _, has := rest["external_id"]; has {
		t.Fatalf("external_id answered without one: %v", rest)
	}
	got = iv.get(id)
	if got["status"] != "REFUNDED" || num(t, got["outstanding_balance"]) != 0 || num(t, got["total_refunded"]) != 10800 {
		t.Fatalf("invoice after the full refund: %v", got)
	}
	if l := list(iv.Do(req("GET", iv.path("/invoices?status=REFUNDED"), iv.tok, nil), 200)["data"]); len(l) != 1 {
		t.Fatalf("status=REFUNDED lists %d", len(l))
	}
}

func TestResetInvoice(t *testing.T) {
	iv := newInvoicing(t)
	inv := iv.create(simple("c1", 10000), 201)
	id := inv["id"].(string)
	p := iv.pay(payment(6000, alloc(id, 6000)), 201)
	r := data(iv.Do(req("POST", iv.path("/invoices/%s/refund", id), iv.tok,
		map[string]any{"refunded_amount": 1000, "completed_at": "2026-03-20T00:00:00Z", "method": "CASH"}), 201))
	w := iv.writeOff(id, map[string]any{"amount": 4000}, 201)
	if got := iv.get(id); got["status"] != "WRITTEN_OFF" {
		t.Fatalf("before the reset: %v", got)
	}
	seq := iv.lastSeq()
	got := data(iv.Do(req("POST", iv.path("/invoices/%s/reset", id), iv.tok, nil), 200))
	checkInvoiceShape(t, got)
	if got["status"] != "SENT" || num(t, got["outstanding_balance"]) != 10000 || got["paid_at"] != nil ||
		len(list(got["payment_allocations"])) != 0 || len(list(got["refund_allocations"])) != 0 || num(t, got["total_refunded"]) != 0 {
		t.Fatalf("reset invoice = %v", got)
	}
	for _, wo := range list(got["write_offs"]) {
		if obj(wo)["voided_at"] == nil {
			t.Fatalf("a write-off survived the reset: %v", wo)
		}
	}
	evs := iv.outbox(iv.bid, seq)
	var all []events.LedgerPosting
	for _, ev := range evs {
		all = append(all, postings(t, ev)...)
	}
	if arOf(all) != 0 {
		t.Fatalf("the reset's postings carry A/R lines: %+v", all)
	}
	dp := ofType(evs, events.TypeInvoicePaymentDeleted)
	if len(dp) != 1 {
		t.Fatalf("%d payment deletions", len(dp))
	}
	checkPosting(t, decode[events.InvoicePaymentDeleted](t, dp[0]).Posting, app.SourcePayment, p["id"].(string), 2, false)
	rp := postings(t, ofType(evs, events.TypeInvoiceRefundUpserted)[0])
	checkPosting(t, &rp[0], events.SourceRefundAllocation, r["id"].(string), 2, false)
	checkPosting(t, &rp[1], events.SourceRefundPayment, r["id"].(string), 2, false)
	wp := decode[events.InvoiceWriteOffUpserted](t, ofType(evs, events.TypeInvoiceWriteOffUpserted)[0]).Posting
	checkPosting(t, wp, app.SourceWriteOff, w["id"].(string), 2, false)
	iv.DoInvalid(req("GET", iv.path("/invoices/payments/%s", p["id"]), iv.tok, nil), 404, app.EnumPaymentNotFound)
	// Nothing to undo: unchanged, nothing published.
	seq = iv.lastSeq()
	if same := data(iv.Do(req("POST", iv.path("/invoices/%s/reset", id), iv.tok, nil), 200)); same["updated_at"] != got["updated_at"] {
		t.Fatalf("second reset changed the invoice")
	}
	if n := len(iv.outbox(iv.bid, seq)); n != 0 {
		t.Fatalf("second reset published %d events", n)
	}
	// A voided invoice is sent again: its entry is posted again.
	v := iv.create(simple("c1", 700), 201)
	iv.Do(req("POST", iv.path("/invoices/%s/void", v["id"]), iv.tok, nil), 200)
	seq = iv.lastSeq()
	if back := data(iv.Do(req("POST", iv.path("/invoices/%s/reset", v["id"]), iv.tok, nil), 200)); back["status"] != "SENT" || back["voided_at"] != nil ||
		num(t, back["outstanding_balance"]) != 700 {
		t.Fatalf("reset of a voided invoice = %v", back)
	}
	ue := ofType(iv.outbox(iv.bid, seq), events.TypeInvoiceUpserted)
	checkPosting(t, decode[events.InvoiceUpserted](t, ue[0]).Posting, app.SourceInvoice, v["id"].(string), 3, true)
	// A payment of two invoices blocks the reset (nothing changes).
	a, b := iv.create(simple("c1", 1000), 201), iv.create(simple("c1", 1000), 201)
	iv.pay(payment(1500, alloc(a["id"], 1000), alloc(b["id"], 500)), 201)
	before := iv.rowCounts()
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/reset", a["id"]), iv.tok, nil), 409, invoice.EnumPaymentSpansInvoices)
	iv.sameCounts(before)
}

// newInvoicingWithStorage is newInvoicing with filesystem storage whose
// pre-signed URLs a test download server serves (as the gateway does).
func newInvoicingWithStorage(t *testing.T) *invoicing {
	t.Helper()
	dir := t.TempDir()
	key := bytes.Repeat([]byte("k"), storage.MinSigningKeyLength)
	h, err := storage.NewDownloadHandler(storage.DownloadOptions{Dir: dir, SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	dl := fiber.New()
	dl.Get(storage.DownloadRoute, h)
	baseURL := testkit.Serve(t, dl)
	e := &env{servicetest.Start(t, config.LoadFrom, New, customersinvoices.OpenAPI, servicetest.ServiceOptions{Env: map[string]string{
		"STORAGE_BACKEND": "fs", "STORAGE_DIR": dir, "STORAGE_PUBLIC_BASE_URL": baseURL,
		"STORAGE_SIGNING_KEY": base64.StdEncoding.EncodeToString(key),
	}})}
	return &invoicing{env: e, bid: e.Business("client-a"), tok: e.Token("client-a")}
}

// documentInvoice is an invoice with everything a rendering shows.
func documentInvoice(iv *invoicing) map[string]any {
	iv.T.Helper()
	c := iv.Do(req("POST", iv.path("/customers"), iv.tok, map[string]any{"external_id": "doc-c", "company_name": "Café Müller <GmbH>",
		"email": "ana@example.com", "address_string": "1 Main St"}), 201)
	inv := iv.create(map[string]any{"customer_id": data(c)["id"], "sent_at": "2026-03-01T00:00:00Z", "due_at": "2026-03-31T00:00:00Z",
		"invoice_number": "INV-42", "memo": "Thanks <b>for</b> your business", "custom_payment_instructions": "Wire to ACME",
		"line_items": []any{
			map[string]any{"description": "Crème brûlée tasting", "unit_price": 1250, "quantity": "3", "discount_amount": 250,
				"sales_taxes": []any{map[string]any{"tax_account": map[string]any{"type": "Tax_Name", "name": "CA State"}, "amount": 300}}},
			map[string]any{"product": "Catering", "description": "Evening service", "unit_price": 20000, "quantity": "1.5"},
		},
		"additional_discount": 1000, "additional_sales_taxes": []any{map[string]any{"amount": 500}}, "tips": 700}, 201)
	iv.pay(payment(10000, alloc(inv["id"], 10000)), 201)
	return iv.get(inv["id"].(string))
}

func TestInvoiceHTML(t *testing.T) {
	iv := newInvoicing(t)
	inv := documentInvoice(iv)
	rq := openapitest.Request(http.MethodGet, iv.path("/invoices/%s/html", inv["id"]), iv.tok, nil)
	resp, body := iv.V.Do(t, iv.HTTP, rq)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("html: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	page := string(body)
	for _, want := range []string{"INV-42", "Café Müller &lt;GmbH&gt;", "ana@example.com", "Crème brûlée tasting",
		"Catering - Evening service", "$12.50", "$37.50", "$200.00", "$300.00", "Discount -$2.50", "Tax CA_STATE $3.00",
		"-$10.00", "$5.00", "$7.00", "-$100.00", "Wire to ACME", "Thanks &lt;b&gt;for&lt;/b&gt; your business"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	total, balance := money(num(t, inv["total_amount"])), money(num(t, inv["outstanding_balance"]))
	if !regexp.MustCompile(`<td>Total</td><td class="num">`+regexp.QuoteMeta(total)+`</td>`).MatchString(page) ||
		!strings.Contains(page, `<td>Balance due</td><td class="num">`+balance+`</td>`) {
		t.Fatalf("page's total/balance are not %s/%s:\n%s", total, balance, page)
	}
	if strings.Contains(page, "<b>for</b>") {
		t.Fatal("the memo's markup was not escaped")
	}
	iv.DoInvalid(req("GET", base(iv.Business("client-a"))+"/invoices/"+inv["id"].(string)+"/html", iv.tok, nil), 404, app.EnumInvoiceNotFound)
}

// money formats cents as the documents do: "$1,234.56".
func money(c int64) string {
	whole := strconv.FormatInt(c/100, 10)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("$%s.%02d", b.String(), c%100)
}

func TestInvoicePDF(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pdftotext (poppler-utils) is missing")
		}
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	iv := newInvoicingWithStorage(t)
	inv := documentInvoice(iv)
	id := inv["id"].(string)
	u := data(iv.Do(req("GET", iv.path("/invoices/%s/pdf", id), iv.tok, nil), 200))
	if u["type"] != "Storage_Presigned_Url" || u["fileType"] != "pdf" || u["fileName"] != "invoice-INV-42.pdf" || u["documentId"] == "" {
		t.Fatalf("pdf url = %v", u)
	}
	resp, err := http.Get(u["presignedUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("download: %d %v %q", resp.StatusCode, err, pdf[:min(len(pdf), 20)])
	}
	path := filepath.Join(t.TempDir(), "invoice.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	text := string(out)
	total, balance := money(num(t, inv["total_amount"])), money(num(t, inv["outstanding_balance"]))
	if !regexp.MustCompile(`(?m)^\s*Total\s+` + regexp.QuoteMeta(total) + `\s*$`).MatchString(text) {
		t.Errorf("the PDF's total is not %s:\n%s", total, text)
	}
	if !regexp.MustCompile(`(?m)^\s*Balance due\s+` + regexp.QuoteMeta(balance) + `\s*$`).MatchString(text) {
		t.Errorf("the PDF's balance due is not %s:\n%s", balance, text)
	}
	for _, want := range []string{"INV-42", "Café Müller <GmbH>", "Crème brûlée tasting", "Catering - Evening service", "Wire to ACME",
		"Thanks <b>for</b> your business", "Tax CA_STATE $3.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF lacks %q:\n%s", want, text)
		}
	}
	// An unchanged invoice answers the same file; a change makes a new one.
	if again := data(iv.Do(req("GET", iv.path("/invoices/%s/pdf", id), iv.tok, nil), 200)); again["documentId"] != u["documentId"] {
		t.Fatalf("the same invoice made a new file: %v", again)
	}
	iv.Do(req("POST", iv.path("/invoices/%s/reset", id), iv.tok, nil), 200)
	if changed := data(iv.Do(req("GET", iv.path("/invoices/%s/pdf", id), iv.tok, nil), 200)); changed["documentId"] == u["documentId"] {
		t.Fatal("a changed invoice answered the old file")
	}
	// Without storage, 503.
	plain := newInvoicing(t)
	x := plain.create(simple("c1", 100), 201)
	plain.DoInvalid(req("GET", plain.path("/invoices/%s/pdf", x["id"]), plain.tok, nil), 503, "") // a 5xx carries no error_enum
}
