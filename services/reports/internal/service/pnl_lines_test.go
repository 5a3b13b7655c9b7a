package service

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// pnlLinesBody is the drill-down's answer.
type pnlLinesBody struct {
	Data struct {
		Type      string `json:"type"`
		Name      string `json:"pnl_structure_line_item_name"`
		Basis     string `json:"reporting_basis"`
		Value     int64  `json:"value"`
		TagFilter *struct {
			Key    string   `json:"key"`
			Values []string `json:"values"`
		} `json:"tag_filter"`
		Lines []struct {
			ID      string `json:"id"`
			EntryID string `json:"entry_id"`
			Account struct {
				ID          uuid.UUID `json:"id"`
				StableName  *string   `json:"stable_name"`
				AccountType struct {
					Value string `json:"value"`
				} `json:"account_type"`
			} `json:"account"`
			Amount     int64  `json:"amount"`
			Direction  string `json:"direction"`
			SourceType string `json:"source_type"`
			SourceID   string `json:"source_id"`
		} `json:"lines"`
	} `json:"data"`
}

func (e *env) pnlLines(tok string, bid uuid.UUID, q url.Values) pnlLinesBody {
	e.T.Helper()
	var out pnlLinesBody
	e.getJSON(tok, fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss/lines?%s", bid, q.Encode()), &out)
	return out
}

// signedSum is the lines' sum in the sense of a line item of section
// income (credits positive) or not (debits positive).
func (b pnlLinesBody) signedSum(income bool) int64 {
	var s int64
	for _, l := range b.Data.Lines {
		v := l.Amount
		if (l.Direction == "CREDIT") != income {
			v = -v
		}
		s += v
	}
	return s
}

// TestPnLLinesGolden: the drill-downs of the golden books: the income of
// the first fiscal quarter on both bases (accrual: the second invoice's
// sale; cash: the first invoice's second half and the second invoice's
// paid part, as parts its payments recognized), the rent (the credit's
// line), a section, the tag filter, 404 for an unknown line item, the
// 400s; the drill-down's XLSX export.
func TestPnLLinesGolden(t *testing.T) {
	e := newStorageEnv(t)
	tok := e.Svc.Tokens.Platform(t, "client-a")
	bid := e.Svc.SeedBusiness(t, "client-a", func(b *events.Business) { b.FiscalYearStartMonth = 7 })
	e.deliver(statementsHistory(t, bid)...)
	q := func(name, basis string, kv ...string) url.Values {
		v := period("2025-07-01", "2025-09-30", append([]string{"line_item_name", name, "reporting_basis", basis}, kv...)...)
		return v
	}
	acc := e.pnlLines(tok, bid, q("SALES", "ACCRUAL"))
	if d := acc.Data; d.Type != "Profit_And_Loss_Detail_Lines" || d.Name != "SALES" || d.Basis != "ACCRUAL" || d.Value != 50_000 ||
		len(d.Lines) != 1 || d.Lines[0].Amount != 50_000 || d.Lines[0].Direction != "CREDIT" || d.Lines[0].SourceType != "INVOICE" ||
		d.Lines[0].EntryID == "" || d.Lines[0].Account.AccountType.Value != "REVENUE" || d.TagFilter != nil {
		t.Fatalf("accrual sales: %+v", d)
	}
	cash := e.pnlLines(tok, bid, q("INCOME", "CASH"))
	if d := cash.Data; d.Value != 80_000 || len(d.Lines) != 2 || cash.signedSum(true) != 80_000 ||
		d.Lines[0].Amount != 50_000 || d.Lines[1].Amount != 30_000 || d.Lines[0].EntryID != "" || d.Lines[0].SourceType != "INVOICE" {
		t.Fatalf("cash income: %+v", d)
	}
	// The income section equals the P&L's income.
	if p := e.pnl(tok, bid, period("2025-07-01", "2025-09-30", "reporting_basis", "CASH")); p.Data.Income.Value != cash.Data.Value {
		t.Fatalf("P&L income %d, drill-down %d", p.Data.Income.Value, cash.Data.Value)
	}
	rent := e.pnlLines(tok, bid, q("RENT", "ACCRUAL"))
	if d := rent.Data; d.Value != -10_000 || rent.signedSum(false) != -10_000 || len(d.Lines) != 1 || d.Lines[0].SourceType != "VENDOR_CREDIT" {
		t.Fatalf("accrual rent: %+v", d)
	}
	rent = e.pnlLines(tok, bid, q("RENT", "CASH"))
	if d := rent.Data; d.Value != 30_000 || rent.signedSum(false) != 30_000 || len(d.Lines) != 3 {
		t.Fatalf("cash rent (the bill's two recognized parts, the credit's): %+v", d)
	}
	tagged := e.pnlLines(tok, bid, q("SALES", "ACCRUAL", "tag_key", "dept", "tag_values", "a"))
	if d := tagged.Data; d.Value != 0 || len(d.Lines) != 0 || d.TagFilter == nil || d.TagFilter.Key != "dept" || d.TagFilter.Values[0] != "a" {
		t.Fatalf("tagged sales: %+v", d)
	}
	for _, c := range []struct {
		q    url.Values
		code int
	}{
		{q("NO_SUCH_LINE", "ACCRUAL"), http.StatusNotFound},
		{period("2025-07-01", "2025-09-30"), http.StatusBadRequest},
		{q("SALES", "TAX"), http.StatusBadRequest},
		{url.Values{"line_item_name": {"SALES"}}, http.StatusBadRequest},
		{q("SALES", "ACCRUAL", "pnl_structure", "BAKERY"), http.StatusBadRequest},
	} {
		path := fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss/lines?%s", bid, c.q.Encode())
		body := e.V.ExpectError(t, e.HTTP, openapitest.Request(http.MethodGet, path, tok, nil), c.code)
		if c.code == http.StatusNotFound && body["error_enum"] != domain.EnumUnknownLineItem {
			t.Fatalf("%s: %v", c.q.Encode(), body)
		}
	}
	other := e.Svc.SeedBusiness(t, "client-b")
	resp, body := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet,
		fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss/lines?%s", other, q("SALES", "ACCRUAL").Encode()), tok, nil))
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("another client's business: %d %s", resp.StatusCode, body)
	}

	// The exports.
	resp, body = e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet,
		fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss/lines/exports/excel?%s", bid, q("RENT", "CASH").Encode()), tok, nil))
	d := presignedData(t, resp.StatusCode, body)
	if d.DocumentType != "PROFIT_AND_LOSS_LINES_EXCEL" || d.FileName != "profit_and_loss_lines_2025-07-01_2025-09-30_CASH.xlsx" {
		t.Fatalf("answer %+v", d)
	}
	f, err := excelize.OpenReader(bytes.NewReader(download(t, d, xlsxType)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Lines", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || rows[0][0] != "Date" || rows[1][1] != "Rent" || rows[4][0] != "Total: RENT" || rows[4][3] != "300" {
		t.Fatalf("lines workbook %q", rows)
	}
	resp, body = e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet,
		fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss/exports/excel?%s", bid,
			period("2025-07-01", "2025-09-30", "reporting_basis", "CASH", "money_format", "CENTS_INTEGER").Encode()), tok, nil))
	d = presignedData(t, resp.StatusCode, body)
	if d.DocumentType != "PROFIT_AND_LOSS_EXCEL" {
		t.Fatalf("answer %+v", d)
	}
	pf, err := excelize.OpenReader(bytes.NewReader(download(t, d, xlsxType)))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	prow, err := pf.GetRows("Profit and loss", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	last := prow[len(prow)-1]
	if prow[1][0] != "Income" || prow[1][1] != "800" || last[0] != "Net profit" || last[1] != "450" {
		t.Fatalf("P&L workbook %q", prow)
	}
	resp, body = e.V.Do(t, e.HTTP, openapitest.Request(http.MethodGet,
		fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss/exports/excel?%s", bid,
			period("2025-07-01", "2025-09-30", "money_format", "EUROS").Encode()), tok, nil))
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad money_format: %d %s", resp.StatusCode, body)
	}
}

// TestPnLLinesProperty: over random books, for random periods, bases, tag
// filters and line items (each section and every account line of the
// P&L), the drill-down's value is the P&L's figure for that line item and
// its lines add up to it.
func TestPnLLinesProperty(t *testing.T) {
	e := newEnv(t)
	tok := e.Svc.Tokens.Platform(t, "client-a")
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 33))
	bid := e.Svc.SeedBusiness(t, "client-a")
	evts, _ := randomBooks(t, r, bid)
	e.deliver(evts...)
	for range 6 {
		from := "2025-01-01"
		to := fmt.Sprintf("2025-%02d-28", 1+r.IntN(12))
		basis := []string{"ACCRUAL", "CASH"}[r.IntN(2)]
		kv := []string{"reporting_basis", basis}
		if r.IntN(3) == 0 {
			kv = append(kv, "tag_key", "dept")
		}
		p := e.pnl(tok, bid, period(from, to, kv...)).Data
		var check func(li domain.LineItem, income bool)
		check = func(li domain.LineItem, income bool) {
			if li.Value == 0 && len(li.LineItems) == 0 {
				return
			}
			got := e.pnlLines(tok, bid, period(from, to, append([]string{"line_item_name", li.Name}, kv...)...))
			if got.Data.Value != li.Value || got.signedSum(income) != li.Value {
				t.Fatalf("%s..%s %v %s: drill-down %d (lines %d), P&L %d (seed %d)", from, to, kv, li.Name, got.Data.Value, got.signedSum(income), li.Value, seed)
			}
			for _, c := range li.LineItems {
				check(c, income)
			}
		}
		check(p.Income, true)
		check(p.Expenses, false)
		check(p.CostOfGoodsSold, false)
		check(p.Taxes, false)
	}
}
