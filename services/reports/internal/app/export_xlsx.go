package app

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// XLSXContentType is the media type of the XLSX exports.
const XLSXContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// EnumTooManyRows is the error enum of an XLSX export past a sheet's rows.
const EnumTooManyRows = "TooManyRows"

// xlsxMaxRows is how many rows a sheet holds (the header included); a
// variable so that a test can lower it.
var xlsxMaxRows = excelize.TotalRows

// Formats of the XLSX cells: ISO dates and dollar amounts (two decimals).
var (
	xlsxDateFormat  = "yyyy-mm-dd"
	xlsxMoneyFormat = `"$"#,##0.00`
)

// TransactionsXLSXSheet is the name of the XLSX export's sheet.
const TransactionsXLSXSheet = "Transactions"

// TransactionsXLSX writes the bank transactions of business bid that the
// query parameters select (the CSV export's rows, filters, defaults and
// 400s) as an XLSX workbook to storage and returns its download. The
// columns are the CSV's; Date is a date cell, Amount a number cell in
// dollars with a currency format, every text a string cell (never a
// formula).
//
// Memory: rows go from the database cursor into excelize's StreamWriter,
// which keeps at most StreamChunkSize (16 MiB) of sheet XML in memory and
// spills the rest to a temporary file; the workbook is then zipped
// straight into the pipe that storage's Put reads (a zip writer on the
// pipe instead of excelize's whole-file buffer), so what is in memory is
// bounded whatever the number of rows; the temporary file on disk grows
// with the sheet (about 300 bytes a row) and is removed at the end.
func (x *Exports) TransactionsXLSX(ctx context.Context, bid uuid.UUID, params url.Values) (Download, error) {
	q, f, err := x.transactionsQuery(ctx, bid, params, "xlsx")
	if err != nil {
		return Download{}, err
	}
	return x.serve(ctx, f, func(ctx context.Context, key string) error {
		return x.put(ctx, key, XLSXContentType, func(w io.Writer) error { return x.writeTransactionsXLSX(ctx, w, bid, q) })
	})
}

// writeTransactionsXLSX writes the workbook of the transactions q selects.
func (x *Exports) writeTransactionsXLSX(ctx context.Context, w io.Writer, bid uuid.UUID, q domain.ExportQuery) (err error) {
	f, st, err := newWorkbook(TransactionsXLSXSheet)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close workbook: %w", cerr)
		}
	}()
	sw, err := f.NewStreamWriter(TransactionsXLSXSheet)
	if err != nil {
		return err
	}
	header, date, amount := st.bold, st.date, st.money
	for i, width := range []float64{12, 40, 24, 20, 10, 14, 24, 20, 24, 30, 18} {
		if err := sw.SetColWidth(i+1, i+1, width); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	cells := make([]any, len(domain.ExportHeader))
	for i, h := range domain.ExportHeader {
		cells[i] = excelize.Cell{StyleID: header, Value: h}
	}
	if err := sw.SetRow("A1", cells); err != nil {
		return err
	}
	row := 1
	err = x.snapshot.Do(ctx, func(ctx context.Context) error {
		return x.store.StreamBankTransactions(ctx, bid, q, func(r domain.ExportRow) error {
			row++
			if row > xlsxMaxRows {
				return apperr.FieldErrors(apperr.InvalidParameters, map[string]string{
					"end_date": fmt.Sprintf("an XLSX sheet holds at most %d transactions: narrow the dates or use the CSV export", xlsxMaxRows-1),
				}).WithEnum(EnumTooManyRows)
			}
			if err := xlsxCells(cells, r, date, amount); err != nil {
				return err
			}
			ref, err := excelize.CoordinatesToCellName(1, row)
			if err != nil {
				return err
			}
			return sw.SetRow(ref, cells)
		})
	})
	if err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	// excelize's Write zips the workbook into a buffer of the whole file:
	// its zip writer goes to w instead, and the (empty) buffer to Discard.
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zip.NewWriter(w) })
	return f.Write(io.Discard)
}

// xlsxCells fills cells with r in ExportHeader's order: a date, string
// cells (nil: empty) and the amount in dollars.
func xlsxCells(cells []any, r domain.ExportRow, date, amount int) error {
	day, err := time.Parse(domain.DateLayout, r.Day)
	if err != nil {
		return fmt.Errorf("bank transaction date %q: %w", r.Day, err)
	}
	str := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	cells[0] = excelize.Cell{StyleID: date, Value: day}
	cells[1], cells[2], cells[3], cells[4] = str(r.Description), str(r.Counterparty), str(r.Account), str(r.Direction)
	cells[5] = excelize.Cell{StyleID: amount, Value: domain.Dollars(r.Amount)}
	cells[6], cells[7], cells[8], cells[9], cells[10] = str(r.Category), str(r.Status), str(r.Tags), str(r.Memo), str(r.ReferenceNumber)
	return nil
}

// xlsxStyles are the styles the exports' workbooks share.
type xlsxStyles struct {
	bold, date, money, boldMoney int
}

// newWorkbook is a workbook whose one sheet is named sheet, with the
// exports' styles: bold, ISO dates, dollars, bold dollars.
func newWorkbook(sheet string) (*excelize.File, xlsxStyles, error) {
	f := excelize.NewFile()
	var st xlsxStyles
	err := f.SetSheetName(f.GetSheetName(0), sheet)
	for _, s := range []struct {
		id    *int
		style excelize.Style
	}{
		{&st.bold, excelize.Style{Font: &excelize.Font{Bold: true}}},
		{&st.date, excelize.Style{CustomNumFmt: &xlsxDateFormat}},
		{&st.money, excelize.Style{CustomNumFmt: &xlsxMoneyFormat}},
		{&st.boldMoney, excelize.Style{Font: &excelize.Font{Bold: true}, CustomNumFmt: &xlsxMoneyFormat}},
	} {
		if err == nil {
			*s.id, err = f.NewStyle(&s.style)
		}
	}
	if err != nil {
		f.Close()
		return nil, st, err
	}
	return f, st, nil
}
