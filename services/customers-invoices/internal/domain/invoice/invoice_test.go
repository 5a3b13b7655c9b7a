package invoice

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

func qty(t *testing.T, s string) money.Quantity {
	t.Helper()
	q, err := money.ParseQuantity(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func str(s string) *string { return &s }

// fields returns the meta.fields of a 400, failing the test otherwise.
func fields(t *testing.T, err error) map[string]string {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Status() != 400 {
		t.Fatalf("want a 400 error, got %v", err)
	}
	f, _ := ae.Meta["fields"].(map[string]string)
	return f
}

func TestComputeTotals(t *testing.T) {
	tests := []struct {
		name  string
		draft func(t *testing.T) Draft
		want  Totals
		lines []Line // Subtotal, SalesTaxesTotal, TotalAmount, Revenue checked
	}{
		{
			name: "one line, quantity × price",
			draft: func(t *testing.T) Draft {
				return Draft{Lines: []LineInput{{Product: str("Widget"), UnitPrice: 1299, Quantity: qty(t, "2")}}}
			},
			want:  Totals{Subtotal: 2598, Total: 2598},
			lines: []Line{{Subtotal: 2598, TotalAmount: 2598, Revenue: 2598}},
		},
		{
			name: "fractional quantity rounds half away from zero per line",
			draft: func(t *testing.T) Draft {
				return Draft{Lines: []LineInput{
					{Product: str("Hours"), UnitPrice: 333, Quantity: qty(t, "1.5")},     // 499.5 → 500
					{Product: str("Minutes"), UnitPrice: 100, Quantity: qty(t, "0.333")}, // 33.3 → 33
				}}
			},
			want:  Totals{Subtotal: 533, Total: 533},
			lines: []Line{{Subtotal: 500, TotalAmount: 500, Revenue: 500}, {Subtotal: 33, TotalAmount: 33, Revenue: 33}},
		},
		{
			name: "line discount, line tax, additional discount spread by revenue, additional tax, tips",
			draft: func(t *testing.T) Draft {
				return Draft{
					Lines: []LineInput{
						{Product: str("A"), UnitPrice: 10000, Quantity: qty(t, "1"), DiscountAmount: 1000,
							SalesTaxes: []SalesTax{{TaxName: "CA_STATE", Amount: 720}}},
						{Description: str("B"), UnitPrice: 3000, Quantity: qty(t, "1")},
					},
					AdditionalDiscount:   1000, // over revenue 9000 and 3000: 750 and 250
					AdditionalSalesTaxes: []SalesTax{{TaxName: "CITY", Amount: 100}},
					Tips:                 500,
				}
			},
			want: Totals{Subtotal: 13000, LineDiscounts: 1000, AdditionalDiscount: 1000, TotalDiscount: 2000,
				LineTaxes: 720, AdditionalTaxes: 100, TotalTax: 820, Tips: 500, Total: 13000 - 2000 + 820 + 500},
			lines: []Line{
				{Subtotal: 10000, SalesTaxesTotal: 720, TotalAmount: 9720, Revenue: 8250},
				{Subtotal: 3000, TotalAmount: 3000, Revenue: 2750},
			},
		},
		{
			name: "additional discount split with a remainder still sums exactly",
			draft: func(t *testing.T) Draft {
				return Draft{Lines: []LineInput{
					{Product: str("x"), UnitPrice: 1, Quantity: qty(t, "1")},
					{Product: str("y"), UnitPrice: 1, Quantity: qty(t, "1")},
					{Product: str("z"), UnitPrice: 1, Quantity: qty(t, "1")},
				}, AdditionalDiscount: 2}
			},
			want:  Totals{Subtotal: 3, AdditionalDiscount: 2, TotalDiscount: 2, Total: 1},
			lines: []Line{{Subtotal: 1, TotalAmount: 1, Revenue: 0}, {Subtotal: 1, TotalAmount: 1, Revenue: 0}, {Subtotal: 1, TotalAmount: 1, Revenue: 1}},
		},
		{
			name: "a free line",
			draft: func(t *testing.T) Draft {
				return Draft{Lines: []LineInput{{Product: str("Gift"), UnitPrice: 0, Quantity: qty(t, "3")}}}
			},
			want:  Totals{},
			lines: []Line{{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compute(tt.draft(t))
			lines, got := c.Lines, c.Totals
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("totals %+v, want %+v", got, tt.want)
			}
			var revenue money.Cents
			for i, w := range tt.lines {
				l := lines[i]
				if l.Subtotal != w.Subtotal || l.SalesTaxesTotal != w.SalesTaxesTotal || l.TotalAmount != w.TotalAmount || l.Revenue != w.Revenue {
					t.Errorf("line %d: subtotal %d taxes %d total %d revenue %d, want %d %d %d %d", i,
						l.Subtotal, l.SalesTaxesTotal, l.TotalAmount, l.Revenue, w.Subtotal, w.SalesTaxesTotal, w.TotalAmount, w.Revenue)
				}
				revenue += l.Revenue
			}
			if want := got.Subtotal - got.TotalDiscount; revenue != want {
				t.Errorf("revenue %d, want subtotal − discounts = %d", revenue, want)
			}
		})
	}
}

func TestComputeRejects(t *testing.T) {
	one := func(t *testing.T, mod func(*LineInput)) Draft {
		l := LineInput{Product: str("Widget"), UnitPrice: 1000, Quantity: qty(t, "1")}
		mod(&l)
		return Draft{Lines: []LineInput{l}}
	}
	tests := []struct {
		name  string
		draft func(t *testing.T) Draft
		field string
		enum  string
	}{
		{"no lines", func(t *testing.T) Draft { return Draft{} }, "line_items", EnumInvalidLine},
		{"too many lines", func(t *testing.T) Draft {
			d := one(t, func(*LineInput) {})
			for len(d.Lines) <= MaxLines {
				d.Lines = append(d.Lines, d.Lines[0])
			}
			return d
		}, "line_items", EnumInvalidLine},
		{"neither product nor description", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) { l.Product, l.Description = nil, str("  ") })
		}, "line_items[0].product", EnumInvalidLine},
		{"NUL in a line memo (stored in jsonb)", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) { l.Memo = str("a\x00b") })
		}, "line_items[0].memo", EnumInvalidLine},
		{"NUL in a line description", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) { l.Description = str("\x00") })
		}, "line_items[0].description", EnumInvalidLine},
		{"negative unit price", func(t *testing.T) Draft { return one(t, func(l *LineInput) { l.UnitPrice = -1 }) }, "line_items[0].unit_price", EnumInvalidLine},
		{"zero quantity", func(t *testing.T) Draft { return one(t, func(l *LineInput) { l.Quantity = qty(t, "0") }) }, "line_items[0].quantity", EnumInvalidLine},
		{"negative quantity", func(t *testing.T) Draft { return one(t, func(l *LineInput) { l.Quantity = qty(t, "-1") }) }, "line_items[0].quantity", EnumInvalidLine},
		{"overflowing line", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) { l.UnitPrice = 1 << 62; l.Quantity = qty(t, "4") })
		}, "line_items[0].quantity", EnumInvalidLine},
		{"negative discount", func(t *testing.T) Draft { return one(t, func(l *LineInput) { l.DiscountAmount = -5 }) }, "line_items[0].discount_amount", EnumInvalidLine},
		{"discount above the subtotal", func(t *testing.T) Draft { return one(t, func(l *LineInput) { l.DiscountAmount = 1001 }) }, "line_items[0].discount_amount", EnumInvalidLine},
		{"tax with a name the ledger cannot use", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) { l.SalesTaxes = []SalesTax{{TaxName: "state/city", Amount: 5}} })
		}, "line_items[0].sales_taxes[0].tax_account.name", EnumInvalidLine},
		{"tax with both a name and an account", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) {
				a := StableName("SALES_TAXES_PAYABLE")
				l.SalesTaxes = []SalesTax{{TaxName: "VAT", Account: &a, Amount: 5}}
			})
		}, "line_items[0].sales_taxes[0].tax_account", EnumInvalidLine},
		{"negative tax", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) { l.SalesTaxes = []SalesTax{{TaxName: "X", Amount: -5}} })
		}, "line_items[0].sales_taxes[0].amount", EnumInvalidLine},
		{"bad tag", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) { l.Tags = []tags.KeyValue{{Key: "", Value: "v"}} })
		}, "line_items[0].tags[0].key", EnumInvalidLine},
		{"long product", func(t *testing.T) Draft {
			return one(t, func(l *LineInput) { l.Product = str(strings.Repeat("p", MaxTextLength+1)) })
		}, "line_items[0].product", EnumInvalidLine},
		{"negative tips", func(t *testing.T) Draft {
			d := one(t, func(*LineInput) {})
			d.Tips = -1
			return d
		}, "tips", EnumInvalidLine},
		{"additional discount above the lines' revenue", func(t *testing.T) Draft {
			d := one(t, func(l *LineInput) { l.DiscountAmount = 400 })
			d.AdditionalDiscount = 601
			return d
		}, "additional_discount", EnumDiscountTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compute(tt.draft(t))
			f := fields(t, err)
			if _, ok := f[tt.field]; !ok {
				t.Fatalf("fields %v, want %s", f, tt.field)
			}
			var ae *apperr.Error
			if errors.As(err, &ae); ae.Enum != tt.enum {
				t.Fatalf("enum %q, want %q", ae.Enum, tt.enum)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		b    Balance
		want Status
		out  money.Cents
	}{
		{Balance{Total: 1000}, Sent, 1000},
		{Balance{Total: 1000, Paid: 1}, PartiallyPaid, 999},
		{Balance{Total: 1000, Paid: 1000}, Paid, 0},
		{Balance{Total: 1000, WrittenOff: 300}, PartiallyWrittenOff, 700},
		{Balance{Total: 1000, Paid: 400, WrittenOff: 300}, PartiallyWrittenOff, 300},
		{Balance{Total: 1000, Paid: 400, WrittenOff: 600}, WrittenOff, 0},
		{Balance{Total: 1000, WrittenOff: 1000}, WrittenOff, 0},
		{Balance{Total: 0}, Paid, 0},
		{Balance{Total: 1000, Voided: true}, Voided, 0},
	}
	for _, tt := range tests {
		if got := tt.b.Status(); got != tt.want {
			t.Errorf("%+v: status %s, want %s", tt.b, got, tt.want)
		}
		if got := tt.b.Outstanding(); got != tt.out {
			t.Errorf("%+v: outstanding %d, want %d", tt.b, got, tt.out)
		}
	}
	if err := (Balance{Total: 5, Paid: 1}).Editable(); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("paid invoice editable: %v", err)
	}
	if err := (Balance{Total: 5, WrittenOff: 1}).Editable(); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("written-off invoice editable: %v", err)
	}
	if err := (Balance{Total: 5, Voided: true}).Editable(); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("voided invoice editable: %v", err)
	}
	if err := (Balance{Total: 5}).Editable(); err != nil {
		t.Errorf("unpaid invoice not editable: %v", err)
	}
	if err := (Balance{Total: 5, Paid: 1}).CanRemove("voided"); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("paid invoice removable: %v", err)
	}
	if err := (Balance{Total: 5, WrittenOff: 5}).CanRemove("deleted"); err != nil {
		t.Errorf("written-off invoice not removable: %v", err)
	}
}

func TestCheckPayment(t *testing.T) {
	a, b, v := uuid.New(), uuid.New(), uuid.New()
	bal := map[uuid.UUID]Balance{a: {Total: 1000}, b: {Total: 500, Paid: 200}, v: {Total: 100, Voided: true}}
	tests := []struct {
		name  string
		p     PaymentAmounts
		field string // "" = accepted
		enum  string
	}{
		{"one invoice in full", PaymentAmounts{Amount: 1000, Allocations: []Allocation{{a, 1000}}}, "", ""},
		{"two invoices, with a fee", PaymentAmounts{Amount: 1300, Fee: 30, Allocations: []Allocation{{a, 1000}, {b, 300}}}, "", ""},
		{"zero amount", PaymentAmounts{Amount: 0, Allocations: []Allocation{{a, 0}}}, "amount", EnumInvalidAmount},
		{"fee above amount", PaymentAmounts{Amount: 10, Fee: 11, Allocations: []Allocation{{a, 10}}}, "fee", EnumInvalidAmount},
		{"no allocations", PaymentAmounts{Amount: 10}, "invoice_payments", EnumInvalidAmount},
		{"allocation of zero", PaymentAmounts{Amount: 10, Allocations: []Allocation{{a, 10}, {b, 0}}}, "invoice_payments[1].amount", EnumInvalidAmount},
		{"same invoice twice", PaymentAmounts{Amount: 10, Allocations: []Allocation{{a, 5}, {a, 5}}}, "invoice_payments[1].invoice_id", EnumInvalidAmount},
		{"allocations do not sum", PaymentAmounts{Amount: 10, Allocations: []Allocation{{a, 9}}}, "invoice_payments", EnumAllocationMismatch},
		{"overpays", PaymentAmounts{Amount: 301, Allocations: []Allocation{{b, 301}}}, "invoice_payments[0].amount", EnumOverpaid},
		{"voided invoice", PaymentAmounts{Amount: 50, Allocations: []Allocation{{v, 50}}}, "invoice_payments[0].invoice_id", EnumInvoiceVoided},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPayment(tt.p, bal)
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if f := fields(t, err); f[tt.field] == "" {
				t.Fatalf("fields %v, want %s", f, tt.field)
			}
			var ae *apperr.Error
			if errors.As(err, &ae); ae.Enum != tt.enum {
				t.Fatalf("enum %q, want %q", ae.Enum, tt.enum)
			}
		})
	}
}

func TestCheckWriteOff(t *testing.T) {
	open := Balance{Total: 1000, Paid: 400}
	if err := CheckWriteOff(600, ModeExpense, AccountRef{}, open); err != nil {
		t.Fatalf("write-off of the rest: %v", err)
	}
	if err := CheckWriteOff(600, ModeRevenueReversal, AccountRef{}, open); err != nil {
		t.Fatalf("revenue reversal: %v", err)
	}
	for name, c := range map[string]struct {
		amount money.Cents
		mode   WriteOffMode
		dest   AccountRef
		b      Balance
		status int
	}{
		"zero":                              {0, ModeExpense, AccountRef{}, open, 400},
		"above the balance":                 {601, ModeExpense, AccountRef{}, open, 400},
		"voided":                            {1, ModeExpense, AccountRef{}, Balance{Total: 5, Voided: true}, 409},
		"destination with revenue reversal": {5, ModeRevenueReversal, StableName("BAD_DEBT"), open, 400},
	} {
		err := CheckWriteOff(c.amount, c.mode, c.dest, c.b)
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Status() != c.status {
			t.Errorf("%s: %v, want %d", name, err, c.status)
		}
	}
	if m, ok := ParseMethod("Other"); !ok || m != Other {
		t.Errorf("the SDK's Other: %v %v", m, ok)
	}
	if _, ok := ParseMethod("BITCOIN"); ok {
		t.Error("unknown method accepted")
	}
}
