package http

import (
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// chartNodeJSON is a node of the chart (the SDK's ChartAccountNode).
type chartNodeJSON struct {
	plainAccountJSON
	SubAccounts []chartNodeJSON `json:"sub_accounts"`
}

func toChartNodes(ns []*domain.Node) []chartNodeJSON {
	out := make([]chartNodeJSON, len(ns))
	for i, n := range ns {
		out[i] = chartNodeJSON{plainAccountJSON: toPlainAccount(n.Account), SubAccounts: toChartNodes(n.Children)}
	}
	return out
}

// chartJSON is the spec's Chart_Of_Accounts.
type chartJSON struct {
	Type     string          `json:"type"`
	Accounts []chartNodeJSON `json:"accounts"`
}

// getChart is GET /v1/businesses/{businessId}/ledger/chart: the live accounts.
func (h *handlers) getChart(c *fiber.Ctx) error {
	roots, err := h.ledger.Chart(c.UserContext(), businessID(c))
	if err != nil {
		return err
	}
	return httpx.OK(c, chartJSON{Type: "Chart_Of_Accounts", Accounts: toChartNodes(roots)})
}
