package http

import (
	"github.com/acctsuite/acct/pkg/httpauth"
	"time"

	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/auth-tokens/internal/app"
	"github.com/acctsuite/acct/services/auth-tokens/internal/domain"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
)

// businessBody is the body of POST and PATCH /v1/businesses: each field may
// be absent, null or a value (domain.Opt).
type businessBody struct {
	ExternalID            domain.Opt[string] `json:"external_id"`
	LegalName             domain.Opt[string] `json:"legal_name"`
	TIN                   domain.Opt[string] `json:"tin"`
	USState               domain.Opt[string] `json:"us_state"`
	Country               domain.Opt[string] `json:"country"`
	EntityType            domain.Opt[string] `json:"entity_type"`
	PhoneNumber           domain.Opt[string] `json:"phone_number"`
	ActivationAt          domain.Opt[string] `json:"activation_at"`
	NAICSCode             domain.Opt[string] `json:"naics_code"`
	DefaultReportingBasis domain.Opt[string] `json:"default_reporting_basis"`
	FiscalYearStartMonth  domain.Opt[int]    `json:"fiscal_year_start_month"`
	IsDemo                domain.Opt[bool]   `json:"is_demo"`
}

func (b businessBody) input() domain.BusinessInput { return domain.BusinessInput(b) }

// businessJSON is the Business resource.
type businessJSON struct {
	Type                  string    `json:"type"`
	ID                    uuid.UUID `json:"id"`
	ExternalID            *string   `json:"external_id"`
	LegalName             string    `json:"legal_name"`
	TIN                   *string   `json:"tin"`
	USState               *string   `json:"us_state"`
	Country               string    `json:"country"`
	EntityType            *string   `json:"entity_type"`
	PhoneNumber           *string   `json:"phone_number"`
	ActivationAt          string    `json:"activation_at"`
	NAICSCode             *string   `json:"naics_code"`
	DefaultReportingBasis string    `json:"default_reporting_basis"`
	FiscalYearStartMonth  int       `json:"fiscal_year_start_month"`
	IsDemo                bool      `json:"is_demo"`
	CreatedAt             time.Time `json:"created_at"`
	UpdatedAt             time.Time `json:"updated_at"`
	PreviouslyImported    *bool     `json:"previously_imported,omitempty"`
}

func toBusinessJSON(b domain.Business) businessJSON {
	var et *string
	if b.EntityType != nil {
		s := string(*b.EntityType)
		et = &s
	}
	return businessJSON{
		Type: "Business", ID: b.ID, ExternalID: b.ExternalID, LegalName: b.LegalName, TIN: b.TIN,
		USState: b.USState, Country: b.Country, EntityType: et, PhoneNumber: b.PhoneNumber,
		ActivationAt: b.ActivationTime(), NAICSCode: b.NAICSCode, IsDemo: b.IsDemo,
		DefaultReportingBasis: string(b.DefaultReportingBasis), FiscalYearStartMonth: b.FiscalYearStartMonth,
		CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
	}
}

// accountingConfigJSON is a business's accounting configuration: how its
// reports count (the default basis) and when its fiscal year starts.
type accountingConfigJSON struct {
	Type                  string    `json:"type"`
	BusinessID            uuid.UUID `json:"business_id"`
	DefaultReportingBasis string    `json:"default_reporting_basis"`
	FiscalYearStartMonth  int       `json:"fiscal_year_start_month"`
}

// createBusiness is POST /v1/businesses: 201 for a new business, 200 with
// previously_imported for an external id the client already imported.
func (h *Handlers) createBusiness(c *fiber.Ctx) error {
	var body businessBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	res, err := h.app.CreateBusiness(c.UserContext(), identity(c), body.input())
	if err != nil {
		return err
	}
	out := toBusinessJSON(res.Business)
	out.PreviouslyImported = &res.PreviouslyImported
	if res.PreviouslyImported {
		return httpx.OK(c, out)
	}
	return httpx.Created(c, out)
}

// listBusinesses is GET /v1/businesses.
func (h *Handlers) listBusinesses(c *fiber.Ctx) error {
	id := identity(c)
	// Cursors are bound to the caller: one client's cursor is useless to another.
	p, err := page.Parse(httpx.Query(c), app.BusinessPageSpec, h.codec, id.ClientID+"|"+id.BusinessID.String())
	if err != nil {
		return err
	}
	bs, meta, err := h.app.ListBusinesses(c.UserContext(), id, p)
	if err != nil {
		return err
	}
	out := make([]businessJSON, len(bs))
	for i, b := range bs {
		out[i] = toBusinessJSON(b)
	}
	return httpx.List(c, out, meta)
}

// getBusiness is GET /v1/businesses/{businessId}.
func (h *Handlers) getBusiness(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	b, err := h.app.GetBusiness(c.UserContext(), identity(c), bid)
	if err != nil {
		return err
	}
	return httpx.OK(c, toBusinessJSON(b))
}

// accountingConfig is GET /v1/businesses/{businessId}/accounting-config:
// the business's default reporting basis and fiscal year start, changed
// with PATCH /v1/businesses/{businessId}.
func (h *Handlers) accountingConfig(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	b, err := h.app.GetBusiness(c.UserContext(), identity(c), bid)
	if err != nil {
		return err
	}
	return httpx.OK(c, accountingConfigJSON{Type: "Accounting_Config", BusinessID: b.ID,
		DefaultReportingBasis: string(b.DefaultReportingBasis), FiscalYearStartMonth: b.FiscalYearStartMonth})
}

// updateBusiness is PATCH /v1/businesses/{businessId}.
func (h *Handlers) updateBusiness(c *fiber.Ctx) error {
	bid, _ := httpauth.BusinessIDFrom(c)
	var body businessBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	b, err := h.app.UpdateBusiness(c.UserContext(), identity(c), bid, body.input())
	if err != nil {
		return err
	}
	return httpx.OK(c, toBusinessJSON(b))
}
