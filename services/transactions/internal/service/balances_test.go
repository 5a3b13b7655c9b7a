package service

import (
	"testing"
	"time"

	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

func TestBalances(t *testing.T) {
	e := newEnv(t)
	tok := e.Token("client-a")
	bid := e.business("client-a", "US")
	post := func(date string, lines ...any) {
		e.post(bid, tok, map[string]any{"entry_at": date, "line_items": lines}, 201)
	}
	post("2026-01-01", line(stable("CASH"), 10_000, "DEBIT"), line(stable("OPENING_BALANCE_EQUITY"), 10_000, "CREDIT"))
	post("2026-01-20T23:59:59Z", line(stable("CASH"), 5_000, "DEBIT"), line(stable("SALES"), 5_000, "CREDIT"))
	post("2026-02-03", line(stable("CUSTOMER_REFUNDS"), 500, "DEBIT"), line(stable("CASH"), 500, "CREDIT"))
	post("2026-02-10", line(stable("BANK_FEES"), 25, "DEBIT"), line(stable("OTHER_FEES"), 75, "DEBIT"), line(stable("CASH"), 100, "CREDIT"))

	all := e.balances(bid, tok, "")
	for s, want := range map[string]int64{
		"CASH": 14_400, "ASSETS": 14_400,
		"OPENING_BALANCE_EQUITY": 10_000, "EQUITY": 10_000,
		"SALES": 5_000, "CUSTOMER_REFUNDS": 500, "RETURNS_AND_ALLOWANCES": 500, "REVENUE": 4_500,
		"BANK_FEES": 25, "OTHER_FEES": 75, "FEES": 100, "OPERATING_EXPENSES": 100, "EXPENSES": 100,
		"LIABILITIES": 0, "TIPS": 0,
	} {
		if all[s] != want {
			t.Errorf("%s = %d, want %d", s, all[s], want)
		}
	}
	// Assets = liabilities + equity + revenue − expenses.
	if all["ASSETS"] != all["LIABILITIES"]+all["EQUITY"]+all["REVENUE"]-all["EXPENSES"] {
		t.Fatalf("accounting equation broken: %v", all)
	}

	tests := []struct {
		query string
		want  map[string]int64
	}{
		{"?as_of=2026-01-20", map[string]int64{"CASH": 15_000, "REVENUE": 5_000, "EXPENSES": 0}},
		{"?as_of=2026-01-20T23:59:58Z", map[string]int64{"CASH": 10_000, "REVENUE": 0}},
		{"?end_date=2026-01-31", map[string]int64{"CASH": 15_000, "REVENUE": 5_000}},
		{"?start_date=2026-02-01&end_date=2026-02-28", map[string]int64{"CASH": -600, "REVENUE": -500, "FEES": 100, "EQUITY": 0}},
		{"?start_date=2026-02-04", map[string]int64{"CASH": -100, "REVENUE": 0, "EXPENSES": 100}},
		{"?as_of=2025-12-31", map[string]int64{"CASH": 0, "ASSETS": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			e := e.with(t)
			got := e.balances(bid, tok, tt.query)
			for s, want := range tt.want {
				if got[s] != want {
					t.Errorf("%s = %d, want %d", s, got[s], want)
				}
			}
		})
	}
	for _, q := range []string{"?as_of=tomorrow", "?as_of=2026-01-01&end_date=2026-01-02", "?start_date=2026-02-01&end_date=2026-01-01", "?end_date=2026-02-30"} {
		e.DoInvalid(req("GET", base(bid)+"/ledger/balances"+q, tok, nil), 400, "InvalidParameters")
	}
	// Every node of the tree is there, with a non-null subtype.
	if len(all) != 2*len(domain.SeedChart(bid, "US", time.Now())) {
		t.Fatalf("%d keys in the balance tree", len(all))
	}
}
