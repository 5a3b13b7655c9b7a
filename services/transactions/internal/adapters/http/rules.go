package http

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/transactions/internal/app"
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

// ruleJSON is a categorization rule: the service's own fields and the
// client SDK's CategorizationRule. `category` is the SDK's
// AccountIdentifier (null for a rule whose category is an exclusion, which
// the SDK cannot read); `classification` is the category in full,
// exclusions included (null for a rule that only suggests).
type ruleJSON struct {
	Type                                 string              `json:"type"`
	ID                                   string              `json:"id"`
	BusinessID                           string              `json:"business_id"`
	ExternalID                           *string             `json:"external_id"`
	Name                                 *string             `json:"name"`
	Direction                            *string             `json:"direction"`
	Counterparty                         *ruleTextJSON       `json:"counterparty"`
	Description                          *ruleTextJSON       `json:"description"`
	AmountMin                            *int64              `json:"amount_min"`
	AmountMax                            *int64              `json:"amount_max"`
	BankAccountID                        *string             `json:"bank_account_id"`
	Category                             *classificationJSON `json:"category"`
	Classification                       *classificationJSON `json:"classification"`
	Suggestion1                          *classificationJSON `json:"suggestion_1"`
	Suggestion2                          *classificationJSON `json:"suggestion_2"`
	Suggestion3                          *classificationJSON `json:"suggestion_3"`
	CounterpartyFilter                   *counterpartyJSON   `json:"counterparty_filter"`
	BusinessNameFilter                   *string             `json:"business_name_filter"`
	ClientNameFilter                     *string             `json:"client_name_filter"`
	ReadableTransactionDescriptionFilter *string             `json:"readable_transaction_description_filter"`
	TransactionDescriptionFilter         *string             `json:"transaction_description_filter"`
	TransactionTypeFilter                *string             `json:"transaction_type_filter"`
	BankDirectionFilter                  *string             `json:"bank_direction_filter"`
	AmountMinFilter                      *int64              `json:"amount_min_filter"`
	AmountMaxFilter                      *int64              `json:"amount_max_filter"`
	CreatedBySuggestionID                *string             `json:"created_by_suggestion_id"`
	CreatedAt                            time.Time           `json:"created_at"`
	UpdatedAt                            time.Time           `json:"updated_at"`
	ArchivedAt                           *time.Time          `json:"archived_at"`
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

// ruleAccountIdentifier is c as the SDK's AccountIdentifier; nil for none or
// an exclusion.
func ruleAccountIdentifier(c *banking.Classification) *classificationJSON {
	if c == nil || c.Type == "" || c.IsExclusion() {
		return nil
	}
	out := toClassification(*c)
	return &out
}

func toRule(businessID uuid.UUID, r autocat.Rule, counterparties map[uuid.UUID]banking.Counterparty) ruleJSON {
	out := ruleJSON{
		Type: "Categorization_Rule", ID: r.ID.String(), BusinessID: businessID.String(), ExternalID: r.ExternalID, Name: r.Name,
		BankAccountID: uuidString(r.BankAccountID), Category: ruleAccountIdentifier(&r.Category), CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, ArchivedAt: r.ArchivedAt, CreatedBySuggestionID: uuidString(r.CreatedBySuggestionID),
		TransactionTypeFilter: r.TransactionType,
		Suggestion1:           ruleAccountIdentifier(r.Suggestions[0]), Suggestion2: ruleAccountIdentifier(r.Suggestions[1]), Suggestion3: ruleAccountIdentifier(r.Suggestions[2]),
	}
	if r.Categorizes() {
		c := toClassification(r.Category)
		out.Classification = &c
	}
	if r.Direction != nil {
		d := string(*r.Direction)
		out.Direction = &d
		bd := "MONEY_OUT"
		if r.Direction.MoneyIn() {
			bd = "MONEY_IN"
		}
		out.BankDirectionFilter = &bd
	}
	if r.Counterparty != nil {
		out.Counterparty = &ruleTextJSON{Match: string(r.Counterparty.Mode), Pattern: r.Counterparty.Pattern}
		out.BusinessNameFilter = &r.Counterparty.Pattern
	}
	if r.Description != nil {
		out.Description = &ruleTextJSON{Match: string(r.Description.Mode), Pattern: r.Description.Pattern}
		out.ReadableTransactionDescriptionFilter = &r.Description.Pattern
		out.TransactionDescriptionFilter = &r.Description.Pattern
	}
	if r.ClientName != nil {
		out.ClientNameFilter = &r.ClientName.Pattern
	}
	if r.AmountMin != nil {
		v := int64(*r.AmountMin)
		out.AmountMin, out.AmountMinFilter = &v, &v
	}
	if r.AmountMax != nil {
		v := int64(*r.AmountMax)
		out.AmountMax, out.AmountMaxFilter = &v, &v
	}
	if ref := r.CounterpartyRef; ref != nil {
		cp, ok := counterparties[ref.ID]
		if !ok {
			cp = banking.Counterparty{ID: ref.ID, Key: ref.Key, ExternalID: ref.ExternalID}
			if ref.Name != nil {
				cp.Name = *ref.Name
			}
		}
		j := toCounterparty(cp)
		out.CounterpartyFilter = &j
	}
	return out
}

// renderRule is a rule with its counterparty as the business knows it now.
func (h *handlers) renderRule(ctx context.Context, businessID uuid.UUID, r autocat.Rule) (ruleJSON, error) {
	cps, err := h.banking.RuleCounterparties(ctx, businessID, []autocat.Rule{r})
	if err != nil {
		return ruleJSON{}, err
	}
	return toRule(businessID, r, cps), nil
}

// createRule is POST /v1/businesses/{businessId}/categorization-rules:
// 201 with the new rule, 200 with the one an external_id names.
func (h *handlers) createRule(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxRuleBody)
	if err != nil {
		return err
	}
	req, err := autocat.DecodeRuleRequest(body)
	if err != nil {
		return err
	}
	bid := businessID(c)
	r, created, err := h.banking.CreateRule(c.UserContext(), bid, req)
	if err != nil {
		return err
	}
	out, err := h.renderRule(c.UserContext(), bid, r)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, out)
}

// updateRule is PATCH /v1/businesses/{businessId}/categorization-rules/{ruleId}.
func (h *handlers) updateRule(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, "ruleId")
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxRuleBody)
	if err != nil {
		return err
	}
	p, err := autocat.DecodeRulePatch(body)
	if err != nil {
		return err
	}
	bid := businessID(c)
	r, err := h.banking.UpdateRule(c.UserContext(), bid, id, p)
	if err != nil {
		return err
	}
	out, err := h.renderRule(c.UserContext(), bid, r)
	if err != nil {
		return err
	}
	return httpx.OK(c, out)
}

// archiveRule is POST /v1/businesses/{businessId}/categorization-rules/{ruleId}/archive.
func (h *handlers) archiveRule(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, "ruleId")
	if err != nil {
		return err
	}
	bid := businessID(c)
	r, err := h.banking.ArchiveRule(c.UserContext(), bid, id)
	if err != nil {
		return err
	}
	out, err := h.renderRule(c.UserContext(), bid, r)
	if err != nil {
		return err
	}
	return httpx.OK(c, out)
}

// listRules is GET /v1/businesses/{businessId}/categorization-rules: the
// spec's pagination (sort_by precedence (default: the order the matcher
// considers rules), created_at or updated_at; sort_order; cursor; limit;
// show_total_count) over external_ids, include_archived and q.
func (h *handlers) listRules(c *fiber.Ctx) error {
	q := httpx.Query(c)
	f, err := autocat.ParseRuleFilter(q)
	if err != nil {
		return err
	}
	bid := businessID(c)
	p, err := page.Parse(q, app.RulePageSpec, h.codec, bid.String()+"|rules|"+f.Fingerprint())
	if err != nil {
		return err
	}
	rules, meta, err := h.banking.Rules(c.UserContext(), bid, f, p)
	if err != nil {
		return err
	}
	cps, err := h.banking.RuleCounterparties(c.UserContext(), bid, rules)
	if err != nil {
		return err
	}
	out := make([]ruleJSON, len(rules))
	for i, r := range rules {
		out[i] = toRule(bid, r, cps)
	}
	return httpx.List(c, out, meta)
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

// rejectRuleSuggestion is DELETE
// /v1/businesses/{businessId}/categorization-rules/suggestions/{suggestionId}:
// 204; the suggestion (and its counterparty) is not offered again.
func (h *handlers) rejectRuleSuggestion(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, "suggestionId")
	if err != nil {
		return err
	}
	if err := h.banking.RejectRuleSuggestion(c.UserContext(), businessID(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// ruleDraftJSON is the SDK's CategorizationRuleDraft of a suggestion.
type ruleDraftJSON struct {
	ApplyRetroactively    bool                `json:"apply_retroactively"`
	CreatedBySuggestionID string              `json:"created_by_suggestion_id"`
	Name                  *string             `json:"name"`
	Category              *classificationJSON `json:"category"`
	CounterpartyFilter    string              `json:"counterparty_filter"`
}

// ruleSuggestionJSON is the SDK's CreateCategorizationRuleForCounterparty.
type ruleSuggestionJSON struct {
	Type                           string           `json:"type"`
	ID                             string           `json:"id"`
	NewRule                        ruleDraftJSON    `json:"new_rule"`
	Counterparty                   counterpartyJSON `json:"counterparty"`
	SuggestionPrompt               *string          `json:"suggestion_prompt"`
	TransactionsThatWillBeAffected []minimalTxnJSON `json:"transactions_that_will_be_affected"`
}

func toRuleSuggestion(s *app.RuleSuggestion) *ruleSuggestionJSON {
	if s == nil {
		return nil
	}
	d := s.NewRule()
	name := s.CounterpartyKey
	if s.CounterpartyName != nil {
		name = *s.CounterpartyName
	}
	prompt := "Categorize every transaction with " + name + " this way?"
	out := &ruleSuggestionJSON{
		Type: "Create_Categorization_Rule_For_Counterparty", ID: s.ID.String(),
		NewRule: ruleDraftJSON{ApplyRetroactively: true, CreatedBySuggestionID: s.ID.String(), Name: d.Name,
			Category: ruleAccountIdentifier(&d.Category), CounterpartyFilter: s.CounterpartyID.String()},
		Counterparty:                   toCounterparty(banking.Counterparty{ID: s.CounterpartyID, Key: s.CounterpartyKey, Name: name}),
		SuggestionPrompt:               &prompt,
		TransactionsThatWillBeAffected: make([]minimalTxnJSON, 0, len(s.Affected)),
	}
	for _, t := range s.Affected {
		out.TransactionsThatWillBeAffected = append(out.TransactionsThatWillBeAffected, minimalTxnJSON{
			ID: t.ID.String(), Date: t.Date, Direction: string(t.Direction), Amount: int64(t.Amount),
			CounterpartyName: t.CounterpartyName, Description: t.Description,
		})
	}
	return out
}
