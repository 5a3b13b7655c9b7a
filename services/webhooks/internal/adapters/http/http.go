// Package http is the webhooks service's HTTP adapter: the event catalog
// and the endpoints API (platform tokens only; a platform sees only its
// own endpoints), in the suite's envelope and error shapes.
package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpguard"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/webhooks/internal/app"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// MaxBody bounds an endpoint's body (1,000 business ids fit).
const MaxBody = 64 << 10

// Options are the handlers' collaborators.
type Options struct {
	Webhooks *app.Webhooks
	httpguard.Guards
}

type handlers struct {
	app   *app.Webhooks
	codec *page.Codec
}

// Register mounts the routes on r.
func Register(r fiber.Router, o Options) {
	h := &handlers{app: o.Webhooks, codec: o.Cursors}
	auth, platform, idem := o.Auth, httpauth.RequirePlatform(), o.Idem()
	const p = "/v1/webhooks"
	r.Get(p+"/event-types", auth, h.eventTypes)
	r.Post(p+"/endpoints", auth, platform, idem, h.create)
	r.Get(p+"/endpoints", auth, platform, h.list)
	r.Get(p+"/endpoints/:endpointId", auth, platform, h.get)
	r.Patch(p+"/endpoints/:endpointId", auth, platform, h.patch)
	r.Delete(p+"/endpoints/:endpointId", auth, platform, h.remove)
	r.Post(p+"/endpoints/:endpointId/rotate-secret", auth, platform, h.rotate)
	r.Post(p+"/endpoints/:endpointId/test", auth, platform, h.test)
	r.Get(p+"/endpoints/:endpointId/deliveries", auth, platform, h.deliveries)
	r.Post(p+"/endpoints/:endpointId/deliveries/:deliveryId/resend", auth, platform, h.resend)
	r.Post(p+"/endpoints/:endpointId/recover", auth, platform, h.recover)
}

// clientID is the platform the token speaks for.
func clientID(c *fiber.Ctx) string {
	id, _ := httpauth.IdentityFrom(c)
	return id.ClientID
}

func endpointParam(c *fiber.Ctx) (uuid.UUID, error) { return httpx.UUIDParam(c, "endpointId") }

type eventTypeJSON struct {
	Name         string       `json:"name"`
	Description  string       `json:"description"`
	Subscribable bool         `json:"subscribable"`
	Example      domain.Event `json:"example"`
}

func (h *handlers) eventTypes(c *fiber.Ctx) error {
	cat := domain.Catalog()
	out := make([]eventTypeJSON, len(cat))
	for i, t := range cat {
		out[i] = eventTypeJSON{Name: t.Name, Description: t.Description, Subscribable: t.Subscribable, Example: domain.Example(t.Name)}
	}
	return httpx.OK(c, out)
}

type endpointJSON struct {
	ID                      uuid.UUID   `json:"id"`
	URL                     string      `json:"url"`
	Description             string      `json:"description"`
	EventTypes              []string    `json:"event_types"`
	BusinessIDs             []uuid.UUID `json:"business_ids"`
	Disabled                bool        `json:"disabled"`
	DisabledReason          *string     `json:"disabled_reason"`
	Ordering                string      `json:"ordering"`
	Secret                  *string     `json:"secret,omitempty"`
	SecretHint              string      `json:"secret_hint"`
	PreviousSecretExpiresAt *time.Time  `json:"previous_secret_expires_at"`
	FailingSince            *time.Time  `json:"failing_since"`
	CreatedAt               time.Time   `json:"created_at"`
	UpdatedAt               time.Time   `json:"updated_at"`
}

// toEndpoint is e's JSON; withSecret shows its secret in full (create and
// rotation only), else only its last four characters.
func toEndpoint(e domain.Endpoint, withSecret bool, now time.Time) endpointJSON {
	out := endpointJSON{ID: e.ID, URL: e.URL, Description: e.Description, EventTypes: e.EventTypes, BusinessIDs: e.BusinessIDs,
		Disabled: e.Disabled, DisabledReason: e.DisabledReason, Ordering: e.Ordering, FailingSince: e.FailingSince,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, SecretHint: hint(e.Secret)}
	if e.PreviousSecretExpiresAt != nil && now.Before(*e.PreviousSecretExpiresAt) {
		out.PreviousSecretExpiresAt = e.PreviousSecretExpiresAt
	}
	if withSecret {
		s := e.Secret
		out.Secret = &s
	}
	return out
}

func hint(secret string) string {
	if len(secret) < 10 {
		return ""
	}
	return "whsec_…" + secret[len(secret)-4:]
}

// endpointBody is POST's and PATCH's body.
type endpointBody struct {
	URL         *string      `json:"url"`
	Description *string      `json:"description"`
	EventTypes  *[]string    `json:"event_types"`
	BusinessIDs *[]uuid.UUID `json:"business_ids"`
	Disabled    *bool        `json:"disabled"`
	Ordering    *string      `json:"ordering"`
}

// bodyOf is the request's endpoint body (415, 413 and 400 as the suite's
// other bodies).
func bodyOf(c *fiber.Ctx) (endpointBody, error) {
	raw, err := httpx.JSONBody(c, MaxBody)
	if err != nil {
		return endpointBody{}, err
	}
	return parseEndpointBody(raw)
}

// parseEndpointBody decodes a create's or a PATCH's body strictly.
func parseEndpointBody(raw []byte) (endpointBody, error) {
	var b endpointBody
	if err := httpx.DecodeJSON(raw, &b); err != nil {
		return endpointBody{}, err
	}
	return b, nil
}

func (h *handlers) create(c *fiber.Ctx) error {
	b, err := bodyOf(c)
	if err != nil {
		return err
	}
	in := domain.EndpointInput{}
	if b.URL != nil {
		in.URL = *b.URL
	}
	if b.Description != nil {
		in.Description = *b.Description
	}
	if b.EventTypes != nil {
		in.EventTypes = *b.EventTypes
	}
	if b.BusinessIDs != nil {
		in.BusinessIDs = *b.BusinessIDs
	}
	if b.Disabled != nil {
		in.Disabled = *b.Disabled
	}
	if b.Ordering != nil {
		in.Ordering = *b.Ordering
	}
	e, err := h.app.CreateEndpoint(c.UserContext(), clientID(c), in)
	if err != nil {
		return err
	}
	return httpx.Created(c, toEndpoint(e, true, time.Now()))
}

// EndpointPageSpec is the endpoints list's pagination.
var EndpointPageSpec = page.Spec{
	Keys: map[string]page.Key{
		"created_at": {Column: "e.created_at", Kind: page.KindTime},
		"updated_at": {Column: "e.updated_at", Kind: page.KindTime},
	},
	Default: "created_at", DefaultLimit: 50, MaxLimit: 100,
}

func (h *handlers) list(c *fiber.Ctx) error {
	q := httpx.Query(c)
	p, err := page.Parse(q, EndpointPageSpec, h.codec, "webhooks/endpoints|"+clientID(c))
	if err != nil {
		return err
	}
	es, meta, err := h.app.Endpoints(c.UserContext(), clientID(c), p)
	if err != nil {
		return err
	}
	now := time.Now()
	out := make([]endpointJSON, len(es))
	for i, e := range es {
		out[i] = toEndpoint(e, false, now)
	}
	return httpx.List(c, out, meta)
}

func (h *handlers) get(c *fiber.Ctx) error {
	id, err := endpointParam(c)
	if err != nil {
		return err
	}
	e, err := h.app.Endpoint(c.UserContext(), clientID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toEndpoint(e, false, time.Now()))
}

func (h *handlers) patch(c *fiber.Ctx) error {
	id, err := endpointParam(c)
	if err != nil {
		return err
	}
	b, err := bodyOf(c)
	if err != nil {
		return err
	}
	e, err := h.app.UpdateEndpoint(c.UserContext(), clientID(c), id, domain.EndpointPatch{URL: b.URL, Description: b.Description,
		EventTypes: b.EventTypes, BusinessIDs: b.BusinessIDs, Disabled: b.Disabled, Ordering: b.Ordering})
	if err != nil {
		return err
	}
	return httpx.OK(c, toEndpoint(e, false, time.Now()))
}

func (h *handlers) remove(c *fiber.Ctx) error {
	id, err := endpointParam(c)
	if err != nil {
		return err
	}
	if err := h.app.DeleteEndpoint(c.UserContext(), clientID(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h *handlers) rotate(c *fiber.Ctx) error {
	id, err := endpointParam(c)
	if err != nil {
		return err
	}
	e, err := h.app.RotateSecret(c.UserContext(), clientID(c), id)
	if err != nil {
		return err
	}
	return httpx.OK(c, toEndpoint(e, true, time.Now()))
}

type attemptJSON struct {
	ID          uuid.UUID  `json:"id"`
	Number      int        `json:"number"`
	AttemptedAt time.Time  `json:"attempted_at"`
	StatusCode  *int       `json:"status_code"`
	LatencyMS   int64      `json:"latency_ms"`
	Response    string     `json:"response"`
	Error       *string    `json:"error"`
	NextRetryAt *time.Time `json:"next_retry_at"`
}

type deliveryJSON struct {
	ID            uuid.UUID     `json:"id"`
	EndpointID    uuid.UUID     `json:"endpoint_id"`
	EventID       uuid.UUID     `json:"event_id"`
	EventType     string        `json:"event_type"`
	BusinessID    *uuid.UUID    `json:"business_id"`
	Status        string        `json:"status"`
	Attempts      int           `json:"attempt_count"`
	NextAttemptAt *time.Time    `json:"next_attempt_at"`
	CreatedAt     time.Time     `json:"created_at"`
	UpdatedAt     time.Time     `json:"updated_at"`
	Recent        []attemptJSON `json:"attempts"`
}

func toDelivery(d domain.Delivery) deliveryJSON {
	out := deliveryJSON{ID: d.ID, EndpointID: d.EndpointID, EventID: d.MessageID, EventType: d.EventType, BusinessID: d.BusinessID,
		Status: d.Status, Attempts: d.Attempts, NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		Recent: make([]attemptJSON, len(d.Recent))}
	for i, a := range d.Recent {
		out.Recent[i] = attemptJSON{ID: a.ID, Number: a.Number, AttemptedAt: a.AttemptedAt, StatusCode: a.StatusCode,
			LatencyMS: a.LatencyMS, Response: a.Response, Error: a.Error, NextRetryAt: a.NextRetryAt}
	}
	return out
}

func (h *handlers) test(c *fiber.Ctx) error {
	id, err := endpointParam(c)
	if err != nil {
		return err
	}
	d, err := h.app.TestEndpoint(c.UserContext(), clientID(c), id)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"data": toDelivery(d)})
}

// DeliveryPageSpec is the deliveries list's pagination: newest first.
var DeliveryPageSpec = page.Spec{
	Keys:    map[string]page.Key{"created_at": {Column: "d.created_at", Kind: page.KindTime}},
	Default: "created_at", DefaultLimit: 50, MaxLimit: 200,
}

var deliveryStatuses = []string{domain.StatusPending, domain.StatusDelivered, domain.StatusFailed}

func (h *handlers) deliveries(c *fiber.Ctx) error {
	id, err := endpointParam(c)
	if err != nil {
		return err
	}
	q := httpx.Query(c)
	f := app.DeliveryFilter{Status: strings.ToLower(strings.TrimSpace(q.Get("status")))}
	if f.Status != "" && !contains(deliveryStatuses, f.Status) {
		return apperr.Field("status", "must be one of pending, delivered, failed").WithEnum(domain.EnumInvalidParameters)
	}
	if !q.Has("sort_order") {
		q.Set("sort_order", "DESC")
	}
	p, err := page.Parse(q, DeliveryPageSpec, h.codec, "webhooks/deliveries|"+clientID(c)+"|"+id.String()+"|"+f.Status)
	if err != nil {
		return err
	}
	ds, meta, err := h.app.Deliveries(c.UserContext(), clientID(c), id, f, p)
	if err != nil {
		return err
	}
	out := make([]deliveryJSON, len(ds))
	for i, d := range ds {
		out[i] = toDelivery(d)
	}
	return httpx.List(c, out, meta)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (h *handlers) resend(c *fiber.Ctx) error {
	id, err := endpointParam(c)
	if err != nil {
		return err
	}
	did, err := httpx.UUIDParam(c, "deliveryId")
	if err != nil {
		return err
	}
	d, err := h.app.ResendDelivery(c.UserContext(), clientID(c), id, did)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"data": toDelivery(d)})
}

func (h *handlers) recover(c *fiber.Ctx) error {
	id, err := endpointParam(c)
	if err != nil {
		return err
	}
	raw := strings.TrimSpace(c.Query("since"))
	if raw == "" {
		return apperr.Field("since", "is required: an RFC 3339 time").WithEnum(domain.EnumInvalidParameters)
	}
	since, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return apperr.Field("since", "must be an RFC 3339 time, such as 2026-11-27T00:00:00Z").WithEnum(domain.EnumInvalidParameters)
	}
	n, err := h.app.Recover(c.UserContext(), clientID(c), id, since)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"data": fiber.Map{"resent": n}})
}
