package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Orderings of an endpoint's deliveries.
const (
	// OrderingBusiness sends the events of one business in the order they
	// happened: a later one waits while an earlier one is retried.
	OrderingBusiness = "business"
	// OrderingNone sends every event as soon as it can.
	OrderingNone = "none"
)

// Limits on what a platform controls.
const (
	MaxURLLength         = 2048
	MaxDescriptionLength = 512
	MaxEventTypes        = 64
	MaxBusinessIDs       = 1000
	// MaxEndpoints is how many endpoints one platform may have.
	MaxEndpoints = 50
)

// SecretOverlap is how long the previous secret still signs after a
// rotation.
const SecretOverlap = 24 * time.Hour

// Endpoint is a platform's subscription: where to send which events of
// which of its businesses, and the secrets that sign them.
type Endpoint struct {
	ID          uuid.UUID
	ClientID    string
	URL         string
	Description string
	// EventTypes empty: every subscribable type.
	EventTypes []string
	// BusinessIDs empty: every business of the platform, present and future.
	BusinessIDs    []uuid.UUID
	Disabled       bool
	DisabledReason *string
	Ordering       string
	// Secret signs every delivery; PreviousSecret also signs until
	// PreviousSecretExpiresAt (a rotation's overlap).
	Secret                  string
	PreviousSecret          *string
	PreviousSecretExpiresAt *time.Time
	// FailingSince is when the endpoint's first failed attempt after its
	// last success was (nil: not failing).
	FailingSince *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// EndpointInput is a create's body.
type EndpointInput struct {
	URL         string
	Description string
	EventTypes  []string
	BusinessIDs []uuid.UUID
	Disabled    bool
	Ordering    string
}

// EndpointPatch is a PATCH's body: nil leaves a field as it is.
type EndpointPatch struct {
	URL         *string
	Description *string
	EventTypes  *[]string
	BusinessIDs *[]uuid.UUID
	Disabled    *bool
	Ordering    *string
}

// Violation is one field's problem.
type Violation struct {
	Field, Reason string
}

// Normalize checks in's fields other than the URL's reachability (the
// app's guard checks that) and returns it with its lists sorted and
// deduplicated and the ordering defaulted.
func (in EndpointInput) Normalize() (EndpointInput, []Violation) {
	var vs []Violation
	in.URL = strings.TrimSpace(in.URL)
	vs = append(vs, checkURLText(in.URL)...)
	if v, ok := checkDescription(in.Description); !ok {
		vs = append(vs, v)
	}
	var v []Violation
	in.EventTypes, v = normalizeEventTypes(in.EventTypes)
	vs = append(vs, v...)
	in.BusinessIDs, v = normalizeBusinessIDs(in.BusinessIDs)
	vs = append(vs, v...)
	if in.Ordering == "" {
		in.Ordering = OrderingBusiness
	}
	if in.Ordering != OrderingBusiness && in.Ordering != OrderingNone {
		vs = append(vs, Violation{"ordering", `must be "business" or "none"`})
	}
	return in, vs
}

// Apply is e changed by p (its fields normalized), with the violations.
func (p EndpointPatch) Apply(e Endpoint, now time.Time) (Endpoint, []Violation) {
	in := EndpointInput{URL: e.URL, Description: e.Description, EventTypes: e.EventTypes, BusinessIDs: e.BusinessIDs,
		Disabled: e.Disabled, Ordering: e.Ordering}
	if p.URL != nil {
		in.URL = *p.URL
	}
	if p.Description != nil {
		in.Description = *p.Description
	}
	if p.EventTypes != nil {
		in.EventTypes = slices.Clone(*p.EventTypes)
	}
	if p.BusinessIDs != nil {
		in.BusinessIDs = slices.Clone(*p.BusinessIDs)
	}
	if p.Ordering != nil {
		in.Ordering = *p.Ordering
		if in.Ordering == "" {
			return e, []Violation{{"ordering", `must be "business" or "none"`}}
		}
	}
	in, vs := in.Normalize()
	if len(vs) > 0 {
		return e, vs
	}
	e.URL, e.Description, e.EventTypes, e.BusinessIDs, e.Ordering = in.URL, in.Description, in.EventTypes, in.BusinessIDs, in.Ordering
	if p.Disabled != nil && *p.Disabled != e.Disabled {
		e.Disabled = *p.Disabled
		e.DisabledReason = nil
		if e.Disabled {
			r := DisabledByPlatform
			e.DisabledReason = &r
		} else {
			e.FailingSince = nil // enabled again: the 5 days start over
		}
	}
	e.UpdatedAt = now
	return e, nil
}

// Reasons an endpoint is disabled.
const (
	DisabledByPlatform = "disabled by the platform"
	DisabledFailing    = "no successful delivery for 5 days"
)

// Subscribes reports whether e takes events of type typ about business
// bid (nil: an event about the platform's endpoints, which every enabled
// endpoint subscribed to the type takes).
func (e Endpoint) Subscribes(typ string, bid *uuid.UUID) bool {
	if e.Disabled {
		return false
	}
	if len(e.EventTypes) > 0 && !slices.Contains(e.EventTypes, typ) {
		return false
	}
	if bid != nil && len(e.BusinessIDs) > 0 && !slices.Contains(e.BusinessIDs, *bid) {
		return false
	}
	return true
}

// SigningSecrets are the secrets that sign a delivery at now: the current
// one, and the previous one during a rotation's overlap.
func (e Endpoint) SigningSecrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PreviousSecret != nil && e.PreviousSecretExpiresAt != nil && now.Before(*e.PreviousSecretExpiresAt) {
		out = append(out, *e.PreviousSecret)
	}
	return out
}

// Rotate is e signing with secret from now on and with its current
// secret too until now + SecretOverlap.
func (e Endpoint) Rotate(secret string, now time.Time) Endpoint {
	prev, until := e.Secret, now.Add(SecretOverlap)
	e.PreviousSecret, e.PreviousSecretExpiresAt = &prev, &until
	e.Secret, e.UpdatedAt = secret, now
	return e
}

// Failed is e after an attempt failed at now: failing since now unless
// it already was; disable reports whether it has failed for DisableAfter
// without a success (it is then disabled).
func (e Endpoint) Failed(now time.Time) (out Endpoint, disable bool) {
	if e.FailingSince == nil {
		e.FailingSince = &now
		return e, false
	}
	if !e.Disabled && now.Sub(*e.FailingSince) >= DisableAfter {
		r := DisabledFailing
		e.Disabled, e.DisabledReason, e.UpdatedAt = true, &r, now
		return e, true
	}
	return e, false
}

func checkURLText(u string) []Violation {
	switch {
	case u == "":
		return []Violation{{"url", "is required"}}
	case len(u) > MaxURLLength:
		return []Violation{{"url", fmt.Sprintf("is longer than %d characters", MaxURLLength)}}
	case !utf8.ValidString(u) || strings.ContainsAny(u, " \t\r\n"):
		return []Violation{{"url", "must be a URL without spaces"}}
	}
	return nil
}

func checkDescription(d string) (Violation, bool) {
	if !utf8.ValidString(d) {
		return Violation{"description", "must be UTF-8 text"}, false
	}
	if utf8.RuneCountInString(d) > MaxDescriptionLength {
		return Violation{"description", fmt.Sprintf("is longer than %d characters", MaxDescriptionLength)}, false
	}
	return Violation{}, true
}

func normalizeEventTypes(ts []string) ([]string, []Violation) {
	out := slices.Clone(ts)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxEventTypes {
		return out, []Violation{{"event_types", fmt.Sprintf("lists more than %d types", MaxEventTypes)}}
	}
	if bad, ok := Subscribable(out); !ok {
		return out, []Violation{{"event_types", fmt.Sprintf("%q is not an event type one can subscribe to (GET /v1/webhooks/event-types lists them)", bad)}}
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

func normalizeBusinessIDs(ids []uuid.UUID) ([]uuid.UUID, []Violation) {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	out = slices.Compact(out)
	if len(out) > MaxBusinessIDs {
		return out, []Violation{{"business_ids", fmt.Sprintf("lists more than %d businesses", MaxBusinessIDs)}}
	}
	if slices.Contains(out, uuid.Nil) {
		return out, []Violation{{"business_ids", "contains the nil id"}}
	}
	if out == nil {
		out = []uuid.UUID{}
	}
	return out, nil
}
