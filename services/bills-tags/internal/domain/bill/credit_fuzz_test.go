package bill

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
)

var creditSeeds = []string{
	`{"received_at":"2026-03-01T00:00:00Z","vendor_id":"0190a0b0-0000-7000-8000-000000000001","line_items":[{"amount":900}],"allocations":[{"bill_id":"0190a0b0-0000-7000-8000-000000000002","amount":900}]}`,
	`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","external_id":"c","line_items":[{"amount":"5","expense_account_identifier":{"type":"AccountId","id":"0190a0b0-0000-7000-8000-000000000003"},"memo":"m","metadata":{"a":1},"reference_number":"r","tags":[{"key":"k","value":"v"}]}],"memo":"x","metadata":{"b":2},"reference_number":"R","tags":[{"key":"k","value":"v"}]}`,
	`{}`, `[]`, `null`, `{"line_items":[{"amount":-1}]}`, `{"allocations":[{}]}`, `{"memo":null,"allocations":[]}`,
	`{"received_at":"2026-03-01T00:00:00Z","vendor_external_id":"v","line_items":[{"amount":9223372036854775807}],"allocations":[{"bill_id":"0190a0b0-0000-7000-8000-000000000001","amount":9223372036854775807},{"bill_id":"0190a0b0-0000-7000-8000-000000000002","amount":1}]}`,
	`{"line_items":[{"amount":1,"expense_account_identifier":{"type":"StableName","stable_name":" "}}],"received_at":null}`,
}

// FuzzParseCredit: a create body parses into a credit whose allocations
// the rules accept or refuse with a 400 (an accepted one posts a balanced
// entry with lines and never applies more than its total), or is refused
// with a 400 itself; nothing panics.
func FuzzParseCredit(f *testing.F) {
	for _, s := range creditSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseCredit(body)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		if in.ReceivedAt.IsZero() || len(in.Lines) == 0 || (in.VendorID == nil) == (in.VendorExternalID == nil) {
			t.Fatalf("%q parsed without received_at, lines or exactly one vendor reference", body)
		}
		now := time.Now()
		c := Credit{ID: uuid.New(), BusinessID: uuid.New(), ReceivedAt: in.ReceivedAt, Version: 1,
			Lines: NewCreditLines(uuid.New(), in.Lines, uuid.New, now)}
		var applied []Applied
		balances := map[uuid.UUID]Balance{}
		for _, a := range in.Allocations {
			applied = append(applied, Applied{Field: "a", BillID: a.BillID, Amount: a.Amount})
			balances[a.BillID] = Balance{Outstanding: money.Cents(1 << 62)}
			c.Allocations = append(c.Allocations, CreditAllocation{ID: uuid.New(), BillID: a.BillID, Amount: a.Amount})
		}
		if err := CheckAllocations(c.Total(), false, "allocations", applied, balances, EnumInvalidCredit); err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("rules status %d for %q", st, body)
			}
			return
		}
		if c.Unapplied() < 0 || c.Total() <= 0 {
			t.Fatalf("%q: total %d unapplied %d", body, c.Total(), c.Unapplied())
		}
		p := c.Posting()
		if err := p.Check(); err != nil || len(p.Lines) == 0 {
			t.Fatalf("%q: posting %+v: %v", body, p, err)
		}
	})
}

// FuzzParseCreditPatch: an update body parses or is a 400; nothing panics.
func FuzzParseCreditPatch(f *testing.F) {
	for _, s := range creditSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"allocations":[{"bill_id":"0190a0b0-0000-7000-8000-000000000001","amount":"3"}],"tags":[],"metadata":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := ParseCreditPatch(body)
		if err != nil {
			if st := apperr.From(err).Status(); st != 400 {
				t.Fatalf("status %d for %q: %v", st, body, err)
			}
			return
		}
		if p.Lines.Set && len(p.Lines.Value) == 0 {
			t.Fatalf("%q: a patch without lines", body)
		}
	})
}
