package service

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/receipts"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/bill"

	"github.com/acctsuite/acct/pkg/receipts/receiptpdf"
)

// TestReceiptTextPDF imports a text PDF of the corpus (no OCR needed):
// every proposed field is its ground truth, each line's account comes
// from the keyword rules (a café: meals); the receipt becomes a bill of
// the proposed amount for a new vendor of the proposed name.
func TestReceiptTextPDF(t *testing.T) {
	e := newReceiptEnv(t, true)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	tr, file := corpus(t, "r27")

	r := e.imported(bid, tok, "receipt.pdf", file, "coffee with a client")
	checkProposal(t, r, tr)
	if p := e.receiptEvent(bid, r, "receipt.pdf", "pdf"); p.Status != "READY_FOR_BILL" || p.ProposedAmountCents == nil ||
		*p.ProposedAmountCents != tr.TotalCents || p.FailureReason != nil || p.MatchedVendorID != nil {
		t.Fatalf("receipt.parsed = %+v", p)
	}
	if r["matched_vendor"] != nil || r["proposed_vendor_external_id"] != nil || r["bill_id"] != nil || r["message_log_id"] != nil {
		t.Fatalf("receipt = %v", r)
	}
	for _, l := range r["proposed_line_items"].([]any) {
		a := l.(map[string]any)["proposed_account"].(map[string]any)
		if stableOf(l) != "MEALS" || a["name"] != "Meals" || a["type"] != "Single_Chart_Account" ||
			a["id"].(map[string]any)["id"] != events.DefaultAccountID(bid, "MEALS").String() {
			t.Errorf("proposed_account = %v", a)
		}
	}
	if e.storedObjects() != 1 {
		t.Fatalf("%d stored objects, want the receipt", e.storedObjects())
	}
	id := r["business_document_id"].(string)
	path := base(bid) + "/receipts/" + id

	got := data(e.Do(req("GET", path, tok, nil), 200))
	checkReceipt(t, got)
	if got["proposed_amount_cents"] != r["proposed_amount_cents"] || got["source_storage_document_id"] != r["source_storage_document_id"] {
		t.Fatalf("fetched %v", got)
	}
	list := e.Do(req("GET", base(bid)+"/receipts?status=READY_FOR_BILL,FAILED&show_total_count=true", tok, nil), 200)
	if ids := receiptIDs(list); len(ids) != 1 || ids[0] != id {
		t.Fatalf("list = %v", list)
	}
	if n := len(e.Do(req("GET", base(bid)+"/receipts?status=BILL_CREATED", tok, nil), 200)["data"].([]any)); n != 0 {
		t.Fatalf("%d BILL_CREATED receipts", n)
	}

	done := data(e.Do(req("POST", path+"/create-bill", tok, nil), 200))
	checkReceipt(t, done)
	billID, _ := done["bill_id"].(string)
	if done["status"] != "BILL_CREATED" || billID == "" {
		t.Fatalf("after create-bill: %v", done)
	}
	b := data(e.Do(req("GET", base(bid)+"/bills/"+billID, tok, nil), 200))
	checkBill(t, b)
	if b["total_amount"] != float64(tr.TotalCents) || b["received_at"] != tr.Date+"T00:00:00Z" || b["memo"] != "coffee with a client" ||
		b["vendor"].(map[string]any)["company_name"] != r["proposed_vendor_display"] {
		t.Fatalf("bill = %v", b)
	}
	for _, l := range b["line_items"].([]any) {
		if l.(map[string]any)["account_identifier"].(map[string]any)["stable_name"] != "MEALS" {
			t.Errorf("bill line %v", l)
		}
	}
	if evts := e.billEvents(billID); len(evts) != 1 || evts[0].Posting == nil || int64(evts[0].Bill.TotalAmount) != tr.TotalCents {
		t.Fatalf("bill events = %+v", evts)
	}
	if ids := receiptIDs(e.Do(req("GET", base(bid)+"/receipts?status=BILL_CREATED", tok, nil), 200)); len(ids) != 1 {
		t.Fatalf("BILL_CREATED receipts: %v", ids)
	}
	if n := e.receiptEventCount(); n != 1 {
		t.Fatalf("%d receipt.parsed rows after create-bill, want the import's only", n)
	}

	// 409: a second bill, a rejection after the bill.
	n := e.billCount()
	e.Do(req("POST", path+"/create-bill", tok, nil), 409)
	m := e.DoInvalid(req("POST", path+"/create-bill", tok, nil), 409, "ReceiptBillCreated")
	if m["type"] != "Conflict" {
		t.Fatalf("error = %v", m)
	}
	e.DoInvalid(req("POST", path+"/reject", tok, nil), 409, "ReceiptBillCreated")
	if e.billCount() != n {
		t.Fatal("a refused create-bill wrote a bill")
	}
}

// TestReceiptImage reads a PNG of the corpus through Tesseract: the
// proposed fields are its ground truth, the vendor is matched to the
// business's vendor of that name, and every line's account is the one its
// bills used most (history beats the keyword rules, which would say office
// expenses). The bill goes to that vendor with the proposed amount.
func TestReceiptImage(t *testing.T) {
	requireOCR(t)
	e := newReceiptEnv(t, true)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	tr, file := corpus(t, "r14") // Desk and Ink: office supplies

	vendor := e.create(bid, tok, map[string]any{"company_name": "Desk & Ink", "external_id": "dai-1"}, 201)["id"].(string)
	e.create(bid, tok, map[string]any{"company_name": "Desk and Ink Warehouse Outlet"}, 201)
	line := func(account string) map[string]any {
		return map[string]any{"description": "x", "unit_price": 100, "account_identifier": map[string]any{"type": "StableName", "stable_name": account}}
	}
	for _, lines := range [][]any{{line("EQUIPMENT"), line("OFFICE_EXPENSES")}, {line("EQUIPMENT")}} {
		e.Do(req("POST", base(bid)+"/bills", tok, map[string]any{"vendor_id": vendor, "received_at": "2026-01-01T00:00:00Z", "line_items": lines}), 201)
	}

	r := e.imported(bid, tok, "scan.png", file, "")
	checkProposal(t, r, tr)
	mv, _ := r["matched_vendor"].(map[string]any)
	if mv["id"] != vendor || mv["display_name"] != "Desk & Ink" || mv["external_id"] != "dai-1" || r["proposed_vendor_external_id"] != "dai-1" {
		t.Fatalf("matched_vendor = %v, proposed_vendor_external_id = %v", mv, r["proposed_vendor_external_id"])
	}
	if p := e.receiptEvent(bid, r, "scan.png", "png"); p.MatchedVendorID == nil || p.MatchedVendorID.String() != vendor {
		t.Fatalf("receipt.parsed = %+v", p)
	}
	for _, l := range r["proposed_line_items"].([]any) {
		if stableOf(l) != "EQUIPMENT" {
			t.Errorf("line %v: want EQUIPMENT from the vendor's bills", l)
		}
	}
	done := data(e.Do(req("POST", base(bid)+"/receipts/"+r["business_document_id"].(string)+"/create-bill", tok,
		map[string]any{"bill_number": "DAI-77", "bill_terms": "NET_30"}), 200))
	b := data(e.Do(req("GET", base(bid)+"/bills/"+done["bill_id"].(string), tok, nil), 200))
	if b["total_amount"] != float64(tr.TotalCents) || b["vendor"].(map[string]any)["id"] != vendor || b["bill_number"] != "DAI-77" || b["terms"] != "NET_30" {
		t.Fatalf("bill = %v", b)
	}
}

// TestReceiptOverridesAndRejection: create-bill overrides, the 400s that
// leave the receipt ready, rejection and its 409s, FAILED receipts.
func TestReceiptOverridesAndRejection(t *testing.T) {
	e := newReceiptEnv(t, true)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	pdf := receiptpdf.Text("ACME HARDWARE", "Date: 2026-03-14", "Copy paper 12.00", "Unleaded fuel 30.00", "TOTAL 42.00")

	t.Run("overrides", func(t *testing.T) {
		e := e.with(t)
		r := e.imported(bid, tok, "a.pdf", pdf, "")
		lines := r["proposed_line_items"].([]any)
		if r["proposed_amount_cents"] != 4200.0 || len(lines) != 2 || stableOf(lines[0]) != "OFFICE_EXPENSES" || stableOf(lines[1]) != "TRAVEL" {
			t.Fatalf("receipt = %v", r)
		}
		path := base(bid) + "/receipts/" + r["business_document_id"].(string)
		n := e.billCount()
		for body, enum := range map[string]string{
			`{"line_items": [{"amount": 100}, {}, {"description": "no amount"}]}`: "InvalidReceiptBill",
			`{"vendor_id": "` + uuid.NewString() + `"}`:                           bill.EnumInvalidBill,
			`{"bill_terms": "NET_7"}`:                                             bill.EnumInvalidBill,
			`{"total": 1}`:                                                        "InvalidReceiptBill",
			`[`:                                                                   "InvalidReceiptBill",
		} {
			e.DoInvalid(req("POST", path+"/create-bill", tok, body), 400, enum)
		}
		if e.billCount() != n || data(e.Do(req("GET", path, tok, nil), 200))["status"] != "READY_FOR_BILL" {
			t.Fatal("a refused create-bill changed something")
		}
		vendor := e.create(bid, tok, map[string]any{"company_name": "Someone Else"}, 201)["id"].(string)
		done := data(e.Do(req("POST", path+"/create-bill", tok, map[string]any{
			"vendor_id": vendor, "received_at": "2026-03-20T00:00:00Z",
			"line_items": []any{map[string]any{"account_identifier": map[string]any{"type": "StableName", "stable_name": "SOFTWARE"}},
				map[string]any{"amount": 2500}},
		}), 200))
		b := data(e.Do(req("GET", base(bid)+"/bills/"+done["bill_id"].(string), tok, nil), 200))
		bl := b["line_items"].([]any)
		if b["total_amount"] != 3700.0 || b["vendor"].(map[string]any)["id"] != vendor || b["received_at"] != "2026-03-20T00:00:00Z" ||
			bl[0].(map[string]any)["account_identifier"].(map[string]any)["stable_name"] != "SOFTWARE" ||
			bl[1].(map[string]any)["account_identifier"].(map[string]any)["stable_name"] != "TRAVEL" {
			t.Fatalf("bill = %v", b)
		}
	})

	t.Run("reject", func(t *testing.T) {
		e := e.with(t)
		r := e.imported(bid, tok, "b.pdf", pdf, "")
		path := base(bid) + "/receipts/" + r["business_document_id"].(string)
		rej := data(e.Do(req("POST", path+"/reject", tok, nil), 200))
		if rej["status"] != "REJECTED" || rej["rejected_at"] == nil {
			t.Fatalf("rejected = %v", rej)
		}
		again := data(e.Do(req("POST", path+"/reject", tok, nil), 200))
		if again["rejected_at"] != rej["rejected_at"] {
			t.Fatal("a second rejection changed the receipt")
		}
		e.DoInvalid(req("POST", path+"/create-bill", tok, nil), 409, "ReceiptRejected")
		if ids := receiptIDs(e.Do(req("GET", base(bid)+"/receipts?status=REJECTED", tok, nil), 200)); len(ids) != 1 {
			t.Fatalf("REJECTED receipts: %d", len(ids))
		}
	})

	t.Run("failed: no amount", func(t *testing.T) {
		e := e.with(t)
		r := e.imported(bid, tok, "c.pdf", receiptpdf.Text("Thank you for visiting", "See you soon"), "")
		if r["status"] != "FAILED" || r["failure_reason"] == nil || r["proposed_amount_cents"] != nil {
			t.Fatalf("receipt = %v", r)
		}
		if p := e.receiptEvent(bid, r, "c.pdf", "pdf"); p.Status != "FAILED" || p.FailureReason == nil || p.ProposedAmountCents != nil {
			t.Fatalf("receipt.parsed = %+v", p)
		}
		path := base(bid) + "/receipts/" + r["business_document_id"].(string)
		e.DoInvalid(req("POST", path+"/create-bill", tok, nil), 409, "ReceiptNotReady")
		if data(e.Do(req("POST", path+"/reject", tok, nil), 200))["status"] != "REJECTED" {
			t.Fatal("a failed receipt cannot be rejected")
		}
		e.receiptEvent(bid, r, "c.pdf", "pdf") // still the one: a rejection publishes no receipt event
	})

	t.Run("failed: unreadable scan", func(t *testing.T) {
		requireOCR(t)
		e := e.with(t)
		r := e.imported(bid, tok, "blank.png", smallPNG(200, 100), "")
		if r["status"] != "FAILED" || r["failure_reason"] == nil {
			t.Fatalf("receipt = %v", r)
		}
		if p := e.receiptEvent(bid, r, "blank.png", "png"); p.Status != "FAILED" || p.FailureReason == nil || p.ProposedAmountCents != nil {
			t.Fatalf("receipt.parsed = %+v", p)
		}
	})
}

// TestReceipt4xx: every refusal of the receipt routes, each answered with
// the error object, nothing stored, no receipt written and no
// receipt.parsed published.
func TestReceipt4xx(t *testing.T) {
	e := newReceiptEnv(t, true)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	imp := base(bid) + "/receipts/import"
	pdf := receiptpdf.Text("ACME", "TOTAL 1.00")
	truncated := smallPNG(300, 300)
	truncated = truncated[:len(truncated)-30]
	big := append(smallPNG(1, 1), bytes.Repeat([]byte{0}, 10<<20)...)

	cases := []struct {
		name   string
		rq     func() any // *http.Request
		status int
		enum   string
		valid  bool // the request matches the document (validated both ways)
	}{
		{"file over 10 MiB", func() any { return importReq(bid, tok, "big.png", big, "") }, 413, "ReceiptTooLarge", true},
		{"body over the service limit", func() any {
			return importReq(bid, tok, "huge.png", append(smallPNG(1, 1), bytes.Repeat([]byte{0}, 12<<20)...), "")
		}, 413, "", false},
		{"text named .png", func() any { return importReq(bid, tok, "r.png", []byte("just some text, not an image"), "") }, 415, "UnsupportedReceiptType", true},
		{"GIF", func() any { return importReq(bid, tok, "r.gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), "") }, 415, "UnsupportedReceiptType", true},
		{"empty file", func() any { return importReq(bid, tok, "r.pdf", nil, "") }, 415, "UnsupportedReceiptType", true},
		{"JSON body", func() any { return req("POST", imp, tok, map[string]any{"file": "x"}) }, 415, "MultipartRequired", false},
		{"corrupt PNG", func() any { return importReq(bid, tok, "r.png", truncated, "") }, 400, "InvalidReceipt", true},
		{"decompression bomb", func() any { return importReq(bid, tok, "r.png", bombPNG(100000, 100000), "") }, 400, "InvalidReceipt", true},
		{"absurd dimensions", func() any { return importReq(bid, tok, "r.png", bombPNG(1, 1<<30), "") }, 400, "InvalidReceipt", true},
		{"corrupt PDF", func() any { return importReq(bid, tok, "r.pdf", []byte("%PDF-1.4\n1 0 obj garbage endobj\n%%EOF"), "") }, 400, "InvalidReceipt", true},
		{"no file part", func() any { return uploadReq(imp, tok, part{name: "context", data: []byte("x")}) }, 400, "InvalidMultipart", false},
		{"two files", func() any {
			return uploadReq(imp, tok, part{name: "file", filename: "a.pdf", data: pdf}, part{name: "file", filename: "b.pdf", data: pdf})
		}, 400, "InvalidMultipart", false},
		{"a file under another name", func() any {
			return uploadReq(imp, tok, part{name: "file", filename: "a.pdf", data: pdf}, part{name: "extra", filename: "b.pdf", data: pdf})
		}, 400, "InvalidMultipart", false},
		{"context too long", func() any { return importReq(bid, tok, "a.pdf", pdf, strings.Repeat("é", 2001)) }, 400, "InvalidReceiptContext", false},
		{"context not UTF-8", func() any { return importReq(bid, tok, "a.pdf", pdf, "\xff\xfe") }, 400, "InvalidReceiptContext", false},
		{"two contexts", func() any {
			return uploadReq(imp, tok, part{name: "file", filename: "a.pdf", data: pdf}, part{name: "context", data: []byte("a")}, part{name: "context", data: []byte("b")})
		}, 400, "InvalidReceiptContext", false},
		{"broken multipart", func() any {
			r := req("POST", imp, tok, "--nope\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nx")
			r.Header.Set("Content-Type", "multipart/form-data; boundary=other")
			return r
		}, 400, "", false},
		{"unknown receipt", func() any { return req("GET", base(bid)+"/receipts/"+uuid.NewString(), tok, nil) }, 404, "ReceiptNotFound", true},
		{"create-bill of an unknown receipt", func() any { return req("POST", base(bid)+"/receipts/"+uuid.NewString()+"/create-bill", tok, nil) }, 404, "ReceiptNotFound", true},
		{"reject an unknown receipt", func() any { return req("POST", base(bid)+"/receipts/"+uuid.NewString()+"/reject", tok, nil) }, 404, "ReceiptNotFound", true},
		{"bad receipt id", func() any { return req("GET", base(bid)+"/receipts/not-a-uuid", tok, nil) }, 400, "", false},
		{"bad status filter", func() any { return req("GET", base(bid)+"/receipts?status=DONE", tok, nil) }, 400, "InvalidFilter", true},
		{"create-bill body not JSON", func() any {
			r := req("POST", base(bid)+"/receipts/"+uuid.NewString()+"/create-bill", tok, "a=b")
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, 415, "", false},
		{"no token", func() any { return importReq(bid, "", "a.pdf", pdf, "") }, 401, "", false},
	}
	objects, rows, evts := e.storedObjects(), e.receiptCount(), e.receiptEventCount()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.with(t)
			rq := c.rq().(*httpRequest)
			var m map[string]any
			// Refused while fasthttp reads the body: only the real listener
			// answers them (app.Test returns the read error instead).
			wire := c.name == "body over the service limit" || c.name == "broken multipart"
			switch {
			case wire:
				m = e.send(rq, c.status)
			case c.valid:
				m = e.Do(rq, c.status)
				if c.enum != "" && m["error_enum"] != c.enum {
					t.Fatalf("error_enum = %v, want %s (%v)", m["error_enum"], c.enum, m)
				}
			default:
				m = e.DoInvalid(rq, c.status, c.enum)
			}
			if m["description"] == "" || m["type"] == nil {
				t.Fatalf("error object %v", m)
			}
		})
	}
	if e.storedObjects() != objects || e.receiptCount() != rows || e.receiptEventCount() != evts {
		t.Fatalf("refused imports left %d objects, %d receipts and %d receipt.parsed rows (before: %d, %d, %d)",
			e.storedObjects(), e.receiptCount(), e.receiptEventCount(), objects, rows, evts)
	}
}

// TestReceiptEventInTheInsertTransaction: receipt.parsed commits with the
// receipt or not at all. With the outbox refusing the event (a trigger),
// the import is a 500 that leaves no receipt, no event and no stored file.
func TestReceiptEventInTheInsertTransaction(t *testing.T) {
	e := newReceiptEnv(t, true)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	ctx := context.Background()
	for _, q := range []string{
		`CREATE FUNCTION refuse_receipt_event() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION 'receipt.parsed refused by the test'; END $$`,
		`CREATE TRIGGER refuse_receipt_event BEFORE INSERT ON outbox FOR EACH ROW
			WHEN (NEW.type = 'receipt.parsed') EXECUTE FUNCTION refuse_receipt_event()`,
	} {
		if _, err := e.DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	pdf := receiptpdf.Text("ACME HARDWARE", "Copy paper 12.00", "TOTAL 12.00")
	e.DoInvalid(importReq(bid, tok, "a.pdf", pdf, ""), 500, "")
	if e.receiptCount() != 0 || e.receiptEventCount() != 0 || e.storedObjects() != 0 {
		t.Fatalf("a failed publish left %d receipts, %d events, %d files", e.receiptCount(), e.receiptEventCount(), e.storedObjects())
	}
	if _, err := e.DB.ExecContext(ctx, `DROP TRIGGER refuse_receipt_event ON outbox`); err != nil {
		t.Fatal(err)
	}
	r := e.imported(bid, tok, "a.pdf", pdf, "")
	e.receiptEvent(bid, r, "a.pdf", "pdf")
	if e.receiptCount() != 1 {
		t.Fatalf("%d receipts", e.receiptCount())
	}
}

// TestReceiptsWithoutStorage: without STORAGE_DIR every receipt route is
// 503 (StorageNotConfigured; 5xx answers carry no error_enum) while the
// rest of the service works.
func TestReceiptsWithoutStorage(t *testing.T) {
	e := newReceiptEnv(t, false)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	id := uuid.NewString()
	for _, rq := range []*httpRequest{
		importReq(bid, tok, "a.pdf", receiptpdf.Text("ACME", "TOTAL 1.00"), "x"),
		req("GET", base(bid)+"/receipts", tok, nil),
		req("GET", base(bid)+"/receipts/"+id, tok, nil),
		req("POST", base(bid)+"/receipts/"+id+"/create-bill", tok, nil),
		req("POST", base(bid)+"/receipts/"+id+"/reject", tok, nil),
	} {
		m := e.Do(rq, 503)
		if m["type"] != "Unavailable" || m["description"] != "receipt storage is not configured" {
			t.Fatalf("%s %s: %v", rq.Method, rq.URL, m)
		}
	}
	e.create(bid, tok, map[string]any{"company_name": "Still works"}, 201)
}

// TestReceiptsCrossTenant: every receipt route of one business, called
// with another tenant's tokens, is 404 and changes nothing; the same
// client's other business does not see the receipt.
func TestReceiptsCrossTenant(t *testing.T) {
	e := newReceiptEnv(t, true)
	owner := e.Token("client-a")
	bid := e.business("client-a")
	mine := e.business("client-a")
	pdf := receiptpdf.Text("ACME HARDWARE", "Copy paper 12.00", "TOTAL 12.00")
	id := e.imported(bid, owner, "a.pdf", pdf, "")["business_document_id"].(string)
	b := base(bid)
	routes := func(b string) []func() *httpRequest {
		return []func() *httpRequest{
			func() *httpRequest {
				return importReq(uuid.MustParse(b[len("/v1/businesses/"):]), "", "a.pdf", pdf, "")
			},
			func() *httpRequest { return req("GET", b+"/receipts", "", nil) },
			func() *httpRequest { return req("GET", b+"/receipts/"+id, "", nil) },
			func() *httpRequest { return req("POST", b+"/receipts/"+id+"/create-bill", "", nil) },
			func() *httpRequest { return req("POST", b+"/receipts/"+id+"/reject", "", nil) },
		}
	}
	strangers := map[string]string{
		"another client's platform token":   e.Token("client-b"),
		"a business token of another one":   e.Svc.Tokens.Business(t, "client-a", mine),
		"the other client's business token": e.Svc.Tokens.Business(t, "client-b", e.business("client-b")),
		"a token of an unknown business":    e.Svc.Tokens.Business(t, "client-a", uuid.New()),
	}
	objects, rows, bills := e.storedObjects(), e.receiptCount(), e.billCount()
	for who, tok := range strangers {
		for i, mk := range routes(b) {
			rq := mk()
			rq.Header.Set("Authorization", "Bearer "+tok)
			t.Run(who+" "+rq.Method+" "+rq.URL.Path[len(b):], func(t *testing.T) {
				m := e.with(t).DoInvalid(rq, 404, "BusinessNotFound")
				if m["type"] != "NotFound" {
					t.Fatalf("route %d: %v", i, m)
				}
			})
		}
	}
	// The owner, addressing the receipt through its other business.
	other := base(mine)
	for _, mk := range routes(other)[2:] {
		rq := mk()
		rq.Header.Set("Authorization", "Bearer "+owner)
		e.DoInvalid(rq, 404, "ReceiptNotFound")
	}
	if n := len(e.Do(req("GET", other+"/receipts", owner, nil), 200)["data"].([]any)); n != 0 {
		t.Fatalf("the other business lists %d receipts", n)
	}
	if e.storedObjects() != objects || e.receiptCount() != rows || e.billCount() != bills {
		t.Fatal("a refused request wrote")
	}
	if r := data(e.Do(req("GET", b+"/receipts/"+id, owner, nil), 200)); r["status"] != "READY_FOR_BILL" {
		t.Fatalf("receipt changed: %v", r)
	}
}

// TestReceiptFieldConfidence: every answer says how sure the reading is
// of each field; a total no total line and no arithmetic confirm is
// still proposed, with a note, and kept with the receipt; a vendor
// matched to the business's own is sure.
func TestReceiptFieldConfidence(t *testing.T) {
	e := newReceiptEnv(t, true)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	conf := func(r map[string]any) map[string]any { return r["proposed_confidence"].(map[string]any) }

	sure := e.imported(bid, tok, "a.pdf", receiptpdf.Text("ACME HARDWARE", "Date: 2026-03-14", "Copy paper 12.00",
		"Unleaded fuel 30.00", "Subtotal 42.00", "Tax 3.36", "TOTAL 45.36"), "")
	if c := conf(sure); c["amount"] != 0.95 || c["paid_at"] != 0.9 || c["vendor"].(float64) <= 0 || sure["note"] != nil {
		t.Fatalf("a confirmed total: %v, note %v", c, sure["note"])
	}

	unsure := e.imported(bid, tok, "b.pdf", receiptpdf.Text("ACME HARDWARE", "something 12.00", "thanks"), "")
	note, _ := unsure["note"].(string)
	if c := conf(unsure); unsure["status"] != "READY_FOR_BILL" || unsure["proposed_amount_cents"] != 1200.0 || c["amount"] != 0.3 ||
		!strings.Contains(note, "uncertain") {
		t.Fatalf("an uncertain total: %v", unsure)
	}
	got := data(e.Do(req("GET", base(bid)+"/receipts/"+unsure["business_document_id"].(string), tok, nil), 200))
	checkReceipt(t, got)
	if got["note"] != unsure["note"] || conf(got)["amount"] != 0.3 {
		t.Fatalf("fetched: %v", got)
	}

	e.create(bid, tok, map[string]any{"company_name": "Acme Hardware"}, 201)
	matched := e.imported(bid, tok, "c.pdf", receiptpdf.Text("ACME HARDWARE", "Copy paper 12.00", "TOTAL 12.00"), "")
	if matched["matched_vendor"] == nil || conf(matched)["vendor"] != 1.0 {
		t.Fatalf("a matched vendor: %v", matched)
	}
}

// TestReceiptDateByCountry: a date the receipt leaves ambiguous (03/04)
// reads by the business's country: day first for a British business,
// month first for an American one; the currency is the one printed, else
// the business's country's.
func TestReceiptDateByCountry(t *testing.T) {
	e := newReceiptEnv(t, true)
	tok := e.Token("client-a")
	us := e.business("client-a")
	gb := e.Svc.SeedBusiness(t, "client-a", func(b *events.Business) { b.Country = "GB" })
	e.ledgerAccounts(gb, false, nil, defaultChart...)
	text := receiptpdf.Text("CORNER SHOP", "03/04/2026 10:15", "Tea 2.50", "TOTAL 2.50")
	for _, c := range []struct {
		bid            uuid.UUID
		want, currency string
	}{{us, "2026-03-04", "USD"}, {gb, "2026-04-03", "GBP"}} {
		got := e.imported(c.bid, tok, "r.pdf", text, "")
		if paid, _ := got["proposed_paid_at"].(string); !strings.HasPrefix(paid, c.want) {
			t.Fatalf("business %s: proposed_paid_at %v, want %s", c.bid, got["proposed_paid_at"], c.want)
		}
		// No currency printed: the business's country's.
		if got["proposed_currency"] != c.currency {
			t.Fatalf("business %s: proposed_currency %v, want %s", c.bid, got["proposed_currency"], c.currency)
		}
	}
	// A currency printed is the receipt's, whatever the business's.
	euro := e.imported(us, tok, "e.pdf", receiptpdf.Text("ECKLADEN", "03.04.2026", "Tee 2,50", "SUMME EUR 2,50"), "")
	if euro["proposed_currency"] != "EUR" || !strings.HasPrefix(euro["proposed_paid_at"].(string), "2026-04-03") {
		t.Fatalf("a euro receipt: %v %v", euro["proposed_currency"], euro["proposed_paid_at"])
	}
	got := data(e.Do(req("GET", base(us)+"/receipts/"+euro["business_document_id"].(string), tok, nil), 200))
	if got["proposed_currency"] != "EUR" {
		t.Fatalf("fetched: %v", got["proposed_currency"])
	}
}

// busyReader answers every read as the receipts package does when its
// readers are all taken and the queue is full.
type busyReader struct{}

func (busyReader) Extract(context.Context, []byte) (receipts.Text, error) {
	return receipts.Text{}, &receipts.Error{Kind: receipts.ErrBusy, Reason: "16 receipts are waiting to be read; try again shortly"}
}

// TestReceiptReadersBusy: an import the readers cannot take is a 503
// with Retry-After saying when to come back, and leaves nothing stored.
func TestReceiptReadersBusy(t *testing.T) {
	e := newReceiptEnv(t, true)
	tok := e.Token("client-a")
	bid := e.business("client-a")
	e.S.Receipts.UseExtractor(busyReader{})
	res, err := e.HTTP.Test(importReq(bid, tok, "r.pdf", receiptpdf.Text("SHOP", "TOTAL 1.00"), ""), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "5" || body["type"] != "Unavailable" ||
		!strings.Contains(body["description"].(string), "busy") {
		t.Fatalf("busy readers: %d, Retry-After %q, %v", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	if n := e.storedObjects(); n != 0 {
		t.Fatalf("%d objects stored by a refused import", n)
	}
}
