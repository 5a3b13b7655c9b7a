package receipts

import (
	"testing"
	"time"
)

func TestCurrency(t *testing.T) {
	now := time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, text, country, want string
	}{
		{"a dollar sign on the total", "DINER\nBurger   $9.50\nTOTAL    $9.50\n", "", "USD"},
		{"a euro code beats a stray dollar", "LADEN\nBrot 2,49\nSUMME EUR 2,49\n$ 5\n", "", "EUR"},
		{"pounds", "CAFE\nTea £2.10\nTOTAL £2.10\n", "US", "GBP"},
		{"rupees by abbreviation", "SHOP\nItem Rs. 250.00\nTotal Rs. 250.00\n", "", "INR"},
		{"a US address and no symbol", "JOE'S DINER\n12 Main St\nSpringfield, IL 62704\nTOTAL 9.50\n", "", "USD"},
		{"a speck read as a dollar sign is no currency", "LADEN\n$BAOSRO\nSUMME 2,49\n", "", ""},
		{"none printed: the business's country's", "LADEN\nSUMME 2,49\n", "DE", "EUR"},
		{"none printed, no country: none", "SHOP\nTOTAL 2.49\n", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseFor(tt.text, now, Hints{Country: tt.country}).ProposedCurrency; got != tt.want {
				t.Fatalf("currency %q, want %q", got, tt.want)
			}
		})
	}
}
