package invoice

import (
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/pkg/jsonraw"
	"github.com/acctsuite/acct/pkg/money"
)

const fuzzInvoice = `{"external_id":"inv-1","invoice_number":"1001","sent_at":"2026-03-01T00:00:00Z","due_at":"2026-03-31T00:00:00Z",
"customer_id":"0190c4c4-0000-7000-8000-000000000001","line_items":[{"description":"Consulting","unit_price":15000,"quantity":"2.5",
"account_identifier":{"type":"StableName","stable_name":"SERVICE_REVENUE"},"discount_amount":500,
"sales_taxes":[{"tax_account":{"type":"Tax_Name","name":"GST"},"amount":1850}],"tags":[{"key":"project","value":"a"}]},
{"description":"Travel","unit_price":"99","quantity":1}],"additional_discount":100,
"additional_sales_taxes":[{"tax_account":{"type":"AccountId","id":"0190c4c4-0000-7000-8000-000000000002"},"amount":7}],
"tips":0,"memo":"thanks","metadata":{"po":"42"},"tags":[{"key":"region","value":"west"}]}`

// FuzzParseInvoice feeds arbitrary bodies to POST /invoices's parser:
// refusals are 400 error objects; an accepted invoice that its domain
// computes posts a balanced entry (debits = credits, exactly) whose A/R
// debit is the invoice's total.
func FuzzParseInvoice(f *testing.F) {
	for _, s := range []string{fuzzInvoice,
		`{"sent_at":"2026-03-01T00:00:00Z","customer_external_id":"c-1","line_items":[{"unit_price":1}]}`,
		`{"sent_at":"2026-03-01T00:00:00Z","customer_id":"0190c4c4-0000-7000-8000-000000000001","line_items":[{"unit_price":9223372036854775807,"quantity":"1000000"}]}`,
		`{"sent_at":"2026-03-01T00:00:00Z","customer_id":"0190c4c4-0000-7000-8000-000000000001","line_items":[{"unit_price":1,"quantity":"0.0000001"}]}`,
		`{"sent_at":"2026-03-01T00:00:00Z","customer_id":"0190c4c4-0000-7000-8000-000000000001","line_items":[{"unit_price":100,"discount_amount":200}]}`,
		`{"sent_at":"2026-03-01T00:00:00Z","customer_id":"0190c4c4-0000-7000-8000-000000000001","line_items":[]}`,
		`{"sent_at":"2026-03-01","customer_id":"x"}`, `{"line_items":[{"unit_price":"1.5"}]}`, `{"tips":-1}`,
		`{"customer_external_id":"  "}`, `{"additional_sales_taxes":[{"tax_account":{"type":"Nope"}}]}`,
		`{"unknown":1}`, `[]`, `{}`, ``, `{"memo":"` + string(make([]byte, 10)) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseInvoice(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if in.SentAt == nil && !in.AsDraft || in.CustomerID == nil && in.CustomerExternalID == nil {
			t.Fatalf("accepted an invoice without sent_at or customer: %s", body)
		}
		c, err := Compute(in.Draft)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		var debit, credit money.Cents
		for _, l := range InvoicePosting(c.Lines, c.AdditionalSalesTaxes, c.Totals, in.Tags) {
			if l.Amount < 0 {
				t.Fatalf("posting line with a negative amount %d", l.Amount)
			}
			if l.Direction == Debit {
				debit += l.Amount
			} else {
				credit += l.Amount
			}
		}
		if debit != credit || debit != c.Totals.Total {
			t.Fatalf("posting of %s: debits %d, credits %d, total %d", body, debit, credit, c.Totals.Total)
		}
	})
}

// FuzzParseInvoicePatch: refusals of PATCH /invoices/{id} bodies are 400
// error objects, never a panic.
func FuzzParseInvoicePatch(f *testing.F) {
	for _, s := range []string{`{"memo":null,"due_at":"2026-04-01T00:00:00Z"}`, `{"line_items":[{"unit_price":5}],"tags":[{"key":"a","value":"b"}]}`,
		`{"sent_at":null}`, `{"customer_id":null}`, `{"customer_id":"0190c4c4-0000-7000-8000-000000000001"}`, `{"external_id":"x"}`,
		`{"metadata":{"a":1}}`, `{"tags":null}`, `{"tags":"x"}`, `{"invoice_number":5}`, `{}`, `null`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := ParsePatch(body); err != nil {
			apperrtest.Require4xx(t, err)
		}
	})
}

// FuzzParsePayment feeds invoice payment bodies (both the list form and
// the one-invoice shortcut): refusals are 400 error objects; an accepted
// shortcut payment allocates exactly its amount to the path's
func FuzzParsePayment(f *testing.F) {
	for _, s := range []string{`{"paid_at":"2026-03-05T00:00:00Z","method":"ACH","amount":12500,"fee":25,"invoice_payments":[{"invoice_id":"0190c4c4-0000-7000-8000-000000000001","amount":12500}]}`,
		`{"paid_at":"2026-03-05T00:00:00Z","method":"CREDIT_CARD","processor":"stripe","amount":"1.50"}`,
		`{"paid_at":"2026-03-05T00:00:00Z","method":"WIRE","amount":1}`, `{"paid_at":"2026-03-05T00:00:00Z","method":"CASH","amount":0}`,
		`{"method":"CASH","amount":-5}`, `{"amount":92233720368547758070}`, `{"processor":" "}`, `{}`, `x`,
		// A NUL in the processor was a 500 (found by contract fuzzing).
		`{"paid_at":"2026-05-04T19:02:46Z","method":"OTHER","amount":94655,"processor":"\u0000nul"}`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	inv := uuid.MustParse("0190c4c4-0000-7000-8000-000000000009")
	f.Fuzz(func(t *testing.T, body []byte, shortcut bool) {
		var path *uuid.UUID
		if shortcut {
			path = &inv
		}
		p, err := ParsePayment(body, path)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if shortcut && (len(p.Allocations) != 1 || p.Allocations[0].Amount != p.Amount || *p.Allocations[0].InvoiceID != inv) {
			t.Fatalf("shortcut payment %s allocates %+v", body, p.Allocations)
		}
		if p.PaidAt == nil {
			t.Fatalf("accepted a payment without paid_at: %s", body)
		}
		if p.Processor != nil && jsonraw.TextReason(*p.Processor) != "" {
			t.Fatalf("accepted a processor PostgreSQL text cannot hold: %q", *p.Processor)
		}
	})
}

// FuzzParseWriteOff: refusals of write-off bodies are 400 error objects.
func FuzzParseWriteOff(f *testing.F) {
	for _, s := range []string{`{"amount":500,"write_off_mode":"EXPENSE","write_off_at":"2026-03-05T00:00:00Z","memo":"bad debt"}`,
		`{"amount":"5.00","write_off_mode":"REVENUE_REVERSAL","destination_ledger_account":{"type":"StableName","stable_name":"BAD_DEBT"}}`,
		`{"amount":1,"destination_ledger_account":{"type":"AccountId"}}`, `{"write_off_mode":"LATER"}`, `{"amount":null}`, `{}`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		w, err := ParseWriteOff(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if w.Amount <= 0 {
			t.Fatalf("accepted a write-off of %d: %s", w.Amount, body)
		}
	})
}
