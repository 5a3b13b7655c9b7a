package stacktest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/webhooksig"
	"github.com/acctsuite/acct/tools/internal/stack"
)

func receivedBy(t *testing.T, base string) stack.EchoReceived {
	t.Helper()
	r, err := stack.Received(context.Background(), base)
	if err != nil {
		t.Fatalf("receiver: %v", err)
	}
	return r
}

// A platform subscribes a receiver (bin/webhook-echo, checking every
// signature with the endpoint's secret) to all its events, then creates a
// business, a customer, an invoice and a payment through the gateway: the
// receiver gets Business.created, Customer.created, Invoice.created and
// InvoicePayment.created naming each entity, in that order (one business's
// events go in order), and the JournalEntry.posted of the ledger, every
// one signed, with the business's external id. A business token cannot
// reach the endpoints API (403) and another platform cannot see the
// endpoint (404).
func TestWebhooksThroughTheSuite(t *testing.T) {
	// A platform of its own, so that its endpoint hears this test's
	// business only.
	id, secret := secondClient(t)
	tok := tokenFor(t, id, secret)
	addr := fmt.Sprintf("127.0.0.1:%d", stack.FreePort())

	r := jsonCall(t, http.MethodPost, "/v1/webhooks/endpoints", tok, map[string]any{"url": "http://" + addr + "/hooks", "description": "stacktest"})
	if r.status != http.StatusCreated {
		t.Fatalf("create endpoint: %d %s", r.status, r.body)
	}
	ep, _ := r.json["data"].(map[string]any)
	endpoint, _ := ep["id"].(string)
	whsec, _ := ep["secret"].(string)
	if endpoint == "" || !strings.HasPrefix(whsec, "whsec_") || ep["ordering"] != "business" {
		t.Fatalf("created endpoint: %s", r.body)
	}
	t.Cleanup(func() { call(t, http.MethodDelete, "/v1/webhooks/endpoints/"+endpoint, tok, "", nil, false) })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := "webhook-echo-" + uuid.NewString()[:8]
	recv, err := st.StartReceiver(ctx, name, addr, "-secret", whsec, "-quiet")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { recv.Stop(5 * time.Second) })
	base := st.ProcURLs[name]

	// The receiver does check signatures: a delivery signed with another
	// secret is refused.
	other, err := webhooksig.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := http.NewRequest(http.MethodPost, base+"/hooks", strings.NewReader(`{"type":"Customer.created"}`))
	now := time.Now()
	forged.Header.Set(webhooksig.HeaderID, "forged")
	forged.Header.Set(webhooksig.HeaderTimestamp, fmt.Sprint(now.Unix()))
	sig, _ := webhooksig.SignatureHeader([]string{other}, "forged", now, []byte(`{"type":"Customer.created"}`))
	forged.Header.Set(webhooksig.HeaderSignature, sig)
	if resp, err := http.DefaultClient.Do(forged); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a forged delivery: %v %v, want 401", err, resp)
	} else {
		resp.Body.Close()
	}

	ext := "hooks-" + uuid.NewString()[:8]
	biz := createBusiness(t, tok, ext)
	bpath := "/v1/businesses/" + biz
	var cust string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		// The business reaches customers-invoices through acct.business.v1.
		r := jsonCall(t, http.MethodPost, bpath+"/customers", tok, map[string]any{"external_id": ext + "-cust", "company_name": "Hook Customer"})
		if r.status == http.StatusCreated {
			cust = r.json["data"].(map[string]any)["id"].(string)
			break
		}
		if r.status != http.StatusNotFound || time.Now().After(deadline) {
			t.Fatalf("create customer: %d %s", r.status, r.body)
		}
	}
	r = jsonCall(t, http.MethodPost, bpath+"/invoices", tok, map[string]any{"external_id": ext + "-inv", "sent_at": "2026-03-01T10:00:00Z",
		"customer_id": cust, "line_items": []map[string]any{{"product": "Service", "unit_price": 10000, "quantity": "1"}}})
	if r.status != http.StatusCreated {
		t.Fatalf("create invoice: %d %s", r.status, r.body)
	}
	inv := r.json["data"].(map[string]any)["id"].(string)
	r = jsonCall(t, http.MethodPost, bpath+"/invoices/"+inv+"/payment", tok, map[string]any{"amount": 4000, "method": "ACH", "paid_at": "2026-03-02T00:00:00Z"})
	if r.status != http.StatusCreated {
		t.Fatalf("record payment: %d %s", r.status, r.body)
	}
	pay := r.json["data"].(map[string]any)["id"].(string)

	want := []struct{ typ, entity string }{
		{"Business.created", biz}, {"Customer.created", cust}, {"Invoice.created", inv}, {"InvoicePayment.created", pay},
		{"JournalEntry.posted", ""}, // the invoice's entry: its id is the ledger's
	}
	var got stack.EchoReceived
	pos := map[string]int{}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		got = receivedBy(t, base)
		clear(pos)
		for i, d := range got.Deliveries {
			k := d.Type + " " + d.EntityID
			if _, seen := pos[k]; !seen {
				pos[k] = i
			}
			if _, seen := pos[d.Type]; !seen {
				pos[d.Type] = i
			}
		}
		all := true
		for _, w := range want {
			if _, ok := pos[strings.TrimSpace(w.typ+" "+w.entity)]; !ok {
				all = false
			}
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 90 s the receiver has %+v, want %v", got, want)
		}
	}
	if got.Rejected != 1 {
		t.Errorf("the receiver refused %d deliveries, want only the forged one: a delivery of the suite did not verify", got.Rejected)
	}
	for _, d := range got.Deliveries {
		if d.BusinessID != biz || d.BusinessExternalID != ext {
			t.Errorf("delivery %s %s: business %s (%q), want %s (%q)", d.ID, d.Type, d.BusinessID, d.BusinessExternalID, biz, ext)
		}
		if _, err := uuid.Parse(d.ID); err != nil {
			t.Errorf("delivery %s %s: webhook-id is not a UUID", d.ID, d.Type)
		}
	}
	// One business's events arrive in the order they happened.
	order := []int{pos["Business.created "+biz], pos["Customer.created "+cust], pos["Invoice.created "+inv], pos["InvoicePayment.created "+pay]}
	if !slices.IsSorted(order) {
		t.Errorf("arrival positions %v of Business, Customer, Invoice, InvoicePayment .created: out of order in %+v", order, got.Deliveries)
	}

	t.Logf("%d webhook-ids (%d deliveries, %d duplicates) reached the receiver; arrival positions of Business, Customer, Invoice, InvoicePayment .created: %v",
		len(got.Deliveries), got.Count, got.Duplicates, order)

	// The endpoint's deliveries show them delivered, once their outcomes
	// are recorded (the dispatcher writes them in batches, shortly after
	// the receiver answered).
	deadline := time.Now().Add(30 * time.Second)
	for {
		r = jsonCall(t, http.MethodGet, "/v1/webhooks/endpoints/"+endpoint+"/deliveries?status=delivered&limit=200", tok, nil)
		if r.status != http.StatusOK {
			t.Fatalf("deliveries: %d %s", r.status, r.body)
		}
		delivered := map[string]bool{}
		for _, it := range r.json["data"].([]any) {
			d := it.(map[string]any)
			delivered[d["event_type"].(string)] = true
			if d["status"] != "delivered" || d["attempt_count"].(float64) < 1 {
				t.Fatalf("delivery %v", d)
			}
		}
		var missing []string
		for _, w := range want {
			if !delivered[w.typ] {
				missing = append(missing, w.typ)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s no %v in the endpoint's delivered deliveries: %s", missing, r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// A business token is refused by the gateway; another platform does
	// not see the endpoint.
	bt := businessToken(t, tok, biz)
	expectError(t, jsonCall(t, http.MethodGet, "/v1/webhooks/endpoints", bt, nil), http.StatusForbidden, "Forbidden")
	expectError(t, jsonCall(t, http.MethodPost, "/v1/webhooks/endpoints", bt, map[string]any{"url": "http://" + addr + "/x"}), http.StatusForbidden, "Forbidden")
	demo := platformToken(t)
	expectError(t, jsonCall(t, http.MethodGet, "/v1/webhooks/endpoints/"+endpoint, demo, nil), http.StatusNotFound, "NotFound")
	expectError(t, jsonCall(t, http.MethodGet, "/v1/webhooks/endpoints/"+endpoint+"/deliveries", demo, nil), http.StatusNotFound, "NotFound")
	list := jsonCall(t, http.MethodGet, "/v1/webhooks/endpoints?limit=100", demo, nil)
	if list.status != http.StatusOK || strings.Contains(string(list.body), endpoint) {
		t.Errorf("another platform's listing: %d %s", list.status, list.body)
	}
}
