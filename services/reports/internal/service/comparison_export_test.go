package service

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/openapi/openapitest"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

func comparisonCSVPath(bid uuid.UUID, moneyFormat string) string {
	p := fmt.Sprintf("/v1/businesses/%s/reports/profit-and-loss/exports/comparison-csv", bid)
	if moneyFormat != "" {
		p += "?money_format=" + moneyFormat
	}
	return p
}

// download fetches a pre-signed URL as a client would: 200, downloading
// as fileName, of content type ct.
func download(t *testing.T, d presigned, ct string) []byte {
	t.Helper()
	resp, err := http.Get(d.PresignedURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Disposition"), d.FileName) ||
		resp.Header.Get("Content-Type") != ct {
		t.Fatalf("download: %d %v %.200q", resp.StatusCode, resp.Header, raw)
	}
	return raw
}

// presignedData decodes an export's 200 answer.
func presignedData(t *testing.T, code int, body []byte) presigned {
	t.Helper()
	if code != http.StatusOK {
		t.Fatalf("export: %d %s", code, body)
	}
	var out struct{ Data presigned }
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	d := out.Data
	if d.Type != "Storage_Presigned_Url" || d.DocumentID == uuid.Nil || d.CreatedAt.IsZero() || d.PresignedURL == "" {
		t.Fatalf("answer: %s", body)
	}
	return d
}

// comparisonCSV posts a comparison CSV export, validates the exchange,
// downloads the file and parses it.
func (e *env) comparisonCSV(token string, bid uuid.UUID, moneyFormat string, body any) (presigned, string, [][]string) {
	e.T.Helper()
	resp, raw := e.V.Do(e.T, e.HTTP, openapitest.Request(http.MethodPost, comparisonCSVPath(bid, moneyFormat), token, body))
	d := presignedData(e.T, resp.StatusCode, raw)
	if d.FileType != "csv" || !strings.HasPrefix(d.FileName, "profit_and_loss_comparison_") || !strings.HasSuffix(d.FileName, ".csv") ||
		d.DocumentType != "PROFIT_AND_LOSS_COMPARISON_CSV" {
		e.T.Fatalf("answer: %+v", d)
	}
	file := download(e.T, d, "text/csv")
	rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
	if err != nil {
		e.T.Fatalf("csv: %v\n%s", err, file)
	}
	return d, string(file), rows
}

// TestComparisonCSVExport: 3 months × 2 tag filters over the golden
// history (the comparison's golden test's figures) in both money
// formats, downloaded through the pre-signed URL and checked cell by
// cell against hand-computed figures; no filters and years.
func TestComparisonCSVExport(t *testing.T) {
	e := newStorageEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	var evts []events.Event
	for _, p := range comparisonHistory(bid) {
		evts = append(evts, event(t, p))
	}
	e.deliver(evts...)
	e.deliver(goldenTxEvents(t, bid)...)

	body := anyMap{
		"periods":         months(2026, 2, 2026, 3, 2026, 4),
		"tag_filters":     []anyMap{required("dept", "retail"), required("dept", "wholesale")},
		"reporting_basis": "ACCRUAL", "structure": "DEFAULT",
	}
	header := []string{"Line item", "2026-02 (dept=retail)", "2026-02 (dept=wholesale)", "2026-03 (dept=retail)",
		"2026-03 (dept=wholesale)", "2026-04 (dept=retail)", "2026-04 (dept=wholesale)"}
	// Figures in cents, per column: March retail is sales 10000 less the
	// discount 500, materials 3000; March wholesale a sale of 5000; April
	// retail a sale of 2500 and an uncategorized 40; April wholesale bank
	// fees 300. February is empty. The rent, taxes and April's untagged
	// lines match no filter.
	lines := []struct {
		name  string
		cents [6]int64
	}{
		{"Income", [6]int64{0, 0, 9500, 5000, 2500, 0}},
		{"  Returns and allowances", [6]int64{0, 0, -500, 0, 0, 0}},
		{"    Discounts", [6]int64{0, 0, -500, 0, 0, 0}},
		{"  Sales", [6]int64{0, 0, 10000, 5000, 2500, 0}},
		{"Cost of goods sold", [6]int64{0, 0, 3000, 0, 0, 0}},
		{"  Materials", [6]int64{0, 0, 3000, 0, 0, 0}},
		{"Gross profit", [6]int64{0, 0, 6500, 5000, 2500, 0}},
		{"Expenses", [6]int64{0, 0, 0, 0, 40, 300}},
		{"  Operating expenses", [6]int64{0, 0, 0, 0, 40, 300}},
		// April retail's tree comes first; the fees, only in the last
		// column, follow.
		{"    Uncategorized expenses", [6]int64{0, 0, 0, 0, 40, 0}},
		{"    Fees", [6]int64{0, 0, 0, 0, 0, 300}},
		{"      Bank fees", [6]int64{0, 0, 0, 0, 0, 300}},
		{"Profit before taxes", [6]int64{0, 0, 6500, 5000, 2460, -300}},
		{"Taxes", [6]int64{0, 0, 0, 0, 0, 0}},
		{"Net profit", [6]int64{0, 0, 6500, 5000, 2460, -300}},
	}
	dollars := map[int64]string{0: "0.00", 9500: "95.00", 5000: "50.00", 2500: "25.00", -500: "-5.00", 10000: "100.00",
		3000: "30.00", 6500: "65.00", 40: "0.40", 300: "3.00", 2460: "24.60", -300: "-3.00"}
	for _, c := range []struct {
		format string
		cell   func(int64) string
	}{
		{"", func(v int64) string { return dollars[v] }}, // the default
		{"DOLLAR_STRING", func(v int64) string { return dollars[v] }},
		{"CENTS_INTEGER", func(v int64) string { return fmt.Sprint(v) }},
	} {
		want := [][]string{header}
		for _, l := range lines {
			row := []string{l.name}
			for _, v := range l.cents {
				row = append(row, c.cell(v))
			}
			want = append(want, row)
		}
		d, _, rows := e.comparisonCSV(tok, bid, c.format, body)
		if !reflect.DeepEqual(rows, want) {
			t.Errorf("money_format %q:\n%q\nwant\n%q", c.format, rows, want)
		}
		if d.FileName != "profit_and_loss_comparison_2026-02-01_2026-04-30.csv" {
			t.Errorf("file name %q", d.FileName)
		}
	}

	// No tag filters, years: one column per year, no suffix; the file is
	// the comparison's figures.
	_, file, rows := e.comparisonCSV(tok, bid, "CENTS_INTEGER", anyMap{"periods": anyMap{"type": "Comparison_Years", "years": []anyMap{{"year": 2026}, {"year": 2025}}}})
	cmp := e.compare(tok, bid, anyMap{"periods": anyMap{"type": "Comparison_Years", "years": []anyMap{{"year": 2026}, {"year": 2025}}}}).Data.Pnls
	if !reflect.DeepEqual(rows[0], []string{"Line item", "2026", "2025"}) || rows[len(rows)-1][0] != "Net profit" ||
		rows[len(rows)-1][1] != fmt.Sprint(cmp[0].Pnl.NetProfit) || rows[len(rows)-1][2] != "0" || rows[1][1] != fmt.Sprint(cmp[0].Pnl.Income.Value) {
		t.Errorf("years:\n%s", file)
	}
	// Date ranges label their columns with both days.
	if _, _, rows := e.comparisonCSV(tok, bid, "", anyMap{"periods": anyMap{"type": "Comparison_Date_Ranges",
		"date_ranges": []anyMap{{"start_date": "2026-03-12", "end_date": "2026-03-13"}}},
		"tag_filters": []anyMap{required("dept", "retail", "proj", "x")}}); rows[0][1] != "2026-03-12..2026-03-13 (dept=retail, proj=x)" {
		t.Errorf("date range header %q", rows[0])
	}
}

// TestComparisonCSVExportErrors: a bad money_format and every body rule
// of the comparison are 400s naming the field; another client's business
// 404; no token 401; without storage 503.
func TestComparisonCSVExportErrors(t *testing.T) {
	e := newStorageEnv(t)
	bid := e.Svc.SeedBusiness(t, "client-a")
	tok := e.Svc.Tokens.Platform(t, "client-a")
	ok := anyMap{"periods": months(2026, 1)}
	for _, f := range []string{"dollar_string", "DOLLARS", "CENTS_INTEGER&money_format=CENTS_INTEGER", ""} {
		path := comparisonCSVPath(bid, f)
		if f == "" {
			path += "?money_format="
		}
		body := e.V.Expect(t, e.HTTP, openapitest.Request(http.MethodPost, path, tok, ok), http.StatusBadRequest)
		meta, _ := body["meta"].(map[string]any)
		fields, _ := meta["fields"].(map[string]any)
		if body["type"] != "InvalidParameters" || body["error_enum"] != domain.EnumInvalidMoneyFormat || fields["money_format"] == nil {
			t.Errorf("money_format %q: %v", f, body)
		}
	}
	ranges := func(s, e string) anyMap {
		return anyMap{"type": "Comparison_Date_Ranges", "date_ranges": []anyMap{{"start_date": s, "end_date": e}}}
	}
	many := func(n int) anyMap {
		var ym []int
		for i := range n {
			ym = append(ym, 2000+i/12, 1+i%12)
		}
		return months(ym...)
	}
	filters := make([]anyMap, 11)
	for i := range filters {
		filters[i] = required("dept", fmt.Sprint(i))
	}
	for _, c := range []struct {
		name     string
		body     any
		field    string
		enum     string
		document bool // the document allows the request
	}{
		{"month 13", anyMap{"periods": months(2026, 13)}, "periods.months[0].month", domain.EnumInvalidDateRange, true},
		{"year 0", anyMap{"periods": months(0, 1)}, "periods.months[0].year", domain.EnumInvalidDateRange, true},
		{"no periods", anyMap{}, "periods", domain.EnumInvalidPeriods, false},
		{"no periods type", anyMap{"periods": anyMap{"months": []anyMap{{"year": 2026, "month": 1}}}}, "periods.type", domain.EnumInvalidPeriods, false},
		{"unknown periods type", anyMap{"periods": anyMap{"type": "Comparison_Weeks"}}, "periods.type", domain.EnumInvalidPeriods, false},
		{"no months", anyMap{"periods": anyMap{"type": "Comparison_Months"}}, "periods.months", domain.EnumInvalidPeriods, true},
		{"years with the months type", anyMap{"periods": anyMap{"type": "Comparison_Months", "months": []anyMap{{"year": 2026, "month": 1}},
			"years": []anyMap{{"year": 2026}}}}, "periods.years", domain.EnumInvalidPeriods, true},
		{"end before start", anyMap{"periods": ranges("2026-03-31", "2026-03-01")}, "periods.date_ranges[0].end_date", domain.EnumInvalidDateRange, true},
		{"bad date", anyMap{"periods": ranges("2026-3-01", "2026-03-31")}, "periods.date_ranges[0].start_date", domain.EnumInvalidDateRange, true},
		{"37 periods", anyMap{"periods": many(37)}, "periods.months", domain.EnumInvalidPeriods, true},
		{"11 tag filters", anyMap{"periods": months(2026, 1), "tag_filters": filters}, "tag_filters", domain.EnumInvalidTagFilter, true},
		{"empty required_tags", anyMap{"periods": months(2026, 1), "tag_filters": []anyMap{{"required_tags": []anyMap{}}}},
			"tag_filters[0].required_tags", domain.EnumInvalidTagFilter, true},
		{"bad tag key", anyMap{"periods": months(2026, 1), "tag_filters": []anyMap{required("  ", "retail")}},
			"tag_filters[0].required_tags[0].key", tags.EnumInvalidTags, true},
		{"unknown basis", anyMap{"periods": months(2026, 1), "reporting_basis": "MODIFIED_CASH"}, "reporting_basis", domain.EnumUnsupportedReportingBasis, false},
		{"unknown structure", anyMap{"periods": months(2026, 1), "structure": "BAKERY"}, "structure", domain.EnumUnsupportedStructure, false},
		{"unknown property", anyMap{"periods": months(2026, 1), "include_uncategorized": true}, "include_uncategorized", "", false},
		{"month as a string", anyMap{"periods": anyMap{"type": "Comparison_Months", "months": []anyMap{{"year": 2026, "month": "1"}}}},
			"periods.months.month", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := openapitest.Request(http.MethodPost, comparisonCSVPath(bid, "CENTS_INTEGER"), tok, c.body)
			var body map[string]any
			if c.document {
				body = e.V.Expect(t, e.HTTP, req, http.StatusBadRequest)
			} else {
				body = e.V.ExpectError(t, e.HTTP, req, http.StatusBadRequest)
			}
			meta, _ := body["meta"].(map[string]any)
			fields, _ := meta["fields"].(map[string]any)
			if body["type"] != "InvalidPayload" || fields[c.field] == nil || c.enum != "" && body["error_enum"] != c.enum {
				t.Fatalf("error %v, want enum %q on %s", body, c.enum, c.field)
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		req := openapitest.Request(http.MethodPost, comparisonCSVPath(bid, ""), tok, "{")
		if body := e.V.ExpectError(t, e.HTTP, req, http.StatusBadRequest); body["type"] != "InvalidPayload" {
			t.Fatalf("%v", body)
		}
	})

	other := e.Svc.SeedBusiness(t, "client-b")
	for _, c := range []struct {
		name  string
		token string
		bid   uuid.UUID
		want  int
	}{
		{"other client's business", tok, other, http.StatusNotFound},
		{"business token of another business", e.Svc.Tokens.Business(t, "client-a", other), bid, http.StatusNotFound},
		{"unknown business", tok, uuid.New(), http.StatusNotFound},
		{"no token", "", bid, http.StatusUnauthorized},
	} {
		resp, raw := e.V.Do(t, e.HTTP, openapitest.Request(http.MethodPost, comparisonCSVPath(c.bid, ""), c.token, ok))
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, resp.StatusCode, c.want, raw)
		}
	}

	off := newEnv(t)
	obid := off.Svc.SeedBusiness(t, "client-a")
	resp, raw := off.V.Do(t, off.HTTP, openapitest.Request(http.MethodPost, comparisonCSVPath(obid, ""), off.Svc.Tokens.Platform(t, "client-a"), ok))
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(raw), "export storage is not configured") {
		t.Fatalf("without storage: %d %s", resp.StatusCode, raw)
	}
}
