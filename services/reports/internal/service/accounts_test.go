package service

import (
	"testing"
	"time"
)

// TestAccountNamesNewestWins: a renamed account shows its newest name
// whatever order the entries arrive in, and an account first seen as an
// ancestor keeps the normality its own lines gave it.
func TestAccountNamesNewestWins(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")

	renamed := entry(bid, "2026-03-03", line(bid, "CASH", "DEBIT", 300), line(bid, "SALES", "CREDIT", 300))
	renamed.Lines[1].AccountName = "Product sales"
	renamed.CreatedAt = renamed.CreatedAt.Add(time.Hour)
	older := entry(bid, "2026-03-02", line(bid, "CASH", "DEBIT", 200), line(bid, "SALES", "CREDIT", 200))
	discount := entry(bid, "2026-03-04", line(bid, "DISCOUNTS", "DEBIT", 50), line(bid, "CASH", "CREDIT", 50))
	e.deliver(event(t, renamed), event(t, older), event(t, discount))

	d := e.pnl(tok, bid, period("2026-03-01", "2026-03-31")).Data
	var names []string
	for _, li := range d.Income.LineItems {
		names = append(names, li.DisplayName)
	}
	if d.Income.Value != 450 || len(names) != 2 || names[0] != "Product sales" || names[1] != "Returns and allowances" ||
		!d.Income.LineItems[1].LineItems[0].IsContra {
		t.Fatalf("income %+v", d.Income)
	}
}
