// Package http is the reports service's HTTP adapter: Fiber handlers that
// parse a request, call the use cases and render the answer in the spec's
// shapes (and the client SDK's, see client-shapes.md). Errors go to httpx's
// error handler unchanged.
package http

import (
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// Options are the collaborators of the handlers.
type Options struct {
	Reports  *app.Reports
	Exports  *app.Exports
	Auth     fiber.Handler // bearer-token verification
	Business fiber.Handler // tenancy check of :businessId
}

type handlers struct {
	reports *app.Reports
	exports *app.Exports
}

// Register mounts every route of the service on r.
func Register(r fiber.Router, o Options) {
	h := &handlers{reports: o.Reports, exports: o.Exports}
	const p = "/v1/businesses/:businessId"
	r.Get(p+"/reports/profit-and-loss", o.Auth, o.Business, h.profitAndLoss)
	r.Post(p+"/reports/profit-and-loss-comparison", o.Auth, o.Business, h.comparison)
	r.Get(p+"/reports/profit-and-loss-summaries", o.Auth, o.Business, h.summaries)
	r.Get(p+"/reports/profit-and-loss/lines", o.Auth, o.Business, h.pnlLines)
	r.Get(p+"/reports/profit-and-loss/exports/excel", o.Auth, o.Business, exportOf(pnlExportQuery, h.exports.PnLXLSX, DocPnLExcel))
	r.Get(p+"/reports/profit-and-loss/lines/exports/excel", o.Auth, o.Business,
		exportOf(domain.ParsePnLLinesQuery, h.exports.PnLLinesXLSX, DocPnLLinesExcel))
	r.Get(p+"/reports/balance-sheet", o.Auth, o.Business, h.balanceSheet)
	r.Get(p+"/reports/cashflow-statement", o.Auth, o.Business, h.cashFlow)
	r.Get(p+"/reports/balance-sheet/exports/csv", o.Auth, o.Business, exportOf(balanceSheetQuery, h.exports.BalanceSheetCSV, DocBalanceSheetCSV))
	r.Get(p+"/reports/balance-sheet/exports/excel", o.Auth, o.Business, exportOf(balanceSheetQuery, h.exports.BalanceSheetXLSX, DocBalanceSheetExcel))
	r.Get(p+"/reports/cashflow-statement/exports/csv", o.Auth, o.Business, exportOf(domain.ParsePeriodQuery, h.exports.CashFlowCSV, DocCashFlowCSV))
	r.Get(p+"/reports/transactions/exports/csv", o.Auth, o.Business, h.transactionsCSV)
	r.Get(p+"/reports/transactions/exports/excel", o.Auth, o.Business, h.transactionsXLSX)
	r.Post(p+"/reports/profit-and-loss/exports/comparison-csv", o.Auth, o.Business, h.comparisonCSV)
	// Unified reports (unified.go): one route for every report route of
	// one segment (ar-aging, ap-aging, trial-balance...).
	r.Get(p+"/reports/config", o.Auth, o.Business, h.reportsConfig)
	r.Get(p+"/reports/unified/:report", o.Auth, o.Business, h.unifiedReport)
	r.Get(p+"/reports/unified/:report/exports/excel", o.Auth, o.Business, h.unifiedExcel)
}

// presignedURL is the spec's pre-signed download (as the transactions
// service answers its documents).
type presignedURL struct {
	Type         string    `json:"type"`
	PresignedURL string    `json:"presignedUrl"`
	FileType     string    `json:"fileType"`
	FileName     string    `json:"fileName"`
	CreatedAt    time.Time `json:"createdAt"`
	DocumentID   string    `json:"documentId"`
	// DocumentType says which export the file is (the spec's P&L export
	// answer carries a document_type).
	DocumentType string `json:"document_type"`
}

// The document types of the exports.
const (
	DocTransactionsCSV   = "TRANSACTIONS_CSV"
	DocTransactionsExcel = "TRANSACTIONS_EXCEL"
	DocComparisonCSV     = "PROFIT_AND_LOSS_COMPARISON_CSV"
)

func (h *handlers) transactionsCSV(c *fiber.Ctx) error {
	d, err := h.exports.TransactionsCSV(c.UserContext(), businessID(c), httpx.Query(c))
	if err != nil {
		return err
	}
	return renderDownload(c, d, DocTransactionsCSV)
}

// businessID is the business RequireBusiness authorised.
func businessID(c *fiber.Ctx) uuid.UUID {
	id, _ := httpauth.BusinessIDFrom(c)
	return id
}

// pnlData is the spec's pnl and the SDK's ProfitAndLoss.
type pnlData struct {
	BusinessID        uuid.UUID        `json:"business_id"`
	StartDate         time.Time        `json:"start_date"`
	EndDate           time.Time        `json:"end_date"`
	Income            domain.LineItem  `json:"income"`
	CostOfGoodsSold   domain.LineItem  `json:"cost_of_goods_sold"`
	GrossProfit       int64            `json:"gross_profit"`
	Expenses          domain.LineItem  `json:"expenses"`
	ProfitBeforeTaxes int64            `json:"profit_before_taxes"`
	Taxes             domain.LineItem  `json:"taxes"`
	NetProfit         int64            `json:"net_profit"`
	OtherOutflows     *domain.LineItem `json:"other_outflows"`
	PersonalExpenses  *domain.LineItem `json:"personal_expenses"`
	FullyCategorized  bool             `json:"fully_categorized"`
}

// pnlMeta tells how fresh the figures are.
type pnlMeta struct {
	ReportingBasis string     `json:"reporting_basis"`
	LastEventAt    *time.Time `json:"last_event_at"`
}

func (h *handlers) profitAndLoss(c *fiber.Ctx) error {
	q, err := domain.ParsePnLQuery(httpx.Query(c))
	if err != nil {
		return err
	}
	r, err := h.reports.ProfitAndLoss(c.UserContext(), businessID(c), q)
	if err != nil {
		return err
	}
	return httpx.List(c, renderPnL(r.BusinessID, q.Start, q.End, r.PnL),
		pnlMeta{ReportingBasis: r.Basis, LastEventAt: r.LastEventAt})
}

// renderPnL is the report p of the days start..end.
func renderPnL(bid uuid.UUID, start, end time.Time, p domain.PnL) pnlData {
	return pnlData{
		BusinessID: bid, StartDate: start.UTC(), EndDate: end.Add(24*time.Hour - time.Millisecond).UTC(),
		Income: p.Income, CostOfGoodsSold: p.CostOfGoodsSold, GrossProfit: p.GrossProfit,
		Expenses: p.Expenses, ProfitBeforeTaxes: p.ProfitBeforeTaxes, Taxes: p.Taxes, NetProfit: p.NetProfit,
		FullyCategorized: p.FullyCategorized,
	}
}

// comparisonData is the spec's comparison result (the SDK's PnlComparison).
type comparisonData struct {
	Type string           `json:"type"`
	Pnls []comparisonItem `json:"pnls"`
}

// comparisonItem is the SDK's PnlComparisonItem.
type comparisonItem struct {
	Period    comparisonPeriod `json:"period"`
	TagFilter *tagFilter       `json:"tag_filter,omitempty"`
	Pnl       pnlData          `json:"pnl"`
}

// comparisonPeriod echoes one requested period (the SDK's
// PnlComparisonPeriod), with its days.
type comparisonPeriod struct {
	Type      string `json:"type"`
	Year      int    `json:"year,omitempty"`
	Month     int    `json:"month,omitempty"`
	StartDate string `json:"start_date"`
	EndDate   string `json:"end_date"`
}

// tagFilter is the spec's {key, value} and the SDK's {key, values}: the
// required tags' distinct keys (comma-joined when more than one) and
// their values in order.
type tagFilter struct {
	Key    string   `json:"key"`
	Value  []string `json:"value"`
	Values []string `json:"values"`
}

func renderTagFilter(r domain.RequiredTags) *tagFilter {
	keys := []string{}
	values := make([]string, 0, len(r))
	for _, t := range r {
		if !slices.Contains(keys, t.Key) {
			keys = append(keys, t.Key)
		}
		values = append(values, t.Value)
	}
	return &tagFilter{Key: strings.Join(keys, ","), Value: values, Values: values}
}

func (h *handlers) comparison(c *fiber.Ctx) error {
	var body domain.ComparisonBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	q, err := domain.ParseComparison(body)
	if err != nil {
		return err
	}
	r, err := h.reports.Comparison(c.UserContext(), businessID(c), q)
	if err != nil {
		return err
	}
	out := comparisonData{Type: "Comparison_Pnl", Pnls: make([]comparisonItem, 0, len(r.Items))}
	for _, it := range r.Items {
		item := comparisonItem{
			Period: comparisonPeriod{Type: it.Period.Type, Year: it.Period.Year, Month: it.Period.Month,
				StartDate: it.Period.Start.Format(domain.DateLayout), EndDate: it.Period.End.Format(domain.DateLayout)},
			Pnl: renderPnL(r.BusinessID, it.Period.Start, it.Period.End, it.PnL),
		}
		if q.Filtered {
			item.TagFilter = renderTagFilter(it.Filter)
		}
		out.Pnls = append(out.Pnls, item)
	}
	return httpx.List(c, out, pnlMeta{ReportingBasis: r.Basis, LastEventAt: r.LastEventAt})
}
