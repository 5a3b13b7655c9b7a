package bill

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/money"
	"github.com/acctsuite/acct/pkg/tags"
)

func qty(s string) money.Quantity {
	q, err := money.ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

func TestCompute(t *testing.T) {
	acct := uuid.New()
	tests := []struct {
		name     string
		lines    []LineInput
		addl     []SalesTax
		want     Totals
		lineTot  []money.Cents
		badField string
	}{
		{"one line", []LineInput{{UnitPrice: 1000, Quantity: qty("2")}}, nil,
			Totals{Subtotal: 2000, Total: 2000}, []money.Cents{2000}, ""},
		{"decimal quantity rounds half away from zero", []LineInput{{UnitPrice: 333, Quantity: qty("1.5")}}, nil,
			Totals{Subtotal: 500, Total: 500}, []money.Cents{500}, ""},
		{"discount and line taxes", []LineInput{
			{UnitPrice: 10000, Quantity: qty("1"), DiscountAmount: 1000, SalesTaxes: []SalesTax{{TaxName: "ca state", Amount: 720}}},
			{UnitPrice: 250, Quantity: qty("4"), Account: AccountRef{ID: &acct}},
		}, []SalesTax{{Amount: 50}},
			Totals{Subtotal: 11000, Discounts: 1000, LineTaxes: 720, AdditionalTaxes: 50, SalesTaxesTotal: 770, Total: 10770},
			[]money.Cents{9720, 1000}, ""},
		{"no lines", nil, nil, Totals{}, nil, "line_items"},
		{"zero quantity", []LineInput{{UnitPrice: 1, Quantity: money.Quantity{}}}, nil, Totals{}, nil, "line_items[0].quantity"},
		{"negative price", []LineInput{{UnitPrice: -1, Quantity: qty("1")}}, nil, Totals{}, nil, "line_items[0].unit_price"},
		{"discount above subtotal", []LineInput{{UnitPrice: 100, Quantity: qty("1"), DiscountAmount: 101}}, nil, Totals{}, nil, "line_items[0].discount_amount"},
		{"negative tax", []LineInput{{UnitPrice: 100, Quantity: qty("1"), SalesTaxes: []SalesTax{{Amount: -1}}}}, nil, Totals{}, nil, "line_items[0].sales_taxes[0].amount"},
		{"bad tax name", []LineInput{{UnitPrice: 100, Quantity: qty("1")}}, []SalesTax{{TaxName: "!!", Amount: 1}}, Totals{}, nil, "additional_sales_taxes[0].tax_account.name"},
		{"overflow", []LineInput{{UnitPrice: 1 << 62, Quantity: qty("4")}}, nil, Totals{}, nil, "line_items[0].unit_price"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compute(tt.lines, tt.addl, uuid.New)
			if tt.badField != "" {
				e := apperr.From(err)
				if err == nil || e.Status() != 400 || e.Enum != EnumInvalidBill {
					t.Fatalf("err = %v, want a 400 InvalidBill", err)
				}
				if fields, _ := e.Meta["fields"].(map[string]string); fields[tt.badField] == "" {
					t.Fatalf("fields = %v, want %s named", e.Meta["fields"], tt.badField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Totals != tt.want {
				t.Fatalf("totals = %+v, want %+v", c.Totals, tt.want)
			}
			for i, w := range tt.lineTot {
				if c.Lines[i].TotalAmount != w {
					t.Errorf("line %d total = %d, want %d", i, c.Lines[i].TotalAmount, w)
				}
			}
		})
	}
}

func TestTermsDueAt(t *testing.T) {
	r := time.Date(2026, 1, 31, 15, 4, 5, 0, time.UTC)
	tests := []struct {
		terms Terms
		want  time.Time
	}{
		{DueOnReceipt, r},
		{Net10, time.Date(2026, 2, 10, 15, 4, 5, 0, time.UTC)},
		{Net15, time.Date(2026, 2, 15, 15, 4, 5, 0, time.UTC)},
		{Net30, time.Date(2026, 3, 2, 15, 4, 5, 0, time.UTC)},
		{Net60, time.Date(2026, 4, 1, 15, 4, 5, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(string(tt.terms), func(t *testing.T) {
			if !tt.terms.Valid() {
				t.Fatal("not valid")
			}
			if got := tt.terms.DueAt(r); !got.Equal(tt.want) {
				t.Fatalf("DueAt = %s, want %s", got, tt.want)
			}
			if got := TermsFor(r, tt.want); got != tt.terms {
				t.Fatalf("TermsFor = %q", got)
			}
		})
	}
	if TermsFor(r, r.Add(time.Hour)) != "" || Terms("NET_7").Valid() {
		t.Fatal("custom terms named")
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		total, settled money.Cents
		voided         bool
		want           Status
	}{
		{100, 0, false, Received}, {100, 1, false, PartiallyPaid}, {100, 100, false, Paid},
		{0, 0, false, Paid}, {100, 50, true, Voided}, {100, 0, true, Voided},
	}
	for _, tt := range tests {
		if got := StatusOf(tt.total, tt.settled, tt.voided); got != tt.want {
			t.Errorf("StatusOf(%d, %d, %v) = %s, want %s", tt.total, tt.settled, tt.voided, got, tt.want)
		}
	}
}

func TestSettle(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	b := Bill{Totals: Totals{Total: 1000}, Outstanding: 1000, Status: Received}
	b = b.Settle(400, at)
	if b.Status != PartiallyPaid || b.Outstanding != 600 || b.PaidAt != nil {
		t.Fatalf("partial: %+v", b)
	}
	b = b.Settle(600, at)
	if b.Status != Paid || b.Outstanding != 0 || b.PaidAt == nil || !b.PaidAt.Equal(at) {
		t.Fatalf("paid: %+v", b)
	}
	b = b.Settle(-1000, at)
	if b.Status != Received || b.Outstanding != 1000 || b.PaidAt != nil {
		t.Fatalf("restored: %+v", b)
	}
}

func TestPosting(t *testing.T) {
	bid, prepaid := uuid.New(), uuid.New()
	lines := []LineInput{
		{UnitPrice: 10000, Quantity: qty("1"), DiscountAmount: 1000, Account: StableName("OFFICE_SUPPLIES"),
			SalesTaxes: []SalesTax{{Amount: 500}, {TaxName: "vat", Amount: 200}}, Tags: []tags.KeyValue{{Key: "dept", Value: "ops"}}},
		{UnitPrice: 1200, Quantity: qty("10"), PrepaymentAccount: &AccountRef{ID: &prepaid}},
	}
	c, err := Compute(lines, []SalesTax{{Amount: 30}, {Account: &AccountRef{StableName: "OTHER_TAXES_PAYABLE"}, Amount: 70}}, uuid.New)
	if err != nil {
		t.Fatal(err)
	}
	b := Bill{ID: uuid.New(), BusinessID: bid, Lines: c.Lines, AdditionalSalesTaxes: c.AdditionalSalesTaxes, Totals: c.Totals,
		Version: 3, Status: Received, ReceivedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		Tags: TagSet(bid, uuid.New(), nil, []tags.KeyValue{{Key: "proj", Value: "x"}}, time.Now())}
	p := b.Posting()
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	type line struct {
		acct, dir string
		amount    int64
	}
	var got []line
	for _, l := range p.Lines {
		name := l.Account.StableName + l.Account.Name
		if l.Account.ID != nil {
			name = l.Account.ID.String()
		}
		got = append(got, line{l.Account.Type + ":" + name, l.Direction, l.Amount})
	}
	want := []line{
		{"StableName:OFFICE_SUPPLIES", "DEBIT", 9000},
		{"StableName:OFFICE_SUPPLIES", "DEBIT", 500}, // a tax without an account is part of the cost
		{"Tax_Name:VAT", "DEBIT", 200},
		{"AccountId:" + prepaid.String(), "DEBIT", 12000},
		{"StableName:OFFICE_SUPPLIES", "DEBIT", 30}, // a bill-level tax: the first line's account
		{"StableName:OTHER_TAXES_PAYABLE", "DEBIT", 70},
		{"StableName:ACCOUNTS_PAYABLE", "CREDIT", 21800},
	}
	if len(got) != len(want) {
		t.Fatalf("lines = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %v, want %v", i, got[i], want[i])
		}
	}
	if p.SourceType != "BILL" || p.EntryType != "BILL" || p.Version != 3 || len(p.Lines[0].Tags) != 2 {
		t.Fatalf("posting = %+v", p)
	}
	b.Status = Voided
	if v := b.Posting(); len(v.Lines) != 0 || v.Check() != nil {
		t.Fatalf("voided posting = %+v", v)
	}
}

func TestBillDueAndTerms(t *testing.T) {
	r := time.Date(2026, 1, 31, 15, 4, 5, 0, time.UTC)
	// Without a due date: due on receipt; the stored DueAt stays nil.
	b := Bill{ReceivedAt: r}
	if !b.Due().Equal(r) || b.Terms() != DueOnReceipt || b.DueAt != nil || b.Snapshot().DueAt != nil {
		t.Fatalf("no due date: due %s, terms %q, snapshot due %v", b.Due(), b.Terms(), b.Snapshot().DueAt)
	}
	net := Net30.DueAt(r)
	if b := (Bill{ReceivedAt: r, DueAt: &net}); !b.Due().Equal(net) || b.Terms() != Net30 {
		t.Fatalf("NET_30: due %s, terms %q", b.Due(), b.Terms())
	}
	custom := r.Add(50 * time.Hour)
	if b := (Bill{ReceivedAt: r, DueAt: &custom}); !b.Due().Equal(custom) || b.Terms() != "" {
		t.Fatalf("custom: due %s, terms %q", b.Due(), b.Terms())
	}
}
