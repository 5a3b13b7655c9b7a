package invoice

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
	"github.com/acctsuite/acct/pkg/money"
)

// FuzzParseRefund feeds arbitrary bodies to POST /invoices/{id}/refund's
// parser: refusals are 400 error objects; an accepted refund of a paid
// invoice is either refused by the refund rule (a 4xx) or posts two
// balanced entries whose A/R lines cancel out.
func FuzzParseRefund(f *testing.F) {
	for _, s := range []string{
		`{"external_id":"rf-1","refunded_amount":5000,"completed_at":"2026-03-20T00:00:00Z","method":"CHECK","reference_number":"r","memo":"m"}`,
		`{"completed_at":"2026-03-20T00:00:00Z","method":"Other"}`, `{"completed_at":"2026-03-20T00:00:00Z","method":"CREDIT_BALANCE"}`,
		`{"refunded_amount":"12","completed_at":"2026-03-20T00:00:00Z","method":"ACH"}`, `{"refunded_amount":-1}`,
		`{"refunded_amount":9223372036854775807,"completed_at":"2026-03-20T00:00:00Z","method":"CASH"}`, `{"method":"CASH"}`,
		`{"x":1}`, `{}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	sent := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseRefund(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		if in.CompletedAt == nil || in.Method == "" || in.Method == CreditBalance {
			t.Fatalf("accepted a refund without a date or a payout method: %s", body)
		}
		inv, err := New(uuid.New(), uuid.New(), Input{SentAt: &sent, Draft: Draft{Lines: []LineInput{{Product: str("x"), UnitPrice: 10000,
			Quantity: money.QuantityFromScaled(1_000_000), SalesTaxes: []SalesTax{{TaxName: "GST", Amount: 500}}}}, Tips: 100}}, sent, uuid.New)
		if err != nil {
			t.Fatal(err)
		}
		inv.AddPayment(Payment{ID: uuid.New(), PaidAt: sent, Method: Cash}, 10600)
		r, err := inv.NewRefund(uuid.New(), in, sent)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		alloc, err := RefundAllocationPosting(r.Amount, inv.ComputedLines(), inv.AdditionalSalesTaxes, inv.Totals, nil)
		if err != nil {
			t.Fatal(err)
		}
		pay := RefundPaymentPosting(r.Payouts, nil)
		var ar money.Cents
		for _, ls := range [][]PostingLine{alloc, pay} {
			var dr, cr money.Cents
			for _, l := range ls {
				if l.Direction == Debit {
					dr += l.Amount
				} else {
					cr += l.Amount
				}
				if l.Account.Ref.StableName == AccountsReceivable {
					if l.Direction == Debit {
						ar += l.Amount
					} else {
						ar -= l.Amount
					}
				}
			}
			if dr != cr || dr != r.Amount {
				t.Fatalf("refund of %d: debits %d credits %d: %+v", r.Amount, dr, cr, ls)
			}
		}
		if ar != 0 {
			t.Fatalf("refund moves A/R by %d", ar)
		}
	})
}

// FuzzParseFinalize feeds arbitrary bodies to PUT
// /invoices/{id}/finalize-invoice's parser: refusals are 400 error
// objects; accepted payment methods are known and distinct.
func FuzzParseFinalize(f *testing.F) {
	for _, s := range []string{`{"payment_methods":["ACH","CREDIT_CARD"],"custom_payment_instructions":"wire","sent_at":"2026-03-01T00:00:00Z"}`,
		`{"payment_methods":["ACH","ACH"]}`, `{"payment_methods":["PAYPAL"]}`, `{"payment_methods":null}`, `{"x":1}`, `{}`, ``, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseFinalize(body)
		if err != nil {
			apperrtest.Require4xx(t, err)
			return
		}
		seen := map[OnlineMethod]bool{}
		for _, m := range in.PaymentMethods.Value {
			if seen[m] || (m != OnlineACH && m != OnlineCreditCard) {
				t.Fatalf("accepted payment methods %v from %s", in.PaymentMethods.Value, body)
			}
			seen[m] = true
		}
	})
}
