// Package http is the reports service's HTTP adapter: Fiber handlers that
// parse a request, call the use cases and render the answer in the spec's
// shapes (and the client SDK's, see client-shapes.md). Errors go to httpx's
// error handler unchanged.
package http

import (
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
	Auth     fiber.Handler // bearer-token verification
	Business fiber.Handler // tenancy check of :businessId
}

type handlers struct {
	reports *app.Reports
}

// Register mounts every route of the service on r.
func Register(r fiber.Router, o Options) {
	h := &handlers{reports: o.Reports}
	const p = "/v1/businesses/:businessId"
	r.Get(p+"/reports/profit-and-loss", o.Auth, o.Business, h.profitAndLoss)
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
	p := r.PnL
	return httpx.List(c, pnlData{
		BusinessID: r.BusinessID, StartDate: q.Start.UTC(), EndDate: q.End.Add(24*time.Hour - time.Millisecond).UTC(),
		Income: p.Income, CostOfGoodsSold: p.CostOfGoodsSold, GrossProfit: p.GrossProfit,
		Expenses: p.Expenses, ProfitBeforeTaxes: p.ProfitBeforeTaxes, Taxes: p.Taxes, NetProfit: p.NetProfit,
		FullyCategorized: p.FullyCategorized,
	}, pnlMeta{ReportingBasis: "ACCRUAL", LastEventAt: r.LastEventAt})
}
