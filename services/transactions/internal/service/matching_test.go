package service

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	kafkaadapter "github.com/acctsuite/acct/services/transactions/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// deliver applies an acct.invoicing.v1 event as the consumer does: the
// posting handler, then the payments handler, in one transaction.
func (e *env) deliver(bid uuid.UUID, typ string, payload any) {
	e.T.Helper()
	evt, err := events.New(events.TopicInvoicing, typ, "acct/customers-invoices", bid, payload)
	if err != nil {
		e.T.Fatal(err)
	}
	err = outbox.RunInTx(context.Background(), e.DB, func(ctx context.Context, tx bun.Tx) error {
		if err := kafkaadapter.PostingHandler(e.S.Ledger, e.Svc.Kit.Logger())(ctx, tx, evt); err != nil {
			return err
		}
		return kafkaadapter.PaymentsHandler(e.S.Banking)(ctx, tx, evt)
	})
	if err != nil {
		e.T.Fatalf("deliver %s: %v", typ, err)
	}
}

// payment is a payment event of amount less fee paid at paidAt into
// account, and its posting (cash side, fee, A/R).
func payment(bid, id uuid.UUID, version int64, amount, fee int64, paidAt time.Time, account string) events.InvoicePaymentUpserted {
	inv := uuid.New()
	number, ext := "1001", "inv-ext-1"
	lines := []events.PostingLine{stableLine(account, "DEBIT", amount-fee)}
	if fee > 0 {
		lines = append(lines, stableLine("OTHER_FEES", "DEBIT", fee))
	}
	lines = append(lines, stableLine("ACCOUNTS_RECEIVABLE", "CREDIT", amount))
	return events.InvoicePaymentUpserted{
		BusinessID: bid,
		Payment: events.InvoicePaymentSnapshot{
			ID: id, BusinessID: bid, PaidAt: paidAt, Method: "CREDIT_CARD", Amount: amount, Fee: fee,
			Deposit: amount - fee, DepositAccount: account, Version: version,
			Allocations: []events.PaymentAllocation{{InvoiceID: inv, InvoiceExternalID: &ext, InvoiceNumber: &number, Amount: amount}},
		},
		Posting: &events.LedgerPosting{SourceType: "INVOICE_PAYMENT", SourceID: id.String(), Version: version,
			EntryType: "INVOICE_PAYMENT", EntryAt: paidAt, Lines: lines},
	}
}

func paymentDeleted(bid, id uuid.UUID, version int64) events.InvoicePaymentDeleted {
	return events.InvoicePaymentDeleted{BusinessID: bid, PaymentID: id, Posting: &events.LedgerPosting{
		SourceType: "INVOICE_PAYMENT", SourceID: id.String(), Version: version, EntryType: "INVOICE_PAYMENT", EntryAt: time.Now()}}
}

// TestMatchDepositsToPayments: a deposit is offered the payments of its
// amount (net of the processor's fee) and date; confirming one moves the
// money out of the clearing account instead of booking revenue again;
// the answer and the transaction carry the match; a deleted payment
// returns the deposit to uncategorized; categorizing a matched deposit
// frees its payment; bad requests are 400s and other tenants get 404.
func TestMatchDepositsToPayments(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	day := func(d int) time.Time { return time.Date(2026, 3, d, 12, 0, 0, 0, time.UTC) }

	// The invoice this is about, already in the ledger.
	e.deliver(bid, events.TypeInvoiceUpserted, map[string]any{"posting": invoicePosting(uuid.NewString(), 1, 10000, 0)})
	rows := e.importTxns(bid, tok, []any{
		imported("API", "dep-1", "acc", 9700, "CREDIT", "2026-03-05"),
		imported("API", "out-1", "acc", 9700, "DEBIT", "2026-03-05"),
		imported("API", "dep-2", "acc", 9700, "CREDIT", "2026-03-06"),
	}, 201)
	dep, out, dep2 := rows[0].(map[string]any)["id"].(string), rows[1].(map[string]any)["id"].(string), rows[2].(map[string]any)["id"].(string)

	pay := uuid.New()
	e.deliver(bid, events.TypeInvoicePaymentUpserted, payment(bid, pay, 1, 10000, 300, day(3), "PAYMENT_PROCESSOR_CLEARING"))
	// Not offered: outside the window, another amount, a credit balance
	// (their snapshots only: their entries do not matter here).
	for _, p := range []events.InvoicePaymentUpserted{
		payment(bid, uuid.New(), 1, 9700, 0, day(5).AddDate(0, -1, 0), "UNDEPOSITED_FUNDS"),
		payment(bid, uuid.New(), 1, 5000, 0, day(5), "UNDEPOSITED_FUNDS"),
		payment(bid, uuid.New(), 1, 9700, 0, day(5), "UNEARNED_REVENUE"),
	} {
		p.Posting = nil
		e.deliver(bid, events.TypeInvoicePaymentUpserted, p)
	}

	get := func(id string) map[string]any {
		return data(e.Do(req("GET", base(bid)+"/bank-transactions/"+id, tok, nil), 200))
	}
	suggestions := func(id string) []any { return get(id)["suggested_matches"].([]any) }
	s := suggestions(dep)
	if len(s) != 1 {
		t.Fatalf("suggested_matches = %v, want the one payment", s)
	}
	sug := s[0].(map[string]any)
	det := sug["details"].(map[string]any)
	if sug["matchType"] != "INVOICE_PAYMENT" || sug["match_type"] != "INVOICE_PAYMENT" || det["id"] != pay.String() ||
		det["type"] != "Invoice_Match" || cents(det["amount"]) != 10000 || det["description"] != "Payment of invoice #1001" {
		t.Fatalf("suggestion = %v", sug)
	}
	if ids := det["invoice_identifiers"].([]any); len(ids) != 1 || ids[0].(map[string]any)["external_id"] != "inv-ext-1" {
		t.Fatalf("invoice_identifiers = %v", ids)
	}
	if sug["id"] != banking.SuggestionID(uuid.MustParse(dep), pay).String() {
		t.Fatalf("suggestion id %v is not stable", sug["id"])
	}
	if got := suggestions(out); len(got) != 0 {
		t.Fatalf("money out offered %v", got)
	}
	// The listing offers the same.
	list := e.Do(req("GET", base(bid)+"/bank-transactions?direction=CREDIT", tok, nil), 200)["data"].([]any)
	for _, it := range list {
		m := it.(map[string]any)
		if len(m["suggested_matches"].([]any)) != 1 {
			t.Fatalf("listing: %s offered %v", m["id"], m["suggested_matches"])
		}
	}

	match := func(id string, body any) *http.Request {
		return req("PUT", base(bid)+"/bank-transactions/"+id+"/match", tok, body)
	}
	e.DoInvalid(match(dep, map[string]any{"type": "Confirm_Match", "match_id": uuid.NewString()}), 400, app.EnumUnknownMatch)
	e.DoInvalid(match(out, map[string]any{"type": "Confirm_Match", "match_id": sug["id"]}), 400, app.EnumNotMatchable)
	e.DoInvalid(match(dep, map[string]any{"type": "Confirm_Match"}), 400, "")
	e.DoInvalid(match(dep, map[string]any{"type": "Other", "match_id": sug["id"]}), 400, "")
	e.DoInvalid(req("PUT", base(bid)+"/bank-transactions/"+dep+"/match", e.Token("client-b"),
		map[string]any{"type": "Confirm_Match", "match_id": sug["id"]}), 404, "")

	m := data(e.Do(match(dep, map[string]any{"type": "Confirm_Match", "match_id": sug["id"]}), 200))
	if m["type"] != "Match" || m["id"] != sug["id"] || m["match_type"] != "INVOICE_PAYMENT" ||
		m["bank_transaction"].(map[string]any)["id"] != dep || m["details"].(map[string]any)["id"] != pay.String() {
		t.Fatalf("match = %v", m)
	}
	got := get(dep)
	if got["categorization_status"] != "MATCHED" || got["match"].(map[string]any)["id"] != sug["id"] || len(got["suggested_matches"].([]any)) != 0 {
		t.Fatalf("matched transaction = %v", got)
	}
	bal := e.balances(bid, tok, "")
	// dep2 is still uncategorized revenue; dep is in the bank, not revenue.
	want := map[string]int64{"PAYMENT_PROCESSOR_CLEARING": 0, "UNCATEGORIZED_REVENUE": 9700, "ACCOUNTS_RECEIVABLE": 0,
		"OTHER_FEES": 300, "SALES": 10000, "BANK_ACCOUNTS": 9700 + 9700 - 9700}
	for k, v := range want {
		if bal[k] != v {
			t.Fatalf("after the match %s = %d, want %d (%v)", k, bal[k], v, bal)
		}
	}
	// Confirming again changes nothing; the payment is no longer offered.
	var entries int
	countEntries := func() int {
		if err := e.DB.NewRaw("SELECT count(*) FROM ledger_entries WHERE business_id = ?", bid).Scan(context.Background(), &entries); err != nil {
			t.Fatal(err)
		}
		return entries
	}
	before := countEntries()
	e.Do(match(dep, map[string]any{"match_id": sug["id"]}), 200)
	if countEntries() != before {
		t.Fatal("a repeated confirmation posted entries")
	}
	if got := suggestions(dep2); len(got) != 0 {
		t.Fatalf("a matched payment offered again: %v", got)
	}

	// The payment deleted: the deposit is uncategorized again.
	e.deliver(bid, events.TypeInvoicePaymentDeleted, paymentDeleted(bid, pay, 2))
	got = get(dep)
	if got["categorization_status"] != "READY_FOR_INPUT" || got["match"] != nil {
		t.Fatalf("after the payment's deletion: %v", got)
	}
	bal = e.balances(bid, tok, "")
	want = map[string]int64{"PAYMENT_PROCESSOR_CLEARING": 0, "UNCATEGORIZED_REVENUE": 9700 * 2, "ACCOUNTS_RECEIVABLE": 10000, "OTHER_FEES": 0}
	for k, v := range want {
		if bal[k] != v {
			t.Fatalf("after the deletion %s = %d, want %d", k, bal[k], v)
		}
	}
	if len(suggestions(dep)) != 0 {
		t.Fatal("a deleted payment is offered")
	}

	// Matched, then categorized: the payment is free for another deposit.
	pay2 := uuid.New()
	e.deliver(bid, events.TypeInvoicePaymentUpserted, payment(bid, pay2, 1, 9700, 0, day(6), "UNDEPOSITED_FUNDS"))
	id2 := banking.SuggestionID(uuid.MustParse(dep), pay2).String()
	e.Do(match(dep, map[string]any{"type": "Confirm_Match", "match_id": id2}), 200)
	if len(suggestions(dep2)) != 0 {
		t.Fatal("pay2 offered while matched")
	}
	e.Do(req("PUT", base(bid)+"/bank-transactions/"+dep+"/categorize", tok, map[string]any{
		"type": "Category", "category": map[string]any{"type": "StableName", "stable_name": "SALES"}}), 200)
	if got := get(dep); got["match"] != nil || got["categorization_status"] != "CATEGORIZED" {
		t.Fatalf("categorized deposit still matched: %v", got)
	}
	if s := suggestions(dep2); len(s) != 1 || s[0].(map[string]any)["details"].(map[string]any)["id"] != pay2.String() {
		t.Fatalf("freed payment not offered: %v", s)
	}
	// A payment never matched is deleted: nothing to unmatch.
	lone := uuid.New()
	e.deliver(bid, events.TypeInvoicePaymentUpserted, payment(bid, lone, 1, 1234, 0, day(6), "UNDEPOSITED_FUNDS"))
	e.deliver(bid, events.TypeInvoicePaymentDeleted, paymentDeleted(bid, lone, 2))
	// Stale and repeated payment events change nothing.
	e.deliver(bid, events.TypeInvoicePaymentUpserted, payment(bid, pay, 1, 10000, 300, day(3), "PAYMENT_PROCESSOR_CLEARING"))
	e.deliver(bid, events.TypeInvoicePaymentDeleted, paymentDeleted(bid, pay, 2))
	if bal := e.balances(bid, tok, ""); bal["ACCOUNTS_RECEIVABLE"] != 10000-9700 { // pay2's 9700 only
		t.Fatalf("redelivered payment events moved A/R to %d", bal["ACCOUNTS_RECEIVABLE"])
	}
}
