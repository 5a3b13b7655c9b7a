package statementcsv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

type want struct {
	date   string
	desc   string
	signed int64
	ref    string
	errs   string // substring of the joined errors; "" for a valid row
}

func TestParseLayouts(t *testing.T) {
	tests := []struct {
		name, csv, delim, layout, format string
		rows                             []want
	}{
		{
			name:  "signed amount, US dates",
			csv:   "Date,Description,Amount,Reference\n01/05/2026,Coffee shop,-4.50,R1\n01/06/2026,Client payment,\"1,250.00\",\n",
			delim: ",", layout: LayoutSigned, format: "MM/DD/YYYY",
			rows: []want{{"2026-01-05", "Coffee shop", -450, "R1", ""}, {"2026-01-06", "Client payment", 125000, "", ""}},
		},
		{
			name:  "day first because a first field is above 12",
			csv:   "Date,Description,Amount\n05/01/2026,A,-1\n25/01/2026,B,2.5\n",
			delim: ",", layout: LayoutSigned, format: "DD/MM/YYYY",
			rows: []want{{"2026-01-05", "A", -100, "", ""}, {"2026-01-25", "B", 250, "", ""}},
		},
		{
			name:  "debit and credit columns, semicolon, decimal comma, dotted dates, BOM",
			csv:   "\uFEFFDate;Description;Debit;Credit;Balance\n02.03.2026;Miete;1.200,00;;5.000,00\n03.03.2026;Gehalt;;3.000,50;8.000,50\n",
			delim: ";", layout: LayoutDebitCredit, format: "DD.MM.YYYY",
			rows: []want{{"2026-03-02", "Miete", -120000, "", ""}, {"2026-03-03", "Gehalt", 300050, "", ""}},
		},
		{
			name:  "withdrawal and deposit, tab, ISO dates, payee as description",
			csv:   "Posted Date\tPayee\tMemo\tWithdrawal\tDeposit\n2026-04-01\tACME\tinv 7\t10.00\t\n2026-04-02\tBank\t\t\t0.37\n",
			delim: "\t", layout: LayoutDebitCredit, format: "YYYY-MM-DD",
			rows: []want{{"2026-04-01", "ACME", -1000, "", ""}, {"2026-04-02", "Bank", 37, "", ""}},
		},
		{
			name:  "amount with a type column, named dates, quoted newline",
			csv:   "Transaction Date,Description,Amount,Type\n\"Jan 2, 2026\",\"Two\nlines\",12.00,DR\n\"Feb 10, 2026\",Refund,3,CR\n",
			delim: ",", layout: LayoutAmountType, format: "MMM D, YYYY",
			rows: []want{{"2026-01-02", "Two\nlines", -1200, "", ""}, {"2026-02-10", "Refund", 300, "", ""}},
		},
		{
			name:  "per-row errors",
			csv:   "Date,Description,Amount\n2026-13-01,Bad date,1\n2026-01-01,,1\n2026-01-02,Zero,0\n2026-01-03,Text,abc\n2026-01-04,Precise,1.234\n2026-01-05,Good,(7.25)\n",
			delim: ",", layout: LayoutSigned, format: "YYYY-MM-DD",
			rows: []want{
				{"", "Bad date", 100, "", "is not a date"}, {"", "", 100, "", "description is empty"},
				{"", "Zero", 0, "", "amount is zero"}, {"", "Text", 0, "", "is not an amount"},
				{"", "Precise", 0, "", "more than 2 decimal places"}, {"2026-01-05", "Good", -725, "", ""},
			},
		},
		{
			name:  "both orders in one file: month first, the others invalid",
			csv:   "Date,Description,Amount\n13/01/2026,A,1\n01/13/2026,B,1\n",
			delim: ",", layout: LayoutSigned, format: "MM/DD/YYYY",
			rows: []want{{"", "A", 100, "", "like the rest of the file"}, {"2026-01-13", "B", 100, "", ""}},
		},
		{
			name:  "debit and credit both set",
			csv:   "Date,Description,Debit,Credit\n2026-01-01,X,1,2\n2026-01-01,Y,,\n",
			delim: ",", layout: LayoutDebitCredit, format: "YYYY-MM-DD",
			rows: []want{{"", "X", 0, "", "both a debit and a credit"}, {"", "Y", 0, "", "has no amount"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(tt.csv), Options{AccountKey: "acct"})
			if err != nil {
				t.Fatal(err)
			}
			if p.Delimiter != tt.delim || p.Layout != tt.layout || p.DateFormat != tt.format {
				t.Fatalf("delimiter %q layout %s format %q, want %q %s %q", p.Delimiter, p.Layout, p.DateFormat, tt.delim, tt.layout, tt.format)
			}
			if len(p.Rows) != len(tt.rows) || p.Total != len(tt.rows) {
				t.Fatalf("%d rows (total %d), want %d", len(p.Rows), p.Total, len(tt.rows))
			}
			invalid := 0
			for i, w := range tt.rows {
				r := p.Rows[i]
				if r.Row != i+1 {
					t.Errorf("row %d numbered %d", i, r.Row)
				}
				errs := strings.Join(r.Errors, "; ")
				if w.errs != "" {
					invalid++
					if !strings.Contains(errs, w.errs) {
						t.Errorf("row %d errors %q, want %q", i+1, errs, w.errs)
					}
					continue
				}
				if errs != "" {
					t.Errorf("row %d: unexpected errors %q", i+1, errs)
					continue
				}
				if got := r.Date.Format(time.DateOnly); got != w.date || r.Description != w.desc || r.Signed != w.signed || r.Reference != w.ref {
					t.Errorf("row %d = %s %q %d %q, want %s %q %d %q", i+1, got, r.Description, r.Signed, r.Reference, w.date, w.desc, w.signed, w.ref)
				}
				if !strings.HasPrefix(r.ExternalID, "csv-") || len(r.ExternalID) != 36 {
					t.Errorf("row %d external id %q", i+1, r.ExternalID)
				}
				if (r.Signed < 0) != (r.Direction() == Debit) || r.Amount() <= 0 {
					t.Errorf("row %d direction %s amount %d", i+1, r.Direction(), r.Amount())
				}
			}
			if p.Invalid != invalid || p.Valid() != (invalid == 0) {
				t.Errorf("invalid %d valid %v, want %d", p.Invalid, p.Valid(), invalid)
			}
		})
	}
}

func TestParseFileErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":          "",
		"header only":    "Date,Description,Amount\n",
		"no date":        "When,Description,Amount\nx,y,1\n",
		"no amount":      "Date,Description,Balance\n2026-01-01,x,1\n",
		"no description": "Date,Amount\n2026-01-01,1\n",
		"lone debit":     "Date,Description,Debit\n2026-01-01,x,1\n",
		"long line":      "Date,Description,Amount\n2026-01-01," + strings.Repeat("x", MaxRecordBytes+10) + ",1\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(in), Options{})
			var fe *FileError
			if !errors.As(err, &fe) || fe.Msg == "" {
				t.Fatalf("err = %v, want a FileError", err)
			}
		})
	}
}

// External ids are stable across uploads, distinct for identical rows (by
// their occurrence), per account, and the CSV's own when it has an id
// column.
func TestExternalIDs(t *testing.T) {
	in := "Date,Description,Amount\n2026-01-01,Fee,-1\n2026-01-01,Fee,-1\n2026-01-02,Fee,-1\n"
	a1, _ := Parse(strings.NewReader(in), Options{AccountKey: "a"})
	a2, _ := Parse(strings.NewReader(in), Options{AccountKey: "a"})
	b, _ := Parse(strings.NewReader(in), Options{AccountKey: "b"})
	seen := map[string]bool{}
	for i := range a1.Rows {
		if a1.Rows[i].ExternalID != a2.Rows[i].ExternalID {
			t.Fatalf("row %d: ids differ between uploads", i+1)
		}
		if a1.Rows[i].ExternalID == b.Rows[i].ExternalID {
			t.Fatalf("row %d: same id in two accounts", i+1)
		}
		if seen[a1.Rows[i].ExternalID] {
			t.Fatalf("row %d: id repeated", i+1)
		}
		seen[a1.Rows[i].ExternalID] = true
	}
	// The window does not change a row's id.
	w, _ := Parse(strings.NewReader(in), Options{AccountKey: "a", Offset: 1, Limit: 1})
	if len(w.Rows) != 1 || w.Rows[0].ExternalID != a1.Rows[1].ExternalID || !w.HasMore || w.NextOffset != 2 || w.Total != 3 {
		t.Fatalf("window = %+v", w)
	}
	own, _ := Parse(strings.NewReader("External ID,Date,Description,Amount\ntxn-1,2026-01-01,Fee,-1\n"), Options{AccountKey: "a"})
	if own.Rows[0].ExternalID != "txn-1" {
		t.Fatalf("id %q, want the CSV's", own.Rows[0].ExternalID)
	}
}

func TestParseAmountCell(t *testing.T) {
	for in, want := range map[string]int64{
		"1": 100, "-1": -100, "1.5": 150, "$1,234.56": 123456, "(12.30)": -1230, "12.30-": -1230, "12,30": 1230,
		"1.234,56": 123456, "1 234,56": 123456, "USD 5": 500, "5.00 DR": -500, "5.00 CR": 500, "+3": 300, "1,000": 100000,
		"€ -2,50": -250, "0.10": 10,
	} {
		got, ok, reason := parseAmountCell(in)
		if !ok || reason != "" || got != want {
			t.Errorf("parseAmountCell(%q) = %d %v %q, want %d", in, got, ok, reason, want)
		}
	}
	for _, in := range []string{"abc", "1.2.3", "1.005", "99999999999999999999", "--", "1a"} {
		if _, ok, reason := parseAmountCell(in); ok && reason == "" {
			t.Errorf("parseAmountCell(%q) accepted", in)
		}
	}
}

// generated is a statement of n rows produced on demand: nothing holds it
// whole.
type generated struct {
	n, i int
	buf  bytes.Buffer
}

func (g *generated) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.i <= g.n {
		if g.i == 0 {
			g.buf.WriteString("Date,Description,Amount,Reference\n")
		} else {
			fmt.Fprintf(&g.buf, "%02d/%02d/2026,Card purchase at store number %d,-%d.%02d,REF%08d\n", g.i%12+1, g.i%28+1, g.i%97, g.i%5000+1, g.i%100, g.i)
		}
		g.i++
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	return g.buf.Read(p)
}

// A 50 MB statement streams through Parse in bounded memory: only the
// window's rows are kept.
func TestParseLargeStream(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const rows = 700_000 // about 50 MB
	g := &generated{n: rows}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := Parse(io.LimitReader(g, 64<<20), Options{AccountKey: "big", Offset: 1000})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if p.Total != rows || p.Invalid != 0 || len(p.Rows) != DefaultLimit || p.Rows[0].Row != 1001 || !p.HasMore || p.NextOffset != 2000 {
		t.Fatalf("total %d invalid %d rows %d first %d more %v next %d", p.Total, p.Invalid, len(p.Rows), p.Rows[0].Row, p.HasMore, p.NextOffset)
	}
	if after.HeapInuse > before.HeapInuse+32<<20 {
		t.Fatalf("heap grew by %d MB reading the stream", (after.HeapInuse-before.HeapInuse)>>20)
	}
}
