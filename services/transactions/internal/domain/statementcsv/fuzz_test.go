package statementcsv

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the statement parser: it never
// panics, a refusal is a *FileError with a message, and an accepted file
// keeps its bounds (the window's size and numbering, the counts, positive
// amounts of valid rows, unique external ids within the window).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"Date,Description,Amount\n01/05/2026,Coffee,-4.50\n01/06/2026,Pay,\"1,250.00\"\n",
		"\uFEFFDate;Description;Debit;Credit\n02.03.2026;Miete;1.200,00;\n",
		"Posted Date\tPayee\tWithdrawal\tDeposit\n2026-04-01\tACME\t10.00\t\n",
		"Transaction Date,Description,Amount,Type\n\"Jan 2, 2026\",\"a\nb\",12.00,DR\n",
		"Date,Description,Amount\n25/01/2026,x,1\n01/13/2026,y,1\n",
		"External ID,Date,Description,Amount\nid,2026-01-01,x,1\nid,2026-01-01,x,1\n",
		"Date,Description,Amount\n\"unterminated,1\n",
		"", "\n\n", "Date", "date,amount,memo\n,,\n",
	} {
		f.Add([]byte(s), 0, 0)
	}
	f.Add([]byte("Date,Description,Amount\n2026-01-01,a,1\n2026-01-02,b,2\n2026-01-03,c,3\n"), 1, 1)
	f.Fuzz(func(t *testing.T, in []byte, offset, limit int) {
		p, err := Parse(strings.NewReader(string(in)), Options{AccountKey: "k", Offset: offset % 5, Limit: limit % 5})
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.Msg == "" {
				t.Fatalf("error %v is not a FileError", err)
			}
			return
		}
		if len(p.Rows) > p.Limit || p.Invalid > p.Total || p.Total == 0 {
			t.Fatalf("rows %d limit %d invalid %d total %d", len(p.Rows), p.Limit, p.Invalid, p.Total)
		}
		ids := map[string]bool{}
		for i, r := range p.Rows {
			if r.Row != p.Offset+i+1 {
				t.Fatalf("row %d numbered %d", i, r.Row)
			}
			if !r.Valid() {
				continue
			}
			if r.Amount() <= 0 || !r.DateOK || r.Description == "" || r.ExternalID == "" {
				t.Fatalf("valid row %+v", r)
			}
			if r.RawExternalID == "" && ids[r.ExternalID] {
				t.Fatalf("generated id %s repeated", r.ExternalID)
			}
			ids[r.ExternalID] = true
		}
	})
}
