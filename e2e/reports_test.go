package e2e

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pnlFigures are the figures a scenario checks in one comparison result.
type pnlFigures struct{ Income, Expenses, Net float64 }

// reportsScenario: a business with bank transactions
// categorized under two dept tags and invoices paid over three months; the
// P&L comparison for 3 months × 2 tag filters equals the hand-computed
// figures to the cent on the accrual and the cash basis; the comparison's
// CSV export downloads through its signed URL and says the same.
func reportsScenario(t *testing.T, api *apiClient, stack *Stack, platform string) {
	biz := createBusiness(t, api, platform, newBusiness(t, "E2E Reports LLC"))
	base := "/v1/businesses/" + biz
	api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/ledger/chart", Token: platform})
	api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/customers", Token: platform})
	api.eventually(t, http.StatusOK, time.Minute, request{Method: http.MethodGet, Path: base + "/reports/profit-and-loss?start_date=2026-01-01&end_date=2026-01-31", Token: platform})
	dept := func(v string) []map[string]any { return []map[string]any{{"key": "dept", "value": v}} }
	stable := func(name string) map[string]any { return map[string]any{"type": "StableName", "stable_name": name} }

	// Bank transactions: rent (north) in January, marketing (south) in
	// February, a sale (south) in March, each categorized as a one-entry
	// split carrying its tag.
	acct := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/custom-accounts", Token: platform, JSON: map[string]any{
		"account_name": "Operating", "institution_name": "E2E Bank", "account_type": "DEPOSITORY", "account_subtype": "CHECKING",
	}}).Data(t)["id"].(string)
	imported := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/custom-accounts/" + acct + "/transactions", Token: platform, JSON: map[string]any{
		"transactions": []map[string]any{
			{"external_id": "e2e-rep-rent", "amount": 20000, "direction": "DEBIT", "date": "2026-01-15", "description": "Rent January"},
			{"external_id": "e2e-rep-ads", "amount": 5000, "direction": "DEBIT", "date": "2026-02-10", "description": "Ads"},
			{"external_id": "e2e-rep-sale", "amount": 7000, "direction": "CREDIT", "date": "2026-03-05", "description": "Counter sale"},
		},
	}}).JSON(t)["data"].([]any)
	if len(imported) != 3 {
		t.Fatalf("imported %d transactions, want 3", len(imported))
	}
	for i, c := range []struct {
		category, dept string
		amount         int
	}{{"RENT", "north", 20000}, {"MARKETING", "south", 5000}, {"SALES", "south", 7000}} {
		id := imported[i].(map[string]any)["id"].(string)
		api.expect(t, http.StatusOK, request{Method: http.MethodPost, Path: base + "/bank-transactions/" + id + "/categorize", Token: platform, JSON: map[string]any{
			"type": "Split", "entries": []any{map[string]any{"category": stable(c.category), "amount": c.amount, "tags": dept(c.dept)}},
		}})
	}

	// Invoices: 300.00 (north) sent in January, paid half in February and
	// half in March; 120.00 + 12.00 tax (south) sent in February, paid in
	// full in March.
	cust := api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/customers", Token: platform, JSON: map[string]any{
		"external_id": "e2e-rep-cust", "company_name": "Initech",
	}}).Data(t)["id"].(string)
	invoice := func(ext, sentAt, d string, price int, tax int) string {
		line := map[string]any{"product": "Consulting", "unit_price": price, "quantity": "1"}
		if tax > 0 {
			line["sales_taxes"] = []map[string]any{{"tax_account": map[string]any{"type": "Tax_Name", "name": "STATE"}, "amount": tax}}
		}
		return api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/invoices", Token: platform, JSON: map[string]any{
			"external_id": ext, "sent_at": sentAt, "customer_id": cust, "tags": dept(d), "line_items": []map[string]any{line},
		}}).Data(t)["id"].(string)
	}
	i1 := invoice("e2e-rep-i1", "2026-01-20T10:00:00Z", "north", 30000, 0)
	i2 := invoice("e2e-rep-i2", "2026-02-05T10:00:00Z", "south", 12000, 1200)
	pay := func(inv string, amount int, at string) {
		api.expect(t, http.StatusCreated, request{Method: http.MethodPost, Path: base + "/invoices/" + inv + "/payment", Token: platform, JSON: map[string]any{
			"amount": amount, "method": "ACH", "paid_at": at,
		}})
	}
	pay(i1, 15000, "2026-02-12T15:00:00Z")
	pay(i2, 13200, "2026-03-10T15:00:00Z")
	pay(i1, 15000, "2026-03-20T15:00:00Z")

	// Hand-computed: accrual counts the invoices when sent, cash when paid
	// (the tax is not revenue); bank transactions count on their date in
	// both.
	want := map[string]map[string]pnlFigures{
		"ACCRUAL": {
			"1/north": {30000, 20000, 10000}, "1/south": {0, 0, 0},
			"2/north": {0, 0, 0}, "2/south": {12000, 5000, 7000},
			"3/north": {0, 0, 0}, "3/south": {7000, 0, 7000},
		},
		"CASH": {
			"1/north": {0, 20000, -20000}, "1/south": {0, 0, 0},
			"2/north": {15000, 0, 15000}, "2/south": {0, 5000, -5000},
			"3/north": {15000, 0, 15000}, "3/south": {19000, 0, 19000},
		},
	}
	body := func(basis string) map[string]any {
		return map[string]any{
			"periods": map[string]any{"type": "Comparison_Months", "months": []map[string]any{
				{"year": 2026, "month": 1}, {"year": 2026, "month": 2}, {"year": 2026, "month": 3}}},
			"tag_filters":     []map[string]any{{"required_tags": dept("north")}, {"required_tags": dept("south")}},
			"reporting_basis": basis,
		}
	}
	for _, basis := range []string{"ACCRUAL", "CASH"} {
		var got map[string]pnlFigures
		deadline := time.Now().Add(time.Minute)
		for {
			got = comparisonFigures(t, api.expect(t, http.StatusOK, request{Method: http.MethodPost,
				Path: base + "/reports/profit-and-loss-comparison", Token: platform, JSON: body(basis)}).JSON(t))
			if fmt.Sprint(got) == fmt.Sprint(want[basis]) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s comparison = %v, want %v", basis, got, want[basis])
			}
			time.Sleep(250 * time.Millisecond)
		}
		checkComparisonCSV(t, api, stack, platform, base, body(basis), got)
	}
}

// comparisonFigures reads a comparison answer as month/dept → figures.
func comparisonFigures(t *testing.T, doc map[string]any) map[string]pnlFigures {
	t.Helper()
	data, _ := doc["data"].(map[string]any)
	if data == nil || data["type"] != "Comparison_Pnl" {
		t.Fatalf("comparison data = %v", doc)
	}
	out := map[string]pnlFigures{}
	for _, p := range data["pnls"].([]any) {
		item := p.(map[string]any)
		period := item["period"].(map[string]any)
		filter := item["tag_filter"].(map[string]any)
		pnl := item["pnl"].(map[string]any)
		key := fmt.Sprintf("%v/%v", period["month"], filter["value"].([]any)[0])
		out[key] = pnlFigures{
			Income:   pnl["income"].(map[string]any)["value"].(float64),
			Expenses: pnl["expenses"].(map[string]any)["value"].(float64),
			Net:      pnl["net_profit"].(float64),
		}
	}
	return out
}

// checkComparisonCSV exports the comparison body asks for as a CSV in
// cents, downloads it through its signed URL and checks that its Income,
// Expenses and Net profit rows say what the JSON said (want: month/dept →
// figures), column by column.
func checkComparisonCSV(t *testing.T, api *apiClient, stack *Stack, token, base string, body map[string]any, want map[string]pnlFigures) {
	t.Helper()
	data := api.expect(t, http.StatusOK, request{Method: http.MethodPost, Token: token, JSON: body,
		Path: base + "/reports/profit-and-loss/exports/comparison-csv?money_format=CENTS_INTEGER"}).Data(t)
	if data["type"] != "Storage_Presigned_Url" || data["fileType"] != "csv" {
		t.Fatalf("comparison CSV export = %v", data)
	}
	rows := download(t, api, stack.DownloadURL(data["presignedUrl"].(string)))
	if len(rows) < 2 || rows[0][0] != "Line item" {
		t.Fatalf("CSV = %v", rows)
	}
	byName := map[string][]string{}
	for _, r := range rows[1:] {
		byName[r[0]] = r[1:]
	}
	checked := 0
	for col, label := range rows[0][1:] {
		// "2026-02 (dept=south)"
		var month int
		var dept string
		if _, err := fmt.Sscanf(label, "2026-%02d (dept=%s", &month, &dept); err != nil {
			t.Fatalf("column %q: %v", label, err)
		}
		f, ok := want[fmt.Sprintf("%d/%s", month, strings.TrimSuffix(dept, ")"))]
		if !ok {
			t.Fatalf("column %q is not in the comparison %v", label, want)
		}
		for name, v := range map[string]float64{"Income": f.Income, "Expenses": f.Expenses, "Net profit": f.Net} {
			cells, ok := byName[name]
			if !ok || col >= len(cells) {
				t.Fatalf("CSV has no %s cell for %q: %v", name, label, rows)
			}
			got, err := strconv.ParseInt(cells[col], 10, 64)
			if err != nil || float64(got) != v {
				t.Fatalf("CSV %s for %q = %q, the comparison says %v", name, label, cells[col], v)
			}
			checked++
		}
	}
	if checked != 3*len(want) {
		t.Fatalf("checked %d cells, want %d", checked, 3*len(want))
	}
}

// download GETs a signed URL (no token: the signature is the credential)
// and parses the CSV it serves.
func download(t *testing.T, api *apiClient, u string) [][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := api.http.Do(req)
	if err != nil {
		t.Fatalf("download %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("download %s: %d %v %s", u, resp.StatusCode, err, b)
	}
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatalf("download %s: not a CSV: %v\n%s", u, err, b)
	}
	return rows
}
