package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking"
	"github.com/acctsuite/acct/services/transactions/internal/domain/banking/autocat"
)

// MaxRuleBody bounds a rule body.
const MaxRuleBody = 16 << 10

type ruleTextJSON struct {
	Match   string `json:"match"`
	Pattern string `json:"pattern"`
}

type classificationJSON struct {
	Type          string  `json:"type"`
	ID            *string `json:"id,omitempty"`
	StableName    *string `json:"stable_name,omitempty"`
	ExclusionType *string `json:"exclusion_type,omitempty"`
}

// ruleJSON is a categorization rule.
type ruleJSON struct {
	Type          string             `json:"type"`
	ID            string             `json:"id"`
	Name          *string            `json:"name"`
	Direction     *string            `json:"direction"`
	Counterparty  *ruleTextJSON      `json:"counterparty"`
	Description   *ruleTextJSON      `json:"description"`
	AmountMin     *int64             `json:"amount_min"`
	AmountMax     *int64             `json:"amount_max"`
	BankAccountID *string            `json:"bank_account_id"`
	Category      classificationJSON `json:"category"`
	CreatedAt     time.Time          `json:"created_at"`
}

func toClassification(c banking.Classification) classificationJSON {
	out := classificationJSON{Type: string(c.Type)}
	switch c.Type {
	case banking.ByAccountID:
		id := c.AccountID.String()
		out.ID = &id
	case banking.ByStableName:
		out.StableName = &c.StableName
	default:
		x := string(c.Exclusion)
		out.ExclusionType = &x
	}
	return out
}

func toRule(r autocat.Rule) ruleJSON {
	out := ruleJSON{
		Type: "Categorization_Rule", ID: r.ID.String(), Name: r.Name, BankAccountID: uuidString(r.BankAccountID),
		Category: toClassification(r.Category), CreatedAt: r.CreatedAt,
	}
	if r.Direction != nil {
		d := string(*r.Direction)
		out.Direction = &d
	}
	if r.Counterparty != nil {
		out.Counterparty = &ruleTextJSON{Match: string(r.Counterparty.Mode), Pattern: r.Counterparty.Pattern}
	}
	if r.Description != nil {
		out.Description = &ruleTextJSON{Match: string(r.Description.Mode), Pattern: r.Description.Pattern}
	}
	if r.AmountMin != nil {
		v := int64(*r.AmountMin)
		out.AmountMin = &v
	}
	if r.AmountMax != nil {
		v := int64(*r.AmountMax)
		out.AmountMax = &v
	}
	return out
}

// createRule is POST /v1/businesses/{businessId}/categorization-rules.
func (h *handlers) createRule(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxRuleBody)
	if err != nil {
		return err
	}
	d, err := autocat.DecodeRuleDraft(body)
	if err != nil {
		return err
	}
	r, err := h.banking.CreateRule(c.UserContext(), businessID(c), d)
	if err != nil {
		return err
	}
	return httpx.Created(c, toRule(r))
}

// listRules is GET /v1/businesses/{businessId}/categorization-rules.
func (h *handlers) listRules(c *fiber.Ctx) error {
	rules, err := h.banking.Rules(c.UserContext(), businessID(c))
	if err != nil {
		return err
	}
	out := make([]ruleJSON, len(rules))
	for i, r := range rules {
		out[i] = toRule(r)
	}
	return httpx.OK(c, out)
}

// deleteRule is DELETE /v1/businesses/{businessId}/categorization-rules/{ruleId}.
func (h *handlers) deleteRule(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, "ruleId")
	if err != nil {
		return err
	}
	if err := h.banking.DeleteRule(c.UserContext(), businessID(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
