package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/webhooksig"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// ErrURLRefused is matched (errors.Is) by a URLGuard's refusal: the URL's
// form, scheme or address is not allowed. Its message says why.
var ErrURLRefused = errors.New("url refused")

// checkURL is the guard's verdict as a 400 on field url.
func (w *Webhooks) checkURL(ctx context.Context, raw string) error {
	if err := w.guard.CheckURL(ctx, raw); err != nil {
		if errors.Is(err, ErrURLRefused) {
			return apperr.PayloadField("url", err.Error()).WithEnum(domain.EnumURLRefused)
		}
		return fmt.Errorf("check url: %w", err)
	}
	return nil
}

// checkBusinesses refuses business ids that are not clientID's (unknown
// ones alike: a platform learns nothing of another's businesses).
func (w *Webhooks) checkBusinesses(ctx context.Context, clientID string, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	owned, err := w.store.OwnedBusinesses(ctx, clientID, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !owned[id] {
			return apperr.PayloadField("business_ids", fmt.Sprintf("%s is not a business of this platform", id)).
				WithEnum(domain.EnumInvalidEndpoint)
		}
	}
	return nil
}

// CreateEndpoint is POST /v1/webhooks/endpoints: a new endpoint of
// platform clientID with a fresh signing secret (answered in full only
// here and on rotation).
func (w *Webhooks) CreateEndpoint(ctx context.Context, clientID string, in domain.EndpointInput) (domain.Endpoint, error) {
	in, vs := in.Normalize()
	if err := domain.Violations(vs); err != nil {
		return domain.Endpoint{}, err
	}
	if err := w.checkURL(ctx, in.URL); err != nil {
		return domain.Endpoint{}, err
	}
	if err := w.checkBusinesses(ctx, clientID, in.BusinessIDs); err != nil {
		return domain.Endpoint{}, err
	}
	secret, err := webhooksig.NewSecret()
	if err != nil {
		return domain.Endpoint{}, err
	}
	now := w.now()
	e := domain.Endpoint{ID: newID(), ClientID: clientID, URL: in.URL, Description: in.Description, EventTypes: in.EventTypes,
		BusinessIDs: in.BusinessIDs, Disabled: in.Disabled, Ordering: in.Ordering, Secret: secret, CreatedAt: now, UpdatedAt: now}
	if e.Disabled {
		r := domain.DisabledByPlatform
		e.DisabledReason = &r
	}
	err = w.uow.Do(ctx, func(ctx context.Context) error {
		if err := w.store.LockClient(ctx, clientID); err != nil {
			return err
		}
		n, err := w.store.CountEndpoints(ctx, clientID)
		if err != nil {
			return err
		}
		if n >= domain.MaxEndpoints {
			return apperr.Newf(apperr.Conflict, "a platform may have at most %d webhook endpoints", domain.MaxEndpoints).
				WithEnum(domain.EnumEndpointLimit)
		}
		return w.store.InsertEndpoint(ctx, e)
	})
	if err != nil {
		return domain.Endpoint{}, err
	}
	return e, nil
}

// Endpoint is GET /v1/webhooks/endpoints/{id}.
func (w *Webhooks) Endpoint(ctx context.Context, clientID string, id uuid.UUID) (domain.Endpoint, error) {
	e, ok, err := w.store.FindEndpoint(ctx, clientID, id, false)
	if err != nil {
		return domain.Endpoint{}, err
	}
	if !ok {
		return domain.Endpoint{}, domain.ErrEndpointNotFound()
	}
	return e, nil
}

// Endpoints is GET /v1/webhooks/endpoints: the platform's, a page.
func (w *Webhooks) Endpoints(ctx context.Context, clientID string, p page.Params) ([]domain.Endpoint, page.Meta, error) {
	return w.store.ListEndpoints(ctx, clientID, p)
}

// UpdateEndpoint is PATCH /v1/webhooks/endpoints/{id}. Disabling an
// endpoint fails its pending deliveries (POST .../recover resends them
// once it is enabled again); enabling it starts its 5 days of grace over.
func (w *Webhooks) UpdateEndpoint(ctx context.Context, clientID string, id uuid.UUID, p domain.EndpointPatch) (domain.Endpoint, error) {
	if p.URL != nil {
		if err := w.checkURL(ctx, *p.URL); err != nil {
			return domain.Endpoint{}, err
		}
	}
	if p.BusinessIDs != nil {
		if err := w.checkBusinesses(ctx, clientID, *p.BusinessIDs); err != nil {
			return domain.Endpoint{}, err
		}
	}
	var out domain.Endpoint
	err := w.uow.Do(ctx, func(ctx context.Context) error {
		e, ok, err := w.store.FindEndpoint(ctx, clientID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return domain.ErrEndpointNotFound()
		}
		now := w.now()
		next, vs := p.Apply(e, now)
		if err := domain.Violations(vs); err != nil {
			return err
		}
		if err := w.store.UpdateEndpoint(ctx, next); err != nil {
			return err
		}
		if next.Disabled && !e.Disabled {
			if _, err := w.store.FailPending(ctx, next.ID, "the endpoint was disabled", now); err != nil {
				return err
			}
		}
		out = next
		return nil
	})
	return out, err
}

// DeleteEndpoint is DELETE /v1/webhooks/endpoints/{id}: the endpoint,
// its deliveries and their attempts.
func (w *Webhooks) DeleteEndpoint(ctx context.Context, clientID string, id uuid.UUID) error {
	ok, err := w.store.DeleteEndpoint(ctx, clientID, id)
	if err != nil {
		return err
	}
	if !ok {
		return domain.ErrEndpointNotFound()
	}
	return nil
}

// RotateSecret is POST /v1/webhooks/endpoints/{id}/rotate-secret: a new
// secret signs from now on, the old one as well for 24 hours.
func (w *Webhooks) RotateSecret(ctx context.Context, clientID string, id uuid.UUID) (domain.Endpoint, error) {
	secret, err := webhooksig.NewSecret()
	if err != nil {
		return domain.Endpoint{}, err
	}
	var out domain.Endpoint
	err = w.uow.Do(ctx, func(ctx context.Context) error {
		e, ok, err := w.store.FindEndpoint(ctx, clientID, id, true)
		if err != nil {
			return err
		}
		if !ok {
			return domain.ErrEndpointNotFound()
		}
		out = e.Rotate(secret, w.now())
		return w.store.UpdateEndpoint(ctx, out)
	})
	return out, err
}

// TestEndpoint is POST /v1/webhooks/endpoints/{id}/test: a Webhook.test
// event to that endpoint only (it need not subscribe to it), delivered
// and retried like any other; the answer is its delivery.
func (w *Webhooks) TestEndpoint(ctx context.Context, clientID string, id uuid.UUID) (domain.Delivery, error) {
	var out domain.Delivery
	err := w.uow.Do(ctx, func(ctx context.Context) error {
		e, ok, err := w.store.FindEndpoint(ctx, clientID, id, false)
		if err != nil {
			return err
		}
		if !ok {
			return domain.ErrEndpointNotFound()
		}
		if e.Disabled {
			return apperr.New(apperr.Conflict, "the endpoint is disabled: enable it (PATCH disabled=false) to test it").
				WithEnum(domain.EnumEndpointDisabled)
		}
		now := w.now()
		ev := domain.Event{ID: newID(), Type: domain.TypeWebhookTest, CreatedAt: now, Data: domain.EventData{EntityID: e.ID.String()}}
		m, err := message(clientID, ev)
		if err != nil {
			return err
		}
		if _, err := w.store.InsertMessage(ctx, m); err != nil {
			return err
		}
		if err := w.store.Enqueue(ctx, m, []domain.Endpoint{e}, now); err != nil {
			return err
		}
		d, ok, err := w.store.DeliveryOfMessage(ctx, e.ID, m.ID)
		if err != nil {
			return err
		}
		if ok {
			out = d
			return nil
		}
		return fmt.Errorf("test delivery of %s not found after enqueueing it", e.ID)
	})
	return out, err
}

// Deliveries is GET /v1/webhooks/endpoints/{id}/deliveries: newest first,
// each with its recent attempts.
func (w *Webhooks) Deliveries(ctx context.Context, clientID string, endpointID uuid.UUID, f DeliveryFilter, p page.Params) ([]domain.Delivery, page.Meta, error) {
	if _, err := w.Endpoint(ctx, clientID, endpointID); err != nil {
		return nil, page.Meta{}, err
	}
	return w.store.ListDeliveries(ctx, endpointID, f, p)
}

// ResendDelivery is POST .../deliveries/{id}/resend: the delivery goes
// again at once (same webhook-id), with a fresh series of attempts,
// whatever its status.
func (w *Webhooks) ResendDelivery(ctx context.Context, clientID string, endpointID, id uuid.UUID) (domain.Delivery, error) {
	var out domain.Delivery
	err := w.uow.Do(ctx, func(ctx context.Context) error {
		e, err := w.Endpoint(ctx, clientID, endpointID)
		if err != nil {
			return err
		}
		if e.Disabled {
			return apperr.New(apperr.Conflict, "the endpoint is disabled: enable it (PATCH disabled=false) first").
				WithEnum(domain.EnumEndpointDisabled)
		}
		n, err := w.store.Resend(ctx, endpointID, []uuid.UUID{id}, w.now())
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.ErrDeliveryNotFound()
		}
		d, ok, err := w.store.FindDelivery(ctx, endpointID, id)
		if err != nil {
			return err
		}
		if !ok {
			return domain.ErrDeliveryNotFound()
		}
		out = d
		return nil
	})
	return out, err
}

// Recover is POST /v1/webhooks/endpoints/{id}/recover?since=: every
// delivery of the endpoint that failed since since goes again.
func (w *Webhooks) Recover(ctx context.Context, clientID string, endpointID uuid.UUID, since time.Time) (int, error) {
	now := w.now()
	if since.After(now) {
		return 0, apperr.Field("since", "is in the future").WithEnum(domain.EnumInvalidParameters)
	}
	var n int
	err := w.uow.Do(ctx, func(ctx context.Context) error {
		e, err := w.Endpoint(ctx, clientID, endpointID)
		if err != nil {
			return err
		}
		if e.Disabled {
			return apperr.New(apperr.Conflict, "the endpoint is disabled: enable it (PATCH disabled=false) first").
				WithEnum(domain.EnumEndpointDisabled)
		}
		n, err = w.store.ResendFailedSince(ctx, endpointID, since, now)
		return err
	})
	return n, err
}

// RefusedURL is err (a URL guard's refusal) matched by ErrURLRefused,
// with err's message.
func RefusedURL(err error) error { return refusedURL{err} }

type refusedURL struct{ err error }

func (r refusedURL) Error() string   { return r.err.Error() }
func (r refusedURL) Unwrap() []error { return []error{r.err, ErrURLRefused} }
