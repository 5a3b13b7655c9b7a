package http

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// categoryJSON is a NestedCategorization: AccountNested (an account with
// its sub-accounts) or ExclusionNested. subCategories is camelCase on the
// wire, as the SDK reads it.
type categoryJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// StableName is present (a string or null) on accounts, absent on
	// exclusions.
	StableName    json.RawMessage `json:"stable_name,omitempty"`
	Category      string          `json:"category"`
	DisplayName   string          `json:"display_name"`
	Description   *string         `json:"description"`
	SubCategories []categoryJSON  `json:"subCategories"`
}

func toCategories(cs []domain.Category) []categoryJSON {
	out := make([]categoryJSON, len(cs))
	for i, c := range cs {
		if c.Account == nil {
			out[i] = categoryJSON{
				Type: "ExclusionNested", ID: string(c.Exclusion), Category: string(c.Exclusion),
				DisplayName: c.DisplayName(), SubCategories: []categoryJSON{},
			}
			continue
		}
		stable, _ := json.Marshal(c.Account.StableName) // a *string: cannot fail
		out[i] = categoryJSON{
			Type: "AccountNested", ID: c.Account.ID.String(), StableName: stable,
			Category: c.Account.Category(), DisplayName: c.DisplayName(), SubCategories: toCategories(c.Children),
		}
	}
	return out
}

// categoryListJSON is the SDK's Category_List.
type categoryListJSON struct {
	Type       string         `json:"type"`
	Categories []categoryJSON `json:"categories"`
}

// listCategories is GET /v1/businesses/{businessId}/categories?mode=ALL|EXPENSES|REVENUE|DEFAULT.
func (h *handlers) listCategories(c *fiber.Ctx) error {
	mode, err := domain.ParseCategoryMode(c.Query("mode"))
	if err != nil {
		return err
	}
	cs, err := h.ledger.Categories(c.UserContext(), businessID(c), mode)
	if err != nil {
		return err
	}
	return httpx.OK(c, categoryListJSON{Type: "Category_List", Categories: toCategories(cs)})
}
