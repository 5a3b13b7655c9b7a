package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// RetainFinished is how long delivered and failed deliveries (and their
// attempts) are kept.
const RetainFinished = 30 * 24 * time.Hour

// RetainParked is how long the changes of a business the service has not
// heard of are kept waiting for it.
const RetainParked = 7 * 24 * time.Hour

// message is event ev of platform clientID as sent.
func message(clientID string, ev domain.Event) (domain.Message, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return domain.Message{}, fmt.Errorf("encode %s event: %w", ev.Type, err)
	}
	return domain.Message{ID: ev.ID, ClientID: clientID, BusinessID: ev.BusinessID, Type: ev.Type, Body: body, CreatedAt: ev.CreatedAt}, nil
}

// Apply turns the changes one domain event (id source) made into webhook
// events and fans them out to the endpoints that subscribe to them, in
// the transaction ctx carries (the consumer's, which also records the
// domain event as applied). A change of a business the service has not
// heard of yet waits for it (Park).
func (w *Webhooks) Apply(ctx context.Context, source uuid.UUID, changes []domain.Change) error {
	businesses := map[uuid.UUID]*Business{}
	for _, group := range groupChanges(changes) {
		first := group[0]
		var states map[string]domain.EntityState
		if first.Entity != "" {
			ids := make([]string, len(group))
			for i, c := range group {
				ids[i] = c.EntityID
			}
			var err error
			if states, err = w.store.EntityStates(ctx, first.BusinessID, first.Entity, ids); err != nil {
				return err
			}
		}
		if states == nil {
			states = map[string]domain.EntityState{}
		}
		changed := map[string]domain.EntityState{}
		for _, c := range group {
			var prev *domain.EntityState
			if s, ok := states[c.EntityID]; ok {
				prev = &s
			}
			typ, send, next := domain.Decide(prev, c)
			if c.Entity != "" {
				states[c.EntityID] = next
				changed[c.EntityID] = next
			}
			if !send {
				continue
			}
			key := c.Key
			if key == "" {
				key = c.Entity + "/" + c.EntityID
			}
			bid := c.BusinessID
			ev := domain.Event{ID: domain.EventID(source, key), Type: typ, BusinessID: &bid, CreatedAt: c.At.UTC().Truncate(time.Microsecond),
				Data: domain.EventData{EntityID: c.EntityID, EntityExternalID: c.ExternalID}}
			b, ok := businesses[bid]
			if !ok {
				found, known, err := w.store.FindBusiness(ctx, bid)
				if err != nil {
					return err
				}
				if known {
					b = &found
				}
				businesses[bid] = b
			}
			if b == nil {
				if err := w.store.Park(ctx, bid, []domain.Event{ev}); err != nil {
					return err
				}
				continue
			}
			ev.BusinessExternalID = b.ExternalID
			if err := w.fanOut(ctx, b.ClientID, ev); err != nil {
				return err
			}
		}
		if len(changed) > 0 {
			if err := w.store.SaveEntityStates(ctx, first.BusinessID, first.Entity, changed); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupChanges splits changes into runs of one business and entity, in
// order.
func groupChanges(cs []domain.Change) [][]domain.Change {
	var out [][]domain.Change
	for i, c := range cs {
		if i > 0 && c.BusinessID == cs[i-1].BusinessID && c.Entity == cs[i-1].Entity {
			out[len(out)-1] = append(out[len(out)-1], c)
			continue
		}
		out = append(out, []domain.Change{c})
	}
	return out
}

// BusinessKnown fans out what waited for business bid, now that the
// service has heard of it (the consumer's transaction, after the
// business's own change was applied).
func (w *Webhooks) BusinessKnown(ctx context.Context, bid uuid.UUID) error {
	parked, err := w.store.Unpark(ctx, bid)
	if err != nil || len(parked) == 0 {
		return err
	}
	b, ok, err := w.store.FindBusiness(ctx, bid)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("business %s unparked but not found", bid)
	}
	for _, ev := range parked {
		ev.BusinessExternalID = b.ExternalID
		if err := w.fanOut(ctx, b.ClientID, ev); err != nil {
			return err
		}
	}
	return nil
}

// fanOut stores event ev of platform clientID once and a delivery of it
// to each endpoint that subscribes to it (nothing when none does).
func (w *Webhooks) fanOut(ctx context.Context, clientID string, ev domain.Event) error {
	eps, err := w.store.SubscribedEndpoints(ctx, clientID, ev.Type, ev.BusinessID)
	if err != nil || len(eps) == 0 {
		return err
	}
	m, err := message(clientID, ev)
	if err != nil {
		return err
	}
	inserted, err := w.store.InsertMessage(ctx, m)
	if err != nil || !inserted {
		return err
	}
	return w.store.Enqueue(ctx, m, eps, w.now())
}

// Purge deletes what is past its retention: finished deliveries and their
// messages, changes of businesses never heard of.
func (w *Webhooks) Purge(ctx context.Context) (int, error) {
	now := w.now()
	return w.store.Purge(ctx, now.Add(-RetainFinished), now.Add(-RetainParked))
}
