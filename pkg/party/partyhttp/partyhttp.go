// Package partyhttp is the HTTP side (Fiber) of pkg/party that the
// customers' and the vendors' adapters share: a counterparty's JSON and
// the create, list, get, patch and archive handlers over
// partyapp.UseCases. Errors go to httpx's error handler unchanged.
package partyhttp

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httplist"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/party"
	"github.com/acctsuite/acct/pkg/party/partyapp"
	"github.com/acctsuite/acct/pkg/tags"
)

// JSON is a counterparty on every route: the spec's CustomerData or
// VendorData plus the SDK's shapes, every key present, null where empty.
// The memo is sent as both `memo` and `notes`.
type JSON struct {
	Type            string     `json:"type"`
	ID              string     `json:"id"`
	ExternalID      *string    `json:"external_id"`
	IndividualName  *string    `json:"individual_name"`
	CompanyName     *string    `json:"company_name"`
	Email           *string    `json:"email"`
	MobilePhone     *string    `json:"mobile_phone"`
	OfficePhone     *string    `json:"office_phone"`
	AddressString   *string    `json:"address_string"`
	Memo            *string    `json:"memo"`
	Notes           *string    `json:"notes"`
	Status          string     `json:"status"`
	TransactionTags []tags.Tag `json:"transaction_tags"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	ArchivedAt      *time.Time `json:"archived_at"`
}

// ToJSON is c's JSON, of `type` typ ("CustomerData").
func ToJSON[K party.Kinded](typ string, c party.Party[K]) JSON {
	ts := c.Tags
	if ts == nil {
		ts = []tags.Tag{}
	}
	return JSON{
		Type: typ, ID: c.ID.String(), ExternalID: c.ExternalID, IndividualName: c.IndividualName,
		CompanyName: c.CompanyName, Email: c.Email, MobilePhone: c.MobilePhone, OfficePhone: c.OfficePhone,
		AddressString: c.AddressString, Memo: c.Memo, Notes: c.Memo, Status: string(c.Status), TransactionTags: ts,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ArchivedAt: c.ArchivedAt,
	}
}

// Handlers are the routes of one kind of counterparty P, answered as J.
type Handlers[P partyapp.Entity[P], J any] struct {
	UseCases    *partyapp.UseCases[P]
	Param       string // the id's path parameter ("customerId")
	MaxBody     int    // bytes of a create or patch body
	ParseInput  func(raw []byte) (party.Input, error)
	ParsePatch  func(raw []byte) (party.Patch, error)
	ParseFilter func(q url.Values) (party.Filter, error)
	PageSpec    page.Spec
	Codec       *page.Codec
	Render      func(P) J
}

func businessID(c *fiber.Ctx) uuid.UUID {
	id, _ := httpauth.BusinessIDFrom(c)
	return id
}

// Create is the POST: 201 with the new counterparty, 200 with the existing
// one when its external_id was used before.
func (h Handlers[P, J]) Create(c *fiber.Ctx) error {
	body, err := httpx.JSONBody(c, h.MaxBody)
	if err != nil {
		return err
	}
	in, err := h.ParseInput(body)
	if err != nil {
		return err
	}
	out, created, err := h.UseCases.Create(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	return httpx.Saved(c, created, h.Render(out))
}

// List is the GET of the collection: the spec's pagination (sort_by
// name|created_at|updated_at, sort_order, cursor, limit default 100 max
// 500, show_total_count) over party.Filter; a cursor is valid only with
// the filter it was issued for.
func (h Handlers[P, J]) List(c *fiber.Ctx) error {
	return httplist.List[party.Filter, P, J]{
		Spec: h.PageSpec, Codec: h.Codec, Filter: h.ParseFilter, Find: h.UseCases.List, Render: h.Render,
	}.Handle(c)
}

// Get is the GET by id (archived ones too).
func (h Handlers[P, J]) Get(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, h.Param)
	if err != nil {
		return err
	}
	out, err := h.UseCases.Get(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, h.Render(out))
}

// Patch is the PATCH by id.
func (h Handlers[P, J]) Patch(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, h.Param)
	if err != nil {
		return err
	}
	body, err := httpx.JSONBody(c, h.MaxBody)
	if err != nil {
		return err
	}
	p, err := h.ParsePatch(body)
	if err != nil {
		return err
	}
	out, err := h.UseCases.Update(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, h.Render(out))
}

// Archive is the POST .../archive: no body (one sent is ignored); 200 with
// the counterparty, status ARCHIVED.
func (h Handlers[P, J]) Archive(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, h.Param)
	if err != nil {
		return err
	}
	out, err := h.UseCases.Archive(c.UserContext(), businessID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, h.Render(out))
}
