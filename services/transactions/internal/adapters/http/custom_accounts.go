package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
)

// customAccountJSON is the SDK's CustomAccount.
type customAccountJSON struct {
	ID                string     `json:"id"`
	ExternalID        *string    `json:"external_id"`
	Mask              *string    `json:"mask"`
	AccountName       string     `json:"account_name"`
	InstitutionName   *string    `json:"institution_name"`
	AccountType       string     `json:"account_type"`
	AccountSubtype    string     `json:"account_subtype"`
	CustomAccountType string     `json:"custom_account_type"`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
	ArchivedAt        *time.Time `json:"archived_at"`
	LedgerAccountID   string     `json:"ledger_account_id"`
	UserCreated       bool       `json:"user_created"`
}

func toCustomAccount(a app.CustomAccount) customAccountJSON {
	return customAccountJSON{
		ID: a.ID.String(), ExternalID: a.ExternalID, Mask: a.Mask, AccountName: a.AccountName,
		InstitutionName: a.InstitutionName, AccountType: string(a.Type), AccountSubtype: string(a.Subtype),
		CustomAccountType: string(a.Kind), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, ArchivedAt: a.ArchivedAt,
		LedgerAccountID: a.LedgerAccountID.String(), UserCreated: a.UserCreated,
	}
}

// MaxCustomAccountBody bounds a custom account body.
const MaxCustomAccountBody = 64 << 10

// jsonBody is httpx.JSONBody (415 unless JSON, 413 beyond limit).
func jsonBody(c *fiber.Ctx, limit int) ([]byte, error) { return httpx.JSONBody(c, limit) }

// createCustomAccount is POST /v1/businesses/{businessId}/custom-accounts:
// 201 with the new account, 200 with the existing one when its external_id
// was used before.
func (h *handlers) createCustomAccount(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxCustomAccountBody)
	if err != nil {
		return err
	}
	in, err := banking.ParseCustomAccountInput(body)
	if err != nil {
		return err
	}
	a, created, err := h.banking.CreateCustomAccount(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, toCustomAccount(a))
}

// listCustomAccounts is GET /v1/businesses/{businessId}/custom-accounts:
// data is {custom_accounts: [...]}. The SDK's user_created=true keeps
// accounts made through the API (all of them today); false keeps the
// others.
func (h *handlers) listCustomAccounts(c *fiber.Ctx) error {
	var userCreated *bool
	if c.Query("user_created") != "" {
		v, err := httpx.QueryBool(c, "user_created", true)
		if err != nil {
			return err
		}
		userCreated = &v
	}
	accounts, err := h.banking.CustomAccounts(c.UserContext(), businessID(c))
	if err != nil {
		return err
	}
	out := make([]customAccountJSON, 0, len(accounts))
	for _, a := range accounts {
		if userCreated == nil || a.UserCreated == *userCreated {
			out = append(out, toCustomAccount(a))
		}
	}
	return httpx.OK(c, fiber.Map{"custom_accounts": out})
}
