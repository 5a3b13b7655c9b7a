package service

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// bsAccounts are the fixture's balance sheet accounts a random entry may
// touch (not the receivable and payable: documents and payments do).
var bsAccounts = []string{"CASH", "BANK_ACCOUNTS", "UNDEPOSITED_FUNDS", "FIXED_ASSETS", "SALES_TAXES_PAYABLE", "NOTES_PAYABLE",
	"CREDIT_CARDS", "CONTRIBUTIONS", "OWNERS_DRAW", "RETAINED_EARNINGS"}

// plAccounts are the fixture's profit-and-loss accounts a random entry may
// touch.
var plAccounts = []string{"SALES", "DISCOUNTS", "MATERIALS", "RENT", "BANK_FEES", "INCOME_TAXES", "INTEREST_EXPENSE", "BAD_DEBT"}

// randomBooks is a random business history over 2025-01-01..2026-06-30:
// entries between any two accounts (some reversed later), invoices with
// sales tax and bills, their payments (entries and the payment events,
// some partial, some paying several documents, some deleted: their entry
// reversed) and write-offs. It returns the events and the entries (the
// ledger's truth for the naive recomputation).
func randomBooks(t *testing.T, r *rand.Rand, bid uuid.UUID) ([]events.Event, []events.LedgerEntryPosted) {
	t.Helper()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	day := func() time.Time { return start.AddDate(0, 0, r.IntN(546)) }
	ds := func(d time.Time) string { return d.Format(domain.DateLayout) }
	var entries []events.LedgerEntryPosted
	var evts []events.Event
	post := func(p events.LedgerEntryPosted) events.LedgerEntryPosted {
		entries = append(entries, p)
		evts = append(evts, event(t, p))
		return p
	}
	amount := func() int64 { return 1 + r.Int64N(200_000) }
	all := append(append([]string{}, bsAccounts...), plAccounts...)
	for range 30 + r.IntN(30) {
		a, b := all[r.IntN(len(all))], all[r.IntN(len(all))]
		amt := amount()
		p := post(entry(bid, ds(day()), line(bid, a, "DEBIT", amt), line(bid, b, "CREDIT", amt)))
		if r.IntN(6) == 0 {
			post(reversal(p, ds(day())))
		}
	}
	type doc struct {
		id          uuid.UUID
		invoice     bool
		day         time.Time
		total, paid int64
	}
	var docs []*doc
	for range 6 + r.IntN(8) {
		d := &doc{id: uuid.New(), invoice: r.IntN(2) == 0, day: day()}
		net, tax := amount(), int64(0)
		var p events.LedgerEntryPosted
		if d.invoice {
			if r.IntN(2) == 0 {
				tax = r.Int64N(net/5 + 1)
			}
			lines := []events.LedgerLine{line(bid, "SALES", "CREDIT", net, "dept", "a"), line(bid, "ACCOUNTS_RECEIVABLE", "DEBIT", net+tax)}
			if tax > 0 {
				lines = append(lines, line(bid, "SALES_TAXES_PAYABLE", "CREDIT", tax))
			}
			p = entry(bid, ds(d.day), lines...)
			p.SourceType, p.EntryType = "INVOICE", "INVOICE"
		} else {
			p = entry(bid, ds(d.day), line(bid, "RENT", "DEBIT", net), line(bid, "ACCOUNTS_PAYABLE", "CREDIT", net))
			p.SourceType, p.EntryType = "BILL", "BILL"
		}
		p.SourceID = d.id.String()
		post(p)
		d.total = net + tax
		docs = append(docs, d)
	}
	for range 6 + r.IntN(10) {
		invoice := r.IntN(2) == 0
		payDay := day()
		var paid []*doc
		var amounts []int64
		var sum int64
		for _, d := range docs {
			if d.invoice != invoice || d.paid >= d.total || d.day.After(payDay) || r.IntN(2) == 0 {
				continue
			}
			a := d.total - d.paid
			if r.IntN(2) == 0 {
				a = 1 + r.Int64N(a)
			}
			paid, amounts, sum = append(paid, d), append(amounts, a), sum+a
		}
		if len(paid) == 0 {
			continue
		}
		id := uuid.New()
		deleted := r.IntN(5) == 0
		var p events.LedgerEntryPosted
		var up, del events.Event
		var err error
		if invoice {
			p = entry(bid, ds(payDay), line(bid, "CASH", "DEBIT", sum), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", sum))
			p.SourceType, p.EntryType = "INVOICE_PAYMENT", "INVOICE_PAYMENT"
			s := events.InvoicePaymentSnapshot{ID: id, BusinessID: bid, PaidAt: payDay.Add(10 * time.Hour), Method: "ACH", Amount: sum, Version: 1}
			for i, d := range paid {
				s.Allocations = append(s.Allocations, events.PaymentAllocation{InvoiceID: d.id, Amount: amounts[i]})
			}
			up, err = events.New(events.TopicInvoicing, events.TypeInvoicePaymentUpserted, "test", bid, events.InvoicePaymentUpserted{BusinessID: bid, Payment: s})
			if err == nil && deleted {
				del, err = events.New(events.TopicInvoicing, events.TypeInvoicePaymentDeleted, "test", bid, events.InvoicePaymentDeleted{BusinessID: bid, PaymentID: id,
					Posting: &events.LedgerPosting{SourceType: "INVOICE_PAYMENT", SourceID: id.String(), Version: 2, EntryType: "INVOICE_PAYMENT", EntryAt: payDay}})
			}
		} else {
			p = entry(bid, ds(payDay), line(bid, "ACCOUNTS_PAYABLE", "DEBIT", sum), line(bid, "CASH", "CREDIT", sum))
			p.SourceType, p.EntryType = "BILL_PAYMENT", "BILL_PAYMENT"
			s := events.BillPaymentSnapshot{ID: id, BusinessID: bid, PaidAt: payDay.Add(10 * time.Hour), Method: "ACH", Amount: sum, Version: 1}
			for i, d := range paid {
				s.Allocations = append(s.Allocations, events.BillAllocation{BillID: d.id, Amount: amounts[i]})
			}
			up, err = events.New(events.TopicBills, events.TypeBillPaymentUpserted, "test", bid, events.BillPaymentUpserted{BusinessID: bid, Payment: s})
			if err == nil && deleted {
				del, err = events.New(events.TopicBills, events.TypeBillPaymentDeleted, "test", bid, events.BillPaymentDeleted{BusinessID: bid, PaymentID: id,
					Posting: &events.LedgerPosting{SourceType: "BILL_PAYMENT", SourceID: id.String(), Version: 2, EntryType: "BILL_PAYMENT", EntryAt: payDay}})
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		p.SourceID = id.String()
		post(p)
		evts = append(evts, up)
		if deleted {
			rev := reversal(p, ds(payDay))
			rev.SourceType, rev.SourceID = p.SourceType, p.SourceID
			post(rev)
			evts = append(evts, del)
			continue
		}
		for i, d := range paid {
			d.paid += amounts[i]
		}
	}
	for _, d := range docs { // a write-off of what is left of some invoices
		if d.invoice && d.paid < d.total && r.IntN(3) == 0 {
			left := d.total - d.paid
			p := entry(bid, ds(d.day.AddDate(0, 0, 30+r.IntN(60))), line(bid, "BAD_DEBT", "DEBIT", left), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", left))
			p.SourceType, p.SourceID, p.EntryType = "INVOICE_WRITE_OFF", uuid.NewString(), "INVOICE_WRITE_OFF"
			post(p)
		}
	}
	return evts, entries
}

// naiveBalances are, straight from the entries, every account's signed
// balance at the end of day d and the net income before fy (the closed
// fiscal years) and from fy to d.
func naiveBalances(entries []events.LedgerEntryPosted, fy, d time.Time) (map[uuid.UUID]int64, int64, int64) {
	bal := map[uuid.UUID]int64{}
	var closed, current int64
	for _, p := range entries {
		day, err := time.Parse(domain.DateLayout, p.Date)
		if err != nil {
			panic(err)
		}
		if day.After(d) {
			continue
		}
		for _, l := range p.Lines {
			if domain.IsPnLType(l.AccountType) {
				if day.Before(fy) {
					closed -= l.SignedAmount
				} else {
					current -= l.SignedAmount
				}
				continue
			}
			bal[l.AccountID] += l.SignedAmount
		}
	}
	return bal, closed, current
}

func (e *env) trialBalance(tok string, bid uuid.UUID, day, basis string) domain.UnifiedReport {
	e.T.Helper()
	q := url.Values{"effective_date": {day}, "reporting_basis": {basis}}
	var out struct {
		Data domain.UnifiedReport `json:"data"`
	}
	e.getJSON(tok, fmt.Sprintf("/v1/businesses/%s/reports/unified/trial-balance?%s", bid, q.Encode()), &out)
	return out.Data
}

// cents is a Currency cell's cents (0 for an Empty cell or none).
func cents(c *domain.UnifiedReportCell) int64 {
	if c == nil {
		return 0
	}
	v, _ := c.Value.Cents()
	return v
}

// TestStatementsProperty: random books (entries between any accounts,
// reversals, invoices with sales tax and bills, their payments, partial,
// shared or deleted, write-offs) with a random fiscal year, delivered
// twice in a random order: on random days and on both bases, assets =
// liabilities + equity and every line is the sum of its line items; on
// the accrual basis every account's line, the retained earnings and the
// net income equal a naive recomputation from the entries; cash is the
// same on both bases; the trial balance's debits equal its credits and
// its rows are the same balances; a statement of cash flows over random
// periods explains exactly the change of the cash accounts between the
// balance sheets of the day before and of its last day; after a rebuild
// every answer is the same.
func TestStatementsProperty(t *testing.T) {
	e := newEnv(t)
	tok := e.Svc.Tokens.Platform(t, "client-a")
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 21))
	for round := range 3 {
		fyMonth := 1 + r.IntN(12)
		bid := e.Svc.SeedBusiness(t, "client-a", func(b *events.Business) { b.FiscalYearStartMonth = fyMonth })
		evts, entries := randomBooks(t, r, bid)
		twice := append(append([]events.Event{}, evts...), evts...)
		r.Shuffle(len(twice), func(i, j int) { twice[i], twice[j] = twice[j], twice[i] })
		e.deliver(twice...)

		days := []time.Time{time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)}
		for range 6 {
			days = append(days, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(560)))
		}
		// The fiscal year's last and first days.
		days = append(days, time.Date(2025, time.Month(fyMonth), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1),
			time.Date(2025, time.Month(fyMonth), 1, 0, 0, 0, 0, time.UTC))
		answers := map[string][]byte{}
		remember := func(path string) {
			resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet, path, tok, nil))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
			}
			answers[path] = body
		}
		for _, d := range days {
			ds := d.Format(domain.DateLayout)
			fy := domain.FiscalYearStart(d, fyMonth)
			want, closed, net := naiveBalances(entries, fy, d)
			var cash [2]int64
			for i, basis := range []string{"ACCRUAL", "CASH"} {
				bs := e.balanceSheet(tok, bid, ds, basis).Data
				le := bs.LiabilitiesAndEquity
				if bs.Assets.Value != le.Value {
					t.Fatalf("round %d %s %s: assets %d ≠ liabilities and equity %d (seed %d)", round, ds, basis, bs.Assets.Value, le.Value, seed)
				}
				sumsUp(t, bs.Assets)
				sumsUp(t, le)
				cash[i] = value(bs.Assets, "CASH")
				tb := e.trialBalance(tok, bid, ds, basis)
				last := tb.Rows[len(tb.Rows)-1]
				var debits, credits int64
				rows := map[string]int64{}
				for _, row := range tb.Rows[:len(tb.Rows)-1] {
					dr, cr := cents(row.Cells["debit"]), cents(row.Cells["credit"])
					debits, credits = debits+dr, credits+cr
					rows[row.RowKey] = dr - cr
				}
				if last.RowKey != "total_trial_balance" || debits != credits || cents(last.Cells["debit"]) != debits || cents(last.Cells["credit"]) != credits {
					t.Fatalf("round %d %s %s: trial balance debits %d credits %d, totals row %+v (seed %d)", round, ds, basis, debits, credits, last, seed)
				}
				if basis != "ACCRUAL" {
					continue
				}
				for _, name := range bsAccounts {
					id := events.DefaultAccountID(bid, name)
					w := want[id]
					if name == "RETAINED_EARNINGS" {
						w -= closed
					}
					got := value(bs.Assets, name) + value(le, name)
					if chart[name].typ != "ASSET" {
						got = -got
					}
					if got != w {
						t.Fatalf("round %d %s: %s %d, naive %d (seed %d)", round, ds, name, got, w, seed)
					}
					if rows[name] != w {
						t.Fatalf("round %d %s: trial balance %s %d, naive %d (seed %d)", round, ds, name, rows[name], w, seed)
					}
				}
				for _, name := range []string{"ACCOUNTS_RECEIVABLE", "ACCOUNTS_PAYABLE"} {
					w := want[events.DefaultAccountID(bid, name)]
					got := value(bs.Assets, name) - value(le, name)
					if got != w {
						t.Fatalf("round %d %s: %s %d, naive %d (seed %d)", round, ds, name, got, w, seed)
					}
				}
				if got := value(le, "NET_INCOME"); got != net {
					t.Fatalf("round %d %s: net income %d, naive %d (seed %d)", round, ds, got, net, seed)
				}
				if closed == 0 && want[events.DefaultAccountID(bid, "RETAINED_EARNINGS")] == 0 {
					if _, ok := item(le, "RETAINED_EARNINGS"); ok {
						t.Fatalf("round %d %s: a retained earnings line with nothing to retain", round, ds)
					}
				}
				remember(fmt.Sprintf("/v1/businesses/%s/reports/balance-sheet?effective_date=%s&reporting_basis=%s", bid, ds, basis))
				remember(fmt.Sprintf("/v1/businesses/%s/reports/unified/trial-balance?effective_date=%s&reporting_basis=%s", bid, ds, basis))
			}
			if cash[0] != cash[1] {
				t.Fatalf("round %d %s: cash %d on the accrual basis, %d on the cash basis (seed %d)", round, ds, cash[0], cash[1], seed)
			}
		}
		for range 4 {
			from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(500))
			to := from.AddDate(0, 0, r.IntN(400))
			for _, basis := range []string{"ACCRUAL", "CASH"} {
				f, tt := from.Format(domain.DateLayout), to.Format(domain.DateLayout)
				cf := e.cashFlow(tok, bid, f, tt, basis).Data
				before := e.balanceSheet(tok, bid, from.AddDate(0, 0, -1).Format(domain.DateLayout), basis).Data.Assets
				after := e.balanceSheet(tok, bid, tt, basis).Data.Assets
				cashOf := func(a domain.LineItem) int64 {
					return value(a, "CASH") + value(a, "BANK_ACCOUNTS") + value(a, "UNDEPOSITED_FUNDS")
				}
				sections := cf.OperatingActivities.Value + cf.InvestingActivities.Value + cf.FinancingActivities.Value
				if cf.CashAtStartOfPeriod != cashOf(before) || cf.CashAtEndOfPeriod != cashOf(after) || sections != cf.PeriodNetCashIncrease ||
					cf.CashAtStartOfPeriod+cf.PeriodNetCashIncrease != cf.CashAtEndOfPeriod {
					t.Fatalf("round %d %s..%s %s: cash flows %+v, cash %d → %d (seed %d)", round, f, tt, basis, cf, cashOf(before), cashOf(after), seed)
				}
				sumsUp(t, cf.OperatingActivities)
				sumsUp(t, cf.InvestingActivities)
				sumsUp(t, cf.FinancingActivities)
				remember(fmt.Sprintf("/v1/businesses/%s/reports/cashflow-statement?start_date=%s&end_date=%s&reporting_basis=%s", bid, f, tt, basis))
			}
		}
		if _, err := e.S.Reports.Rebuild(t.Context(), bid); err != nil {
			t.Fatal(err)
		}
		for path, was := range answers {
			resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet, path, tok, nil))
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, was) {
				t.Fatalf("round %d: %s after a rebuild:\n%s\nbefore:\n%s", round, path, body, was)
			}
		}
	}
}
