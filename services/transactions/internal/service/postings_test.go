package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/segmentio/kafka-go"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/transactions/internal/app"
)

func stableLine(name, direction string, amount int64, kvs ...tags.KeyValue) events.PostingLine {
	return events.PostingLine{Account: events.PostingAccount{Type: events.PostingStableName, StableName: name},
		Direction: direction, Amount: amount, Tags: kvs}
}

func taxLine(name string, amount int64) events.PostingLine {
	return events.PostingLine{Account: events.PostingAccount{Type: events.PostingTaxName, Name: name}, Direction: "CREDIT", Amount: amount}
}

// invoicePosting is version v of an invoice of total cents: A/R against
// SALES and, when tax > 0, the CA_STATE tax account.
func invoicePosting(id string, v, total, tax int64) events.LedgerPosting {
	p := events.LedgerPosting{SourceType: "INVOICE", SourceID: id, Version: v, EntryType: "INVOICE",
		EntryAt: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		Lines: []events.PostingLine{
			stableLine("ACCOUNTS_RECEIVABLE", "DEBIT", total, tags.KeyValue{Key: "dept", Value: "retail"}),
			stableLine("SALES", "CREDIT", total-tax, tags.KeyValue{Key: "dept", Value: "retail"}),
		}}
	if tax > 0 {
		p.Lines = append(p.Lines, taxLine("ca state", tax))
	}
	return p
}

func (e *env) apply(bid uuid.UUID, p events.LedgerPosting) (app.PostingResult, error) {
	var res app.PostingResult
	err := outbox.RunInTx(context.Background(), e.DB, func(ctx context.Context, tx bun.Tx) error {
		var err error
		res, err = e.S.Ledger.ApplyPosting(pgdb.WithTx(ctx, tx), bid, p)
		return err
	})
	return res, err
}

// TestApplyPosting drives one invoice through versions: posted, replayed,
// replaced, stale, voided; the ledger keeps one live entry whose A/R is
// the latest version's, creates the tax account once, and refuses
// malformed postings.
func TestApplyPosting(t *testing.T) {
	e := newEnv(t)
	bid := e.business("client-a", "US")
	tok := e.Token("client-a")
	inv := uuid.NewString()
	steps := []struct {
		name    string
		posting events.LedgerPosting
		want    app.PostingResult
		ar      int64
		taxes   int64
	}{
		{"first version", invoicePosting(inv, 1, 1130, 130), app.PostingPosted, 1130, 130},
		{"redelivered", invoicePosting(inv, 1, 1130, 130), app.PostingSkipped, 1130, 130},
		{"edited", invoicePosting(inv, 2, 2260, 260), app.PostingPosted, 2260, 260},
		{"stale first version", invoicePosting(inv, 1, 1130, 130), app.PostingSkipped, 2260, 260},
		{"voided", events.LedgerPosting{SourceType: "INVOICE", SourceID: inv, Version: 3, EntryType: "INVOICE",
			EntryAt: time.Now()}, app.PostingReversed, 0, 0},
		{"void redelivered", events.LedgerPosting{SourceType: "INVOICE", SourceID: inv, Version: 3, EntryType: "INVOICE",
			EntryAt: time.Now()}, app.PostingSkipped, 0, 0},
		{"second version redelivered after the void", invoicePosting(inv, 2, 2260, 260), app.PostingSkipped, 0, 0},
	}
	for _, s := range steps {
		res, err := e.apply(bid, s.posting)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if res != s.want {
			t.Fatalf("%s: %s, want %s", s.name, res, s.want)
		}
		bal := e.balances(bid, tok, "")
		if bal["ACCOUNTS_RECEIVABLE"] != s.ar || bal["SALES_TAXES_PAYABLE:CA_STATE"] != s.taxes {
			t.Fatalf("%s: A/R %d, CA_STATE %d; want %d and %d", s.name, bal["ACCOUNTS_RECEIVABLE"], bal["SALES_TAXES_PAYABLE:CA_STATE"], s.ar, s.taxes)
		}
	}
	var live, total, taxAccounts int
	ctx := context.Background()
	if err := e.DB.NewRaw(`SELECT count(*) FILTER (WHERE reversal_of_id IS NULL AND reversal_id IS NULL), count(*)
		FROM ledger_entries WHERE business_id = ? AND source_id = ?`, bid, inv).Scan(ctx, &live, &total); err != nil {
		t.Fatal(err)
	}
	if live != 0 || total != 4 { // v1, its reversal, v2, its reversal
		t.Fatalf("%d live of %d entries, want 0 of 4", live, total)
	}
	if err := e.DB.NewRaw(`SELECT count(*) FROM ledger_accounts a JOIN ledger_accounts p ON p.id = a.parent_id
		WHERE a.business_id = ? AND a.stable_name = 'SALES_TAXES_PAYABLE:CA_STATE' AND p.stable_name = 'SALES_TAXES_PAYABLE'
		AND a.name = 'Sales tax: CA_STATE'`, bid).Scan(ctx, &taxAccounts); err != nil || taxAccounts != 1 {
		t.Fatalf("tax accounts: %d %v", taxAccounts, err)
	}

	// Entries carry the posting's entry type and the lines their tags.
	other := uuid.NewString()
	if _, err := e.apply(bid, invoicePosting(other, 1, 500, 0)); err != nil {
		t.Fatal(err)
	}
	var entryType string
	var tagged int
	if err := e.DB.NewRaw(`SELECT e.entry_type, (SELECT count(*) FROM ledger_lines l WHERE l.entry_id = e.id AND l.tags @> '[{"key":"dept","value":"retail"}]')
		FROM ledger_entries e WHERE e.business_id = ? AND e.source_id = ?`, bid, other).Scan(ctx, &entryType, &tagged); err != nil {
		t.Fatal(err)
	}
	if entryType != "INVOICE" || tagged != 2 {
		t.Fatalf("entry type %s, %d tagged lines", entryType, tagged)
	}

	bad := []struct {
		name string
		p    events.LedgerPosting
	}{
		{"unbalanced", events.LedgerPosting{SourceType: "INVOICE", SourceID: "x", Version: 1, EntryType: "INVOICE", EntryAt: time.Now(),
			Lines: []events.PostingLine{stableLine("ACCOUNTS_RECEIVABLE", "DEBIT", 10), stableLine("SALES", "CREDIT", 9)}}},
		{"unknown entry type", events.LedgerPosting{SourceType: "INVOICE", SourceID: "x", Version: 1, EntryType: "GIFT", EntryAt: time.Now(),
			Lines: []events.PostingLine{stableLine("ACCOUNTS_RECEIVABLE", "DEBIT", 10), stableLine("SALES", "CREDIT", 10)}}},
		{"no version", events.LedgerPosting{SourceType: "INVOICE", SourceID: "x", EntryType: "INVOICE", EntryAt: time.Now()}},
		{"unknown account", events.LedgerPosting{SourceType: "INVOICE", SourceID: "x", Version: 1, EntryType: "INVOICE", EntryAt: time.Now(),
			Lines: []events.PostingLine{stableLine("ACCOUNTS_RECEIVABLE", "DEBIT", 10), stableLine("NO_SUCH_ACCOUNT", "CREDIT", 10)}}},
		{"bad tax name", events.LedgerPosting{SourceType: "INVOICE", SourceID: "x", Version: 1, EntryType: "INVOICE", EntryAt: time.Now(),
			Lines: []events.PostingLine{stableLine("ACCOUNTS_RECEIVABLE", "DEBIT", 10), taxLine("!!", 10)}}},
	}
	for _, b := range bad {
		_, err := e.apply(bid, b.p)
		if err == nil {
			t.Errorf("%s: accepted", b.name)
		}
		// The error is the dead letter's x-error header: it must say which
		// account (the producers check accounts before publishing, so only
		// an account archived in the meantime can get here).
		if b.name == "unknown account" && err != nil && !strings.Contains(err.Error(), "NO_SUCH_ACCOUNT") {
			t.Errorf("unknown account: %v does not name the account", err)
		}
	}

	// A business whose chart is not there yet: the consumer is told to wait.
	if _, err := e.apply(uuid.New(), invoicePosting(uuid.NewString(), 1, 10, 0)); !errors.Is(err, consumer.ErrNotYet) {
		t.Fatalf("posting before the chart: %v, want consumer.ErrNotYet", err)
	}
}

// TestInvoicingEventsPostThroughTheBroker publishes document events on
// acct.invoicing.v1 as customers-invoices does: the posting they carry
// reaches the ledger, an event without a posting is ignored, and an event
// for a business whose chart arrives later is applied once it does.
func TestInvoicingEventsPostThroughTheBroker(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	bid := e.business("client-a", "US")
	tok := e.Token("client-a")
	w := &kafka.Writer{Addr: kafka.TCP(e.Svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	publish := func(biz uuid.UUID, typ string, payload any) {
		evt, err := events.New(events.TopicInvoicing, typ, "acct/customers-invoices", biz, payload)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteMessages(ctx, events.ToMessage(evt)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	publish(bid, "customer.upserted", map[string]any{"customer": map[string]any{"id": uuid.NewString()}})
	p := invoicePosting(uuid.NewString(), 1, 4200, 200)
	publish(bid, "invoice.upserted", map[string]any{"posting": p})
	waitFor("the invoice's entry", func() bool { return e.balances(bid, tok, "")["ACCOUNTS_RECEIVABLE"] == 4200 })

	// A refund carries its two entries in `postings`: the allocation (debit
	// the refunded revenue, credit A/R) and the payment (debit A/R, credit
	// cash); both are applied, A/R is back where it was.
	refundID := uuid.NewString()
	at := time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)
	publish(bid, events.TypeInvoiceRefundUpserted, events.InvoiceRefundUpserted{BusinessID: bid, Postings: []events.LedgerPosting{
		{SourceType: events.SourceRefundAllocation, SourceID: refundID, Version: 1, EntryType: "REFUND_ALLOCATION", EntryAt: at,
			Lines: []events.PostingLine{stableLine("CUSTOMER_REFUNDS", "DEBIT", 1000), stableLine("ACCOUNTS_RECEIVABLE", "CREDIT", 1000)}},
		{SourceType: events.SourceRefundPayment, SourceID: refundID, Version: 1, EntryType: "REFUND_PAYMENT", EntryAt: at,
			Lines: []events.PostingLine{stableLine("ACCOUNTS_RECEIVABLE", "DEBIT", 1000), stableLine("UNDEPOSITED_FUNDS", "CREDIT", 1000)}},
	}})
	waitFor("the refund's entries", func() bool {
		b := e.balances(bid, tok, "")
		return b["CUSTOMER_REFUNDS"] == 1000 && b["UNDEPOSITED_FUNDS"] == -1000 && b["ACCOUNTS_RECEIVABLE"] == 4200
	})

	// The chart comes after the invoice (another topic, another order).
	late := uuid.Must(uuid.NewV7())
	publish(late, "invoice.upserted", map[string]any{"posting": invoicePosting(uuid.NewString(), 1, 999, 0)})
	time.Sleep(300 * time.Millisecond)
	now := time.Now().UTC()
	b := events.Business{ID: late, ClientID: "client-a", LegalName: "Late", Country: "US", DefaultReportingBasis: "ACCRUAL",
		CreatedAt: now, UpdatedAt: now}
	evt, err := events.New(events.TopicBusiness, events.TypeBusinessCreated, "acct/auth-tokens", late, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMessages(ctx, events.ToMessage(evt)); err != nil {
		t.Fatal(err)
	}
	waitFor("the late business's entry", func() bool {
		resp, err := e.HTTP.Test(req("GET", base(late)+"/ledger/balances", tok, nil), -1)
		return err == nil && resp.StatusCode == 200 && e.balances(late, tok, "")["ACCOUNTS_RECEIVABLE"] == 999
	})
	var dead int
	if err := e.DB.NewRaw("SELECT count(*) FROM dead_letters").Scan(ctx, &dead); err != nil || dead != 0 {
		t.Fatalf("dead letters: %d %v", dead, err)
	}
}

// TestBillsEventsPostThroughTheBroker: the bills service's events on
// acct.bills.v1 reach the ledger like the invoicing ones: a bill credits
// ACCOUNTS_PAYABLE, a vendor credit and a payment debit it, a deleted
// payment's entry is reversed, a voided bill's too; a redelivered event
// changes nothing and a vendor snapshot (no posting) is ignored.
func TestBillsEventsPostThroughTheBroker(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	bid := e.business("client-a", "US")
	tok := e.Token("client-a")
	w := &kafka.Writer{Addr: kafka.TCP(e.Svc.Broker.Addrs()...), Balancer: &kafka.Hash{}, BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	publish := func(typ string, payload any) {
		t.Helper()
		evt, err := events.New(events.TopicBills, typ, "acct/bills-tags", bid, payload)
		if err != nil {
			t.Fatal(err)
		}
		m := events.ToMessage(evt)
		if err := w.WriteMessages(ctx, m, m); err != nil { // every event twice
			t.Fatal(err)
		}
	}
	waitFor := func(what string, want map[string]int64) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			got := e.balances(bid, tok, "")
			ok := true
			for k, v := range want {
				if got[k] != v {
					ok = false
				}
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: balances %v, want %v", what, got, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	at := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	billID, payID, creditID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	publish(events.TypeVendorUpserted, events.VendorUpserted{VendorID: uuid.New(), BusinessID: bid, Version: 1, DisplayName: "Acme", Status: "ACTIVE"})
	publish(events.TypeBillUpserted, map[string]any{"posting": events.LedgerPosting{SourceType: events.SourceBill, SourceID: billID, Version: 1,
		EntryType: "BILL", EntryAt: at, Lines: []events.PostingLine{
			stableLine("RENT", "DEBIT", 70000), stableLine("UTILITIES", "DEBIT", 30000), stableLine("ACCOUNTS_PAYABLE", "CREDIT", 100000)}}})
	waitFor("the bill", map[string]int64{"ACCOUNTS_PAYABLE": 100000, "RENT": 70000, "UTILITIES": 30000})
	publish(events.TypeVendorCreditUpserted, map[string]any{"posting": events.LedgerPosting{SourceType: events.SourceVendorCredit, SourceID: creditID,
		Version: 1, EntryType: "VENDOR_CREDIT", EntryAt: at.AddDate(0, 0, 5), Lines: []events.PostingLine{
			stableLine("ACCOUNTS_PAYABLE", "DEBIT", 10000), stableLine("RENT", "CREDIT", 10000)}}})
	publish(events.TypeBillPaymentUpserted, map[string]any{"posting": events.LedgerPosting{SourceType: events.SourceBillPayment, SourceID: payID,
		Version: 1, EntryType: "BILL_PAYMENT", EntryAt: at.AddDate(0, 0, 10), Lines: []events.PostingLine{
			stableLine("ACCOUNTS_PAYABLE", "DEBIT", 40000), stableLine("BANK_ACCOUNTS", "CREDIT", 40000)}}})
	waitFor("the credit and the payment", map[string]int64{"ACCOUNTS_PAYABLE": 50000, "RENT": 60000, "BANK_ACCOUNTS": -40000})
	publish(events.TypeBillPaymentDeleted, map[string]any{"posting": events.LedgerPosting{SourceType: events.SourceBillPayment, SourceID: payID,
		Version: 2, EntryType: "BILL_PAYMENT", EntryAt: at.AddDate(0, 0, 10)}})
	waitFor("the deleted payment", map[string]int64{"ACCOUNTS_PAYABLE": 90000, "BANK_ACCOUNTS": 0})
	publish(events.TypeBillUpserted, map[string]any{"posting": events.LedgerPosting{SourceType: events.SourceBill, SourceID: billID, Version: 2,
		EntryType: "BILL", EntryAt: at}})
	waitFor("the voided bill", map[string]int64{"ACCOUNTS_PAYABLE": -10000, "RENT": -10000, "UTILITIES": 0})
	var dead int
	if err := e.DB.NewRaw("SELECT count(*) FROM dead_letters").Scan(ctx, &dead); err != nil || dead != 0 {
		t.Fatalf("dead letters: %d %v", dead, err)
	}
}
