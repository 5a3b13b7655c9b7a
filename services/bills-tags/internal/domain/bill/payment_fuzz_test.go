package bill

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
)

var paymentSeeds = []string{
	`{"paid_at":"2026-02-10T12:00:00Z","method":"ACH","amount":900,"bill_payment_allocations":[{"bill_id":"0190a0b0-0000-7000-8000-000000000001","amount":900}]}`,
	`{"paid_at":"2026-02-10T12:00:00Z","method":"Other","amount":"5","external_id":"p","processor":"x","payment_clearing_account_identifier":{"type":"StableName","stable_name":"CASH"},"bill_payment_allocations":[{"bill_external_id":"b","amount":"5","tags":[{"key":"k","value":"v"}],"metadata":{"a":1}}],"metadata":{"b":2},"tags":[{"key":"k","value":"v"}]}`,
	`{}`, `[]`, `null`, `{"amount":-1}`, `{"method":1}`, `{"bill_payment_allocations":[{}]}`,
	`{"paid_at":"2026-02-10T12:00:00Z","method":"CASH","amount":9223372036854775807,"bill_payment_allocations":[{"bill_id":"0190a0b0-0000-7000-8000-000000000001","amount":9223372036854775807},{"bill_id":"0190a0b0-0000-7000-8000-000000000002","amount":1}]}`,
	`{"payment_clearing_account_identifier":{"type":"AccountId","id":"0190a0b0-0000-7000-8000-000000000001"},"memo":null}`,
}

// FuzzParsePayment: a create body parses into a payment whose allocations
// the rules accept or refuse with a 400 (and an accepted one posts a
// balanced entry), or is refused with a 400 itself; nothing panics.
func FuzzParsePayment(f *testing.F) {
	for _, s := range paymentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParsePayment(body)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		if in.PaidAt.IsZero() || in.Amount <= 0 || len(in.Allocations) == 0 || in.Method == "" {
			t.Fatalf("%q parsed without paid_at, amount, method or allocations", body)
		}
		p := Payment{ID: uuid.New(), PaidAt: in.PaidAt, Method: in.Method, Amount: in.Amount, ClearingAccount: in.Clearing, Version: 1}
		var applied []Applied
		balances := map[uuid.UUID]Balance{}
		for i, a := range in.Allocations {
			id := uuid.New()
			if a.BillID != nil {
				id = *a.BillID
			}
			applied = append(applied, Applied{Field: "a", BillID: id, Amount: a.Amount})
			balances[id] = Balance{Outstanding: money.Cents(1 << 62)}
			p.Allocations = append(p.Allocations, PaymentAllocation{ID: uuid.New(), BillID: id, Amount: in.Allocations[i].Amount})
		}
		if err := CheckAllocations(p.Amount, true, "bill_payment_allocations", applied, balances, EnumInvalidPayment); err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("rules status %d for %q", st, body)
			}
			return
		}
		if err := p.Posting().Check(); err != nil {
			t.Fatalf("%q: posting: %v", body, err)
		}
		if err := p.DeletionPosting().Check(); err != nil {
			t.Fatalf("%q: deletion posting: %v", body, err)
		}
	})
}

// FuzzParsePaymentPatch: an update body parses or is a 400.
func FuzzParsePaymentPatch(f *testing.F) {
	for _, s := range append(paymentSeeds, `{"amount":5}`, `{"external_id":"x"}`, `{"payment_clearing_account_identifier":null}`, `{"tags":[]}`, `{"paid_at":null}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := ParsePaymentPatch(body)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		if p.Amount.Set && p.Amount.Value <= 0 || p.PaidAt.Set && p.PaidAt.Value.Equal(time.Time{}) {
			t.Fatalf("%q: patch %+v", body, p)
		}
	})
}

// TestCheckAllocationsCredit: a credit's allocations may sum to less than
// its total, never more.
func TestCheckAllocationsCredit(t *testing.T) {
	b := uuid.New()
	bal := map[uuid.UUID]Balance{b: {Outstanding: 100}}
	if err := CheckAllocations(50, false, "allocations", []Applied{{Field: "allocations[0]", BillID: b, Amount: 40}}, bal, EnumInvalidPayment); err != nil {
		t.Fatal(err)
	}
	if err := CheckAllocations(50, false, "allocations", nil, bal, EnumInvalidPayment); err != nil {
		t.Fatalf("no allocation: %v", err)
	}
	err := CheckAllocations(50, false, "allocations", []Applied{{Field: "allocations[0]", BillID: b, Amount: 60}}, bal, EnumInvalidPayment)
	if e := apperr.From(err); e.Status() != 400 || e.Enum != EnumAllocationMismatch {
		t.Fatalf("over the credit: %v", err)
	}
}
