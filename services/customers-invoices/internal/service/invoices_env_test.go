package service

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/customers-invoices/internal/adapters/postgres"
)

// invoiceTables are the tables a refused invoicing request must leave
// alone (the customers an invoice may create and the outbox included).
var invoiceTables = []string{"invoices", "invoice_lines", "invoice_payments", "payment_allocations", "invoice_write_offs",
	"invoice_refunds", "customers", "outbox"}

// rowCounts is the number of rows of every invoiceTables table.
func (e *env) rowCounts() map[string]int {
	e.T.Helper()
	out := map[string]int{}
	for _, table := range invoiceTables {
		var n int
		if err := e.DB.NewRaw("SELECT count(*) FROM "+table).Scan(context.Background(), &n); err != nil {
			e.T.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// sameCounts fails unless the row counts are before's.
func (e *env) sameCounts(before map[string]int) {
	e.T.Helper()
	after := e.rowCounts()
	for k, v := range before {
		if after[k] != v {
			e.T.Fatalf("rows of %s: %d -> %d (a refused request wrote)", k, v, after[k])
		}
	}
}

// outboxEvent is one row of the outbox.
type outboxEvent struct {
	Seq     int64           `bun:"seq"`
	Type    string          `bun:"type"`
	Topic   string          `bun:"topic"`
	Key     string          `bun:"key"`
	Subject string          `bun:"subject"`
	Data    json.RawMessage `bun:"data"`
}

// outbox returns the business's invoicing events after seq (exclusive),
// oldest first, checking their envelope.
func (e *env) outbox(bid uuid.UUID, after int64) []outboxEvent {
	e.T.Helper()
	var rows []outboxEvent
	if err := e.DB.NewRaw("SELECT seq, type, topic, key, subject, data FROM outbox WHERE subject = ? AND seq > ? ORDER BY seq",
		bid.String(), after).Scan(context.Background(), &rows); err != nil {
		e.T.Fatalf("outbox rows: %v", err)
	}
	for _, r := range rows {
		if r.Topic != events.TopicInvoicing || r.Key != bid.String() {
			e.T.Fatalf("event envelope: topic %s key %s", r.Topic, r.Key)
		}
	}
	return rows
}

// lastSeq is the outbox's latest seq (0 when empty).
func (e *env) lastSeq() int64 {
	e.T.Helper()
	var n int64
	if err := e.DB.NewRaw("SELECT coalesce(max(seq), 0) FROM outbox").Scan(context.Background(), &n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

// ofType keeps the events of type typ.
func ofType(evs []outboxEvent, typ string) []outboxEvent {
	var out []outboxEvent
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// decode unmarshals an event's payload.
func decode[T any](t *testing.T, ev outboxEvent) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(ev.Data, &v); err != nil {
		t.Fatalf("%s payload %s: %v", ev.Type, ev.Data, err)
	}
	return v
}

// checkPosting fails unless p is a valid posting of the source (lines
// balanced, or none when wantLines is false) and returns its debits.
func checkPosting(t *testing.T, p *events.LedgerPosting, sourceType, sourceID string, version int64, wantLines bool) int64 {
	t.Helper()
	if p == nil {
		t.Fatalf("no posting, want one of %s %s", sourceType, sourceID)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("posting: %v", err)
	}
	if p.SourceType != sourceType || p.SourceID != sourceID || p.Version != version {
		t.Fatalf("posting of %s %s v%d, want %s %s v%d", p.SourceType, p.SourceID, p.Version, sourceType, sourceID, version)
	}
	if wantLines != (len(p.Lines) > 0) {
		t.Fatalf("posting %s %s v%d has %d lines, want lines: %v", sourceType, sourceID, version, len(p.Lines), wantLines)
	}
	var debits int64
	for _, l := range p.Lines {
		if l.Direction == "DEBIT" {
			debits += l.Amount
		}
	}
	return debits
}

// lineOf returns the posting's amount on the account named by stable name
// (or tax name) in direction dir, summed.
func lineOf(p *events.LedgerPosting, account, dir string) int64 {
	var n int64
	for _, l := range p.Lines {
		if (l.Account.StableName == account || l.Account.Name == account || (l.Account.ID != nil && l.Account.ID.String() == account)) && l.Direction == dir {
			n += l.Amount
		}
	}
	return n
}

// invoicing is a business with its token and helpers for its invoices.
type invoicing struct {
	*env
	bid uuid.UUID
	tok string
}

func newInvoicing(t *testing.T) *invoicing {
	t.Helper()
	e := newEnv(t)
	return &invoicing{env: e, bid: e.Business("client-a"), tok: e.Token("client-a")}
}

// with is iv reporting to t.
func (iv *invoicing) with(t *testing.T) *invoicing {
	return &invoicing{env: iv.env.with(t), bid: iv.bid, tok: iv.tok}
}

func (iv *invoicing) path(format string, args ...any) string {
	return base(iv.bid) + fmt.Sprintf(format, args...)
}

// create posts an invoice and returns the answer's data.
func (iv *invoicing) create(body map[string]any, want int) map[string]any {
	iv.T.Helper()
	return data(iv.Do(req("POST", iv.path("/invoices"), iv.tok, body), want))
}

// get reads an invoice.
func (iv *invoicing) get(id string) map[string]any {
	iv.T.Helper()
	return data(iv.Do(req("GET", iv.path("/invoices/%s", id), iv.tok, nil), 200))
}

// pay records a payment over several invoices.
func (iv *invoicing) pay(body map[string]any, want int) map[string]any {
	iv.T.Helper()
	return data(iv.Do(req("POST", iv.path("/invoices/payments"), iv.tok, body), want))
}

// writeOff writes off part of an invoice.
func (iv *invoicing) writeOff(id string, body map[string]any, want int) map[string]any {
	iv.T.Helper()
	return data(iv.Do(req("POST", iv.path("/invoices/%s/write-off", id), iv.tok, body), want))
}

// simple is the body of a one-line invoice of amount cents for customer
// external id cust.
func simple(cust string, amount int) map[string]any {
	return map[string]any{
		"customer_external_id": cust, "sent_at": "2026-03-01T10:00:00Z",
		"line_items": []any{map[string]any{"product": "Service", "unit_price": amount, "quantity": "1"}},
	}
}

// with returns body with the extra properties.
func with(body map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// num reads a JSON number as an int64.
func num(t *testing.T, v any) int64 {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%#v is not a number", v)
	}
	return int64(f)
}

// amounts checks the invoice's amount fields.
func amounts(t *testing.T, inv map[string]any, want map[string]int64) {
	t.Helper()
	for k, v := range want {
		if got := num(t, inv[k]); got != v {
			t.Errorf("%s = %d, want %d", k, got, v)
		}
	}
}

// invoiceKeys are the keys of every invoice body.
var invoiceKeys = []string{"type", "id", "business_id", "external_id", "status", "sent_at", "due_at", "paid_at", "voided_at",
	"invoice_number", "recipient_name", "customer_id", "customer", "line_items", "subtotal", "additional_discount",
	"total_discount", "additional_sales_taxes_total", "additional_sales_taxes", "sales_taxes_total", "total_tax", "tips",
	"total_amount", "outstanding_balance", "memo", "custom_payment_instructions", "payment_allocations",
	"refund_allocations", "total_refunded", "payment_methods", "write_offs", "imported_at", "updated_at", "transaction_tags", "metadata", "reference_number"}

// checkInvoiceShape fails unless inv has exactly the invoice keys (the
// document's additionalProperties: false checks the rest).
func checkInvoiceShape(t *testing.T, inv map[string]any) {
	t.Helper()
	for _, k := range invoiceKeys {
		if _, ok := inv[k]; !ok {
			t.Errorf("invoice lacks %q", k)
		}
	}
	if len(inv) != len(invoiceKeys) || inv["type"] != "Invoice" {
		t.Errorf("invoice has %d keys (want %d), type %v", len(inv), len(invoiceKeys), inv["type"])
	}
}

func list(v any) []any { return v.([]any) }

func obj(v any) map[string]any { return v.(map[string]any) }

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// equalJSON compares two decoded JSON values.
func equalJSON(a, b any) bool { return reflect.DeepEqual(a, b) }

// ledgerAccounts records accounts of the business's chart as the
// acct.accounts.v1 consumer does (each a live revenue account named after
// its index unless archived), and returns their ids.
func (iv *invoicing) ledgerAccounts(archived bool, ids ...uuid.UUID) []uuid.UUID {
	iv.T.Helper()
	p := events.LedgerAccountsUpserted{BusinessID: iv.bid}
	for i, id := range ids {
		p.Accounts = append(p.Accounts, events.LedgerAccountSnapshot{ID: id, Name: fmt.Sprintf("Account %d", i),
			AccountType: "REVENUE", Archived: archived, UpdatedAt: time.Now().UTC()})
	}
	evt, err := events.New(events.TopicAccounts, events.TypeLedgerAccountsUpserted, "acct/transactions", iv.bid, p)
	if err != nil {
		iv.T.Fatal(err)
	}
	if err := chart.Apply(context.Background(), iv.DB, postgres.New(iv.DB), evt); err != nil {
		iv.T.Fatal(err)
	}
	return ids
}
