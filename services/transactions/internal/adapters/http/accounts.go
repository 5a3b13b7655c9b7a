package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/services/transactions/internal/app"
	"github.com/acctsuite/acct/services/transactions/internal/domain"
)

// accountBody is the body of POST and PUT /ledger/accounts (the SDK's
// body: name, account_number, normality, parent_id, account_type,
// account_subtype, stable_name).
type accountBody struct {
	Name           *string            `json:"name"`
	AccountNumber  *string            `json:"account_number"`
	Normality      *valueInput        `json:"normality"`
	ParentID       *accountIdentifier `json:"parent_id"`
	AccountType    *valueInput        `json:"account_type"`
	AccountSubtype *valueInput        `json:"account_subtype"`
	StableName     *stableNameInput   `json:"stable_name"`
}

func (b accountBody) normality() (*domain.Direction, error) {
	if b.Normality == nil {
		return nil, nil
	}
	d := domain.Direction(b.Normality.value)
	if !d.Valid() {
		return nil, apperr.PayloadField("normality", "must be DEBIT or CREDIT")
	}
	return &d, nil
}

func (b accountBody) accountType() (*domain.AccountType, error) {
	if b.AccountType == nil {
		return nil, nil
	}
	t := domain.AccountType(b.AccountType.value)
	if !t.Valid() {
		return nil, apperr.PayloadField("account_type", "must be one of ASSET, LIABILITY, EQUITY, REVENUE, EXPENSE")
	}
	return &t, nil
}

func (b accountBody) subtype() *string {
	if b.AccountSubtype == nil {
		return nil
	}
	return &b.AccountSubtype.value
}

func (b accountBody) stableName() *string {
	if b.StableName == nil {
		return nil
	}
	return &b.StableName.name
}

func accountParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "accountId") }

// getAccount is GET /v1/businesses/{businessId}/ledger/accounts/{accountId}.
func (h *handlers) getAccount(c *fiber.Ctx) error {
	id, err := accountParam(c)
	if err != nil {
		return err
	}
	a, err := h.ledger.GetAccount(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toSingleChartAccount(a))
}

// createAccount is POST /v1/businesses/{businessId}/ledger/accounts.
func (h *handlers) createAccount(c *fiber.Ctx) error {
	var body accountBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	if body.Name == nil {
		return apperr.PayloadField("name", "is required")
	}
	typ, err := body.accountType()
	if err != nil {
		return err
	}
	if typ == nil {
		return apperr.PayloadField("account_type", "is required")
	}
	normality, err := body.normality()
	if err != nil {
		return err
	}
	in := app.NewAccountInput{Draft: domain.AccountDraft{
		Name: *body.Name, AccountNumber: body.AccountNumber, StableName: body.stableName(), Normality: normality,
		Type: *typ, Subtype: body.subtype(),
	}}
	if body.ParentID != nil {
		in.Parent = &body.ParentID.ref
	}
	a, err := h.ledger.CreateAccount(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	// The real client decodes its SingleChartAccount here (plain-string id).
	return httpx.Created(c, toPlainAccount(a))
}

// updateAccount is PUT /v1/businesses/{businessId}/ledger/accounts/{accountId}.
func (h *handlers) updateAccount(c *fiber.Ctx) error {
	id, err := accountParam(c)
	if err != nil {
		return err
	}
	var body accountBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	if body.Name == nil {
		return apperr.PayloadField("name", "is required")
	}
	typ, err := body.accountType()
	if err != nil {
		return err
	}
	normality, err := body.normality()
	if err != nil {
		return err
	}
	u := domain.AccountUpdate{
		Name: *body.Name, AccountNumber: body.AccountNumber, StableName: body.stableName(), Normality: normality,
		Type: typ, Subtype: body.subtype(),
	}
	if body.ParentID != nil {
		if body.ParentID.ref.IsStableName() {
			return apperr.PayloadField("parent_id", "must be an AccountId here")
		}
		u.ParentID = &body.ParentID.ref.ID
	}
	a, err := h.ledger.UpdateAccount(c.UserContext(), businessID(c), id, u)
	if err != nil {
		return err
	}
	// The real client decodes its SingleChartAccount here (plain-string id).
	return httpx.OK(c, toPlainAccount(a))
}

// deleteAccount is DELETE /v1/businesses/{businessId}/ledger/accounts/{accountId}:
// 204, or a 409 error object saying to archive an account in use.
func (h *handlers) deleteAccount(c *fiber.Ctx) error {
	id, err := accountParam(c)
	if err != nil {
		return err
	}
	if err := h.ledger.DeleteAccount(c.UserContext(), businessID(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// archiveAccount is POST /v1/businesses/{businessId}/ledger/accounts/{accountId}/archive.
func (h *handlers) archiveAccount(c *fiber.Ctx) error {
	id, err := accountParam(c)
	if err != nil {
		return err
	}
	a, err := h.ledger.ArchiveAccount(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toSingleChartAccount(a))
}
