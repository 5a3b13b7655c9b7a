package service

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// cashHistory is testdata/cash_basis_history.json: entries, payments and
// the hand-checked figures on both bases.
type cashHistory struct {
	Entries []struct {
		ID         string  `json:"id"`
		Day        string  `json:"day"`
		SourceType string  `json:"source_type"`
		SourceID   string  `json:"source_id"`
		EntryType  string  `json:"entry_type"`
		Reverses   string  `json:"reverses"`
		Lines      [][]any `json:"lines"`
	} `json:"entries"`
	Payments []struct {
		ID          uuid.UUID `json:"id"`
		Version     int64     `json:"version"`
		PaidAt      time.Time `json:"paid_at"`
		Amount      int64     `json:"amount"`
		Fee         int64     `json:"fee"`
		Deleted     bool      `json:"deleted"`
		Allocations [][]any   `json:"allocations"`
	} `json:"payments"`
	Expect []cashExpect `json:"expect"`
}

type cashExpect struct {
	Basis    string `json:"basis"`
	Month    int    `json:"month"`
	Tag      string `json:"tag"`
	Income   int64  `json:"income"`
	Expenses int64  `json:"expenses"`
	Net      int64  `json:"net"`
}

// loadCashHistory reads the committed history as business bid's events:
// the ledger's entries and the invoicing service's payment events.
func loadCashHistory(t *testing.T, bid uuid.UUID) (ledger, payments []events.Event, expect []cashExpect) {
	t.Helper()
	raw, err := os.ReadFile("testdata/cash_basis_history.json")
	if err != nil {
		t.Fatal(err)
	}
	var h cashHistory
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&struct {
		About string `json:"about"`
		*cashHistory
	}{cashHistory: &h}); err != nil {
		t.Fatal(err)
	}
	byID := map[string]events.LedgerEntryPosted{}
	for _, e := range h.Entries {
		var p events.LedgerEntryPosted
		if e.Reverses != "" {
			orig, ok := byID[e.Reverses]
			if !ok {
				t.Fatalf("entry %s reverses unknown %s", e.ID, e.Reverses)
			}
			p = reversal(orig, e.Day)
			p.SourceType, p.SourceID = orig.SourceType, orig.SourceID
		} else {
			var lines []events.LedgerLine
			for _, l := range e.Lines {
				kv := make([]string, 0, len(l)-3)
				for _, x := range l[3:] {
					kv = append(kv, x.(string))
				}
				lines = append(lines, line(bid, l[0].(string), l[1].(string), int64(l[2].(float64)), kv...))
			}
			p = entry(bid, e.Day, lines...)
			p.SourceType, p.SourceID, p.EntryType = e.SourceType, e.SourceID, e.EntryType
		}
		byID[e.ID] = p
		ledger = append(ledger, event(t, p))
	}
	for _, p := range h.Payments {
		var evt events.Event
		if p.Deleted {
			evt, err = events.New(events.TopicInvoicing, events.TypeInvoicePaymentDeleted, "acct/customers-invoices", bid,
				events.InvoicePaymentDeleted{BusinessID: bid, PaymentID: p.ID, Posting: &events.LedgerPosting{
					SourceType: "INVOICE_PAYMENT", SourceID: p.ID.String(), Version: p.Version, EntryType: "INVOICE_PAYMENT", EntryAt: time.Now()}})
		} else {
			s := events.InvoicePaymentSnapshot{ID: p.ID, BusinessID: bid, PaidAt: p.PaidAt, Method: "ACH", Amount: p.Amount, Fee: p.Fee,
				Deposit: p.Amount - p.Fee, DepositAccount: "UNDEPOSITED_FUNDS", Version: p.Version, Allocations: []events.PaymentAllocation{}}
			for _, a := range p.Allocations {
				s.Allocations = append(s.Allocations, events.PaymentAllocation{InvoiceID: uuid.MustParse(a[0].(string)), Amount: int64(a[1].(float64))})
			}
			evt, err = events.New(events.TopicInvoicing, events.TypeInvoicePaymentUpserted, "acct/customers-invoices", bid,
				events.InvoicePaymentUpserted{BusinessID: bid, Payment: s})
		}
		if err != nil {
			t.Fatal(err)
		}
		payments = append(payments, evt)
	}
	return ledger, payments, h.Expect
}

func monthPeriod(m int) (string, string) {
	start := time.Date(2026, time.Month(m), 1, 0, 0, 0, 0, time.UTC)
	return start.Format(domain.DateLayout), start.AddDate(0, 1, -1).Format(domain.DateLayout)
}

// checkCash asks for every expected figure through the GET and through
// comparisons (4 months × both dept values, and without filters), on the
// basis each names.
func (e *env) checkCash(t *testing.T, tok string, bid uuid.UUID, expect []cashExpect, when string) {
	t.Helper()
	for _, x := range expect {
		start, end := monthPeriod(x.Month)
		q := period(start, end, "reporting_basis", x.Basis)
		if k, v, ok := strings.Cut(x.Tag, "="); ok {
			q.Set("tag_key", k)
			q.Set("tag_values", v)
		}
		got := e.pnl(tok, bid, q)
		if got.Meta.ReportingBasis != x.Basis {
			t.Fatalf("%s: meta %+v, want basis %s", when, got.Meta, x.Basis)
		}
		if d := got.Data; d.Income.Value != x.Income || d.Expenses.Value != x.Expenses || d.NetProfit != x.Net {
			t.Fatalf("%s: GET %s month %d %q: income %d expenses %d net %d, want %d %d %d", when, x.Basis, x.Month, x.Tag,
				d.Income.Value, d.Expenses.Value, d.NetProfit, x.Income, x.Expenses, x.Net)
		}
	}
	for _, basis := range []string{domain.BasisAccrual, domain.BasisCash} {
		for _, filtered := range []bool{false, true} {
			body := anyMap{"periods": months(2026, 1, 2026, 2, 2026, 3, 2026, 4), "reporting_basis": basis}
			if filtered {
				body["tag_filters"] = []anyMap{required("dept", "retail"), required("dept", "wholesale")}
			}
			got := e.compare(tok, bid, body)
			if got.Meta.ReportingBasis != basis {
				t.Fatalf("%s: comparison meta %+v, want %s", when, got.Meta, basis)
			}
			for _, p := range got.Data.Pnls {
				tag := ""
				if p.TagFilter != nil {
					tag = p.TagFilter.Key + "=" + p.TagFilter.Value[0]
				}
				for _, x := range expect {
					if x.Basis != basis || x.Month != p.Period.Month || x.Tag != tag {
						continue
					}
					if d := p.Pnl; d.Income.Value != x.Income || d.Expenses.Value != x.Expenses || d.NetProfit != x.Net {
						t.Fatalf("%s: comparison %s month %d %q: income %d expenses %d net %d, want %d %d %d", when, basis, x.Month, x.Tag,
							d.Income.Value, d.Expenses.Value, d.NetProfit, x.Income, x.Expenses, x.Net)
					}
				}
			}
		}
	}
}

// TestCashBasisGolden: the committed history's hand-checked figures on
// both bases (GET and comparison, with and without tag filters), then the
// same after every event is delivered again in another order (payments
// before the entries they pay, a deletion before the payment it deletes),
// after a rebuild, and on a business whose default basis is CASH.
func TestCashBasisGolden(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	ledger, payments, expect := loadCashHistory(t, bid)
	e.deliver(ledger...)
	e.deliver(payments...)
	e.checkCash(t, tok, bid, expect, "delivered once")

	// Every event again, newest first, payments first.
	all := append(append([]events.Event{}, payments...), ledger...)
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	e.deliver(all...)
	e.checkCash(t, tok, bid, expect, "delivered twice")

	if n, err := e.S.Reports.Rebuild(t.Context(), bid); err != nil || n != len(ledger) {
		t.Fatalf("rebuild: %d, %v", n, err)
	}
	e.checkCash(t, tok, bid, expect, "after rebuild")

	// Out of order from the start on another business: the deletion of
	// P3 and every payment before any entry, the entries newest first.
	other := e.Svc.SeedBusiness(t, "client-a")
	ledger2, payments2, _ := loadCashHistory(t, other)
	for i, j := 0, len(payments2)-1; i < j; i, j = i+1, j-1 {
		payments2[i], payments2[j] = payments2[j], payments2[i]
	}
	e.deliver(payments2...)
	for i := len(ledger2) - 1; i >= 0; i-- {
		e.deliver(ledger2[i])
	}
	e.checkCash(t, tok, other, expect, "out of order")

	// A business whose default basis is CASH gets it without asking.
	cash := e.Svc.SeedBusiness(t, "client-a", func(b *events.Business) { b.DefaultReportingBasis = "CASH" })
	ledger3, payments3, _ := loadCashHistory(t, cash)
	e.deliver(ledger3...)
	e.deliver(payments3...)
	start, end := monthPeriod(3)
	got := e.pnl(tok, cash, period(start, end))
	if got.Meta.ReportingBasis != "CASH" || got.Data.Income.Value != 8500 || got.Data.NetProfit != 8500 {
		t.Fatalf("default CASH: %+v income %d net %d", got.Meta, got.Data.Income.Value, got.Data.NetProfit)
	}
	cmp := e.compare(tok, cash, anyMap{"periods": months(2026, 3)})
	if cmp.Meta.ReportingBasis != "CASH" || cmp.Data.Pnls[0].Pnl.NetProfit != 8500 {
		t.Fatalf("default CASH comparison: %+v", cmp)
	}
	if got := e.pnl(tok, cash, period(start, end, "reporting_basis", "ACCRUAL")); got.Meta.ReportingBasis != "ACCRUAL" || got.Data.NetProfit != 2000 {
		t.Fatalf("asked ACCRUAL on a CASH business: %+v net %d", got.Meta, got.Data.NetProfit)
	}
}

// TestCashBasisProperty: random invoices (revenue lines with random tags
// and a tax on the total) and random payments, some deleted, every event
// delivered twice in a random order: over a range covering everything,
// the cash-basis income is the exact sum over the invoices of
// round(S × min(paid, total) / total), computed here with math/big, and
// so per tag when no invoice mixing tags is partly paid (else within a
// cent per invoice); the months of a cash comparison add up to it; the
// accrual basis has every invoice's revenue whatever the payments; a
// rebuild changes nothing.
func TestCashBasisProperty(t *testing.T) {
	e := newEnv(t)
	tok := e.Svc.Tokens.Platform(t, "client-a")
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	depts := []string{"a", "b", "c"}
	for round := range 3 {
		bid := e.Svc.SeedBusiness(t, "client-a")
		var evts []events.Event
		type inv struct {
			lines map[string]int64 // dept → revenue (positive)
			total int64
			paid  int64
		}
		invs := map[uuid.UUID]*inv{}
		var ids []uuid.UUID
		for range 4 + r.IntN(6) {
			id := uuid.New()
			iv := &inv{lines: map[string]int64{}}
			var lines []events.LedgerLine
			var sum int64
			for range 1 + r.IntN(3) {
				d := depts[r.IntN(len(depts))]
				amt := 1 + r.Int64N(100_000)
				iv.lines[d] += amt
				sum += amt
				lines = append(lines, line(bid, "SALES", "CREDIT", amt, "dept", d))
			}
			tax := r.Int64N(sum/5 + 1)
			if tax > 0 {
				lines = append(lines, line(bid, "SALES_TAXES_PAYABLE", "CREDIT", tax))
			}
			iv.total = sum + tax
			lines = append(lines, line(bid, "ACCOUNTS_RECEIVABLE", "DEBIT", iv.total))
			p := entry(bid, fmt.Sprintf("2026-%02d-%02d", 1+r.IntN(3), 1+r.IntN(28)), lines...)
			p.SourceType, p.SourceID, p.EntryType = "INVOICE", id.String(), "INVOICE"
			evts = append(evts, event(t, p))
			invs[id], ids = iv, append(ids, id)
		}
		for range 3 + r.IntN(8) {
			pid := uuid.New()
			paidAt := time.Date(2026, time.Month(1+r.IntN(6)), 1+r.IntN(28), r.IntN(24), 0, 0, 0, time.UTC)
			s := events.InvoicePaymentSnapshot{ID: pid, BusinessID: bid, PaidAt: paidAt, Method: "ACH", Version: 1}
			for _, id := range ids {
				iv := invs[id]
				if left := iv.total - iv.paid; left > 0 && r.IntN(3) == 0 {
					a := 1 + r.Int64N(left)
					if r.IntN(2) == 0 {
						a = left
					}
					s.Allocations = append(s.Allocations, events.PaymentAllocation{InvoiceID: id, Amount: a})
					s.Amount += a
				}
			}
			if len(s.Allocations) == 0 {
				continue
			}
			up, err := events.New(events.TopicInvoicing, events.TypeInvoicePaymentUpserted, "test", bid, events.InvoicePaymentUpserted{BusinessID: bid, Payment: s})
			if err != nil {
				t.Fatal(err)
			}
			evts = append(evts, up)
			if r.IntN(4) == 0 { // deleted later
				del, err := events.New(events.TopicInvoicing, events.TypeInvoicePaymentDeleted, "test", bid, events.InvoicePaymentDeleted{
					BusinessID: bid, PaymentID: pid, Posting: &events.LedgerPosting{SourceType: "INVOICE_PAYMENT", SourceID: pid.String(), Version: 2,
						EntryType: "INVOICE_PAYMENT", EntryAt: paidAt}})
				if err != nil {
					t.Fatal(err)
				}
				evts = append(evts, del)
				continue
			}
			for _, a := range s.Allocations {
				invs[a.InvoiceID].paid += a.Amount
			}
		}
		twice := append(append([]events.Event{}, evts...), evts...)
		r.Shuffle(len(twice), func(i, j int) { twice[i], twice[j] = twice[j], twice[i] })
		e.deliver(twice...)

		for _, d := range depts {
			want, accrual := new(big.Int), int64(0)
			for _, iv := range invs {
				s := iv.lines[d]
				accrual += s
				// round(s × paid / total) half away from zero, in big
				// integers (s, paid ≥ 0).
				num := new(big.Int).Mul(big.NewInt(s), big.NewInt(min(iv.paid, iv.total)))
				num.Mul(num, big.NewInt(2))
				num.Add(num, big.NewInt(iv.total))
				want.Add(want, num.Div(num, big.NewInt(2*iv.total)))
			}
			// Per dept, the invoice's recognized total is split across
			// lines by remaining amounts: exact only for the invoice's
			// whole sum. So compare per dept only when each invoice has
			// that dept alone or is fully paid or unpaid.
			exact := true
			for _, iv := range invs {
				if len(iv.lines) > 1 && iv.paid > 0 && iv.paid < iv.total {
					exact = false
				}
			}
			q := url.Values{"start_date": {"2026-01-01"}, "end_date": {"2026-12-31"}, "tag_key": {"dept"}, "tag_values": {d}}
			q.Set("reporting_basis", "ACCRUAL")
			if got := e.pnl(tok, bid, q).Data.Income.Value; got != accrual {
				t.Fatalf("round %d dept %s: accrual income %d, want %d", round, d, got, accrual)
			}
			q.Set("reporting_basis", "CASH")
			got := e.pnl(tok, bid, q).Data.Income.Value
			if exact && got != want.Int64() {
				t.Fatalf("round %d dept %s: cash income %d, want %s (seed %d)", round, d, got, want, seed)
			}
			if diff := got - want.Int64(); diff > int64(len(invs)) || diff < -int64(len(invs)) {
				t.Fatalf("round %d dept %s: cash income %d, want %s within a cent per invoice (seed %d)", round, d, got, want, seed)
			}
		}
		// Every dept together is exact: per invoice, round(S × paid / total).
		want := new(big.Int)
		for _, iv := range invs {
			var s int64
			for _, v := range iv.lines {
				s += v
			}
			num := new(big.Int).Mul(big.NewInt(s), big.NewInt(min(iv.paid, iv.total)))
			num.Mul(num, big.NewInt(2))
			num.Add(num, big.NewInt(iv.total))
			want.Add(want, num.Div(num, big.NewInt(2*iv.total)))
		}
		q := url.Values{"start_date": {"2026-01-01"}, "end_date": {"2026-12-31"}, "reporting_basis": {"CASH"}}
		if got := e.pnl(tok, bid, q).Data.Income.Value; got != want.Int64() {
			t.Fatalf("round %d: cash income %d, want %s (seed %d)", round, got, want, seed)
		}
		// Months: the comparison on the cash basis adds up to the year.
		cmp := e.compare(tok, bid, anyMap{"periods": months(2026, 1, 2026, 2, 2026, 3, 2026, 4, 2026, 5, 2026, 6), "reporting_basis": "CASH"})
		var sum int64
		for _, p := range cmp.Data.Pnls {
			sum += p.Pnl.Income.Value
		}
		if sum != want.Int64() {
			t.Fatalf("round %d: months add up to %d, want %s", round, sum, want)
		}
		if n, err := e.S.Reports.Rebuild(t.Context(), bid); err != nil || n == 0 {
			t.Fatalf("rebuild: %d %v", n, err)
		}
		if got := e.pnl(tok, bid, q).Data.Income.Value; got != want.Int64() {
			t.Fatalf("round %d after rebuild: cash income %d, want %s", round, got, want)
		}
	}
}

// TestCashBasisBills: a bill's expenses are recognized on the cash basis
// as it is paid, by payments and by a vendor credit applied to it (on the
// credit's day), and the credit itself lowers expenses as it is used, so
// the month's cash-basis expenses equal the cash paid out; deleting the
// payment takes its share back; the accrual basis has the bill and the
// credit on their dates whatever happens to the payment.
func TestCashBasisBills(t *testing.T) {
	e := newEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	billID, creditID, payID := uuid.New(), uuid.New(), uuid.New()
	bill := entry(bid, "2026-04-01", line(bid, "RENT", "DEBIT", 70000, "dept", "a"), line(bid, "UTILITIES", "DEBIT", 30000),
		line(bid, "ACCOUNTS_PAYABLE", "CREDIT", 100000))
	bill.SourceType, bill.SourceID, bill.EntryType = "BILL", billID.String(), "BILL"
	credit := entry(bid, "2026-04-05", line(bid, "ACCOUNTS_PAYABLE", "DEBIT", 10000), line(bid, "RENT", "CREDIT", 10000, "dept", "a"))
	credit.SourceType, credit.SourceID, credit.EntryType = "VENDOR_CREDIT", creditID.String(), "VENDOR_CREDIT"
	payment := entry(bid, "2026-04-10", line(bid, "ACCOUNTS_PAYABLE", "DEBIT", 45000), line(bid, "CASH", "CREDIT", 45000))
	payment.SourceType, payment.SourceID, payment.EntryType = "BILL_PAYMENT", payID.String(), "BILL_PAYMENT"
	billsEvent := func(typ string, payload any) events.Event {
		evt, err := events.New(events.TopicBills, typ, "acct/bills-tags", bid, payload)
		if err != nil {
			t.Fatal(err)
		}
		return evt
	}
	creditEvt := billsEvent(events.TypeVendorCreditUpserted, events.VendorCreditUpserted{BusinessID: bid, VendorCredit: events.VendorCreditSnapshot{
		ID: creditID, BusinessID: bid, ReceivedAt: time.Date(2026, 4, 5, 12, 0, 0, 0, time.UTC), TotalAmount: 10000, Version: 1,
		Allocations: []events.BillAllocation{{BillID: billID, Amount: 10000}}}})
	payEvt := billsEvent(events.TypeBillPaymentUpserted, events.BillPaymentUpserted{BusinessID: bid, Payment: events.BillPaymentSnapshot{
		ID: payID, BusinessID: bid, PaidAt: time.Date(2026, 4, 10, 8, 0, 0, 0, time.UTC), Method: "ACH", Amount: 45000, Version: 1,
		Allocations: []events.BillAllocation{{BillID: billID, Amount: 45000}}}})
	// Payments first, twice, then the entries.
	e.deliver(payEvt, creditEvt, payEvt, creditEvt, event(t, payment), event(t, credit), event(t, bill))

	april := func(basis string, kv ...string) pnlBody {
		q := period("2026-04-01", "2026-04-30", append([]string{"reporting_basis", basis}, kv...)...)
		return e.pnl(tok, bid, q).Data
	}
	if got := april("ACCRUAL"); got.Expenses.Value != 90000 {
		t.Fatalf("accrual expenses %d, want 90000", got.Expenses.Value)
	}
	// Credit day: 10% of the bill (rent 7000, utilities 3000) and all the
	// credit (rent −10000); payment day: up to 55% (rent 31500, utilities
	// 13500 more).
	if got := april("CASH"); got.Expenses.Value != 45000 || got.NetProfit != -45000 {
		t.Fatalf("cash expenses %d net %d, want the 45000 paid out", got.Expenses.Value, got.NetProfit)
	}
	if got := april("CASH", "tag_key", "dept", "tag_values", "a"); got.Expenses.Value != 28500 {
		t.Fatalf("cash rent (dept=a) %d, want 7000 − 10000 + 31500", got.Expenses.Value)
	}
	if got := e.pnl(tok, bid, period("2026-04-05", "2026-04-05", "reporting_basis", "CASH")).Data; got.Expenses.Value != 0 {
		t.Fatalf("cash expenses on the credit's day %d, want 10000 of the bill less the 10000 credit", got.Expenses.Value)
	}
	del := billsEvent(events.TypeBillPaymentDeleted, events.BillPaymentDeleted{BusinessID: bid, PaymentID: payID,
		Posting: &events.LedgerPosting{SourceType: "BILL_PAYMENT", SourceID: payID.String(), Version: 2, EntryType: "BILL_PAYMENT", EntryAt: time.Now()}})
	e.deliver(del, payEvt) // the older snapshot after the deletion changes nothing
	if got := april("CASH"); got.Expenses.Value != 0 {
		t.Fatalf("cash expenses after the payment's deletion %d, want 0 (the credit only)", got.Expenses.Value)
	}
	if got := april("ACCRUAL"); got.Expenses.Value != 90000 {
		t.Fatalf("accrual expenses after the deletion %d, want 90000", got.Expenses.Value)
	}
	if _, err := e.S.Reports.Rebuild(t.Context(), bid); err != nil {
		t.Fatal(err)
	}
	if got := april("CASH"); got.Expenses.Value != 0 {
		t.Fatalf("cash expenses after a rebuild %d, want 0", got.Expenses.Value)
	}
}
