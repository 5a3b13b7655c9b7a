package service

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/tagreg"
)

// TestEveryEntityTypeIsSupported: no entity type of POST /tags is refused
// as unsupported any more: each reaches its owner (here the bills, bill
// payments, and fakes of the transactions and customers-invoices services
// that know no such id), whose 404 is the answer.
func TestEveryEntityTypeIsSupported(t *testing.T) {
	notFound := `{"type":"NotFound","description":"not found","error_enum":"NotFound","meta":{}}`
	txns, invs := &fakeTransactions{}, &fakeTransactions{}
	txns.set(404, notFound, 0)
	invs.set(404, notFound, 0)
	ts, is := httptest.NewServer(txns), httptest.NewServer(invs)
	t.Cleanup(ts.Close)
	t.Cleanup(is.Close)
	e := newEnvWith(t, map[string]string{"TRANSACTIONS_URL": ts.URL, "CUSTOMERS_INVOICES_URL": is.URL})
	tok := e.Token("client-a")
	bid := e.business("client-a")
	for _, typ := range []tagreg.EntityType{tagreg.BankTransaction, tagreg.Invoice, tagreg.InvoicePayment, tagreg.Bill, tagreg.BillPayment} {
		m := e.DoInvalid(req("POST", base(bid)+"/tags", tok, map[string]any{
			"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_ids": []any{uuid.NewString()}, "entity_type": string(typ),
		}), 404, "")
		if m["error_enum"] == tagreg.EnumUnsupportedEntityType {
			t.Fatalf("%s: %v", typ, m)
		}
	}
	if len(txns.paths) != 1 || len(invs.paths) != 2 {
		t.Fatalf("calls: transactions %v, customers-invoices %v", txns.paths, invs.paths)
	}
	if got := e.dimensions(bid, tok, ""); len(got) != 0 {
		t.Fatalf("a refused tagging taught the registry: %v", got)
	}
}

// TestTagInvoicesThroughPostTags: POST /tags with entity_type INVOICE or
// INVOICE_PAYMENT calls the customers-invoices service (a fake here) with
// the caller's token, request id and trace context, and answers its tags;
// its refusals become ours with its field names ours; its failures and
// silence are 503.
func TestTagInvoicesThroughPostTags(t *testing.T) {
	fake := &fakeTransactions{}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	e := newEnvWith(t, map[string]string{"CUSTOMERS_INVOICES_URL": srv.URL, "CUSTOMERS_INVOICES_TIMEOUT": "1s"})
	tok := e.Token("client-a")
	bid := e.business("client-a")
	for _, c := range []struct {
		typ, route, idsField, answerType string
	}{
		{"INVOICE", "/invoices/tags", "invoice_ids", "Invoice_Tags"},
		{"INVOICE_PAYMENT", "/invoices/payments/tags", "payment_ids", "Invoice_Payment_Tags"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			e := e.with(t)
			fake.mu.Lock()
			fake.auth, fake.paths, fake.bodies, fake.headers = nil, nil, nil, nil
			fake.mu.Unlock()
			entity := uuid.New()
			key := strings.ToLower(c.typ)
			tag := tags.NewTag(bid, entity, tags.KeyValue{Key: key, Value: "west"}, time.Now().UTC().Truncate(time.Microsecond))
			tagJSON, _ := json.Marshal([]tags.Tag{tag})
			fake.set(200, `{"data":{"type":"`+c.answerType+`","tags":`+string(tagJSON)+`},"tags":`+string(tagJSON)+`}`, 0)
			body := map[string]any{
				"key_values": []any{map[string]any{"key": " " + key + " ", "value": "west", "value_display_name": "West"}},
				"entity_ids": []any{entity.String(), entity.String()}, "entity_type": c.typ,
			}
			rq := req("POST", base(bid)+"/tags", tok, body)
			rq.Header.Set("X-Request-Id", "req-"+key)
			const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
			rq.Header.Set("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
			ans := e.Do(rq, 200)
			if got := ans["tags"].([]any); len(got) != 1 || got[0].(map[string]any)["id"] != tag.ID.String() {
				t.Fatalf("answer = %v", ans)
			}
			// What the owner got: the caller's token, request id and trace, its
			// route, the normalised tags and the ids (once each).
			if len(fake.auth) != 1 || fake.auth[0] != "Bearer "+tok {
				t.Fatalf("forwarded Authorization = %v", fake.auth)
			}
			if want := "POST /v1/businesses/" + bid.String() + c.route + " application/json"; fake.paths[0] != want {
				t.Fatalf("call = %q, want %q", fake.paths[0], want)
			}
			h := fake.headers[0]
			if h.Get("X-Request-Id") != "req-"+key || !strings.Contains(h.Get("traceparent"), traceID) {
				t.Fatalf("forwarded request id %q, traceparent %q", h.Get("X-Request-Id"), h.Get("traceparent"))
			}
			sent := fake.bodies[0]
			kv := sent["key_values"].([]any)[0].(map[string]any)
			if ids, _ := sent[c.idsField].([]any); len(ids) != 1 || ids[0] != entity.String() || kv["key"] != key || kv["value_display_name"] != "West" || len(sent) != 2 {
				t.Fatalf("sent = %v", sent)
			}
			if v := values(e.dimensions(bid, tok, "")[key])["west"]; v == nil || v["display_name"] != "West" {
				t.Fatalf("registry = %v", e.dimensions(bid, tok, ""))
			}

			// The owner's refusals become ours, its field names ours too.
			fake.set(404, `{"type":"NotFound","description":"invoice not found","error_enum":"InvoiceNotFound","meta":{"field":"`+c.idsField+`","invoice_id":"`+entity.String()+`"}}`, 0)
			m := e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 404, "InvoiceNotFound")
			if meta := m["meta"].(map[string]any); meta["field"] != "entity_ids" || meta["entity_id"] != entity.String() || m["description"] != "invoice not found" {
				t.Fatalf("404 = %v", m)
			}
			fake.set(400, `{"type":"InvalidPayload","description":"`+c.idsField+`: must hold 1 to 500 ids","error_enum":"InvalidPayload","meta":{"fields":{"`+c.idsField+`":"must hold 1 to 500 ids"}}}`, 0)
			m = e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 400, "InvalidPayload")
			if _, ok := fieldsOf(m)["entity_ids"]; !ok || strings.Contains(m["description"].(string), c.idsField) {
				t.Fatalf("400 = %v", m)
			}
			fake.set(401, `{"type":"Unauthenticated","description":"token expired"}`, 0)
			e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 401, "")
			fake.set(403, `not json`, 0)
			e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 403, "")
			// Its failures, and no answer in time, are 503.
			fake.set(500, `{"type":"Internal","description":"internal error"}`, 0)
			if m := e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 503, ""); !strings.Contains(m["description"].(string), "customers-invoices") {
				t.Fatalf("503 = %v", m)
			}
			fake.set(200, `not json`, 0)
			e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 503, "")
			fake.set(200, `{"data":{}}`, 0)
			e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 503, "")
			fake.set(200, `{}`, 1500*time.Millisecond)
			start := time.Now()
			e.DoInvalid(req("POST", base(bid)+"/tags", tok, body), 503, "")
			if d := time.Since(start); d > 1400*time.Millisecond+time.Second {
				t.Fatalf("the timeout took %s", d)
			}
		})
	}
	srv.Close()
	e.DoInvalid(req("POST", base(bid)+"/tags", tok, map[string]any{
		"key_values": []any{map[string]any{"key": "k", "value": "v"}}, "entity_ids": []any{uuid.NewString()}, "entity_type": "INVOICE",
	}), 503, "")
}
