package invoice

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

// balanced fails unless the lines' debits equal their credits and every
// amount is positive.
func balanced(t *testing.T, what string, lines []PostingLine) {
	t.Helper()
	var dr, cr money.Cents
	for _, l := range lines {
		if l.Amount <= 0 {
			t.Fatalf("%s: line with amount %d: %+v", what, l.Amount, lines)
		}
		if l.Direction == Debit {
			dr += l.Amount
		} else {
			cr += l.Amount
		}
	}
	if dr != cr {
		t.Fatalf("%s: debits %d != credits %d: %+v", what, dr, cr, lines)
	}
}

// receivable is what lines add to ACCOUNTS_RECEIVABLE (debits − credits).
func receivable(lines []PostingLine) money.Cents {
	var ar money.Cents
	for _, l := range lines {
		if l.Account.Ref.StableName != AccountsReceivable {
			continue
		}
		if l.Direction == Debit {
			ar += l.Amount
		} else {
			ar -= l.Amount
		}
	}
	return ar
}

func TestInvoicePostingExample(t *testing.T) {
	c, err := Compute(Draft{
		Lines: []LineInput{
			{Product: str("A"), UnitPrice: 10000, Quantity: qty(t, "1"), DiscountAmount: 1000,
				SalesTaxes: []SalesTax{{TaxName: " ca  state", Amount: 720}}, Tags: []tags.KeyValue{{Key: "dept", Value: "retail"}}},
			{Description: str("B"), UnitPrice: 3000, Quantity: qty(t, "1"), Account: StableName("CONSULTING")},
		},
		AdditionalDiscount: 1000, AdditionalSalesTaxes: []SalesTax{{TaxName: "city", Amount: 100}}, Tips: 500,
	})
	if err != nil {
		t.Fatal(err)
	}
	inv := []tags.KeyValue{{Key: "dept", Value: "hq"}, {Key: "region", Value: "west"}}
	got := InvoicePosting(c.Lines, c.AdditionalSalesTaxes, c.Totals, inv)
	want := []struct {
		account string
		dir     Direction
		amount  money.Cents
	}{
		{AccountsReceivable, Debit, 12320},
		{"SALES", Credit, 8250},
		{"tax:CA_STATE", Credit, 720},
		{"CONSULTING", Credit, 2750},
		{"tax:CITY", Credit, 100},
		{Tips, Credit, 500},
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		name := got[i].Account.Ref.StableName
		if got[i].Account.TaxName != "" {
			name = "tax:" + got[i].Account.TaxName
		}
		if name != w.account || got[i].Direction != w.dir || got[i].Amount != w.amount {
			t.Errorf("line %d: %s %s %d, want %s %s %d", i, name, got[i].Direction, got[i].Amount, w.account, w.dir, w.amount)
		}
	}
	// The line's own dept tag replaces the invoice's; region stays.
	if tg := got[1].Tags; len(tg) != 2 || tg[0] != inv[1] || tg[1].Value != "retail" {
		t.Errorf("line tags %+v", tg)
	}
	balanced(t, "invoice", got)
	// A tax without a tax account (the SDK sends {amount}) goes to SALES_TAXES_PAYABLE.
	plain, err := Compute(Draft{Lines: []LineInput{{Product: str("p"), UnitPrice: 100, Quantity: qty(t, "1"),
		SalesTaxes: []SalesTax{{Amount: 8}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if pl := InvoicePosting(plain.Lines, nil, plain.Totals, nil); len(pl) != 3 || pl[2].Account.Ref.StableName != SalesTaxesPayable || pl[2].Amount != 8 {
		t.Errorf("tax without an account: %+v", pl)
	}
	if InvoicePosting(nil, nil, Totals{}, nil) != nil {
		t.Error("a zero invoice posts lines")
	}
}

func TestPaymentAndWriteOffPostings(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	p := PaymentAmounts{Amount: 1300, Fee: 30, Allocations: []Allocation{{a, 1000}, {b, 300}}}
	for _, c := range []struct {
		method    Method
		processor string
		cash      string
	}{{Cash, "", UndepositedFunds}, {CreditCard, "STRIPE", ProcessorClearing}, {CreditBalance, "", UnearnedRevenue}} {
		lines := PaymentPosting(c.method, c.processor, p, nil)
		balanced(t, "payment", lines)
		if lines[0].Account.Ref.StableName != c.cash || lines[0].Amount != 1270 || lines[1].Account.Ref.StableName != PaymentFees || lines[1].Amount != 30 {
			t.Errorf("%s/%s: %+v", c.method, c.processor, lines)
		}
		if receivable(lines) != -1300 {
			t.Errorf("A/R %d", receivable(lines))
		}
	}
	ci, err := Compute(Draft{Lines: []LineInput{
		{Product: str("a"), UnitPrice: 300, Quantity: qty(t, "1")},
		{Product: str("b"), UnitPrice: 700, Quantity: qty(t, "1"), Account: StableName("CONSULTING")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := WriteOffPosting(101, ModeExpense, AccountRef{}, ci.Lines, nil)
	if err != nil || exp[0].Account.Ref.StableName != DefaultWriteOffAccount || exp[0].Amount != 101 {
		t.Fatalf("expense write-off: %+v %v", exp, err)
	}
	rev, err := WriteOffPosting(101, ModeRevenueReversal, AccountRef{}, ci.Lines, nil)
	if err != nil {
		t.Fatal(err)
	}
	balanced(t, "revenue reversal", rev)
	if rev[0].Account.Ref.StableName != "SALES" || rev[0].Amount != 30 || rev[1].Account.Ref.StableName != "CONSULTING" || rev[1].Amount != 71 {
		t.Errorf("revenue reversal split: %+v", rev)
	}
	tipsOnly, err := Compute(Draft{Lines: []LineInput{{Product: str("free"), Quantity: qty(t, "1")}}, Tips: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteOffPosting(50, ModeRevenueReversal, AccountRef{}, tipsOnly.Lines, nil); fields(t, err)["write_off_mode"] == "" {
		t.Errorf("revenue reversal without revenue: %v", err)
	}
}

// randomDraft is an invoice of 1–6 lines with random prices, fractional
// quantities, discounts, taxes, an additional discount and tips.
func randomDraft(r *rand.Rand) Draft {
	var d Draft
	var revenue money.Cents
	for range 1 + r.IntN(6) {
		q := money.QuantityFromScaled(int64(1 + r.IntN(5_000_000))) // up to 5 units, in millionths
		l := LineInput{Product: str("p"), UnitPrice: money.Cents(r.IntN(100_000)), Quantity: q}
		sub, _ := money.LineTotal(q, l.UnitPrice)
		if sub > 0 && r.IntN(2) == 0 {
			l.DiscountAmount = money.Cents(r.Int64N(int64(sub) + 1))
		}
		for range r.IntN(3) {
			l.SalesTaxes = append(l.SalesTaxes, SalesTax{TaxName: fmt.Sprintf("T%d", r.IntN(3)), Amount: money.Cents(r.IntN(5_000))})
		}
		revenue += sub - l.DiscountAmount
		d.Lines = append(d.Lines, l)
	}
	if revenue > 0 && r.IntN(2) == 0 {
		d.AdditionalDiscount = money.Cents(r.Int64N(int64(revenue) + 1))
	}
	if r.IntN(3) == 0 {
		d.AdditionalSalesTaxes = []SalesTax{{TaxName: "EXTRA", Amount: money.Cents(r.IntN(2_000))}}
	}
	d.Tips = money.Cents(r.IntN(3) * r.IntN(1_000))
	return d
}

// TestPostingsKeepTheBooks is the property over generated invoices and
// random sequences of payments and write-offs: every entry balances, the
// revenue credits sum to subtotal − discounts, the total equals the
// lines' totals less the additional discount plus additional taxes and
// tips, and A/R as journaled equals the sum of outstanding balances after
// every step.
func TestPostingsKeepTheBooks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for iter := range 2000 {
		type doc struct {
			lines []Line
			bal   Balance
		}
		var docs []*doc
		var ar money.Cents
		check := func(step string) {
			var open money.Cents
			for _, d := range docs {
				open += d.bal.Outstanding()
			}
			if ar != open {
				t.Fatalf("iteration %d, %s: A/R %d != outstanding %d", iter, step, ar, open)
			}
		}
		for step := range 12 {
			switch k := r.IntN(3); {
			case k == 0 || len(docs) == 0: // a new invoice
				d := randomDraft(r)
				c, err := Compute(d)
				lines, tot := c.Lines, c.Totals
				if err != nil {
					t.Fatalf("iteration %d: generated draft refused: %v", iter, err)
				}
				var lineTotals, revenue money.Cents
				for _, l := range lines {
					lineTotals += l.TotalAmount
					revenue += l.Revenue
				}
				if want := lineTotals - d.AdditionalDiscount + tot.AdditionalTaxes + d.Tips; tot.Total != want {
					t.Fatalf("iteration %d: total %d, want %d", iter, tot.Total, want)
				}
				if revenue != tot.Subtotal-tot.TotalDiscount {
					t.Fatalf("iteration %d: revenue %d != subtotal − discounts %d", iter, revenue, tot.Subtotal-tot.TotalDiscount)
				}
				posted := InvoicePosting(lines, c.AdditionalSalesTaxes, tot, nil)
				if tot.Total > 0 {
					balanced(t, "invoice", posted)
				}
				ar += receivable(posted)
				docs = append(docs, &doc{lines: lines, bal: Balance{Total: tot.Total}})
			case k == 1: // a payment over up to three open invoices
				var p PaymentAmounts
				bal := map[uuid.UUID]Balance{}
				ids := map[uuid.UUID]*doc{}
				for _, d := range docs {
					if len(p.Allocations) == 3 || d.bal.Outstanding() == 0 || r.IntN(2) == 0 {
						continue
					}
					id := uuid.New()
					amt := money.Cents(1 + r.Int64N(int64(d.bal.Outstanding())))
					p.Allocations = append(p.Allocations, Allocation{id, amt})
					p.Amount += amt
					bal[id], ids[id] = d.bal, d
				}
				if len(p.Allocations) == 0 {
					continue
				}
				p.Fee = money.Cents(r.Int64N(int64(p.Amount) + 1))
				if err := CheckPayment(p, bal); err != nil {
					t.Fatalf("iteration %d: valid payment refused: %v", iter, err)
				}
				posted := PaymentPosting(Methods[r.IntN(len(Methods))], "", p, nil)
				balanced(t, "payment", posted)
				ar += receivable(posted)
				for _, a := range p.Allocations {
					ids[a.InvoiceID].bal.Paid += a.Amount
				}
			default: // a write-off of part or all of an open invoice
				d := docs[r.IntN(len(docs))]
				if d.bal.Outstanding() == 0 {
					continue
				}
				amt := money.Cents(1 + r.Int64N(int64(d.bal.Outstanding())))
				mode := ModeExpense
				var rev money.Cents
				for _, l := range d.lines {
					rev += l.Revenue
				}
				if rev > 0 && r.IntN(2) == 0 {
					mode = ModeRevenueReversal
				}
				if err := CheckWriteOff(amt, mode, AccountRef{}, d.bal); err != nil {
					t.Fatalf("iteration %d: valid write-off refused: %v", iter, err)
				}
				posted, err := WriteOffPosting(amt, mode, AccountRef{}, d.lines, nil)
				if err != nil {
					t.Fatal(err)
				}
				balanced(t, "write-off", posted)
				ar += receivable(posted)
				d.bal.WrittenOff += amt
			}
			check(fmt.Sprintf("step %d", step))
		}
	}
}
