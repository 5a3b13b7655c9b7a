package http

import (
	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// balanceNodeJSON is the SDK's LedgerBalanceNode: an account, its balance
// (its own lines and its sub-accounts', in cents, positive on its normal
// side) and its sub-accounts.
type balanceNodeJSON struct {
	plainAccountJSON
	Balance     int64             `json:"balance"`
	SubAccounts []balanceNodeJSON `json:"sub_accounts"`
}

func toBalanceNodes(ns []domain.BalanceNode) []balanceNodeJSON {
	out := make([]balanceNodeJSON, len(ns))
	for i, n := range ns {
		out[i] = balanceNodeJSON{plainAccountJSON: toPlainAccount(n.Account), Balance: int64(n.Balance), SubAccounts: toBalanceNodes(n.Children)}
	}
	return out
}

// balancesJSON is Ledger_Balances.
type balancesJSON struct {
	Type     string            `json:"type"`
	Accounts []balanceNodeJSON `json:"accounts"`
}

// getBalances is GET /v1/businesses/{businessId}/ledger/balances: balances
// as of a date (as_of, or end_date), or over start_date..end_date (both
// inclusive; dates are UTC days).
func (h *handlers) getBalances(c *fiber.Ctx) error {
	from, until, err := period(c.Query("start_date"), c.Query("end_date"), c.Query("as_of"))
	if err != nil {
		return err
	}
	nodes, err := h.ledger.Balances(c.UserContext(), businessID(c), app.PeriodFilter{From: from, Until: until})
	if err != nil {
		return err
	}
	return httpx.OK(c, balancesJSON{Type: "Ledger_Balances", Accounts: toBalanceNodes(nodes)})
}
