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

// Sourced is the changes one domain event (its id: Source) made.
type Sourced struct {
	Source  uuid.UUID
	Changes []domain.Change
}

// Apply is ApplyBatch of one domain event's changes.
func (w *Webhooks) Apply(ctx context.Context, source uuid.UUID, changes []domain.Change) error {
	return w.ApplyBatch(ctx, []Sourced{{Source: source, Changes: changes}})
}

// ApplyBatch turns the changes of domain events (in the order they
// happened) into webhook events and fans them out to the endpoints that
// subscribe to them, in the transaction ctx carries (the consumer's,
// which also records the domain events as applied), with a few
// statements for the whole batch: the entities' states read and written
// once, the businesses and endpoints read once, the messages and
// deliveries written once. A change of a business the service has not
// heard of yet waits for it (Park).
func (w *Webhooks) ApplyBatch(ctx context.Context, batch []Sourced) error {
	var keys []domain.EntityKey
	seen := map[domain.EntityKey]bool{}
	for _, b := range batch {
		for _, c := range b.Changes {
			if k := c.EntityKey(); c.Entity != "" && !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	states, err := w.store.EntityStates(ctx, keys)
	if err != nil {
		return err
	}
	changed := map[domain.EntityKey]domain.EntityState{}
	var out []outgoing
	for _, b := range batch {
		for _, c := range b.Changes {
			k := c.EntityKey()
			var prev *domain.EntityState
			if st, ok := states[k]; ok {
				prev = &st
			}
			typ, send, next := domain.Decide(prev, c)
			if c.Entity != "" {
				states[k], changed[k] = next, next
			}
			if !send {
				continue
			}
			key := c.Key
			if key == "" {
				key = c.Entity + "/" + c.EntityID
			}
			bid := c.BusinessID
			out = append(out, outgoing{ev: domain.Event{ID: domain.EventID(b.Source, key), Type: typ, BusinessID: &bid,
				CreatedAt: c.At.UTC().Truncate(time.Microsecond), Data: domain.EventData{EntityID: c.EntityID, EntityExternalID: c.ExternalID}}})
		}
	}
	if err := w.store.SaveEntityStates(ctx, changed); err != nil {
		return err
	}
	return w.fanOut(ctx, out)
}

// outgoing is a webhook event to fan out: of the platform owning its
// business, or (an event about the platform's endpoints) of clientID.
type outgoing struct {
	clientID string
	ev       domain.Event
}

// BusinessKnown fans out what waited for business bid, now that the
// service has heard of it (the consumer's transaction, after the
// business's own change was applied).
func (w *Webhooks) BusinessKnown(ctx context.Context, bid uuid.UUID) error {
	parked, err := w.store.Unpark(ctx, bid)
	if err != nil || len(parked) == 0 {
		return err
	}
	out := make([]outgoing, len(parked))
	for i, ev := range parked {
		out[i] = outgoing{ev: ev}
	}
	return w.fanOut(ctx, out)
}

// fanOut stores each event once and a delivery of it to each endpoint
// that subscribes to it (nothing when none does), in order; the events
// of businesses not known yet are parked.
func (w *Webhooks) fanOut(ctx context.Context, out []outgoing) error {
	if len(out) == 0 {
		return nil
	}
	var bids []uuid.UUID
	seenB := map[uuid.UUID]bool{}
	for _, o := range out {
		if o.ev.BusinessID != nil && !seenB[*o.ev.BusinessID] {
			seenB[*o.ev.BusinessID] = true
			bids = append(bids, *o.ev.BusinessID)
		}
	}
	businesses, err := w.store.FindBusinesses(ctx, bids)
	if err != nil {
		return err
	}
	var parked []domain.Event
	var clients []string
	seenC := map[string]bool{}
	for i := range out {
		if out[i].ev.BusinessID != nil {
			b, ok := businesses[*out[i].ev.BusinessID]
			if !ok {
				parked = append(parked, out[i].ev)
				continue
			}
			out[i].clientID, out[i].ev.BusinessExternalID = b.ClientID, b.ExternalID
		}
		if out[i].clientID != "" && !seenC[out[i].clientID] {
			seenC[out[i].clientID] = true
			clients = append(clients, out[i].clientID)
		}
	}
	if err := w.store.Park(ctx, parked); err != nil {
		return err
	}
	endpoints, err := w.store.ClientEndpoints(ctx, clients)
	if err != nil {
		return err
	}
	var fans []Fan
	for _, o := range out {
		if o.ev.BusinessID != nil && businesses[*o.ev.BusinessID].ClientID == "" {
			continue // parked
		}
		var eps []domain.Endpoint
		for _, e := range endpoints[o.clientID] {
			if e.Subscribes(o.ev.Type, o.ev.BusinessID) {
				eps = append(eps, e)
			}
		}
		if len(eps) == 0 {
			continue
		}
		m, err := message(o.clientID, o.ev)
		if err != nil {
			return err
		}
		fans = append(fans, Fan{Message: m, Endpoints: eps})
	}
	return w.store.EnqueueAll(ctx, fans, w.now())
}

// Purge deletes what is past its retention: finished deliveries and their
// messages, changes of businesses never heard of.
func (w *Webhooks) Purge(ctx context.Context) (int, error) {
	now := w.now()
	return w.store.Purge(ctx, now.Add(-RetainFinished), now.Add(-RetainParked))
}
