package receipts

import (
	"testing"

	"github.com/acctsuite/acct/pkg/money"
)

func TestAmountAtEnd(t *testing.T) {
	tests := []struct {
		line   string
		want   money.Cents
		before string
		ok     bool
	}{
		{"Latte 4.50", 450, "Latte", true},
		{"TOTAL $ 12.34", 1234, "TOTAL", true},
		{"TOTAL $12.34", 1234, "TOTAL", true},
		{"Croissant 12,34", 1234, "Croissant", true},
		{"Circular Saw 1,299.00", 129900, "Circular Saw", true},
		{"Summe 1.299,00 EUR", 129900, "Summe", true},
		{"Grand Total   Rs 1939", 193900, "Grand Total", true}, // rupees in whole units
		{"Total ₹ 1,939", 193900, "Total", true},
		{"Table 12", 0, "", false}, // a bare whole number is no amount
		{"Guests 4 $", 0, "", false},
		{"06/10 1:399TOTAL :      7.55      3", 755, "06/10 1:399TOTAL :", true}, // a stray digit columns after the amount
		{"MILK 3.49 T", 349, "MILK", true},
		{"TAX 10.42 ©", 1042, "TAX", true},
		{"BUSINESS CARDS 500      :       31.71", 3171, "BUSINESS CARDS 500      :", true},
		{"NOTEBOOK 2 x 24.98 49.96", 4996, "NOTEBOOK 2 x 24.98", true},
		{"Discount -1.00", 100, "Discount", true},
		{"Cashier: Maria", 0, "", false},
		{"Items sold: 5", 0, "", false},
		{"Date: 14.03.2026", 0, "", false},
		{"(402) 544-7438", 0, "", false},
		{"Total 12. 34", 1234, "Total", true},
		{"TAX 8.25% 1.94", 194, "TAX 8.25%", true},
		{"Total 99999999999.00", 0, "", false},
		{"Espresso 3.5", 0, "", false},
		{"2 02770034 01   2,00   14,99     29,98 1", 2998, "2 02770034 01   2,00   14,99", true}, // a VAT code after a decimal comma
		{"Printed 12:49 PM", 0, "", false},                                                       // a time, not 12.49
		{"Total.......12.50", 1250, "Total", true},                                               // dot leaders
		{"Tax . . . . $1.04", 104, "Tax", true},
	}
	for _, tc := range tests {
		got, before, _, ok := amountAtEnd(tc.line)
		if ok != tc.ok || got != tc.want || (ok && before != tc.before) {
			t.Errorf("amountAtEnd(%q) = %d, %q, %v; want %d, %q, %v", tc.line, got, before, ok, tc.want, tc.before, tc.ok)
		}
	}
}

func TestFixDigits(t *testing.T) {
	tests := map[string]string{
		"TOTAL 1O.5O":     "TOTAL 10.50",
		"Latte l2,34":     "Latte 12,34",
		"Bagel $2O.00":    "Bagel $20.00",
		"Date 2O26-03-14": "Date 2026-03-14",
		"SOLD BOOKS 3.49": "SOLD BOOKS 3.49",
		"MILK 3.49 T":     "MILK 3.49 T",
		"Store 1OO":       "Store 1OO",
		"Olive Oil 7.99":  "Olive Oil 7.99",
		"Total $35.52!":   "Total $35.52", // a mark after the two decimals is no third one
		"Total 8.40|":     "Total 8.40",
	}
	for in, want := range tests {
		if got := fixDigits(in); got != want {
			t.Errorf("fixDigits(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAmountAtEndOCR(t *testing.T) {
	tests := []struct {
		line string
		want money.Cents
		ok   bool
	}{
		{"WHOLE MILK 1 GAL          $ 2.16T", 216, true},
		{"PASTA SAUCE                  “§ 8.6LT", 861, true},
		{"TOTAL AMOUNT                 § 26.64", 2664, true},
		{"CHEESEBURGER                24:11", 2411, true},
		{"Trans 813625 14:22", 0, false},
		{"Time 14:22", 0, false},
		{"14:22", 0, false},
	}
	for _, tc := range tests {
		got, _, _, ok := amountAtEnd(fixDigits(tc.line))
		if ok != tc.ok || got != tc.want {
			t.Errorf("amountAtEnd(%q) = %d, %v; want %d, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
