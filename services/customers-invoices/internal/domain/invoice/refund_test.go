package invoice

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// on sums the lines on account (stable name or tax name) in direction dir.
func on(lines []PostingLine, account string, dir Direction) money.Cents {
	var n money.Cents
	for _, l := range lines {
		if (l.Account.Ref.StableName == account || l.Account.TaxName == account) && l.Direction == dir {
			n += l.Amount
		}
	}
	return n
}

// TestRefundPostings is the refund rule as an accountant writes it, for an
// invoice of $100 revenue + $8 tax (CA_STATE) + $2 tips = $110 paid into
// UNDEPOSITED_FUNDS:
//
//	allocation  Dr CUSTOMER_REFUNDS  R × 100/110
//	            Dr SALES_TAXES_PAYABLE:CA_STATE  R × 8/110
//	            Dr TIPS  R × 2/110
//	            Cr ACCOUNTS_RECEIVABLE  R
//	payment     Dr ACCOUNTS_RECEIVABLE  R
//	            Cr UNDEPOSITED_FUNDS (where the payment put the money)  R
//
// A/R nets to zero (the outstanding balance does not move), the P&L loses
// the revenue share on the refund's date on both bases, and cash goes down
// by R.
func TestRefundPostings(t *testing.T) {
	c, err := Compute(Draft{
		Lines: []LineInput{{Product: str("Cake"), UnitPrice: 10000, Quantity: qty(t, "1"),
			SalesTaxes: []SalesTax{{TaxName: "ca state", Amount: 800}}, Tags: []tags.KeyValue{{Key: "dept", Value: "bakery"}}}},
		Tips: 200,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                string
		refund              money.Cents
		revenue, tax, tips  money.Cents
		payouts             []Payout
		wantUndep, wantProc money.Cents
	}{
		{"full", 11000, 10000, 800, 200, []Payout{{UndepositedFunds, 11000}}, 11000, 0},
		{"half", 5500, 5000, 400, 100, []Payout{{UndepositedFunds, 5500}}, 5500, 0},
		{"one cent", 1, 1, 0, 0, []Payout{{UndepositedFunds, 1}}, 1, 0},
		{"odd cents", 333, 303, 24, 6, []Payout{{ProcessorClearing, 300}, {UndepositedFunds, 33}}, 33, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alloc, err := RefundAllocationPosting(tc.refund, c.Lines, c.AdditionalSalesTaxes, c.Totals, nil)
			if err != nil {
				t.Fatal(err)
			}
			balanced(t, "allocation", alloc)
			if got := on(alloc, CustomerRefunds, Debit); got != tc.revenue {
				t.Errorf("CUSTOMER_REFUNDS debit %d, want %d", got, tc.revenue)
			}
			if got := on(alloc, "CA_STATE", Debit); got != tc.tax {
				t.Errorf("tax debit %d, want %d", got, tc.tax)
			}
			if got := on(alloc, Tips, Debit); got != tc.tips {
				t.Errorf("TIPS debit %d, want %d", got, tc.tips)
			}
			if got := receivable(alloc); got != -tc.refund {
				t.Errorf("allocation moves A/R by %d, want %d", got, -tc.refund)
			}
			for _, l := range alloc {
				if l.Account.Ref.StableName == CustomerRefunds && (len(l.Tags) != 1 || l.Tags[0].Value != "bakery") {
					t.Errorf("the refunded revenue lost the line's tags: %+v", l.Tags)
				}
			}
			pay := RefundPaymentPosting(tc.payouts, nil)
			balanced(t, "payment", pay)
			if got := receivable(pay); got != tc.refund {
				t.Errorf("payment moves A/R by %d, want %d", got, tc.refund)
			}
			if got := on(pay, UndepositedFunds, Credit); got != tc.wantUndep {
				t.Errorf("UNDEPOSITED_FUNDS credit %d, want %d", got, tc.wantUndep)
			}
			if got := on(pay, ProcessorClearing, Credit); got != tc.wantProc {
				t.Errorf("PAYMENT_PROCESSOR_CLEARING credit %d, want %d", got, tc.wantProc)
			}
			if got := receivable(alloc) + receivable(pay); got != 0 {
				t.Errorf("A/R moves by %d over the two entries, want 0", got)
			}
		})
	}
}

func TestRefundPayouts(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	allocs := []InvoiceAllocation{
		{Amount: 4000, PaidAt: day(1), DepositAccount: UndepositedFunds},
		{Amount: 6000, PaidAt: day(2), DepositAccount: ProcessorClearing},
	}
	for _, tc := range []struct {
		name    string
		amount  money.Cents
		earlier []Refund
		want    []Payout
	}{
		{"newest payment first", 5000, nil, []Payout{{ProcessorClearing, 5000}}},
		{"then the older one", 8000, nil, []Payout{{ProcessorClearing, 6000}, {UndepositedFunds, 2000}}},
		{"after an earlier refund", 5000, []Refund{{Payouts: []Payout{{ProcessorClearing, 6000}}}}, []Payout{{UndepositedFunds, 4000}, {UndepositedFunds, 1000}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RefundPayouts(tc.amount, allocs, tc.earlier)
			var sum money.Cents
			for _, p := range got {
				sum += p.Amount
			}
			if sum != tc.amount {
				t.Fatalf("payouts %+v sum to %d, want %d", got, sum, tc.amount)
			}
			if tc.name != "after an earlier refund" && len(got) != len(tc.want) {
				t.Fatalf("payouts %+v, want %+v", got, tc.want)
			}
			for k := range min(len(got), len(tc.want)) {
				if got[k].Account != tc.want[k].Account {
					t.Fatalf("payouts %+v, want %+v", got, tc.want)
				}
			}
		})
	}
}

// paidInvoice is a sent invoice of total cents with paid cents paid.
func paidInvoice(t *testing.T, total, paid money.Cents) Invoice {
	t.Helper()
	sent := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	inv, err := New(uuid.New(), uuid.New(), Input{SentAt: &sent, Draft: Draft{Lines: []LineInput{{Product: str("x"), UnitPrice: total, Quantity: qty(t, "1")}}}},
		sent, uuid.New)
	if err != nil {
		t.Fatal(err)
	}
	if paid > 0 {
		inv.AddPayment(Payment{ID: uuid.New(), PaidAt: sent, Method: Cash}, paid)
		inv.Settle()
	}
	return inv
}

func TestRefundStatuses(t *testing.T) {
	now := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	amt := func(c money.Cents) *money.Cents { return &c }
	for _, tc := range []struct {
		name        string
		total, paid money.Cents
		refunds     []*money.Cents // nil: the default (all refundable)
		want        Status
		wantEnum    string
		outstanding money.Cents
	}{
		{"full refund of a paid invoice", 10000, 10000, []*money.Cents{nil}, Refunded, "", 0},
		{"partial refund stays paid", 10000, 10000, []*money.Cents{amt(4000)}, Paid, "", 0},
		{"two refunds make it refunded", 10000, 10000, []*money.Cents{amt(4000), amt(6000)}, Refunded, "", 0},
		{"refund of a partial payment", 10000, 6000, []*money.Cents{nil}, PartiallyPaid, "", 4000},
		{"more than paid", 10000, 6000, []*money.Cents{amt(6001)}, "", EnumRefundTooLarge, 0},
		{"nothing paid", 10000, 0, []*money.Cents{nil}, "", EnumNothingToRefund, 0},
		{"nothing left after a full refund", 10000, 10000, []*money.Cents{nil, nil}, "", EnumNothingToRefund, 0},
		{"zero amount", 10000, 10000, []*money.Cents{amt(0)}, "", EnumInvalidAmount, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := paidInvoice(t, tc.total, tc.paid)
			var err error
			for _, a := range tc.refunds {
				var r Refund
				if r, err = inv.NewRefund(uuid.New(), RefundInput{Amount: a, Method: Check}, now); err != nil {
					break
				}
				inv.AddRefund(r)
				inv.Revise(now)
			}
			if tc.wantEnum != "" {
				if !hasEnum(err, tc.wantEnum) {
					t.Fatalf("err %v, want %s", err, tc.wantEnum)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inv.Status != tc.want || inv.Outstanding() != tc.outstanding {
				t.Fatalf("status %s outstanding %d, want %s %d", inv.Status, inv.Outstanding(), tc.want, tc.outstanding)
			}
			if err := inv.CanRemovePayment(1); err == nil || !hasEnum(err, EnumHasRefunds) {
				if inv.Refunded >= inv.Paid {
					t.Fatalf("a payment could go below the refunds: %v", err)
				}
			}
		})
	}
}

func TestDraftFinalizeReset(t *testing.T) {
	now := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	in := Input{AsDraft: true, Draft: Draft{Lines: []LineInput{{Product: str("x"), UnitPrice: 5000, Quantity: qty(t, "1")}}}}
	inv, err := New(uuid.New(), uuid.New(), in, now, uuid.New)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Status != DraftStatus || inv.Outstanding() != 0 {
		t.Fatalf("draft: status %s outstanding %d", inv.Status, inv.Outstanding())
	}
	if err := CheckPayment(PaymentAmounts{Amount: 100, Allocations: []Allocation{{InvoiceID: inv.ID, Amount: 100}}},
		map[uuid.UUID]Balance{inv.ID: inv.Balance()}); !hasEnum(err, EnumInvoiceDraft) {
		t.Fatalf("a draft took a payment: %v", err)
	}
	if err := CheckWriteOff(100, ModeExpense, AccountRef{}, inv.Balance()); !hasEnum(err, EnumInvoiceDraft) {
		t.Fatalf("a draft was written off: %v", err)
	}
	// Reset leaves a draft alone.
	if _, changed, err := inv.Reset(now, nil); err != nil || changed {
		t.Fatalf("reset of a draft: changed %v err %v", changed, err)
	}
	sent := time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	posted, changed, err := inv.Finalize(FinalizeInput{SentAt: &sent,
		PaymentMethods: Optional[[]OnlineMethod]{Set: true, Value: []OnlineMethod{OnlineACH}}}, later)
	if err != nil || !posted || !changed {
		t.Fatalf("finalize: posted %v changed %v err %v", posted, changed, err)
	}
	if inv.Status != Sent || inv.Outstanding() != 5000 || !inv.SentAt.Equal(sent) || inv.Version != 2 {
		t.Fatalf("finalized: %s %d %s v%d", inv.Status, inv.Outstanding(), inv.SentAt, inv.Version)
	}
	// Finalizing again with the same methods changes nothing.
	if posted, changed, err := inv.Finalize(FinalizeInput{PaymentMethods: Optional[[]OnlineMethod]{Set: true, Value: []OnlineMethod{OnlineACH}}}, later); err != nil || posted || changed {
		t.Fatalf("second finalize: posted %v changed %v err %v", posted, changed, err)
	}

	// Paid, refunded in part, written off: reset undoes it all.
	p := Payment{ID: uuid.New(), PaidAt: later, Method: Cash}
	inv.AddPayment(p, 3000)
	inv.Revise(later)
	r, err := inv.NewRefund(uuid.New(), RefundInput{Amount: ptrCents(1000), Method: Cash}, later)
	if err != nil {
		t.Fatal(err)
	}
	inv.AddRefund(r)
	inv.AddWriteOff(WriteOff{ID: uuid.New(), Amount: 2000})
	inv.Revise(later)
	if inv.Status != WrittenOff {
		t.Fatalf("before the reset: %s", inv.Status)
	}
	if _, _, err := inv.Reset(later, map[uuid.UUID]int{p.ID: 2}); !hasEnum(err, EnumPaymentSpansInvoices) {
		t.Fatalf("reset with a payment of two invoices: %v", err)
	}
	res, changed, err := inv.Reset(later, map[uuid.UUID]int{p.ID: 1})
	if err != nil || !changed {
		t.Fatalf("reset: changed %v err %v", changed, err)
	}
	if len(res.Payments) != 1 || len(res.Refunds) != 1 || len(res.WriteOffs) != 1 || res.Unvoided {
		t.Fatalf("reset result %+v", res)
	}
	if inv.Status != Sent || inv.Outstanding() != 5000 || inv.Paid != 0 || inv.Refunded != 0 || len(inv.LiveRefunds()) != 0 {
		t.Fatalf("after the reset: %s outstanding %d paid %d refunded %d", inv.Status, inv.Outstanding(), inv.Paid, inv.Refunded)
	}
}

func ptrCents(c money.Cents) *money.Cents { return &c }

func TestPaymentRevise(t *testing.T) {
	now := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	inv := paidInvoice(t, 10000, 0)
	in := PaymentInput{PaidAt: &now, Method: Cash, Amount: 4000, Allocations: []AllocationInput{{InvoiceID: &inv.ID, Amount: 4000}}}
	p, err := NewPayment(inv.BusinessID, uuid.New(), in, []*Invoice{&inv}, now)
	if err != nil {
		t.Fatal(err)
	}
	inv.AddPayment(p, 4000)
	inv.Revise(now)
	for _, tc := range []struct {
		name     string
		amount   money.Cents
		refunded money.Cents
		enum     string
		status   Status
	}{
		{"raise to the total", 10000, 0, "", Paid},
		{"lower", 1000, 0, "", PartiallyPaid},
		{"beyond the total", 10001, 0, EnumOverpaid, ""},
		{"below the refunds", 1000, 2000, EnumHasRefunds, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := inv
			cp.Allocations = append([]InvoiceAllocation(nil), inv.Allocations...)
			cp.Refunded = tc.refunded
			next, err := p.Revise(PaymentInput{PaidAt: &now, Method: Check, Amount: tc.amount}, &cp, now)
			if tc.enum != "" {
				if !hasEnum(err, tc.enum) {
					t.Fatalf("err %v, want %s", err, tc.enum)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cp.Revise(now)
			if next.Version != 2 || next.Amount != tc.amount || next.Allocations[0].Amount != tc.amount || cp.Paid != tc.amount || cp.Status != tc.status {
				t.Fatalf("revised v%d amount %d alloc %d; invoice paid %d %s", next.Version, next.Amount, next.Allocations[0].Amount, cp.Paid, cp.Status)
			}
		})
	}
}

// hasEnum reports whether err is an apperr with that error_enum.
func hasEnum(err error, enum string) bool {
	var ae *apperr.Error
	return errors.As(err, &ae) && ae.Enum == enum
}
