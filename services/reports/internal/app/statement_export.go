package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/acctsuite/acct/pkg/csvexport"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// Statements computes the statements an export writes (Reports): the
// export answers from the same code as the statement.
type Statements interface {
	BalanceSheet(ctx context.Context, bid uuid.UUID, q domain.BalanceQuery) (BalanceSheetReport, error)
	CashFlow(ctx context.Context, bid uuid.UUID, q domain.PeriodQuery) (CashFlowReport, error)
	ProfitAndLoss(ctx context.Context, bid uuid.UUID, q domain.PnLQuery) (Report, error)
	PnLLines(ctx context.Context, bid uuid.UUID, q domain.PnLLinesQuery) (PnLLinesReport, error)
}

// PnLXLSX writes profit and loss q of business bid to storage as an XLSX
// workbook (the report's figures, the same code as its answer) and
// returns its download.
func (x *Exports) PnLXLSX(ctx context.Context, bid uuid.UUID, q domain.PnLQuery) (Download, error) {
	f, err := x.statementFile(ctx, bid, "pnl", "xlsx", q)
	if err != nil {
		return Download{}, err
	}
	f.name = fmt.Sprintf("profit_and_loss_%s_%s_%s.xlsx", q.Start.Format(domain.DateLayout), q.End.Format(domain.DateLayout), f.version.basis(q.Basis))
	return x.serve(ctx, f, func(ctx context.Context, key string) error {
		r, err := x.statements.ProfitAndLoss(ctx, bid, q)
		if err != nil {
			return err
		}
		return x.storeStatement(ctx, key, "xlsx", "Profit and loss", domain.PnLRows(r.PnL))
	})
}

// PnLLinesXLSX writes drill-down q of business bid to storage as an XLSX
// workbook (a row per line: date, account, direction, amount in dollars,
// entry, source, tags; then the line item's total) and returns its
// download.
func (x *Exports) PnLLinesXLSX(ctx context.Context, bid uuid.UUID, q domain.PnLLinesQuery) (Download, error) {
	f, err := x.statementFile(ctx, bid, "pnl-lines", "xlsx", q)
	if err != nil {
		return Download{}, err
	}
	f.name = fmt.Sprintf("profit_and_loss_lines_%s_%s_%s.xlsx", q.Start.Format(domain.DateLayout), q.End.Format(domain.DateLayout), f.version.basis(q.Basis))
	return x.serve(ctx, f, func(ctx context.Context, key string) error {
		r, err := x.statements.PnLLines(ctx, bid, q)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := detailXLSX(&buf, r); err != nil {
			return fmt.Errorf("write drill-down xlsx: %w", err)
		}
		return x.putBytes(ctx, key, XLSXContentType, &buf)
	})
}

// detailXLSX writes drill-down r as a workbook of one sheet "Lines".
func detailXLSX(w *bytes.Buffer, r PnLLinesReport) (err error) {
	const sheet = "Lines"
	f, st, err := newWorkbook(sheet)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	bold, date, amount := st.bold, st.date, st.money
	header := make([]any, len(domain.DetailHeader))
	for i, h := range domain.DetailHeader {
		header[i] = excelize.Cell{StyleID: bold, Value: h}
	}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	for i, l := range r.Lines {
		dir, cents := "DEBIT", l.Amount
		if cents < 0 {
			dir, cents = "CREDIT", -cents
		}
		tags := make([]string, len(l.Tags))
		for k, t := range l.Tags {
			tags[k] = t.Key + ":" + t.Value
		}
		// Texts as inline strings, never formulas.
		row := []any{excelize.Cell{StyleID: date, Value: l.Day}, l.Account.Name, dir, excelize.Cell{StyleID: amount, Value: float64(cents) / 100},
			l.EntryID, l.SourceType + " " + l.SourceID, strings.Join(tags, ", ")}
		ref, err := excelize.CoordinatesToCellName(1, i+2)
		if err != nil {
			return err
		}
		if err := sw.SetRow(ref, row); err != nil {
			return err
		}
	}
	ref, err := excelize.CoordinatesToCellName(1, len(r.Lines)+2)
	if err != nil {
		return err
	}
	if err := sw.SetRow(ref, []any{excelize.Cell{StyleID: bold, Value: "Total: " + r.Query.LineItemName}, nil, nil,
		excelize.Cell{StyleID: amount, Value: float64(r.Value) / 100}}); err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	_, err = f.WriteTo(w)
	return err
}

// BalanceSheetCSV writes balance sheet q of business bid to storage as
// CSV and returns its download.
func (x *Exports) BalanceSheetCSV(ctx context.Context, bid uuid.UUID, q domain.BalanceQuery) (Download, error) {
	return x.balanceSheet(ctx, bid, q, "csv")
}

// BalanceSheetXLSX writes balance sheet q of business bid to storage as
// an XLSX workbook and returns its download.
func (x *Exports) BalanceSheetXLSX(ctx context.Context, bid uuid.UUID, q domain.BalanceQuery) (Download, error) {
	return x.balanceSheet(ctx, bid, q, "xlsx")
}

// balanceSheet writes balance sheet q as a file of type ext.
func (x *Exports) balanceSheet(ctx context.Context, bid uuid.UUID, q domain.BalanceQuery, ext string) (Download, error) {
	f, err := x.statementFile(ctx, bid, "balance-sheet", ext, q)
	if err != nil {
		return Download{}, err
	}
	f.name = fmt.Sprintf("balance_sheet_%s_%s.%s", q.Date.Format(domain.DateLayout), f.version.basis(q.Basis), ext)
	return x.serve(ctx, f, func(ctx context.Context, key string) error {
		r, err := x.statements.BalanceSheet(ctx, bid, q)
		if err != nil {
			return err
		}
		return x.storeStatement(ctx, key, ext, "Balance sheet", domain.BalanceSheetRows(r.Sheet))
	})
}

// CashFlowCSV writes statement of cash flows q of business bid to storage
// as CSV and returns its download.
func (x *Exports) CashFlowCSV(ctx context.Context, bid uuid.UUID, q domain.PeriodQuery) (Download, error) {
	f, err := x.statementFile(ctx, bid, "cashflow", "csv", q)
	if err != nil {
		return Download{}, err
	}
	f.name = fmt.Sprintf("cashflow_statement_%s_%s_%s.csv", q.Start.Format(domain.DateLayout), q.End.Format(domain.DateLayout), f.version.basis(q.Basis))
	return x.serve(ctx, f, func(ctx context.Context, key string) error {
		r, err := x.statements.CashFlow(ctx, bid, q)
		if err != nil {
			return err
		}
		return x.storeStatement(ctx, key, "csv", "Cash flows", domain.CashFlowRows(r.CashFlow))
	})
}

// storeStatement renders rows (a statement: small) in memory as CSV or as
// an XLSX sheet named sheet and stores it under key.
func (x *Exports) storeStatement(ctx context.Context, key, ext, sheet string, rows []domain.StatementRow) error {
	var buf bytes.Buffer
	contentType := "text/csv"
	if ext == "xlsx" {
		contentType = XLSXContentType
		if err := statementXLSX(&buf, sheet, rows); err != nil {
			return fmt.Errorf("write %s xlsx: %w", sheet, err)
		}
	} else if err := csvexport.NewWriter(&buf).WriteAll(domain.StatementCSV(rows)); err != nil {
		return fmt.Errorf("write %s csv: %w", sheet, err)
	}
	return x.putBytes(ctx, key, contentType, &buf)
}

// statementXLSX writes rows as a workbook of one sheet: the header, then
// each line's label (indented by its depth; the totals bold) and its
// amount as a number of dollars with a currency format.
func statementXLSX(w *bytes.Buffer, sheet string, rows []domain.StatementRow) (err error) {
	f, st, err := newWorkbook(sheet)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	bold, money, boldMoney := st.bold, st.money, st.boldMoney
	indents := map[int]int{}
	indent := func(depth int, isBold bool) (int, error) {
		key := depth*2 + map[bool]int{false: 0, true: 1}[isBold]
		if id, ok := indents[key]; ok {
			return id, nil
		}
		id, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: isBold}, Alignment: &excelize.Alignment{Indent: depth}})
		indents[key] = id
		return id, err
	}
	if err := f.SetColWidth(sheet, "A", "A", 48); err != nil {
		return err
	}
	if err := f.SetColWidth(sheet, "B", "B", 18); err != nil {
		return err
	}
	if err := f.SetSheetRow(sheet, "A1", &[]any{domain.StatementHeader[0], domain.StatementHeader[1]}); err != nil {
		return err
	}
	if err := f.SetCellStyle(sheet, "A1", "B1", bold); err != nil {
		return err
	}
	for i, r := range rows {
		n := i + 2
		a, b := fmt.Sprintf("A%d", n), fmt.Sprintf("B%d", n)
		// A string cell, never a formula, whatever the account's name.
		if err := f.SetCellStr(sheet, a, r.Label); err != nil {
			return err
		}
		if err := f.SetCellValue(sheet, b, float64(r.Amount)/100); err != nil {
			return err
		}
		style, err := indent(r.Depth, r.Total || r.Depth == 0)
		if err != nil {
			return err
		}
		if err := f.SetCellStyle(sheet, a, a, style); err != nil {
			return err
		}
		ms := money
		if r.Total || r.Depth == 0 {
			ms = boldMoney
		}
		if err := f.SetCellStyle(sheet, b, b, ms); err != nil {
			return err
		}
	}
	_, err = f.WriteTo(w)
	return err
}
