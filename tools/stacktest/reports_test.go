package stacktest

import (
	"bytes"
	"encoding/csv"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// TestProfitAndLossThroughTheSuite: journal entries posted to the ledger
// (transactions) reach the reports service as ledger.entry.posted events,
// and the profit and loss through the gateway shows them, with a tag
// filter; another platform gets 404.
func TestProfitAndLossThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "reports-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	post := func(external, stable, direction string, amount int64, dept string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			r := jsonCall(t, http.MethodPost, base+"/ledger/journal-entries", tok, map[string]any{
				"external_id": external, "entry_at": "2026-05-04", "created_by": "stacktest",
				"tags": []map[string]any{{"key": "dept", "value": dept}},
				"line_items": []map[string]any{
					{"account_identifier": map[string]any{"type": "StableName", "stable_name": stable}, "amount": amount, "direction": direction},
					{"account_identifier": map[string]any{"type": "StableName", "stable_name": "CASH"}, "amount": amount,
						"direction": map[string]string{"DEBIT": "CREDIT", "CREDIT": "DEBIT"}[direction]},
				},
			})
			if r.status == http.StatusCreated || r.status == http.StatusOK {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("journal entry %s: %d %s", external, r.status, r.body)
			}
			time.Sleep(200 * time.Millisecond) // the chart is seeded from business.created
		}
	}
	post("sale-1", "SALES", "CREDIT", 50000, "retail")
	post("rent-1", "RENT", "DEBIT", 12000, "office")

	type want struct{ income, expenses, net float64 }
	wait := func(query string, w want) {
		t.Helper()
		var r reply
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			r = call(t, http.MethodGet, base+"/reports/profit-and-loss?start_date=2026-05-01&end_date=2026-05-31"+query, tok, "", nil, true)
			if r.status == http.StatusOK {
				d := r.json["data"].(map[string]any)
				if d["income"].(map[string]any)["value"] == w.income && d["expenses"].(map[string]any)["value"] == w.expenses && d["net_profit"] == w.net {
					return
				}
			}
		}
		t.Fatalf("profit and loss%s: %d %s, want %+v", query, r.status, r.body, w)
	}
	wait("", want{50000, 12000, 38000})
	wait("&tag_key=dept&tag_values=retail", want{50000, 0, 50000})

	// The comparison: May × {retail, office}, as the SDK sends it.
	cmp := jsonCall(t, http.MethodPost, base+"/reports/profit-and-loss-comparison", tok, map[string]any{
		"periods": map[string]any{"type": "Comparison_Months", "months": []map[string]any{{"year": 2026, "month": 5}}},
		"tag_filters": []map[string]any{
			{"required_tags": []map[string]any{{"key": "dept", "value": "retail"}}, "structure": "DEFAULT"},
			{"required_tags": []map[string]any{{"key": "dept", "value": "office"}}, "structure": "DEFAULT"},
		},
		"reporting_basis": "ACCRUAL", "structure": "DEFAULT",
	})
	if cmp.status != http.StatusOK {
		t.Fatalf("comparison: %d %s", cmp.status, cmp.body)
	}
	pnls := cmp.json["data"].(map[string]any)["pnls"].([]any)
	if len(pnls) != 2 {
		t.Fatalf("comparison: %s", cmp.body)
	}
	for i, w := range []float64{50000, -12000} {
		if got := pnls[i].(map[string]any)["pnl"].(map[string]any)["net_profit"]; got != w {
			t.Errorf("comparison result %d: net profit %v, want %v", i, got, w)
		}
	}

	// Its CSV export, downloaded through the gateway's pre-signed URL, in
	// both money formats.
	for _, c := range []struct{ format, income, expenses, netRetail, netOffice string }{
		{"", "500.00", "120.00", "500.00", "-120.00"},
		{"CENTS_INTEGER", "50000", "12000", "50000", "-12000"},
	} {
		path := base + "/reports/profit-and-loss/exports/comparison-csv"
		if c.format != "" {
			path += "?money_format=" + c.format
		}
		r := jsonCall(t, http.MethodPost, path, tok, map[string]any{
			"periods": map[string]any{"type": "Comparison_Months", "months": []map[string]any{{"year": 2026, "month": 5}}},
			"tag_filters": []map[string]any{
				{"required_tags": []map[string]any{{"key": "dept", "value": "retail"}}},
				{"required_tags": []map[string]any{{"key": "dept", "value": "office"}}},
			},
		})
		rows, _ := csv.NewReader(bytes.NewReader(downloadExport(t, r, "csv", "text/csv"))).ReadAll()
		byName := map[string][]string{}
		for _, row := range rows {
			byName[row[0]] = row
		}
		if len(rows) == 0 || !slices.Equal(rows[0], []string{"Line item", "2026-05 (dept=retail)", "2026-05 (dept=office)"}) ||
			!slices.Equal(byName["Income"], []string{"Income", c.income, zero(c.format)}) ||
			!slices.Equal(byName["Expenses"], []string{"Expenses", zero(c.format), c.expenses}) ||
			!slices.Equal(byName["Net profit"], []string{"Net profit", c.netRetail, c.netOffice}) {
			t.Fatalf("comparison CSV %q: %q", c.format, rows)
		}
	}

	otherID, otherSecret := secondClient(t)
	other := call(t, http.MethodGet, base+"/reports/profit-and-loss?start_date=2026-05-01&end_date=2026-05-31",
		tokenFor(t, otherID, otherSecret), "", nil, true)
	expectError(t, other, http.StatusNotFound, "NotFound")
}

// TestTransactionsCSVThroughTheSuite: bank transactions imported and
// categorized in the transactions service reach the reports service as
// bank_transaction.upserted snapshots: the profit and loss says whether
// the period is fully categorized, and the transactions CSV export,
// downloaded through its pre-signed URL on the gateway, lists them.
func TestTransactionsCSVThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "export-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	var acct reply
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		acct = jsonCall(t, http.MethodPost, base+"/custom-accounts", tok, map[string]any{
			"account_name": "Operating", "institution_name": "Test Bank", "mask": "1234",
			"account_type": "DEPOSITORY", "account_subtype": "CHECKING", "external_id": "op-1",
		})
		if acct.status == http.StatusCreated || time.Now().After(deadline) {
			break
		}
	}
	if acct.status != http.StatusCreated {
		t.Fatalf("custom account: %d %s", acct.status, acct.body)
	}
	acctID := acct.json["data"].(map[string]any)["id"].(string)
	imported := jsonCall(t, http.MethodPost, base+"/custom-accounts/"+acctID+"/transactions", tok, map[string]any{
		"transactions": []map[string]any{
			{"external_id": "t-1", "amount": 4250, "direction": "DEBIT", "date": "2026-02-03", "description": "Team lunch", "counterparty_name": "Cafe Nero"},
			{"external_id": "t-2", "amount": 100, "direction": "DEBIT", "date": "2026-02-04", "description": "Coffee"},
		},
	})
	if imported.status != http.StatusCreated {
		t.Fatalf("import: %d %s", imported.status, imported.body)
	}
	pnl := func() bool {
		r := jsonCall(t, http.MethodGet, base+"/reports/profit-and-loss?start_date=2026-02-01&end_date=2026-02-28", tok, nil)
		if r.status != http.StatusOK {
			t.Fatalf("profit and loss: %d %s", r.status, r.body)
		}
		return r.json["data"].(map[string]any)["fully_categorized"].(bool)
	}
	for _, d := range imported.json["data"].([]any) {
		id := d.(map[string]any)["id"].(string)
		cat := jsonCall(t, http.MethodPost, base+"/bank-transactions/"+id+"/categorize", tok, map[string]any{
			"type": "Category", "category": map[string]any{"type": "StableName", "stable_name": "MEALS"},
		})
		if cat.status != http.StatusOK {
			t.Fatalf("categorize: %d %s", cat.status, cat.body)
		}
		break // the second stays uncategorized
	}

	var rows [][]string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r := jsonCall(t, http.MethodGet, base+"/reports/transactions/exports/csv?start_date=2026-02-01&end_date=2026-02-28", tok, nil)
		if r.status != http.StatusOK {
			t.Fatalf("export: %d %s", r.status, r.body)
		}
		d := r.json["data"].(map[string]any)
		if d["type"] != "Storage_Presigned_Url" || d["fileType"] != "csv" {
			t.Fatalf("export: %s", r.body)
		}
		resp, err := http.Get(d["presignedUrl"].(string))
		if err != nil {
			t.Fatal(err)
		}
		rows, err = csv.NewReader(resp.Body).ReadAll()
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("download: %d %v", resp.StatusCode, err)
		}
		if len(rows) == 3 && rows[1][7] == "CATEGORIZED" || time.Now().After(deadline) {
			break
		}
	}
	if len(rows) != 3 || rows[1][0] != "2026-02-03" || rows[1][2] != "Cafe Nero" || rows[1][5] != "42.50" || rows[1][7] != "CATEGORIZED" ||
		rows[2][1] != "Coffee" || rows[2][5] != "1.00" || rows[2][7] == "CATEGORIZED" {
		t.Fatalf("rows: %q", rows)
	}
	if pnl() {
		t.Fatal("February has an uncategorized transaction: fully_categorized must be false")
	}

	// The same rows as an XLSX workbook (what the SDK downloads).
	r := jsonCall(t, http.MethodGet, base+"/reports/transactions/exports/excel?start_date=2026-02-01&end_date=2026-02-28", tok, nil)
	wb, err := excelize.OpenReader(bytes.NewReader(downloadExport(t, r, "xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	shown, err := wb.GetRows("Transactions")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := wb.GetRows("Transactions", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != 3 || !slices.Equal(shown[0], rows[0]) || shown[1][0] != "2026-02-03" || shown[1][2] != "Cafe Nero" ||
		shown[1][5] != "$42.50" || raw[1][5] != "42.5" || shown[1][7] != "CATEGORIZED" || shown[2][1] != "Coffee" || raw[2][5] != "1" ||
		shown[2][7] == "CATEGORIZED" {
		t.Fatalf("xlsx rows: %q (raw %q)", shown, raw)
	}
}

// downloadExport checks an export's answer (a pre-signed download of
// fileType) and downloads the file through the gateway's URL.
func downloadExport(t *testing.T, r reply, fileType, contentType string) []byte {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("export: %d %s", r.status, r.body)
	}
	d := r.json["data"].(map[string]any)
	name, _ := d["fileName"].(string)
	if d["type"] != "Storage_Presigned_Url" || d["fileType"] != fileType || !strings.HasSuffix(name, "."+fileType) {
		t.Fatalf("export: %s", r.body)
	}
	resp, err := http.Get(d["presignedUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != contentType ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), name) {
		t.Fatalf("download: %d %v %v", resp.StatusCode, resp.Header, err)
	}
	return b
}

// zero is 0 in a money format.
func zero(format string) string {
	if format == "CENTS_INTEGER" {
		return "0"
	}
	return "0.00"
}

// TestStatementsThroughTheSuite: journal entries posted to the ledger
// reach the statements through the gateway: the balance sheet balances
// (owner's money, a loan, the month's profit in equity), the trial
// balance's debits equal its credits, the statement of cash flows
// explains the cash, the report config lists the unified reports, and
// the balance sheet's workbook downloads through its pre-signed URL.
func TestStatementsThroughTheSuite(t *testing.T) {
	tok := platformToken(t)
	bid := createBusiness(t, tok, "statements-"+time.Now().Format("150405.000000"))
	base := "/v1/businesses/" + bid
	post := func(external, debit, credit string, amount int64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			r := jsonCall(t, http.MethodPost, base+"/ledger/journal-entries", tok, map[string]any{
				"external_id": external, "entry_at": "2026-05-04", "created_by": "stacktest",
				"line_items": []map[string]any{
					{"account_identifier": map[string]any{"type": "StableName", "stable_name": debit}, "amount": amount, "direction": "DEBIT"},
					{"account_identifier": map[string]any{"type": "StableName", "stable_name": credit}, "amount": amount, "direction": "CREDIT"},
				},
			})
			if r.status == http.StatusCreated || r.status == http.StatusOK {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("journal entry %s: %d %s", external, r.status, r.body)
			}
		}
	}
	post("contribution", "CASH", "CONTRIBUTIONS", 100000)
	post("loan", "CASH", "NOTES_PAYABLE", 30000)
	post("sale", "CASH", "SALES", 50000)
	post("rent", "RENT", "CASH", 12000)

	value := func(m map[string]any, key string) float64 {
		v, _ := m[key].(map[string]any)["value"].(float64)
		return v
	}
	var r reply
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r = call(t, http.MethodGet, base+"/reports/balance-sheet?effective_date=2026-05-31", tok, "", nil, true)
		if r.status == http.StatusOK {
			d := r.json["data"].(map[string]any)
			if value(d, "assets") == 168000 && value(d, "liabilities_and_equity") == 168000 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("balance sheet: %d %s, want assets 168000 = liabilities and equity", r.status, r.body)
		}
	}
	tb := call(t, http.MethodGet, base+"/reports/unified/trial-balance?effective_date=2026-05-31&reporting_basis=ACCRUAL", tok, "", nil, true)
	if tb.status != http.StatusOK {
		t.Fatalf("trial balance: %d %s", tb.status, tb.body)
	}
	rows := tb.json["data"].(map[string]any)["rows"].([]any)
	total := rows[len(rows)-1].(map[string]any)["cells"].(map[string]any)
	if value(total["debit"].(map[string]any), "value") != 180000 || value(total["credit"].(map[string]any), "value") != 180000 {
		t.Fatalf("trial balance totals: %s", tb.body)
	}
	cf := call(t, http.MethodGet, base+"/reports/cashflow-statement?start_date=2026-05-01&end_date=2026-05-31", tok, "", nil, true)
	if cf.status != http.StatusOK {
		t.Fatalf("cash flows: %d %s", cf.status, cf.body)
	}
	d := cf.json["data"].(map[string]any)
	if value(d, "operating_activities") != 38000 || value(d, "financing_activities") != 130000 || d["period_net_cash_increase"] != 168000.0 ||
		d["cash_at_start_of_period"] != 0.0 || d["cash_at_end_of_period"] != 168000.0 {
		t.Fatalf("cash flows: %s", cf.body)
	}
	cfg := call(t, http.MethodGet, base+"/reports/config", tok, "", nil, true)
	if cfg.status != http.StatusOK || !strings.Contains(string(cfg.body), `"report_route":"trial-balance"`) ||
		!strings.Contains(string(cfg.body), `"report_route":"ar-aging"`) {
		t.Fatalf("report config: %d %s", cfg.status, cfg.body)
	}
	x := call(t, http.MethodGet, base+"/reports/balance-sheet/exports/excel?effective_date=2026-05-31", tok, "", nil, true)
	f, err := excelize.OpenReader(bytes.NewReader(downloadExport(t, x, "xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet, err := f.GetRows("Balance sheet", excelize.Options{RawCellValue: true})
	if err != nil || len(sheet) < 3 || sheet[1][0] != "Assets" || sheet[1][1] != "1680" {
		t.Fatalf("balance sheet workbook: %q %v", sheet, err)
	}
}
