package app

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// The unified reports: the real client's one generic table (see
// domain.UnifiedReport). Each report of this service is an entry of
// unifiedReports by its report_route; GET /reports/config lists them and
// one spreadsheet export serves them all.

// UnifiedResult is a unified report with its config (which report it is)
// and a label of its query for file names (its effective date...).
type UnifiedResult struct {
	Config domain.ReportConfig
	Report domain.UnifiedReport
	Label  string
}

// UnifiedPlan is a unified report asked for, its query checked (its 400s)
// and normalised, with what names its file, before it is built: an export
// whose file is already stored needs no more.
type UnifiedPlan struct {
	Config domain.ReportConfig
	Label  string
	// Query is the normalised query (its defaults resolved): with the
	// route, what selects the report.
	Query any
	build func(ctx context.Context) (domain.UnifiedReport, error)
}

// Result builds the planned report.
func (p UnifiedPlan) Result(ctx context.Context) (UnifiedResult, error) {
	rep, err := p.build(ctx)
	if err != nil {
		return UnifiedResult{}, err
	}
	return UnifiedResult{Config: p.Config, Report: rep, Label: p.Label}, nil
}

// unifiedPlanner plans a unified report of business bid from the
// request's query (its 400s first).
type unifiedPlanner func(r *Reports, ctx context.Context, bid uuid.UUID, q url.Values) (UnifiedPlan, error)

// unifiedReports are the unified reports served, by report_route.
var unifiedReports = map[string]unifiedPlanner{
	domain.AgingAR.Route: func(r *Reports, _ context.Context, bid uuid.UUID, q url.Values) (UnifiedPlan, error) {
		return r.planAging(bid, domain.AgingAR, q)
	},
	domain.AgingAP.Route: func(r *Reports, _ context.Context, bid uuid.UUID, q url.Values) (UnifiedPlan, error) {
		return r.planAging(bid, domain.AgingAP, q)
	},
}

// EnumUnknownReport is the error enum of a report route this service does
// not serve.
const EnumUnknownReport = "UnknownReport"

// Unified is the unified report at route of business bid for query q:
// 404 for a route this service does not serve.
func (r *Reports) Unified(ctx context.Context, bid uuid.UUID, route string, q url.Values) (UnifiedResult, error) {
	p, err := r.PlanUnified(ctx, bid, route, q)
	if err != nil {
		return UnifiedResult{}, err
	}
	return p.Result(ctx)
}

// PlanUnified is Unified's plan: 404 for a route this service does not
// serve, 400 for a bad query, without building the report.
func (r *Reports) PlanUnified(ctx context.Context, bid uuid.UUID, route string, q url.Values) (UnifiedPlan, error) {
	plan, ok := unifiedReports[route]
	if !ok {
		return UnifiedPlan{}, apperr.Newf(apperr.NotFound, "no unified report %q", route).WithEnum(EnumUnknownReport)
	}
	return plan(r, ctx, bid, q)
}

// The trial balance's key and route (trial.go), and the groups of the
// reports menu.
const (
	ReportTrialBalance       = "TRIAL_BALANCE"
	RouteTrialBalance        = "trial-balance"
	GroupAccounting          = "ACCOUNTING"
	GroupAccountingName      = "Accounting"
	GroupReceivablesPayables = "RECEIVABLES_AND_PAYABLES"
	GroupReceivablesName     = "Receivables and payables"
)

// ReportGroups is GET /reports/config for business bid: the unified
// reports this service serves, grouped as the client's reports menu shows
// them. The trial balance opens first (is_default_report), on the
// business's default basis.
func (r *Reports) ReportGroups(ctx context.Context, bid uuid.UUID) ([]domain.ReportGroup, error) {
	basis, err := r.basis(ctx, bid, "")
	if err != nil {
		return nil, err
	}
	return []domain.ReportGroup{
		{GroupType: GroupAccounting, DisplayName: GroupAccountingName, Reports: []domain.ReportConfig{r.trialBalanceConfig(basis)}},
		{GroupType: GroupReceivablesPayables, DisplayName: GroupReceivablesName, Reports: []domain.ReportConfig{
			domain.AgingConfig(domain.AgingAR), domain.AgingConfig(domain.AgingAP),
		}},
	}, nil
}

// UnifiedSheet is the name of a unified report export's sheet.
const UnifiedSheet = "Report"

// UnifiedXLSX writes report u of business bid as an XLSX workbook to
// storage and returns its download (503 without storage): one sheet, the
// leaf columns' display names as a bold, frozen header, then every row
// depth first, a child row's first cell indented by two spaces per level
// (and the sheet's outline level), Currency cells as dollar numbers,
// Text cells as strings (never formulas), Empty cells and nulls blank,
// bold cells bold. The file is small (a row per account or party): built
// in memory, then stored.
func (x *Exports) UnifiedXLSX(ctx context.Context, bid uuid.UUID, u UnifiedResult) (Download, error) {
	// A report already built: its file is keyed by the report itself.
	f, err := x.statementFile(ctx, bid, "unified", "xlsx", u)
	if err != nil {
		return Download{}, err
	}
	f.name = unifiedFileName(u.Config, u.Label)
	return x.serve(ctx, f, func(ctx context.Context, key string) error {
		return x.put(ctx, key, XLSXContentType, func(w io.Writer) error { return writeUnifiedXLSX(w, u.Report) })
	})
}

// UnifiedPlanXLSX is UnifiedXLSX of the report p plans (GET
// /reports/unified/{report}/exports/excel): when an identical export is
// stored within the reuse window, the report is not even built.
func (x *Exports) UnifiedPlanXLSX(ctx context.Context, bid uuid.UUID, p UnifiedPlan) (Download, error) {
	f, err := x.statementFile(ctx, bid, "unified", "xlsx", struct {
		Route string
		Query any
	}{p.Config.ReportRoute, p.Query})
	if err != nil {
		return Download{}, err
	}
	f.name = unifiedFileName(p.Config, p.Label)
	return x.serve(ctx, f, func(ctx context.Context, key string) error {
		u, err := p.Result(ctx)
		if err != nil {
			return err
		}
		return x.put(ctx, key, XLSXContentType, func(w io.Writer) error { return writeUnifiedXLSX(w, u.Report) })
	})
}

// unifiedFileName names the workbook of a unified report: its route and
// label, e.g. ar_aging_2026-01-31.xlsx.
func unifiedFileName(c domain.ReportConfig, label string) string {
	name := strings.NewReplacer("/", "_", "-", "_").Replace(c.ReportRoute)
	if label != "" {
		name += "_" + label
	}
	return name + ".xlsx"
}

// writeUnifiedXLSX writes report u's workbook to w.
func writeUnifiedXLSX(w io.Writer, u domain.UnifiedReport) (err error) {
	f, st, err := newWorkbook(UnifiedSheet)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close workbook: %w", cerr)
		}
	}()
	sw, err := f.NewStreamWriter(UnifiedSheet)
	if err != nil {
		return err
	}
	// {bold, money}; the plain style is the default one.
	styles := map[[2]bool]int{{true, false}: st.bold, {false, true}: st.money, {true, true}: st.boldMoney}
	cols := u.LeafColumns()
	for i := range cols {
		width := 16.0
		if i == 0 {
			width = 40
		}
		if err := sw.SetColWidth(i+1, i+1, width); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	cells := make([]any, len(cols))
	for i, c := range cols {
		cells[i] = excelize.Cell{StyleID: styles[[2]bool{true, false}], Value: c.DisplayName}
	}
	if err := sw.SetRow("A1", cells); err != nil {
		return err
	}
	n := 1
	var walk func(rows []domain.UnifiedReportRow, depth int) error
	walk = func(rows []domain.UnifiedReportRow, depth int) error {
		for _, row := range rows {
			n++
			if n > xlsxMaxRows {
				return apperr.New(apperr.InvalidParameters, "the report has more rows than a sheet holds")
			}
			for i, c := range cols {
				cells[i] = xlsxUnifiedCell(row.Cells[c.ColumnKey], i == 0, depth, styles)
			}
			ref, err := excelize.CoordinatesToCellName(1, n)
			if err != nil {
				return err
			}
			var opts []excelize.RowOpts
			if depth > 0 {
				opts = append(opts, excelize.RowOpts{OutlineLevel: min(depth, 7)})
			}
			if err := sw.SetRow(ref, cells, opts...); err != nil {
				return err
			}
			if err := walk(row.Rows, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(u.Rows, 0); err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zip.NewWriter(w) })
	return f.Write(io.Discard)
}

// xlsxUnifiedCell is cell c (nil: blank) of a row at depth; the first
// column's text is indented by two spaces per level.
func xlsxUnifiedCell(c *domain.UnifiedReportCell, first bool, depth int, styles map[[2]bool]int) any {
	if c == nil {
		return nil
	}
	bold := c.Format != nil && c.Format.Bold
	if cents, ok := c.Value.Cents(); ok {
		return excelize.Cell{StyleID: styles[[2]bool{bold, true}], Value: domain.Dollars(cents)}
	}
	s, ok := c.Value.Text()
	if !ok {
		return nil
	}
	if first && depth > 0 {
		s = strings.Repeat("  ", depth) + s
	}
	return excelize.Cell{StyleID: styles[[2]bool{bold, false}], Value: s}
}
