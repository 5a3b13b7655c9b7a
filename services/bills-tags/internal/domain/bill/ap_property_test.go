package bill

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/money"
)

// ledger keeps the live entry of each source as the transactions service
// does: a newer version replaces it, one without lines reverses it.
type ledger map[string]*events.LedgerPosting

func (l ledger) apply(t *testing.T, p *events.LedgerPosting) {
	t.Helper()
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	k := p.SourceType + "/" + p.SourceID
	if live, ok := l[k]; ok && live.Version >= p.Version {
		t.Fatalf("%s: version %d after %d", k, p.Version, live.Version)
	}
	if len(p.Lines) == 0 {
		delete(l, k)
		return
	}
	l[k] = p
}

// payable is Σ (credit − debit) on ACCOUNTS_PAYABLE over the live entries.
func (l ledger) payable() money.Cents {
	var s money.Cents
	for _, p := range l {
		for _, ln := range p.Lines {
			if ln.Account.StableName != AccountsPayable {
				continue
			}
			if ln.Direction == "CREDIT" {
				s += money.Cents(ln.Amount)
			} else {
				s -= money.Cents(ln.Amount)
			}
		}
	}
	return s
}

// TestPayablesProperty runs generated sequences of bills, payments,
// payment updates, voids, payment deletions, vendor credits and their
// re-allocations through the domain's rules (as the use cases apply them)
// and checks after every step that no bill owes less than 0, no credit is
// applied beyond its total, and that the ledger's accounts payable equals
// what the open bills owe less the credits' unapplied rest.
func TestPayablesProperty(t *testing.T) {
	var ops [7]int
	for seed := uint64(1); seed <= 200; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runPayables(t, rand.New(rand.NewPCG(seed, 7)), &ops) })
	}
	for i, n := range ops {
		if n < 50 {
			t.Errorf("operation %d ran %d times: the generator hardly exercises it (%v)", i, n, ops)
		}
	}
}

func runPayables(t *testing.T, r *rand.Rand, ops *[7]int) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := ledger{}
	bills := map[uuid.UUID]*Bill{}
	var billIDs []uuid.UUID
	payments := map[uuid.UUID]*Payment{}
	var paymentIDs []uuid.UUID
	credits := map[uuid.UUID]*Credit{}
	var creditIDs []uuid.UUID
	settle := func(id uuid.UUID, d money.Cents) {
		b := bills[id].Settle(d, at)
		b.Version++
		if b.Settled < 0 || b.Settled > b.Totals.Total {
			t.Fatalf("bill %s settled %d of %d", id, b.Settled, b.Totals.Total)
		}
		*bills[id] = b
	}
	// draw draws allocations over open bills (with back taken back from
	// their settled amounts), checks them with the rules (summing exactly
	// to their total for a payment, at most to credit for a credit) and
	// returns them.
	draw := func(back map[uuid.UUID]money.Cents, credit money.Cents) ([]Applied, money.Cents, bool) {
		var applied []Applied
		balances := map[uuid.UUID]Balance{}
		var total money.Cents
		for _, id := range billIDs {
			b := bills[id]
			bal := Balance{Outstanding: b.Outstanding + back[id], Voided: b.Status == Voided}
			balances[id] = bal
			if r.IntN(3) != 0 || bal.Outstanding == 0 && !bal.Voided {
				continue
			}
			amt := money.Cents(1 + r.Int64N(int64(bal.Outstanding)+2)) // sometimes over: refused
			applied = append(applied, Applied{Field: "a", BillID: id, Amount: amt})
			total += amt
		}
		exact := credit == 0
		if exact {
			credit = total
		}
		if err := CheckAllocations(credit, exact, "a", applied, balances, EnumInvalidPayment); err != nil {
			return nil, 0, false
		}
		return applied, total, true
	}
	allocate := func(prev []PaymentAllocation) ([]PaymentAllocation, money.Cents, bool) {
		back := map[uuid.UUID]money.Cents{}
		for _, a := range prev {
			back[a.BillID] += a.Amount
		}
		applied, total, ok := draw(back, 0)
		als := make([]PaymentAllocation, len(applied))
		for i, a := range applied {
			als[i] = PaymentAllocation{ID: uuid.New(), BillID: a.BillID, Amount: a.Amount}
		}
		return als, total, ok
	}
	apply := func(c *Credit) bool {
		back := map[uuid.UUID]money.Cents{}
		for _, a := range c.Allocations {
			back[a.BillID] += a.Amount
		}
		applied, _, ok := draw(back, c.Total())
		if !ok {
			return false
		}
		for _, a := range c.Allocations {
			settle(a.BillID, -a.Amount)
		}
		c.Allocations = make([]CreditAllocation, len(applied))
		for i, a := range applied {
			c.Allocations[i] = CreditAllocation{ID: uuid.New(), BillID: a.BillID, Amount: a.Amount}
			settle(a.BillID, a.Amount)
		}
		return true
	}
	for step := 0; step < 60; step++ {
		switch op := r.IntN(7); {
		case op == 0 || len(billIDs) == 0:
			c, err := Compute([]LineInput{{UnitPrice: money.Cents(r.IntN(10000)), Quantity: mustQty(1 + r.IntN(3))}}, nil, uuid.New)
			if err != nil {
				t.Fatal(err)
			}
			b := Bill{ID: uuid.New(), Lines: c.Lines, Totals: c.Totals, Version: 1, ReceivedAt: at}
			b = b.Settle(0, at)
			bills[b.ID], billIDs = &b, append(billIDs, b.ID)
			l.apply(t, b.Posting())
			ops[0]++
		case op == 1: // void an unpaid bill
			b := bills[billIDs[r.IntN(len(billIDs))]]
			if b.Status == Voided || b.Settled > 0 {
				continue
			}
			v := at
			b.VoidedAt = &v
			*b = b.Settle(0, at)
			b.Version++
			l.apply(t, b.Posting())
			ops[1]++
		case op == 2: // pay
			als, total, ok := allocate(nil)
			if !ok {
				continue
			}
			p := Payment{ID: uuid.New(), PaidAt: at, Method: ACH, Amount: total, Allocations: als, Version: 1}
			for _, a := range als {
				settle(a.BillID, a.Amount)
			}
			payments[p.ID], paymentIDs = &p, append(paymentIDs, p.ID)
			l.apply(t, p.Posting())
			ops[2]++
		case op == 3 && len(paymentIDs) > 0: // re-allocate a payment
			p := payments[paymentIDs[r.IntN(len(paymentIDs))]]
			als, total, ok := allocate(p.Allocations)
			if !ok {
				continue
			}
			for _, a := range p.Allocations {
				settle(a.BillID, -a.Amount)
			}
			for _, a := range als {
				settle(a.BillID, a.Amount)
			}
			p.Allocations, p.Amount, p.Version = als, total, p.Version+1
			l.apply(t, p.Posting())
			ops[3]++
		case op == 4 && len(paymentIDs) > 0: // delete a payment
			i := r.IntN(len(paymentIDs))
			p := payments[paymentIDs[i]]
			for _, a := range p.Allocations {
				settle(a.BillID, -a.Amount)
			}
			l.apply(t, p.DeletionPosting())
			delete(payments, p.ID)
			paymentIDs = append(paymentIDs[:i], paymentIDs[i+1:]...)
			ops[4]++
		case op == 5: // a vendor credit, applied to some bills (or none)
			n := 1 + r.IntN(3)
			c := Credit{ID: uuid.New(), ReceivedAt: at, Version: 1}
			for range n {
				c.Lines = append(c.Lines, CreditLine{ID: uuid.New(), Amount: money.Cents(1 + r.IntN(8000))})
			}
			if !apply(&c) {
				continue
			}
			credits[c.ID], creditIDs = &c, append(creditIDs, c.ID)
			l.apply(t, c.Posting())
			ops[5]++
		case op == 6 && len(creditIDs) > 0: // re-allocate a credit (PATCH allocations)
			c := credits[creditIDs[r.IntN(len(creditIDs))]]
			if !apply(c) {
				continue
			}
			c.Version++
			l.apply(t, c.Posting())
			ops[6]++
		}
		var open, unapplied money.Cents
		for _, b := range bills {
			if b.Outstanding < 0 {
				t.Fatalf("step %d: bill %s owes %d", step, b.ID, b.Outstanding)
			}
			if want := StatusOf(b.Totals.Total, b.Settled, b.VoidedAt != nil); b.Status != want {
				t.Fatalf("step %d: status %s, want %s", step, b.Status, want)
			}
			open += b.Outstanding
		}
		for _, c := range credits {
			if c.Unapplied() < 0 {
				t.Fatalf("step %d: credit %s applied %d of %d", step, c.ID, c.Applied(), c.Total())
			}
			unapplied += c.Unapplied()
		}
		if got := l.payable(); got != open-unapplied {
			t.Fatalf("step %d: accounts payable %d, open bills %d less unapplied credits %d", step, got, open, unapplied)
		}
	}
}

func mustQty(n int) money.Quantity {
	q, err := money.QuantityOf(int64(n))
	if err != nil {
		panic(err)
	}
	return q
}
