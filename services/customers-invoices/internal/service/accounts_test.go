package service

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/pkg/chart"
	"github.com/acctsuite/acct/pkg/events"
)

// TestInvoiceAccountsAreChecked: an account an invoice, a patch or a
// write-off names explicitly must be a live account of the business's
// chart as the ledger publishes it (acct.accounts.v1): unknown or archived
// is a 400 UnknownAccount that writes nothing; before the chart has
// arrived, a 503 Unavailable (Retry-After: 1); the defaults (SALES, BAD_DEBT, tax
// names) need no chart.
func TestInvoiceAccountsAreChecked(t *testing.T) {
	iv := newInvoicing(t)
	line := func(ref map[string]any) map[string]any {
		return with(simple("crm-a", 1000), "line_items", []any{map[string]any{"product": "P", "unit_price": 1000, "quantity": 1,
			"account_identifier": ref}})
	}
	byID := func(id uuid.UUID) map[string]any { return map[string]any{"type": "AccountId", "id": id.String()} }

	// No chart yet: the defaults work, a named account cannot be checked.
	iv.create(simple("crm-a", 1000), 201)
	before := iv.rowCounts()
	// A 5xx carries no error_enum (the spec): the type and description say it.
	r := iv.DoInvalid(req("POST", iv.path("/invoices"), iv.tok, line(byID(uuid.New()))), 503, "")
	if r["type"] != "Unavailable" || r["description"] != "the business's chart of accounts has not reached this service yet; retry shortly" {
		t.Fatalf("error = %v", r)
	}
	iv.sameCounts(before)

	live := iv.ledgerAccounts(false, uuid.New())[0]
	archived := iv.ledgerAccounts(true, uuid.New())[0]
	named := "CONSULTING_REVENUE"
	p := events.LedgerAccountsUpserted{BusinessID: iv.bid, Accounts: []events.LedgerAccountSnapshot{{
		ID: uuid.New(), StableName: &named, Name: "Consulting", AccountType: "REVENUE", UpdatedAt: time.Now().UTC()}}}
	evt, err := events.New(events.TopicAccounts, events.TypeLedgerAccountsUpserted, "acct/transactions", iv.bid, p)
	if err != nil {
		t.Fatal(err)
	}
	// Through the broker, as the transactions service publishes it.
	w := &kafka.Writer{Addr: kafka.TCP(iv.Svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	if err := w.WriteMessages(context.Background(), events.ToMessage(evt)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := iv.DB.NewRaw("SELECT count(*) FROM ledger_accounts WHERE business_id = ? AND stable_name = ?", iv.bid, named).Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the accounts event never reached the projection")
		}
		time.Sleep(50 * time.Millisecond)
	}

	iv.create(line(byID(live)), 201)
	iv.create(line(map[string]any{"type": "StableName", "stable_name": named}), 201)
	for name, ref := range map[string]map[string]any{
		"unknown id":          byID(uuid.New()),
		"archived account":    byID(archived),
		"unknown stable name": {"type": "StableName", "stable_name": "NO_SUCH_ACCOUNT"},
	} {
		before := iv.rowCounts()
		m := iv.DoInvalid(req("POST", iv.path("/invoices"), iv.tok, line(ref)), 400, chart.EnumUnknownAccount)
		if f, _ := m["meta"].(map[string]any)["fields"].(map[string]any); f["line_items[0].account_identifier"] == nil {
			t.Errorf("%s: error = %v", name, m)
		}
		iv.sameCounts(before)
	}
	// A tax account and a patch are checked too.
	tax := with(simple("crm-a", 1000), "additional_sales_taxes", []any{map[string]any{
		"tax_account": byID(uuid.New()), "amount": 10}})
	iv.DoInvalid(req("POST", iv.path("/invoices"), iv.tok, tax), 400, chart.EnumUnknownAccount)
	inv := iv.create(simple("crm-a", 1000), 201)
	iv.DoInvalid(req("PATCH", iv.path("/invoices/%s", inv["id"]), iv.tok, map[string]any{
		"line_items": []any{map[string]any{"product": "P", "unit_price": 5, "account_identifier": byID(uuid.New())}}}), 400, chart.EnumUnknownAccount)
	// A write-off's destination.
	iv.DoInvalid(req("POST", iv.path("/invoices/%s/write-off", inv["id"]), iv.tok, map[string]any{
		"amount": 100, "destination_ledger_account": byID(archived)}), 400, chart.EnumUnknownAccount)
	if got := iv.get(inv["id"].(string)); num(t, got["outstanding_balance"]) != 1000 {
		t.Fatalf("a refused write-off changed the invoice: %v", got)
	}
}
