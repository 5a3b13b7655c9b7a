package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/acctsuite/acct/tools/internal/stack"
)

// Each platform client subscribes one webhook endpoint, for every event
// type and every business of the platform, to a receiver of its own
// (bin/webhook-echo) that verifies every signature with the endpoint's
// secret and records every delivery in a file next to the write log, so
// that its record survives the receiver's downtime. At the end every
// acknowledged write must have produced a delivery naming its entity.

// receiver is one platform client's webhook receiver.
type receiver struct {
	client   int
	name     string // its process in the stack
	endpoint string // the endpoint's id
	record   string // the file it records deliveries in
}

// subscribe creates client ci's endpoint, then starts its receiver with
// the endpoint's secret. Deliveries that come before the receiver listens
// are retried.
func subscribe(ctx context.Context, st *stack.Stack, c *api, ci int, runID string, cfg Config) (receiver, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", stack.FreePort())
	rc := receiver{client: ci, name: fmt.Sprintf("webhook-echo-%d", ci), record: fmt.Sprintf("%s.webhooks-%d.jsonl", cfg.LogPath, ci)}
	body, _ := json.Marshal(map[string]any{"url": "http://" + addr + "/soak", "description": fmt.Sprintf("soak platform %d", ci)})
	r, _, err := c.write(ctx, http.MethodPost, "/v1/webhooks/endpoints", "application/json", body,
		fmt.Sprintf("soak-endpoint-%s-%d", runID, ci), cfg.UnknownBound)
	if err != nil || r.status != http.StatusCreated {
		return rc, fmt.Errorf("create the webhook endpoint of client %d: %v %d %s", ci, err, r.status, truncate(r.body))
	}
	rc.endpoint = str(r.data(), "id")
	secret := str(r.data(), "secret")
	if rc.endpoint == "" || !strings.HasPrefix(secret, "whsec_") {
		return rc, fmt.Errorf("webhook endpoint of client %d: no id or secret in %s", ci, truncate(r.body))
	}
	if _, err := st.StartReceiver(ctx, rc.name, addr, "-secret", secret, "-quiet", "-record", rc.record, "-max-ids", "5000000"); err != nil {
		return rc, err
	}
	return rc, nil
}

// webhookWant is a delivery an acknowledged write must have produced.
type webhookWant struct {
	typ, entity, business string
	client                int
}

// expectedWebhooks lists, from the model of acknowledged writes, the
// deliveries each business's writes must have produced: every entity it
// created (the business and its vehicle included) its Entity.created, and
// every entity a later acknowledged write changed its Entity.updated
// (bank transactions categorized, split or PATCHed, invoices paid or
// written off, bills paid or credited).
func expectedWebhooks(b *business) []webhookWant {
	var out []webhookWant
	add := func(typ, id string) {
		out = append(out, webhookWant{typ: typ, entity: id, business: b.id, client: b.clientIdx})
	}
	add("Business.created", b.id)
	if b.vehicleID != "" {
		add("Vehicle.created", b.vehicleID)
	}
	for _, id := range sortedKeys(b.bankTxns) {
		add("BankTransaction.created", id)
		if b.bankTxns[id].updated {
			add("BankTransaction.updated", id)
		}
	}
	for _, id := range sortedKeys(b.customers) {
		add("Customer.created", id)
	}
	for _, id := range sortedKeys(b.invoices) {
		add("Invoice.created", id)
		if inv := b.invoices[id]; inv.open != inv.total {
			add("Invoice.updated", id)
		}
	}
	for _, id := range sortedKeys(b.payments) {
		add("InvoicePayment.created", id)
	}
	for _, id := range sortedKeys(b.writeOffs) {
		add("InvoiceWriteOff.created", id)
	}
	for _, id := range sortedKeys(b.bills) {
		add("Bill.created", id)
		if bill := b.bills[id]; bill.open != bill.total {
			add("Bill.updated", id)
		}
	}
	for _, id := range sortedKeys(b.billPayments) {
		add("BillPayment.created", id)
	}
	for _, id := range sortedKeys(b.credits) {
		add("VendorCredit.created", id)
	}
	for _, id := range sortedKeys(b.trips) {
		add("Trip.created", id)
	}
	return out
}

// WebhookStats is what the final check found of the webhooks.
type WebhookStats struct {
	Receivers int `json:"receivers"`
	// Expected is how many (type, entity) deliveries the acknowledged
	// writes must have produced, by type in ExpectedByType.
	Expected       int            `json:"expected"`
	ExpectedByType map[string]int `json:"expected_by_type"`
	// Received is the distinct webhook-ids the receivers accepted (every
	// type, JournalEntry.posted and GeneralLedgerAccount.* included);
	// Deliveries counts the accepted requests, retries included.
	Received   int `json:"received"`
	Deliveries int `json:"deliveries"`
	// Missing expected deliveries (violations).
	Missing int `json:"missing"`
	// Duplicates are deliveries of a webhook-id already accepted: at least
	// once allows them.
	Duplicates int `json:"duplicates"`
	// Rejected deliveries failed the receiver's signature check (violations).
	Rejected int `json:"rejected"`
	// CreatedTwice counts entities whose Entity.created came under two
	// webhook-ids: the same creation announced twice (violations).
	CreatedTwice int `json:"created_twice"`
	// Foreign counts deliveries of a business that is not the receiving
	// platform's (violations).
	Foreign int `json:"foreign"`
	// Waited is how long the check waited for the missing ones to arrive.
	Waited Duration `json:"waited"`
}

// checkWebhooks waits up to bound for every expected delivery to reach
// its platform's receiver (found at urls[name], the stack's ProcURLs),
// then checks what they received.
func checkWebhooks(ctx context.Context, urls map[string]string, receivers []receiver, bs []*business, bound time.Duration) (WebhookStats, []string) {
	ws := WebhookStats{Receivers: len(receivers), ExpectedByType: map[string]int{}}
	var want []webhookWant
	owner := map[string]int{} // business id → client
	for _, b := range bs {
		want = append(want, expectedWebhooks(b)...)
		owner[b.id] = b.clientIdx
	}
	for _, w := range want {
		ws.ExpectedByType[w.typ]++
	}
	ws.Expected = len(want)

	start := time.Now()
	var (
		got       map[int]stack.EchoReceived
		missing   []webhookWant
		fetchErrs []string
	)
	for {
		got, fetchErrs, missing = map[int]stack.EchoReceived{}, nil, nil
		for _, rc := range receivers {
			r, err := stack.Received(ctx, urls[rc.name])
			if err != nil {
				fetchErrs = append(fetchErrs, fmt.Sprintf("webhook receiver of client %d: %v", rc.client, err))
				continue
			}
			got[rc.client] = r
		}
		seen := map[[3]string]bool{}
		for client, r := range got {
			for _, d := range r.Deliveries {
				seen[[3]string{fmt.Sprint(client), d.Type, d.EntityID}] = true
			}
		}
		for _, w := range want {
			if !seen[[3]string{fmt.Sprint(w.client), w.typ, w.entity}] {
				missing = append(missing, w)
			}
		}
		if len(missing) == 0 && len(fetchErrs) == 0 || time.Since(start) > bound || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Second)
	}
	ws.Waited = Duration(time.Since(start))

	var violations []string
	violations = append(violations, fetchErrs...)
	ws.Missing = len(missing)
	for i, w := range missing {
		if i == 20 {
			violations = append(violations, fmt.Sprintf("MISSING webhooks: %d more", len(missing)-20))
			break
		}
		violations = append(violations, fmt.Sprintf("MISSING webhook %s for %s of business %s (client %d): no delivery within %s",
			w.typ, w.entity, w.business, w.client, bound))
	}
	clients := make([]int, 0, len(got))
	for c := range got {
		clients = append(clients, c)
	}
	sort.Ints(clients)
	for _, client := range clients {
		r := got[client]
		ws.Received += len(r.Deliveries)
		ws.Deliveries += r.Count
		ws.Duplicates += r.Duplicates
		ws.Rejected += r.Rejected
		if r.Rejected > 0 {
			violations = append(violations, fmt.Sprintf("webhook receiver of client %d refused %d deliveries whose signature did not verify", client, r.Rejected))
		}
		created := map[string][]string{} // type/entity → webhook-ids
		for _, d := range r.Deliveries {
			if c, ok := owner[d.BusinessID]; d.BusinessID != "" && (!ok || c != client) {
				ws.Foreign++
				violations = append(violations, fmt.Sprintf("FOREIGN webhook %s %s (%s) reached client %d: business %s is not its own", d.ID, d.Type, d.EntityID, client, d.BusinessID))
			}
			if strings.HasSuffix(d.Type, ".created") {
				k := d.Type + "/" + d.EntityID
				created[k] = append(created[k], d.ID)
			}
		}
		for _, k := range sortedKeys(created) {
			if ids := created[k]; len(ids) > 1 {
				ws.CreatedTwice++
				violations = append(violations, fmt.Sprintf("DUPLICATE webhook: %s announced under %d webhook-ids %v (client %d)", k, len(ids), ids, client))
			}
		}
	}
	return ws, violations
}
