package http

import (
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/reports/internal/domain"
)

// summaryJSON is one month of GET /reports/profit-and-loss-summaries, in
// the real client's keys (camelCase but for the two counts).
type summaryJSON struct {
	Year                      int   `json:"year"`
	Month                     int   `json:"month"`
	Income                    int64 `json:"income"`
	CostOfGoodsSold           int64 `json:"costOfGoodsSold"`
	GrossProfit               int64 `json:"grossProfit"`
	OperatingExpenses         int64 `json:"operatingExpenses"`
	ProfitBeforeTaxes         int64 `json:"profitBeforeTaxes"`
	Taxes                     int64 `json:"taxes"`
	NetProfit                 int64 `json:"netProfit"`
	FullyCategorized          bool  `json:"fullyCategorized"`
	TotalExpenses             int64 `json:"totalExpenses"`
	UncategorizedInflows      int64 `json:"uncategorizedInflows"`
	UncategorizedOutflows     int64 `json:"uncategorizedOutflows"`
	UncategorizedTransactions int   `json:"uncategorized_transactions"`
	CategorizedTransactions   int   `json:"categorized_transactions"`
}

// summariesJSON is the answer's data.
type summariesJSON struct {
	Type   string        `json:"type"`
	Months []summaryJSON `json:"months"`
}

// summaries is GET /v1/businesses/{businessId}/reports/profit-and-loss-summaries.
func (h *handlers) summaries(c *fiber.Ctx) error {
	q, err := domain.ParseSummariesQuery(httpx.Query(c))
	if err != nil {
		return err
	}
	r, err := h.reports.Summaries(c.UserContext(), businessID(c), q)
	if err != nil {
		return err
	}
	out := summariesJSON{Type: "Profit_And_Loss_Summaries", Months: make([]summaryJSON, len(r.Months))}
	for i, s := range r.Months {
		out.Months[i] = summaryJSON{
			Year: s.Month.Year, Month: int(s.Month.Month), Income: s.Income, CostOfGoodsSold: s.CostOfGoodsSold,
			GrossProfit: s.GrossProfit, OperatingExpenses: s.OperatingExpenses, ProfitBeforeTaxes: s.ProfitBeforeTaxes,
			Taxes: s.Taxes, NetProfit: s.NetProfit, FullyCategorized: s.FullyCategorized, TotalExpenses: s.TotalExpenses,
			UncategorizedInflows: s.UncategorizedInflows, UncategorizedOutflows: s.UncategorizedOutflows,
			UncategorizedTransactions: s.UncategorizedTransactions, CategorizedTransactions: s.Categorized,
		}
	}
	return httpx.List(c, out, pnlMeta{ReportingBasis: r.Basis, LastEventAt: r.LastEventAt})
}
