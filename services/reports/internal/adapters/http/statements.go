package http

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/reports/internal/app"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// balanceSheetData is the SDK's BalanceSheet: start_date is the first day
// of the fiscal year, end_date and effective_date the day (end of day).
type balanceSheetData struct {
	Type                 string          `json:"type"`
	BusinessID           uuid.UUID       `json:"business_id"`
	EffectiveDate        time.Time       `json:"effective_date"`
	StartDate            time.Time       `json:"start_date"`
	EndDate              time.Time       `json:"end_date"`
	Assets               domain.LineItem `json:"assets"`
	LiabilitiesAndEquity domain.LineItem `json:"liabilities_and_equity"`
	FullyCategorized     bool            `json:"fully_categorized"`
}

// endOfDay is the last millisecond of day d, as the P&L's end_date.
func endOfDay(d time.Time) time.Time { return d.Add(24*time.Hour - time.Millisecond).UTC() }

func renderBalanceSheet(r app.BalanceSheetReport) balanceSheetData {
	return balanceSheetData{Type: "Balance_Sheet", BusinessID: r.BusinessID, EffectiveDate: endOfDay(r.Date),
		StartDate: r.FiscalYearStart.UTC(), EndDate: endOfDay(r.Date), Assets: r.Sheet.Assets,
		LiabilitiesAndEquity: r.Sheet.LiabilitiesAndEquity, FullyCategorized: r.FullyCategorized}
}

// balanceSheet is GET /v1/businesses/{businessId}/reports/balance-sheet.
func (h *handlers) balanceSheet(c *fiber.Ctx) error {
	q, err := balanceSheetQuery(httpx.Query(c))
	if err != nil {
		return err
	}
	r, err := h.reports.BalanceSheet(c.UserContext(), businessID(c), q)
	if err != nil {
		return err
	}
	return httpx.List(c, renderBalanceSheet(r), pnlMeta{ReportingBasis: r.Basis, LastEventAt: r.LastEventAt})
}

// cashFlowData is the SDK's StatementOfCashFlow.
type cashFlowData struct {
	Type                  string          `json:"type"`
	BusinessID            uuid.UUID       `json:"business_id"`
	StartDate             time.Time       `json:"start_date"`
	EndDate               time.Time       `json:"end_date"`
	OperatingActivities   domain.LineItem `json:"operating_activities"`
	InvestingActivities   domain.LineItem `json:"investing_activities"`
	FinancingActivities   domain.LineItem `json:"financing_activities"`
	PeriodNetCashIncrease int64           `json:"period_net_cash_increase"`
	CashAtStartOfPeriod   int64           `json:"cash_at_start_of_period"`
	CashAtEndOfPeriod     int64           `json:"cash_at_end_of_period"`
}

// cashFlow is GET /v1/businesses/{businessId}/reports/cashflow-statement.
func (h *handlers) cashFlow(c *fiber.Ctx) error {
	q, err := domain.ParsePeriodQuery(httpx.Query(c))
	if err != nil {
		return err
	}
	r, err := h.reports.CashFlow(c.UserContext(), businessID(c), q)
	if err != nil {
		return err
	}
	cf := r.CashFlow
	return httpx.List(c, cashFlowData{Type: "Cashflow_Statement", BusinessID: r.BusinessID, StartDate: q.Start.UTC(), EndDate: endOfDay(q.End),
		OperatingActivities: cf.Operating, InvestingActivities: cf.Investing, FinancingActivities: cf.Financing,
		PeriodNetCashIncrease: cf.NetCashIncrease, CashAtStartOfPeriod: cf.CashAtStart, CashAtEndOfPeriod: cf.CashAtEnd},
		pnlMeta{ReportingBasis: r.Basis, LastEventAt: r.LastEventAt})
}

// The document types of the statements' exports.
const (
	DocBalanceSheetCSV   = "BALANCE_SHEET_CSV"
	DocBalanceSheetExcel = "BALANCE_SHEET_EXCEL"
	DocCashFlowCSV       = "CASHFLOW_STATEMENT_CSV"
)

// balanceSheetQuery parses a balance sheet's query on today's date.
func balanceSheetQuery(q url.Values) (domain.BalanceQuery, error) {
	return domain.ParseBalanceQuery(q, time.Now())
}
