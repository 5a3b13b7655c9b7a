package service

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/customers-invoices/internal/app"
	"github.com/acctsuite/acct/services/customers-invoices/internal/domain/invoice"
)

func TestWriteOffs(t *testing.T) {
	iv := newInvoicing(t)

	t.Run("EXPENSE to BAD_DEBT by default", func(t *testing.T) {
		iv := iv.with(t)
		inv := iv.create(simple("crm-1", 10000), 201)
		id := inv["id"].(string)
		seq := iv.lastSeq()
		w := iv.writeOff(id, map[string]any{"amount": 2500, "external_id": "wo-1", "memo": "disputed", "reference_number": "WO-1",
			"write_off_at": "2026-04-01T00:00:00Z", "tags": []any{map[string]any{"key": "reason", "value": "dispute"}}}, 201)
		if w["type"] != "Api_Invoice_Write_Off" || w["invoice_id"] != id || num(t, w["amount"]) != 2500 || w["write_off_mode"] != "EXPENSE" ||
			w["write_off_at"] != "2026-04-01T00:00:00Z" || w["memo"] != "disputed" || w["reference_number"] != "WO-1" ||
			w["external_id"] != "wo-1" || w["voided_at"] != nil || len(list(w["transaction_tags"])) != 1 {
			t.Fatalf("write-off = %v", w)
		}
		if d := obj(w["destination_ledger_account"]); d["type"] != "AccountId" || d["id"] != events.DefaultAccountID(iv.bid, invoice.DefaultWriteOffAccount).String() {
			t.Fatalf("destination = %v", d)
		}
		got := iv.get(id)
		if got["status"] != "PARTIALLY_WRITTEN_OFF" || num(t, got["outstanding_balance"]) != 7500 || len(list(got["write_offs"])) != 1 ||
			!equalJSON(list(got["write_offs"])[0], w) {
			t.Fatalf("invoice = %v", got)
		}
		evs := iv.outbox(iv.bid, seq)
		if len(evs) != 2 || evs[0].Type != events.TypeInvoiceUpserted || evs[1].Type != events.TypeInvoiceWriteOffUpserted {
			t.Fatalf("events = %v", evs)
		}
		we := decode[events.InvoiceWriteOffUpserted](t, evs[1])
		checkPosting(t, we.Posting, "INVOICE_WRITE_OFF", w["id"].(string), 1, true)
		if lineOf(we.Posting, invoice.DefaultWriteOffAccount, "DEBIT") != 2500 || lineOf(we.Posting, invoice.AccountsReceivable, "CREDIT") != 2500 {
			t.Fatalf("posting = %+v", we.Posting.Lines)
		}
		if !we.Posting.EntryAt.Equal(mustTime(t, "2026-04-01T00:00:00Z")) || we.WriteOff.Mode != "EXPENSE" {
			t.Fatalf("event = %+v", we)
		}

		// A written-off invoice cannot be edited any more.
		if m := iv.Do(req("PATCH", iv.path("/invoices/%s", id), iv.tok, map[string]any{"memo": "x"}), 409); m["error_enum"] != invoice.EnumNotEditable {
			t.Fatalf("error = %v", m)
		}

		// GET, under its invoice only.
		if g := data(iv.Do(req("GET", iv.path("/invoices/%s/write-offs/%s", id, w["id"]), iv.tok, nil), 200)); !equalJSON(g, w) {
			t.Fatalf("GET = %v\ncreate answered %v", g, w)
		}
		other := iv.create(simple("crm-1", 100), 201)
		iv.DoInvalid(req("GET", iv.path("/invoices/%s/write-offs/%s", other["id"], w["id"]), iv.tok, nil), 404, app.EnumWriteOffNotFound)
		iv.DoInvalid(req("GET", iv.path("/invoices/%s/write-offs/%s", id, uuid.NewString()), iv.tok, nil), 404, app.EnumWriteOffNotFound)
		iv.DoInvalid(req("GET", iv.path("/invoices/%s/write-offs/nope", id), iv.tok, nil), 400, "")

		// Idempotent on external_id; another invoice's external_id is refused.
		before := iv.rowCounts()
		if again := iv.writeOff(id, map[string]any{"amount": 1, "external_id": "wo-1"}, 200); again["id"] != w["id"] || num(t, again["amount"]) != 2500 {
			t.Fatalf("again = %v", again)
		}
		m := iv.Do(req("POST", iv.path("/invoices/%s/write-off", other["id"]), iv.tok, map[string]any{"amount": 1, "external_id": "wo-1"}), 400)
		if m["error_enum"] != invoice.EnumDuplicateExternalID {
			t.Fatalf("error = %v", m)
		}
		iv.sameCounts(before)
	})

	t.Run("EXPENSE to a named account", func(t *testing.T) {
		iv := iv.with(t)
		inv := iv.create(simple("crm-1", 1000), 201)
		acct := iv.ledgerAccounts(false, uuid.New())[0]
		seq := iv.lastSeq()
		w := iv.writeOff(inv["id"].(string), map[string]any{"amount": 1000, "write_off_mode": "EXPENSE",
			"destination_ledger_account": map[string]any{"type": "AccountId", "id": acct.String()}}, 201)
		if obj(w["destination_ledger_account"])["id"] != acct.String() {
			t.Fatalf("write-off = %v", w)
		}
		we := decode[events.InvoiceWriteOffUpserted](t, ofType(iv.outbox(iv.bid, seq), events.TypeInvoiceWriteOffUpserted)[0])
		if lineOf(we.Posting, acct.String(), "DEBIT") != 1000 {
			t.Fatalf("posting = %+v", we.Posting.Lines)
		}
		if got := iv.get(inv["id"].(string)); got["status"] != "WRITTEN_OFF" || num(t, got["outstanding_balance"]) != 0 || got["paid_at"] != nil {
			t.Fatalf("invoice = %v", got)
		}
	})

	t.Run("REVENUE_REVERSAL debits the revenue accounts", func(t *testing.T) {
		iv := iv.with(t)
		services := iv.ledgerAccounts(false, uuid.New())[0]
		inv := iv.create(map[string]any{"customer_external_id": "crm-1", "sent_at": "2026-03-01T00:00:00Z",
			"line_items": []any{
				map[string]any{"product": "A", "unit_price": 3000, "quantity": 1},
				map[string]any{"product": "B", "unit_price": 1000, "quantity": 1, "account_identifier": map[string]any{"type": "AccountId", "id": services.String()}},
			}}, 201)
		seq := iv.lastSeq()
		w := iv.writeOff(inv["id"].(string), map[string]any{"amount": 1000, "write_off_mode": "REVENUE_REVERSAL"}, 201)
		if w["write_off_mode"] != "REVENUE_REVERSAL" || obj(w["destination_ledger_account"])["id"] != events.DefaultAccountID(iv.bid, "SALES").String() {
			t.Fatalf("write-off = %v", w)
		}
		we := decode[events.InvoiceWriteOffUpserted](t, ofType(iv.outbox(iv.bid, seq), events.TypeInvoiceWriteOffUpserted)[0])
		checkPosting(t, we.Posting, "INVOICE_WRITE_OFF", w["id"].(string), 1, true)
		if lineOf(we.Posting, "SALES", "DEBIT") != 750 || lineOf(we.Posting, services.String(), "DEBIT") != 250 {
			t.Fatalf("posting = %+v", we.Posting.Lines)
		}
		if got := iv.get(inv["id"].(string)); got["status"] != "PARTIALLY_WRITTEN_OFF" || num(t, got["outstanding_balance"]) != 3000 {
			t.Fatalf("invoice = %v", got)
		}
	})

	t.Run("a partial payment, then the rest written off", func(t *testing.T) {
		iv := iv.with(t)
		inv := iv.create(simple("crm-1", 10000), 201)
		id := inv["id"].(string)
		iv.pay(payment(6000, alloc(id, 6000)), 201)
		if got := iv.get(id); got["status"] != "PARTIALLY_PAID" {
			t.Fatalf("status %v", got["status"])
		}
		iv.writeOff(id, map[string]any{"amount": 4000}, 201)
		got := iv.get(id)
		if got["status"] != "WRITTEN_OFF" || num(t, got["outstanding_balance"]) != 0 || got["paid_at"] != nil {
			t.Fatalf("invoice = %v", got)
		}
		// Nothing left to write off, nor to pay.
		m := iv.Do(req("POST", iv.path("/invoices/%s/write-off", id), iv.tok, map[string]any{"amount": 1}), 400)
		if m["error_enum"] != invoice.EnumWriteOffTooLarge {
			t.Fatalf("error = %v", m)
		}
		iv.Do(req("POST", iv.path("/invoices/payments"), iv.tok, payment(1, alloc(id, 1))), 400)
	})

	t.Run("invalid write-offs write nothing", func(t *testing.T) {
		inv := iv.create(simple("crm-1", 5000), 201)
		tipsOnly := iv.create(map[string]any{"customer_external_id": "crm-1", "sent_at": "2026-03-01T00:00:00Z", "tips": 500,
			"line_items": []any{map[string]any{"product": "Free", "unit_price": 0}}}, 201)
		id := inv["id"].(string)
		for _, tt := range []struct {
			name   string
			id     string
			body   map[string]any
			valid  bool
			status int
			enum   string
		}{
			{"amount over the outstanding balance", id, map[string]any{"amount": 5001}, true, 400, invoice.EnumWriteOffTooLarge},
			{"zero amount", id, map[string]any{"amount": 0}, true, 400, invoice.EnumInvalidAmount},
			{"negative amount", id, map[string]any{"amount": -1}, false, 400, invoice.EnumInvalidAmount},
			{"destination with REVENUE_REVERSAL", id, map[string]any{"amount": 100, "write_off_mode": "REVENUE_REVERSAL",
				"destination_ledger_account": map[string]any{"type": "StableName", "stable_name": "BAD_DEBT"}}, true, 400, invoice.EnumInvalidAmount},
			{"no revenue to reverse", tipsOnly["id"].(string), map[string]any{"amount": 100, "write_off_mode": "REVENUE_REVERSAL"}, true, 400, invoice.EnumInvalidAmount},
			{"unknown mode", id, map[string]any{"amount": 100, "write_off_mode": "GIFT"}, false, 400, invoice.EnumInvalidInvoice},
			{"no amount", id, map[string]any{"memo": "x"}, false, 400, invoice.EnumInvalidInvoice},
			{"bad destination", id, map[string]any{"amount": 100, "destination_ledger_account": map[string]any{"type": "AccountId"}}, true, 400, invoice.EnumInvalidInvoice},
			{"unknown property", id, map[string]any{"amount": 100, "reason": "x"}, false, 400, ""},
			{"unknown invoice", uuid.NewString(), map[string]any{"amount": 100}, true, 404, app.EnumInvoiceNotFound},
		} {
			t.Run(tt.name, func(t *testing.T) {
				iv := iv.with(t)
				before := iv.rowCounts()
				r := req("POST", iv.path("/invoices/%s/write-off", tt.id), iv.tok, tt.body)
				var m map[string]any
				if tt.valid {
					m = iv.Do(r, tt.status)
				} else {
					m = iv.DoInvalid(r, tt.status, "")
				}
				if tt.enum != "" && m["error_enum"] != tt.enum {
					t.Fatalf("error = %v, want %s", m, tt.enum)
				}
				iv.sameCounts(before)
			})
		}
		if got := iv.get(id); got["status"] != "SENT" || len(list(got["write_offs"])) != 0 {
			t.Fatalf("invoice = %v", got)
		}
	})

	t.Run("voiding the invoice voids its write-offs", func(t *testing.T) {
		iv := iv.with(t)
		inv := iv.create(simple("crm-1", 9000), 201)
		id := inv["id"].(string)
		w1 := iv.writeOff(id, map[string]any{"amount": 1000}, 201)
		w2 := iv.writeOff(id, map[string]any{"amount": 2000, "write_off_mode": "REVENUE_REVERSAL"}, 201)
		seq := iv.lastSeq()
		voided := data(iv.Do(req("POST", iv.path("/invoices/%s/void", id), iv.tok, nil), 200))
		if voided["status"] != "VOIDED" || num(t, voided["outstanding_balance"]) != 0 {
			t.Fatalf("voided = %v", voided)
		}
		for _, w := range list(voided["write_offs"]) {
			if obj(w)["voided_at"] != voided["voided_at"] {
				t.Fatalf("write-off not voided: %v", w)
			}
		}
		evs := iv.outbox(iv.bid, seq)
		wos := ofType(evs, events.TypeInvoiceWriteOffUpserted)
		if len(wos) != 2 || len(evs) != 3 || evs[2].Type != events.TypeInvoiceUpserted {
			t.Fatalf("events = %v", evs)
		}
		for i, w := range []map[string]any{w1, w2} {
			we := decode[events.InvoiceWriteOffUpserted](t, wos[i])
			checkPosting(t, we.Posting, "INVOICE_WRITE_OFF", w["id"].(string), 2, false)
			if !we.WriteOff.Voided {
				t.Fatalf("write-off event = %+v", we.WriteOff)
			}
			g := data(iv.Do(req("GET", iv.path("/invoices/%s/write-offs/%s", id, w["id"]), iv.tok, nil), 200))
			if g["voided_at"] == nil {
				t.Fatalf("write-off = %v", g)
			}
		}
		up := decode[events.InvoiceUpserted](t, evs[2])
		// created, two write-offs, voided
		checkPosting(t, up.Posting, "INVOICE", id, 4, false)
	})
}
