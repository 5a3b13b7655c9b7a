package service

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

// ledger applies postings the way the transactions service does: one live
// entry per source, replaced by a newer version, reversed by a posting
// without lines.
type ledger struct {
	live     map[string]*events.LedgerPosting
	versions map[string]int64
}

func (l *ledger) apply(t *testing.T, p *events.LedgerPosting) {
	t.Helper()
	if p == nil {
		return
	}
	key := p.SourceType + "/" + p.SourceID
	if p.Version <= l.versions[key] {
		t.Fatalf("%s: version %d after %d", key, p.Version, l.versions[key])
	}
	l.versions[key] = p.Version
	if len(p.Lines) == 0 {
		delete(l.live, key)
		return
	}
	l.live[key] = p
}

// balance is the debits minus the credits of the live entries on account.
func (l *ledger) balance(account string) int64 {
	var n int64
	for _, p := range l.live {
		n += lineOf(p, account, "DEBIT") - lineOf(p, account, "CREDIT")
	}
	return n
}

// TestInvoicingEvents runs a create / pay / write-off / void / delete /
// patch / bulk-delete sequence and reads the outbox: every event has the
// expected type and a posting of its source (version growing, lines
// balanced, none for a void or a deletion), and applying the postings as
// the ledger does leaves A/R equal to the invoices' outstanding balances.
func TestInvoicingEvents(t *testing.T) {
	iv := newInvoicing(t)
	start := iv.lastSeq()

	a := iv.create(with(realistic(iv.ledgerAccounts(false, uuid.New())[0]), "external_id", "ev-a", "customer_external_id", "ev-cust"), 201) // 232.58
	b := iv.create(simple("ev-cust", 8000), 201)
	p1 := iv.pay(payment(12000, alloc(a["id"], 10000), alloc(b["id"], 2000)), 201)
	wa := iv.writeOff(a["id"].(string), map[string]any{"amount": 23258 - 10000}, 201)
	c := iv.create(simple("ev-cust", 3000), 201)
	wc := iv.writeOff(c["id"].(string), map[string]any{"amount": 1000, "write_off_mode": "REVENUE_REVERSAL"}, 201)
	iv.Do(req("POST", iv.path("/invoices/%s/void", c["id"]), iv.tok, nil), 200)
	d := iv.create(simple("ev-cust", 700), 201)
	iv.V.Do(t, iv.HTTP, req("DELETE", iv.path("/invoices/%s", d["id"]), iv.tok, nil))
	e := iv.create(simple("ev-cust", 400), 201)
	iv.Do(req("PATCH", iv.path("/invoices/%s", e["id"]), iv.tok, map[string]any{"tips": 100,
		"line_items": []any{map[string]any{"product": "X", "unit_price": 250, "quantity": "2"}}}), 200)
	iv.Do(req("POST", iv.path("/invoices/payments/bulk-delete"), iv.tok, map[string]any{"ids": []any{p1["id"]}}), 200)
	p2 := data(iv.Do(req("POST", iv.path("/invoices/%s/payment/", b["id"]), iv.tok, map[string]any{"amount": 1000, "method": "ACH", "paid_at": "2026-04-02T00:00:00Z"}), 201))

	evs := iv.outbox(iv.bid, start)
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	const (
		cu  = events.TypeCustomerUpserted
		iu  = events.TypeInvoiceUpserted
		id  = events.TypeInvoiceDeleted
		pu  = events.TypeInvoicePaymentUpserted
		pd  = events.TypeInvoicePaymentDeleted
		wou = events.TypeInvoiceWriteOffUpserted
	)
	want := []string{
		cu, iu, // a and its new customer
		iu,         // b
		iu, iu, pu, // p1: a's and b's balances, the payment
		iu, wou, // the write-off of a's rest
		iu, iu, wou, wou, iu, // c, its write-off, its void (the write-off's reversal first)
		iu, id, // d created and deleted
		iu, iu, // e created and patched
		pd, iu, iu, // p1 deleted: a's and b's balances restored
		iu, pu, // p2
	}
	if !slices.Equal(types, want) {
		t.Fatalf("event types\n%v\nwant\n%v", types, want)
	}

	// The bulk delete restores a's balance, then b's (the order the payment names them).
	if ia, ib := decode[events.InvoiceUpserted](t, evs[len(evs)-4]), decode[events.InvoiceUpserted](t, evs[len(evs)-3]); ia.Invoice.ID.String() != a["id"] || ib.Invoice.ID.String() != b["id"] {
		t.Fatalf("bulk delete's invoice events: %s then %s", ia.Invoice.ID, ib.Invoice.ID)
	}

	l := &ledger{live: map[string]*events.LedgerPosting{}, versions: map[string]int64{}}
	invoiceVersions := map[string]int64{}
	for i, ev := range evs {
		switch ev.Type {
		case iu:
			up := decode[events.InvoiceUpserted](t, ev)
			inv := up.Invoice.ID.String()
			if up.Invoice.Version <= invoiceVersions[inv] {
				t.Fatalf("event %d: invoice %s version %d after %d", i, inv, up.Invoice.Version, invoiceVersions[inv])
			}
			invoiceVersions[inv] = up.Invoice.Version
			if up.Posting != nil {
				checkPosting(t, up.Posting, "INVOICE", inv, up.Invoice.Version, up.Invoice.Status != "VOIDED")
			}
			l.apply(t, up.Posting)
		case id:
			del := decode[events.InvoiceDeleted](t, ev)
			if del.InvoiceID.String() != d["id"] {
				t.Fatalf("deleted %s", del.InvoiceID)
			}
			checkPosting(t, del.Posting, "INVOICE", d["id"].(string), invoiceVersions[d["id"].(string)]+1, false)
			l.apply(t, del.Posting)
		case pu:
			p := decode[events.InvoicePaymentUpserted](t, ev)
			checkPosting(t, p.Posting, "INVOICE_PAYMENT", p.Payment.ID.String(), p.Payment.Version, true)
			l.apply(t, p.Posting)
		case pd:
			p := decode[events.InvoicePaymentDeleted](t, ev)
			if p.PaymentID.String() != p1["id"] {
				t.Fatalf("deleted payment %s", p.PaymentID)
			}
			checkPosting(t, p.Posting, "INVOICE_PAYMENT", p1["id"].(string), 2, false)
			l.apply(t, p.Posting)
		case wou:
			w := decode[events.InvoiceWriteOffUpserted](t, ev)
			checkPosting(t, w.Posting, "INVOICE_WRITE_OFF", w.WriteOff.ID.String(), w.WriteOff.Version, !w.WriteOff.Voided)
			l.apply(t, w.Posting)
		}
	}
	// The live entries: a, b, e, a's write-off and p2.
	live := map[string]bool{}
	for k := range l.live {
		live[k] = true
	}
	for _, k := range []string{"INVOICE/" + a["id"].(string), "INVOICE/" + b["id"].(string), "INVOICE/" + e["id"].(string),
		"INVOICE_WRITE_OFF/" + wa["id"].(string), "INVOICE_PAYMENT/" + p2["id"].(string)} {
		if !live[k] {
			t.Errorf("no live entry for %s", k)
		}
	}
	if len(live) != 5 || live["INVOICE_WRITE_OFF/"+wc["id"].(string)] {
		t.Errorf("live entries %v", live)
	}

	// A/R in the ledger is what the invoices still owe.
	var outstanding int64
	for _, x := range list(iv.listInvoices("")["data"]) {
		outstanding += num(t, obj(x)["outstanding_balance"])
	}
	if got := l.balance(invoice.AccountsReceivable); got != outstanding || outstanding != 10000+7000+600 {
		t.Fatalf("A/R %d, outstanding balances %d", got, outstanding)
	}
}
