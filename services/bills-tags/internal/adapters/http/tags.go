package http

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/tags"
	"github.com/acctsuite/acct/services/bills-tags/internal/app"
	"github.com/acctsuite/acct/services/bills-tags/internal/domain/tagreg"
)

// Body limits of the registry's routes: a dimension with 500 values and
// display names; a tagging of 500 entities with 50 tags.
const (
	MaxDimensionBody = 512 << 10
	MaxTagValueBody  = 8 << 10
	MaxTaggingBody   = 256 << 10
)

// tagValueJSON is the SDK's TagValueDefinition.
type tagValueJSON struct {
	ID          uuid.UUID  `json:"id"`
	Key         string     `json:"key"`
	Value       string     `json:"value"`
	DisplayName string     `json:"display_name"`
	ArchivedAt  *time.Time `json:"archived_at"`
}

// tagDimensionJSON is the SDK's TagDimension with the deleted_at.
type tagDimensionJSON struct {
	ID            uuid.UUID      `json:"id"`
	Key           string         `json:"key"`
	Strictness    string         `json:"strictness"`
	DisplayName   string         `json:"display_name"`
	DefinedValues []tagValueJSON `json:"defined_values"`
	CreatedAt     time.Time      `json:"created_at"`
	UpdatedAt     time.Time      `json:"updated_at"`
	DeletedAt     *time.Time     `json:"deleted_at"`
	UserVisible   bool           `json:"user_visible"`
}

func toTagValue(key string, v tagreg.Value) tagValueJSON {
	return tagValueJSON{ID: v.ID, Key: key, Value: v.Value, DisplayName: v.DisplayName, ArchivedAt: v.ArchivedAt}
}

func toTagDimension(d tagreg.Dimension) tagDimensionJSON {
	vals := make([]tagValueJSON, len(d.Values))
	for i, v := range d.Values {
		vals[i] = toTagValue(d.Key, v)
	}
	return tagDimensionJSON{
		ID: d.ID, Key: d.Key, Strictness: string(d.Strictness), DisplayName: d.DisplayName, DefinedValues: vals,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, DeletedAt: d.DeletedAt, UserVisible: d.UserVisible,
	}
}

// tagHandlers serve the tag registry and generic tagging.
type tagHandlers struct{ tags *app.Tags }

// registerTags mounts the registry's routes (the static key/ segment
// before :dimensionId).
func registerTags(r fiber.Router, o Options, idem fiber.Handler) {
	if o.Tags == nil {
		return
	}
	h := &tagHandlers{tags: o.Tags}
	const p = "/v1/businesses/:businessId"
	auth, biz := o.Auth, o.Business
	r.Get(p+"/tags/dimensions", auth, biz, h.listDimensions)
	r.Post(p+"/tags/dimensions", auth, biz, idem, h.createDimension)
	r.Get(p+"/tags/dimensions/key/:dimensionKey", auth, biz, h.dimensionByKey)
	r.Patch(p+"/tags/dimensions/:dimensionId", auth, biz, h.patchDimension)
	r.Post(p+"/tags/dimensions/:dimensionId/values", auth, biz, idem, h.addValue)
	r.Post(p+"/tags/dimensions/:dimensionId/values/:valueId/archive", auth, biz, h.archiveValue)
	r.Post(p+"/tags", auth, biz, idem, h.applyTags)
}

// listDimensions is GET /v1/businesses/{businessId}/tags/dimensions:
// `data: {dimensions: [...]}` (the SDK's TagDimensionsList), by key.
func (h *tagHandlers) listDimensions(c *fiber.Ctx) error {
	includeDeleted, err := httpx.QueryBool(c, "include_deleted", false)
	if err != nil {
		return err
	}
	ds, err := h.tags.Dimensions(c.UserContext(), businessID(c), includeDeleted)
	if err != nil {
		return err
	}
	out := make([]tagDimensionJSON, len(ds))
	for i, d := range ds {
		out[i] = toTagDimension(d)
	}
	return httpx.OK(c, fiber.Map{"dimensions": out})
}

// createDimension is POST /v1/businesses/{businessId}/tags/dimensions:
// 201 new, 200 a repeat of an existing key (see app.Tags.CreateDimension).
func (h *tagHandlers) createDimension(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxDimensionBody)
	if err != nil {
		return err
	}
	in, err := tagreg.ParseCreate(body)
	if err != nil {
		return err
	}
	d, created, err := h.tags.CreateDimension(c.UserContext(), businessID(c), in)
	if err != nil {
		return err
	}
	if created {
		return httpx.Created(c, toTagDimension(d))
	}
	return httpx.OK(c, toTagDimension(d))
}

// dimensionByKey is GET .../tags/dimensions/key/{dimensionKey} (the key
// percent-encoded in the path).
func (h *tagHandlers) dimensionByKey(c *fiber.Ctx) error {
	key, err := url.PathUnescape(c.Params("dimensionKey"))
	if err != nil {
		return apperr.Field("dimensionKey", "must be a percent-encoded key").WithEnum(tagreg.EnumInvalidDimension)
	}
	d, err := h.tags.DimensionByKey(c.UserContext(), businessID(c), key)
	if err != nil {
		return err
	}
	return httpx.OK(c, toTagDimension(d))
}

// patchDimension is PATCH .../tags/dimensions/{dimensionId}.
func (h *tagHandlers) patchDimension(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, "dimensionId")
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxTagValueBody)
	if err != nil {
		return err
	}
	p, err := tagreg.ParsePatch(body)
	if err != nil {
		return err
	}
	d, err := h.tags.PatchDimension(c.UserContext(), businessID(c), id, p)
	if err != nil {
		return err
	}
	return httpx.OK(c, toTagDimension(d))
}

// addValue is POST .../tags/dimensions/{dimensionId}/values: 201 with a
// new TagValueDefinition, 200 with the existing one.
func (h *tagHandlers) addValue(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, "dimensionId")
	if err != nil {
		return err
	}
	body, err := jsonBody(c, MaxTagValueBody)
	if err != nil {
		return err
	}
	in, err := tagreg.ParseValue(body)
	if err != nil {
		return err
	}
	d, v, created, err := h.tags.AddValue(c.UserContext(), businessID(c), id, in)
	if err != nil {
		return err
	}
	if created {
		return httpx.Created(c, toTagValue(d.Key, v))
	}
	return httpx.OK(c, toTagValue(d.Key, v))
}

// archiveValue is POST .../tags/dimensions/{dimensionId}/values/{valueId}/archive.
func (h *tagHandlers) archiveValue(c *fiber.Ctx) error {
	id, err := httpx.UUIDParam(c, "dimensionId")
	if err != nil {
		return err
	}
	valueID, err := httpx.UUIDParam(c, "valueId")
	if err != nil {
		return err
	}
	d, v, err := h.tags.ArchiveValue(c.UserContext(), businessID(c), id, valueID)
	if err != nil {
		return err
	}
	return httpx.OK(c, toTagValue(d.Key, v))
}

// applyTags is POST /v1/businesses/{businessId}/tags: the tags added,
// as `{data: {type: "Tags", tags}, tags}` (the bank-transaction tagging's
// shape), once the owning service applied them.
func (h *tagHandlers) applyTags(c *fiber.Ctx) error {
	body, err := jsonBody(c, MaxTaggingBody)
	if err != nil {
		return err
	}
	r, err := tagreg.ParseTagRequest(body)
	if err != nil {
		return err
	}
	caller := app.Caller{Authorization: c.Get(fiber.HeaderAuthorization), RequestID: httpx.RequestID(c)}
	ts, err := h.tags.Apply(c.UserContext(), caller, businessID(c), r)
	if err != nil {
		return err
	}
	if ts == nil {
		ts = []tags.Tag{}
	}
	return c.Status(fiber.StatusOK).JSON(fiber.Map{"data": fiber.Map{"type": "Tags", "tags": ts}, "tags": ts})
}
