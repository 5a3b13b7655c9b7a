package service

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// balanceSheetBody is the balance sheet's answer.
type balanceSheetBody struct {
	Data struct {
		Type                 string          `json:"type"`
		BusinessID           uuid.UUID       `json:"business_id"`
		EffectiveDate        time.Time       `json:"effective_date"`
		StartDate            time.Time       `json:"start_date"`
		EndDate              time.Time       `json:"end_date"`
		Assets               domain.LineItem `json:"assets"`
		LiabilitiesAndEquity domain.LineItem `json:"liabilities_and_equity"`
		FullyCategorized     bool            `json:"fully_categorized"`
	} `json:"data"`
	Meta struct {
		ReportingBasis string `json:"reporting_basis"`
	} `json:"meta"`
}

// cashFlowBody is the statement of cash flows' answer.
type cashFlowBody struct {
	Data struct {
		Type                  string          `json:"type"`
		OperatingActivities   domain.LineItem `json:"operating_activities"`
		InvestingActivities   domain.LineItem `json:"investing_activities"`
		FinancingActivities   domain.LineItem `json:"financing_activities"`
		PeriodNetCashIncrease int64           `json:"period_net_cash_increase"`
		CashAtStartOfPeriod   int64           `json:"cash_at_start_of_period"`
		CashAtEndOfPeriod     int64           `json:"cash_at_end_of_period"`
	} `json:"data"`
}

// getJSON GETs path (validated against the OpenAPI document), wants 200
// and decodes the answer into out.
func (e *env) getJSON(tok, path string, out any) {
	e.T.Helper()
	resp, body := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodGet, path, tok, nil))
	if resp.StatusCode != http.StatusOK {
		e.T.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		e.T.Fatal(err)
	}
}

func (e *env) balanceSheet(tok string, bid uuid.UUID, day, basis string) balanceSheetBody {
	e.T.Helper()
	q := url.Values{"effective_date": {day}}
	if basis != "" {
		q.Set("reporting_basis", basis)
	}
	var out balanceSheetBody
	e.getJSON(tok, fmt.Sprintf("/v1/businesses/%s/reports/balance-sheet?%s", bid, q.Encode()), &out)
	return out
}

func (e *env) cashFlow(tok string, bid uuid.UUID, start, end, basis string) cashFlowBody {
	e.T.Helper()
	q := period(start, end)
	if basis != "" {
		q.Set("reporting_basis", basis)
	}
	var out cashFlowBody
	e.getJSON(tok, fmt.Sprintf("/v1/businesses/%s/reports/cashflow-statement?%s", bid, q.Encode()), &out)
	return out
}

// item finds the line item named name anywhere below li.
func item(li domain.LineItem, name string) (domain.LineItem, bool) {
	for _, c := range li.LineItems {
		if c.Name == name {
			return c, true
		}
		if f, ok := item(c, name); ok {
			return f, true
		}
	}
	return domain.LineItem{}, false
}

// value is the value of the line item named name below li (0 when absent).
func value(li domain.LineItem, name string) int64 {
	f, _ := item(li, name)
	return f.Value
}

// sumsUp fails unless every line item of li with line items is their sum.
func sumsUp(t *testing.T, li domain.LineItem) {
	t.Helper()
	if len(li.LineItems) == 0 {
		return
	}
	var s int64
	for _, c := range li.LineItems {
		s += c.Value
		sumsUp(t, c)
	}
	if s != li.Value {
		t.Fatalf("%s: %d, its line items add up to %d", li.Name, li.Value, s)
	}
}

// statementsHistory is a small business's books with a fiscal year that
// starts in July, crossing the year end of 2025-06-30: an owner's
// contribution, a loan and its partial repayment with interest, a fixed
// asset bought, an invoice with sales tax paid in two halves across the
// year end, a bill paid partly in cash and partly by a vendor credit, an
// invoice partly paid and partly written off, an owner's draw.
func statementsHistory(t *testing.T, bid uuid.UUID) []events.Event {
	t.Helper()
	doc := func(p events.LedgerEntryPosted, typ string, id uuid.UUID) events.LedgerEntryPosted {
		p.SourceType, p.SourceID, p.EntryType = typ, id.String(), typ
		return p
	}
	inv1, inv2, bill1, credit1 := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	pay1, pay2, pay3, billPay := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	entries := []events.LedgerEntryPosted{
		entry(bid, "2025-05-10", line(bid, "CASH", "DEBIT", 1_000_000), line(bid, "CONTRIBUTIONS", "CREDIT", 1_000_000)),
		entry(bid, "2025-05-15", line(bid, "CASH", "DEBIT", 500_000), line(bid, "NOTES_PAYABLE", "CREDIT", 500_000)),
		doc(entry(bid, "2025-06-01", line(bid, "ACCOUNTS_RECEIVABLE", "DEBIT", 113_000), line(bid, "SALES", "CREDIT", 100_000),
			line(bid, "SALES_TAXES_PAYABLE", "CREDIT", 13_000)), "INVOICE", inv1),
		doc(entry(bid, "2025-06-20", line(bid, "CASH", "DEBIT", 56_500), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", 56_500)), "INVOICE_PAYMENT", pay1),
		doc(entry(bid, "2025-06-25", line(bid, "RENT", "DEBIT", 40_000), line(bid, "ACCOUNTS_PAYABLE", "CREDIT", 40_000)), "BILL", bill1),
		entry(bid, "2025-06-28", line(bid, "FIXED_ASSETS", "DEBIT", 300_000), line(bid, "CASH", "CREDIT", 300_000)),
		doc(entry(bid, "2025-07-10", line(bid, "CASH", "DEBIT", 56_500), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", 56_500)), "INVOICE_PAYMENT", pay2),
		doc(entry(bid, "2025-07-15", line(bid, "ACCOUNTS_PAYABLE", "DEBIT", 30_000), line(bid, "CASH", "CREDIT", 30_000)), "BILL_PAYMENT", billPay),
		doc(entry(bid, "2025-07-20", line(bid, "ACCOUNTS_PAYABLE", "DEBIT", 10_000), line(bid, "RENT", "CREDIT", 10_000)), "VENDOR_CREDIT", credit1),
		doc(entry(bid, "2025-08-01", line(bid, "ACCOUNTS_RECEIVABLE", "DEBIT", 50_000), line(bid, "SALES", "CREDIT", 50_000)), "INVOICE", inv2),
		doc(entry(bid, "2025-08-15", line(bid, "BAD_DEBT", "DEBIT", 20_000), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", 20_000)), "INVOICE_WRITE_OFF", uuid.New()),
		doc(entry(bid, "2025-08-20", line(bid, "CASH", "DEBIT", 30_000), line(bid, "ACCOUNTS_RECEIVABLE", "CREDIT", 30_000)), "INVOICE_PAYMENT", pay3),
		entry(bid, "2025-09-01", line(bid, "NOTES_PAYABLE", "DEBIT", 100_000), line(bid, "INTEREST_EXPENSE", "DEBIT", 5_000),
			line(bid, "CASH", "CREDIT", 105_000)),
		entry(bid, "2025-09-05", line(bid, "OWNERS_DRAW", "DEBIT", 20_000), line(bid, "CASH", "CREDIT", 20_000)),
	}
	var out []events.Event
	for _, p := range entries {
		out = append(out, event(t, p))
	}
	invoicing := func(typ string, payload any) events.Event {
		evt, err := events.New(events.TopicInvoicing, typ, "test", bid, payload)
		if err != nil {
			t.Fatal(err)
		}
		return evt
	}
	bills := func(typ string, payload any) events.Event {
		evt, err := events.New(events.TopicBills, typ, "test", bid, payload)
		if err != nil {
			t.Fatal(err)
		}
		return evt
	}
	at := func(day string) time.Time {
		d, err := time.Parse(domain.DateLayout, day)
		if err != nil {
			t.Fatal(err)
		}
		return d.Add(15 * time.Hour)
	}
	payment := func(id, inv uuid.UUID, day string, amount int64) events.Event {
		return invoicing(events.TypeInvoicePaymentUpserted, events.InvoicePaymentUpserted{BusinessID: bid, Payment: events.InvoicePaymentSnapshot{
			ID: id, BusinessID: bid, PaidAt: at(day), Method: "ACH", Amount: amount, Version: 1,
			Allocations: []events.PaymentAllocation{{InvoiceID: inv, Amount: amount}}}})
	}
	out = append(out,
		payment(pay1, inv1, "2025-06-20", 56_500), payment(pay2, inv1, "2025-07-10", 56_500), payment(pay3, inv2, "2025-08-20", 30_000),
		bills(events.TypeBillPaymentUpserted, events.BillPaymentUpserted{BusinessID: bid, Payment: events.BillPaymentSnapshot{
			ID: billPay, BusinessID: bid, PaidAt: at("2025-07-15"), Method: "ACH", Amount: 30_000, Version: 1,
			Allocations: []events.BillAllocation{{BillID: bill1, Amount: 30_000}}}}),
		bills(events.TypeVendorCreditUpserted, events.VendorCreditUpserted{BusinessID: bid, VendorCredit: events.VendorCreditSnapshot{
			ID: credit1, BusinessID: bid, ReceivedAt: at("2025-07-20"), TotalAmount: 10_000, Version: 1,
			Allocations: []events.BillAllocation{{BillID: bill1, Amount: 10_000}}}}),
	)
	return out
}

// sheetFigures are the hand-checked figures of a balance sheet.
type sheetFigures struct {
	day, basis                         string
	assets, liabilities, equity        int64
	cash, receivable, fixed            int64
	salesTax, payable, notes           int64
	contributions, draw, retained, net int64
}

// TestStatementsGolden: the statements of statementsHistory, hand-checked,
// on both bases, on days either side of the fiscal year end (July):
// the balance sheet (assets = liabilities + equity, retained earnings
// closing the fiscal year to 2025-06-30, every line the sum of its line
// items) and the statement of cash flows (its sections add up to the
// change of cash); the same after a rebuild, and for the events delivered
// twice in reverse order.
func TestStatementsGolden(t *testing.T) {
	e := newEnv(t)
	tok := e.Svc.Tokens.Platform(t, "client-a")
	july := func(b *events.Business) { b.FiscalYearStartMonth = 7 }
	bid := e.Svc.SeedBusiness(t, "client-a", july)
	evts := statementsHistory(t, bid)
	e.deliver(evts...)

	// Worked by hand (cents):
	// 2025-06-30 accrual: cash 1,000,000 + 500,000 + 56,500 − 300,000; the
	//   invoice's other half receivable; the bill payable; net income of
	//   the fiscal year to date: sales 100,000 − rent 40,000.
	// 2025-06-30 cash: half the invoice paid recognizes 50,000 of sales and
	//   6,500 of its tax, and none of its receivable is left; the unpaid
	//   bill is left out whole.
	// 2025-09-30: the fiscal year to 2025-06-30 is closed into retained
	//   earnings (accrual 60,000; cash 50,000); this year's net income:
	//   accrual sales 50,000 + the vendor credit's 10,000 − bad debt 20,000
	//   − interest 5,000; cash: the invoice's second half 50,000 and 30,000
	//   paid on the second invoice, rent 30,000 paid out (the bill paid
	//   30,000 in cash and 10,000 by the credit, the credit used whole),
	//   interest 5,000; the write-off is not on the cash basis.
	want := []sheetFigures{
		{day: "2025-06-30", basis: "ACCRUAL", assets: 1_613_000, liabilities: 553_000, equity: 1_060_000,
			cash: 1_256_500, receivable: 56_500, fixed: 300_000, salesTax: 13_000, payable: 40_000, notes: 500_000,
			contributions: 1_000_000, retained: 0, net: 60_000},
		{day: "2025-06-30", basis: "CASH", assets: 1_556_500, liabilities: 506_500, equity: 1_050_000,
			cash: 1_256_500, receivable: 0, fixed: 300_000, salesTax: 6_500, payable: 0, notes: 500_000,
			contributions: 1_000_000, retained: 0, net: 50_000},
		{day: "2025-09-30", basis: "ACCRUAL", assets: 1_488_000, liabilities: 413_000, equity: 1_075_000,
			cash: 1_188_000, receivable: 0, fixed: 300_000, salesTax: 13_000, payable: 0, notes: 400_000,
			contributions: 1_000_000, draw: -20_000, retained: 60_000, net: 35_000},
		{day: "2025-09-30", basis: "CASH", assets: 1_488_000, liabilities: 413_000, equity: 1_075_000,
			cash: 1_188_000, receivable: 0, fixed: 300_000, salesTax: 13_000, payable: 0, notes: 400_000,
			contributions: 1_000_000, draw: -20_000, retained: 50_000, net: 45_000},
		{day: "2025-05-31", basis: "CASH", assets: 1_500_000, liabilities: 500_000, equity: 1_000_000,
			cash: 1_500_000, notes: 500_000, contributions: 1_000_000},
	}
	check := func(when string, bid uuid.UUID) {
		t.Helper()
		for _, w := range want {
			bs := e.balanceSheet(tok, bid, w.day, w.basis)
			d := bs.Data
			le := d.LiabilitiesAndEquity
			liab, _ := item(le, "LIABILITIES")
			eq, _ := item(le, "EQUITY")
			got := sheetFigures{day: w.day, basis: bs.Meta.ReportingBasis, assets: d.Assets.Value, liabilities: liab.Value, equity: eq.Value,
				cash: value(d.Assets, "CASH"), receivable: value(d.Assets, "ACCOUNTS_RECEIVABLE"), fixed: value(d.Assets, "FIXED_ASSETS"),
				salesTax: value(liab, "SALES_TAXES_PAYABLE"), payable: value(liab, "ACCOUNTS_PAYABLE"), notes: value(liab, "NOTES_PAYABLE"),
				contributions: value(eq, "CONTRIBUTIONS"), draw: value(eq, "OWNERS_DRAW"), retained: value(eq, "RETAINED_EARNINGS"), net: value(eq, "NET_INCOME")}
			if got != w {
				t.Fatalf("%s: balance sheet %s %s:\n got %+v\nwant %+v", when, w.day, w.basis, got, w)
			}
			if d.Assets.Value != le.Value {
				t.Fatalf("%s: %s %s: assets %d, liabilities and equity %d", when, w.day, w.basis, d.Assets.Value, le.Value)
			}
			sumsUp(t, d.Assets)
			sumsUp(t, le)
			if d.Type != "Balance_Sheet" || d.BusinessID != bid {
				t.Fatalf("%s: %+v", when, d)
			}
			if _, ok := item(eq, "NET_INCOME"); !ok {
				t.Fatalf("%s: no net income line: %+v", when, eq)
			}
		}
		// The fiscal year holding 2025-06-30 started on 2024-07-01; the
		// one holding 2025-09-30 on 2025-07-01.
		if d := e.balanceSheet(tok, bid, "2025-06-30", "").Data; !d.StartDate.Equal(time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)) ||
			!d.EffectiveDate.Equal(time.Date(2025, 6, 30, 23, 59, 59, 999_000_000, time.UTC)) {
			t.Fatalf("%s: fiscal year %s, effective %s", when, d.StartDate, d.EffectiveDate)
		}
		if d := e.balanceSheet(tok, bid, "2025-09-30", "").Data; !d.StartDate.Equal(time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("%s: fiscal year %s", when, d.StartDate)
		}

		// The trial balance on 2025-09-30, accrual: the balance sheet
		// accounts, the closed year in retained earnings, this year's
		// revenue and expenses.
		tb := e.trialBalance(tok, bid, "2025-09-30", "ACCRUAL")
		gotTB := map[string][2]int64{}
		var order []string
		for _, row := range tb.Rows {
			gotTB[row.RowKey] = [2]int64{cents(row.Cells["debit"]), cents(row.Cells["credit"])}
			order = append(order, row.RowKey)
		}
		wantTB := map[string][2]int64{
			"CASH": {1_188_000, 0}, "FIXED_ASSETS": {300_000, 0}, "SALES_TAXES_PAYABLE": {0, 13_000}, "NOTES_PAYABLE": {0, 400_000},
			"CONTRIBUTIONS": {0, 1_000_000}, "OWNERS_DRAW": {20_000, 0}, "RETAINED_EARNINGS": {0, 60_000}, "SALES": {0, 50_000},
			"RENT": {0, 10_000}, "BAD_DEBT": {20_000, 0}, "INTEREST_EXPENSE": {5_000, 0}, "total_trial_balance": {1_533_000, 1_533_000},
		}
		wantOrder := []string{"CASH", "FIXED_ASSETS", "NOTES_PAYABLE", "SALES_TAXES_PAYABLE", "OWNERS_DRAW", "CONTRIBUTIONS", "RETAINED_EARNINGS",
			"SALES", "BAD_DEBT", "INTEREST_EXPENSE", "RENT", "total_trial_balance"}
		if !reflect.DeepEqual(gotTB, wantTB) || !reflect.DeepEqual(order, wantOrder) || tb.BusinessID != bid {
			t.Fatalf("%s: trial balance\n got %v %v\nwant %v %v", when, gotTB, order, wantTB, wantOrder)
		}
		if c := tb.Rows[0].Cells; c["account"].Value.Value != "Cash" || c["account_type"].Value.Value != "Asset" || c["credit"].Value.Type != "Empty" {
			t.Fatalf("%s: trial balance's first row %+v", when, tb.Rows[0])
		}
		if last := tb.Rows[len(tb.Rows)-1].Cells["debit"]; last.Format == nil || !last.Format.Bold {
			t.Fatalf("%s: the totals are not bold: %+v", when, last)
		}
		// Cash basis, 2025-06-30: the paid half of the invoice only.
		tb = e.trialBalance(tok, bid, "2025-06-30", "CASH")
		if got := tb.Rows[len(tb.Rows)-1]; cents(got.Cells["debit"]) != 1_556_500 || cents(got.Cells["credit"]) != 1_556_500 {
			t.Fatalf("%s: cash trial balance totals %+v", when, got)
		}

		// Cash flows, accrual, 2025-07-01..2025-09-30: net income 35,000;
		// the receivable collected +56,500; the bill paid −40,000 (30,000
		// in cash, 10,000 by the credit, which was income); the loan
		// repaid −100,000; the draw −20,000.
		cf := e.cashFlow(tok, bid, "2025-07-01", "2025-09-30", "ACCRUAL").Data
		ops := cf.OperatingActivities
		if cf.Type != "Cashflow_Statement" || ops.Value != 51_500 || value(ops, "NET_INCOME") != 35_000 || value(ops, "ACCOUNTS_RECEIVABLE") != 56_500 ||
			value(ops, "ACCOUNTS_PAYABLE") != -40_000 || cf.InvestingActivities.Value != 0 || cf.FinancingActivities.Value != -120_000 ||
			value(cf.FinancingActivities, "NOTES_PAYABLE") != -100_000 || value(cf.FinancingActivities, "OWNERS_DRAW") != -20_000 ||
			cf.PeriodNetCashIncrease != -68_500 || cf.CashAtStartOfPeriod != 1_256_500 || cf.CashAtEndOfPeriod != 1_188_000 {
			t.Fatalf("%s: cash flows Q1 accrual: %+v", when, cf)
		}
		// Cash basis, the same quarter: net income 45,000, nothing owed
		// or owing to change; the cash is the same.
		cf = e.cashFlow(tok, bid, "2025-07-01", "2025-09-30", "CASH").Data
		if cf.OperatingActivities.Value != 51_500 || value(cf.OperatingActivities, "NET_INCOME") != 45_000 ||
			value(cf.OperatingActivities, "SALES_TAXES_PAYABLE") != 6_500 || cf.PeriodNetCashIncrease != -68_500 ||
			cf.CashAtStartOfPeriod != 1_256_500 || cf.CashAtEndOfPeriod != 1_188_000 {
			t.Fatalf("%s: cash flows Q1 cash: %+v", when, cf)
		}
		// May and June, accrual: the contribution and the loan finance,
		// the fixed asset is invested.
		cf = e.cashFlow(tok, bid, "2025-05-01", "2025-06-30", "ACCRUAL").Data
		if value(cf.OperatingActivities, "NET_INCOME") != 60_000 || cf.OperatingActivities.Value != 56_500 ||
			cf.InvestingActivities.Value != -300_000 || value(cf.InvestingActivities, "FIXED_ASSETS") != -300_000 ||
			cf.FinancingActivities.Value != 1_500_000 || cf.PeriodNetCashIncrease != 1_256_500 ||
			cf.CashAtStartOfPeriod != 0 || cf.CashAtEndOfPeriod != 1_256_500 {
			t.Fatalf("%s: cash flows May–June: %+v", when, cf)
		}
	}
	check("delivered", bid)

	if _, err := e.S.Reports.Rebuild(t.Context(), bid); err != nil {
		t.Fatal(err)
	}
	check("after a rebuild", bid)

	// A read model that predates the cash basis's rules (here: its cash
	// differences lost), queued for a rebuild by a migration, is rebuilt
	// in the background and taken off the queue.
	for _, q := range []string{"DELETE FROM reports.cash_days WHERE business_id = ?", "DELETE FROM reports.cash_months WHERE business_id = ?",
		"INSERT INTO reports.rebuild_pending (business_id, reason) VALUES (?, 'test')"} {
		if _, err := e.DB.NewRaw(q, bid).Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if got := e.balanceSheet(tok, bid, "2025-06-30", "CASH").Data.Assets.Value; got == 1_556_500 {
		t.Fatal("the cash basis did not change without its differences")
	}
	if n := e.S.Reports.RebuildPending(t.Context()); n != 1 {
		t.Fatalf("rebuilt %d queued businesses, want 1", n)
	}
	check("rebuilt from the queue", bid)
	if n := e.S.Reports.RebuildPending(t.Context()); n != 0 {
		t.Fatalf("rebuilt %d businesses from an empty queue", n)
	}

	other := e.Svc.SeedBusiness(t, "client-a", july)
	evts = statementsHistory(t, other)
	all := append(append([]events.Event{}, evts...), evts...)
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	e.deliver(all...)
	check("twice, newest first", other)
}

// TestStatementExports: the balance sheet's CSV and XLSX exports and the
// statement of cash flows' CSV export of the golden books, downloaded
// through their pre-signed URLs and read back line by line (indented
// names, dollar amounts, totals; a formula-looking account name stays
// text); 503 without storage (after the 400s); every new route's 400s,
// cross-tenant 404s and 401.
func TestStatementExports(t *testing.T) {
	e := newStorageEnv(t)
	tok := e.Svc.Tokens.Platform(t, "client-a")
	bid := e.Svc.SeedBusiness(t, "client-a", func(b *events.Business) { b.FiscalYearStartMonth = 7 })
	e.deliver(statementsHistory(t, bid)...)
	// A custom fixed asset, below FIXED_ASSETS, whose name looks like a
	// formula.
	odd := line(bid, "FIXED_ASSETS", "DEBIT", 100)
	odd.AccountID, odd.StableName, odd.AccountName = customAccountID(bid, "odd"), nil, "=HYPERLINK(\"x\")"
	odd.Ancestors = append(odd.Ancestors, events.LedgerAccountRef{AccountID: events.DefaultAccountID(bid, "FIXED_ASSETS"),
		StableName: ptr("FIXED_ASSETS"), Name: "Fixed assets"})
	e.deliver(event(t, entry(bid, "2025-09-30", odd, line(bid, "CASH", "CREDIT", 100))))

	get := func(path string) presigned {
		t.Helper()
		resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet, path, tok, nil))
		return presignedData(t, resp.StatusCode, body)
	}
	base := fmt.Sprintf("/v1/businesses/%s/reports", bid)
	d := get(base + "/balance-sheet/exports/csv?effective_date=2025-09-30&reporting_basis=ACCRUAL")
	if d.FileType != "csv" || d.FileName != "balance_sheet_2025-09-30_ACCRUAL.csv" || d.DocumentType != "BALANCE_SHEET_CSV" {
		t.Fatalf("answer %+v", d)
	}
	rows, err := csv.NewReader(bytes.NewReader(download(t, d, "text/csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Line", "Amount"},
		{"Assets", "14880.00"},
		{"  Cash", "11879.00"},
		{"  Fixed assets", "3001.00"},
		{"    Fixed assets - Other", "3000.00"},
		{"    '=HYPERLINK(\"x\")", "1.00"},
		{"Liabilities", "4130.00"},
		{"  Notes payable", "4000.00"},
		{"  Sales taxes payable", "130.00"},
		{"Equity", "10750.00"},
		{"  Distributions", "-200.00"},
		{"    Owner's draw", "-200.00"},
		{"  Owner contributions", "10000.00"},
		{"  Retained earnings", "600.00"},
		{"  Net income", "350.00"},
		{"Total assets", "14880.00"},
		{"Total liabilities and equity", "14880.00"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("balance sheet CSV:\n got %q\nwant %q", rows, want)
	}

	d = get(base + "/balance-sheet/exports/excel?effective_date=2025-06-30&reporting_basis=CASH")
	if d.FileType != "xlsx" || d.FileName != "balance_sheet_2025-06-30_CASH.xlsx" || d.DocumentType != "BALANCE_SHEET_EXCEL" {
		t.Fatalf("answer %+v", d)
	}
	f, err := excelize.OpenReader(bytes.NewReader(download(t, d, xlsxType)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet, err := f.GetRows("Balance sheet", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	wantX := [][]string{{"Line", "Amount"}, {"Assets", "15565"}, {"Cash", "12565"}, {"Fixed assets", "3000"},
		{"Liabilities", "5065"}, {"Notes payable", "5000"}, {"Sales taxes payable", "65"},
		{"Equity", "10500"}, {"Owner contributions", "10000"}, {"Net income", "500"},
		{"Total assets", "15565"}, {"Total liabilities and equity", "15565"}}
	if !reflect.DeepEqual(sheet, wantX) {
		t.Fatalf("balance sheet XLSX:\n got %q\nwant %q", sheet, wantX)
	}
	style, err := f.GetCellStyle("Balance sheet", "A3")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := f.GetStyle(style); err != nil || st.Alignment == nil || st.Alignment.Indent != 1 {
		t.Fatalf("Cash is not indented: %+v %v", st, err)
	}

	d = get(base + "/cashflow-statement/exports/csv?start_date=2025-07-01&end_date=2025-09-30&reporting_basis=ACCRUAL")
	if d.FileName != "cashflow_statement_2025-07-01_2025-09-30_ACCRUAL.csv" || d.DocumentType != "CASHFLOW_STATEMENT_CSV" {
		t.Fatalf("answer %+v", d)
	}
	rows, err = csv.NewReader(bytes.NewReader(download(t, d, "text/csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want = [][]string{
		{"Line", "Amount"},
		{"Operating activities", "515.00"},
		{"  Net income", "350.00"},
		{"  Accounts payable", "-400.00"},
		{"  Accounts receivable", "565.00"},
		{"Investing activities", "-1.00"},
		{"  '=HYPERLINK(\"x\")", "-1.00"},
		{"Financing activities", "-1200.00"},
		{"  Notes payable", "-1000.00"},
		{"  Owner's draw", "-200.00"},
		{"Net cash increase for the period", "-686.00"},
		{"Cash at the start of the period", "12565.00"},
		{"Cash at the end of the period", "11879.00"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("cash flow CSV:\n got %q\nwant %q", rows, want)
	}

	// Errors: 400s (before storage), cross-tenant 404s, 401, on every route.
	noStorage := newEnv(t)
	ntok := noStorage.Svc.Tokens.Platform(t, "client-a")
	nbid := noStorage.Svc.SeedBusiness(t, "client-a")
	other := e.Svc.SeedBusiness(t, "client-b")
	for _, c := range []struct {
		path   string
		bad    string // a query that is a 400
		export bool
	}{
		{"/balance-sheet", "effective_date=2025-13-01", false},
		{"/balance-sheet/exports/csv", "effective_date=yesterday", true},
		{"/balance-sheet/exports/excel", "reporting_basis=MODIFIED", true},
		{"/cashflow-statement", "start_date=2025-02-01&end_date=2025-01-01", false},
		{"/cashflow-statement/exports/csv", "start_date=2025-02-01", true},
		{"/unified/trial-balance", "effective_date=2025-02-30", false},
	} {
		good := "effective_date=2025-06-30"
		if strings.HasPrefix(c.path, "/cashflow") {
			good = "start_date=2025-01-01&end_date=2025-06-30"
		}
		for _, q := range []string{c.bad, good + "&reporting_basis=TAX"} {
			// Some break the document's own rules: the answer is checked.
			body := e.V.ExpectError(t, e.HTTP, openapitest.Request(http.MethodGet, base+c.path+"?"+q, tok, nil), http.StatusBadRequest)
			if body["type"] != "InvalidParameters" {
				t.Fatalf("%s?%s: %v", c.path, q, body)
			}
		}
		resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet,
			fmt.Sprintf("/v1/businesses/%s/reports%s?%s", other, c.path, good), tok, nil))
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("another client's business %s: %d %s", c.path, resp.StatusCode, body)
		}
		if resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet, base+c.path+"?"+good, "", nil)); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("no token %s: %d %s", c.path, resp.StatusCode, body)
		}
		if c.export {
			resp, body := noStorage.V.Do(t, noStorage.HTTP, openapitest.Request(http.MethodGet,
				fmt.Sprintf("/v1/businesses/%s/reports%s?%s", nbid, c.path, good), ntok, nil))
			if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(body, []byte("export storage is not configured")) {
				t.Fatalf("without storage %s: %d %s", c.path, resp.StatusCode, body)
			}
		}
	}
	// Today's balance sheet by default, on the business's default basis.
	if got := e.balanceSheet(tok, bid, time.Now().UTC().Format(domain.DateLayout), ""); got.Meta.ReportingBasis != "ACCRUAL" {
		t.Fatalf("default basis %q", got.Meta.ReportingBasis)
	}
	var today balanceSheetBody
	e.getJSON(tok, base+"/balance-sheet", &today)
	if y, m, dd := time.Now().UTC().Date(); today.Data.EndDate.Year() != y || today.Data.EndDate.Month() != m || today.Data.EndDate.Day() != dd ||
		today.Data.Assets.Value != 1_487_900+100 {
		t.Fatalf("today's balance sheet: %+v", today.Data)
	}
}
