package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/pkg/page/pagebun"
	"github.com/acctsuite/acct/services/webhooks/internal/app"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

func pgArray(v any) any { return pgdialect.Array(v) }

// EntityStates are the remembered states of the entities keys names.
func (s *Store) EntityStates(ctx context.Context, keys []domain.EntityKey) (map[domain.EntityKey]domain.EntityState, error) {
	out := map[domain.EntityKey]domain.EntityState{}
	if len(keys) == 0 {
		return out, nil
	}
	bids, entities, ids := make([]uuid.UUID, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		bids[i], entities[i], ids[i] = k.BusinessID, k.Entity, k.EntityID
	}
	var rows []struct {
		BusinessID uuid.UUID `bun:"business_id"`
		Entity     string    `bun:"entity"`
		EntityID   string    `bun:"entity_id"`
		Version    int64     `bun:"version"`
		Archived   bool      `bun:"archived"`
	}
	if err := s.conn(ctx).NewRaw(`SELECT s.business_id, s.entity, s.entity_id, s.version, s.archived
		FROM unnest(?::uuid[], ?::text[], ?::text[]) AS k(business_id, entity, entity_id)
		JOIN entity_states s ON s.business_id = k.business_id AND s.entity = k.entity AND s.entity_id = k.entity_id`,
		pgArray(bids), pgArray(entities), pgArray(ids)).Scan(ctx, &rows); err != nil {
		return nil, wrap("entity states", err)
	}
	for _, r := range rows {
		out[domain.EntityKey{BusinessID: r.BusinessID, Entity: r.Entity, EntityID: r.EntityID}] = domain.EntityState{Version: r.Version, Archived: r.Archived}
	}
	return out, nil
}

// SaveEntityStates upserts states.
func (s *Store) SaveEntityStates(ctx context.Context, states map[domain.EntityKey]domain.EntityState) error {
	if len(states) == 0 {
		return nil
	}
	n := len(states)
	bids, entities, ids := make([]uuid.UUID, 0, n), make([]string, 0, n), make([]string, 0, n)
	versions, archived := make([]int64, 0, n), make([]bool, 0, n)
	for k, st := range states {
		bids, entities, ids = append(bids, k.BusinessID), append(entities, k.Entity), append(ids, k.EntityID)
		versions, archived = append(versions, st.Version), append(archived, st.Archived)
	}
	_, err := s.conn(ctx).NewRaw(`INSERT INTO entity_states (business_id, entity, entity_id, version, archived)
		SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::boolean[])
		ON CONFLICT (business_id, entity, entity_id) DO UPDATE SET version = EXCLUDED.version, archived = EXCLUDED.archived`,
		pgArray(bids), pgArray(entities), pgArray(ids), pgArray(versions), pgArray(archived)).Exec(ctx)
	return wrap("save entity states", err)
}

// Park keeps events (of businesses not known yet) until their business
// is, in order.
func (s *Store) Park(ctx context.Context, evs []domain.Event) error {
	if len(evs) == 0 {
		return nil
	}
	bids, bodies := make([]uuid.UUID, len(evs)), make([]string, len(evs))
	for i, ev := range evs {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		bids[i], bodies[i] = *ev.BusinessID, string(b)
	}
	_, err := s.conn(ctx).NewRaw(`INSERT INTO parked_events (business_id, event)
		SELECT t.business_id, t.event::jsonb FROM unnest(?::uuid[], ?::text[]) WITH ORDINALITY AS t(business_id, event, n) ORDER BY t.n`,
		pgArray(bids), pgArray(bodies)).Exec(ctx)
	return wrap("park events", err)
}

// Unpark takes the events parked for business bid, oldest first.
func (s *Store) Unpark(ctx context.Context, bid uuid.UUID) ([]domain.Event, error) {
	var raw []string
	if err := s.conn(ctx).NewRaw(`WITH d AS (DELETE FROM parked_events WHERE business_id = ? RETURNING seq, event)
		SELECT event::text FROM d ORDER BY seq`, bid).Scan(ctx, &raw); err != nil {
		return nil, wrap("unpark events", err)
	}
	out := make([]domain.Event, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal([]byte(r), &out[i]); err != nil {
			return nil, fmt.Errorf("parked event: %w", err)
		}
	}
	return out, nil
}

// InsertMessage stores m once.
func (s *Store) InsertMessage(ctx context.Context, m domain.Message) (bool, error) {
	res, err := s.conn(ctx).NewRaw(`INSERT INTO messages (id, client_id, business_id, type, body, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, m.ID, m.ClientID, m.BusinessID, m.Type, m.Body, m.CreatedAt).Exec(ctx)
	if err != nil {
		return false, wrap("insert message", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// laneOf is the lane of a delivery of message m to endpoint e: the
// business for an ordered endpoint; for one with ordering none, the next
// of the store's spread lanes of e in turn, so that its deliveries go
// spread lanes at a time, each lane's a run per claim (a delivery to be
// retried leaves its lane for one of its own: retryLane).
func (s *Store) laneOf(e domain.Endpoint, m domain.Message) string {
	if e.Ordering == domain.OrderingNone {
		n, _ := s.turns.LoadOrStore(e.ID, new(atomic.Uint64))
		return unorderedPrefix + strconv.FormatUint((n.(*atomic.Uint64).Add(1)-1)%uint64(s.spread), 10)
	}
	if m.BusinessID == nil {
		return "platform"
	}
	return m.BusinessID.String()
}

// unorderedPrefix starts the shared lanes of endpoints with ordering
// none; a delivery of theirs that is to be retried moves to a lane of its
// own (retryLane), so that it holds up no other delivery.
const unorderedPrefix = "n:"

// retryLane is the SQL of the own lane of the delivery row alias names.
func retryLane(alias string) string { return "'d:' || " + alias + ".id::text" }

// SpreadUnordered sets how many lanes the deliveries to an endpoint with
// ordering none are spread over (at least 1; the default 8): as many as
// may be sent to one endpoint at once. Set it before the store is used.
func (s *Store) SpreadUnordered(n int) { s.spread = max(n, 1) }

// Enqueue adds a pending delivery of m to each endpoint, due now, its
// lane created when it has none, and notifies the dispatchers (on
// commit).
func (s *Store) Enqueue(ctx context.Context, m domain.Message, eps []domain.Endpoint, now time.Time) error {
	if len(eps) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(eps))
	endpoints := make([]uuid.UUID, len(eps))
	lanes := make([]string, len(eps))
	for i, e := range eps {
		ids[i] = uuid.Must(uuid.NewV7())
		endpoints[i], lanes[i] = e.ID, s.laneOf(e, m)
	}
	db := s.conn(ctx)
	if err := lockLanes(ctx, db, endpoints, lanes); err != nil {
		return err
	}
	if _, err := db.NewRaw(`INSERT INTO deliveries (id, endpoint_id, message_id, lane, event_type, business_id, status, next_attempt_at, created_at, updated_at)
		SELECT t.id, t.endpoint_id, ?, t.lane, ?, ?, 'pending', ?, ?, ?
		FROM unnest(?::uuid[], ?::uuid[], ?::text[]) AS t(id, endpoint_id, lane)
		ON CONFLICT (endpoint_id, message_id) DO NOTHING`,
		m.ID, m.Type, m.BusinessID, now, now, now, pgArray(ids), pgArray(endpoints), pgArray(lanes)).Exec(ctx); err != nil {
		return wrap("enqueue deliveries", err)
	}
	if err := addLanes(ctx, db, endpoints, lanes, now); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, "SELECT pg_notify(?, '')", NotifyChannel)
	return wrap("notify", err)
}

// lockLanes takes, until the transaction ends, a lock per lane of
// endpoints[i]/lanes[i], in one order: a lane is never moved on (its head
// looked for, the lane dropped when none is pending) while a transaction
// that adds a delivery to it is uncommitted, so that delivery is seen (a
// statement after the lock sees what committed before it).
func lockLanes(ctx context.Context, db bun.IDB, endpoints []uuid.UUID, lanes []string) error {
	keys := make([]string, len(lanes))
	for i := range lanes {
		keys[i] = endpoints[i].String() + "/" + lanes[i]
	}
	_, err := db.NewRaw(lockLaneKeys, pgArray(keys)).Exec(ctx)
	return wrap("lock lanes", err)
}

// lockLaneKeys locks the lanes named by its parameter's keys
// ("<endpoint id>/<lane>"), in one order (no two enqueues deadlock).
const lockLaneKeys = `SELECT pg_advisory_xact_lock(s.k) FROM (
	SELECT DISTINCT hashtextextended('webhooks/lane/' || x, 0) AS k FROM unnest(?::text[]) AS x ORDER BY 1) s`

// addLanes creates the lanes endpoints[i]/lanes[i] that do not exist,
// due at now; the caller holds their locks (lockLanes). A lane that
// exists is left as it is without touching its row: no wait for a claim
// or a record updating it (it cannot be dropped while the lock is held,
// and one dropped before the lock was taken is not seen any more).
func addLanes(ctx context.Context, db bun.IDB, endpoints []uuid.UUID, lanes []string, now time.Time) error {
	_, err := db.NewRaw(`INSERT INTO lanes (endpoint_id, lane, due_at)
		SELECT DISTINCT t.endpoint_id, t.lane, ?::timestamptz FROM unnest(?::uuid[], ?::text[]) AS t(endpoint_id, lane)
		WHERE NOT EXISTS (SELECT 1 FROM lanes l WHERE l.endpoint_id = t.endpoint_id AND l.lane = t.lane)
		ON CONFLICT (endpoint_id, lane) DO NOTHING`, now, pgArray(endpoints), pgArray(lanes)).Exec(ctx)
	return wrap("enqueue lanes", err)
}

// laneKey names a lane: its endpoint and key.
type laneKey struct {
	endpoint uuid.UUID
	lane     string
}

// tryLockLanes is a statement's tail that takes, without waiting, the
// lock (lockLanes') of each lane of the arrays given as its parameters
// (endpoint ids, lane keys) that it can, until the transaction ends, and
// returns those it got. A lane whose lock is held is having a delivery
// enqueued by a transaction not committed yet.
const tryLockLanes = `SELECT s.endpoint_id, s.lane FROM (
		SELECT DISTINCT t.endpoint_id, t.lane, hashtextextended('webhooks/lane/' || t.endpoint_id::text || '/' || t.lane, 0) AS k
		FROM unnest(?::uuid[], ?::text[]) AS t(endpoint_id, lane) ORDER BY k) s
	WHERE pg_try_advisory_xact_lock(s.k)`

// lockedLane is a row of tryLockLanes.
type lockedLane struct {
	EndpointID uuid.UUID `bun:"endpoint_id"`
	Lane       string    `bun:"lane"`
}

// moveLanesOn refreshes lanes endpoints[i]/lanes[i], which the
// transaction leased, after tryLockLanes got the locks of got: a lane
// whose lock it holds is refreshed (refreshLanes: dropped when it has no
// pending delivery); one whose lock an uncommitted enqueue holds is
// never dropped (the delivery coming would be left without its lane): it
// is released due when its head is, or, with no head visible yet, at
// recheck. Whether any lane was left so.
func moveLanesOn(ctx context.Context, db bun.IDB, endpoints []uuid.UUID, lanes []string, got []lockedLane, now, recheck time.Time) (bool, error) {
	held := make(map[laneKey]bool, len(got))
	for _, g := range got {
		held[laneKey{g.EndpointID, g.Lane}] = true
	}
	locked := make([]bool, len(lanes))
	busy := false
	for i := range lanes {
		locked[i] = held[laneKey{endpoints[i], lanes[i]}]
		busy = busy || !locked[i]
	}
	return busy, refreshLanes(ctx, db, endpoints, lanes, locked, now, recheck)
}

// same is n copies of id.
func same(id uuid.UUID, n int) []uuid.UUID {
	out := make([]uuid.UUID, n)
	for i := range out {
		out[i] = id
	}
	return out
}

// EnqueueAll stores each fan's message once and, for the messages new
// here, a pending delivery to each of its endpoints, due now, in order
// (their seq), their lanes created when they have none; the dispatchers
// are notified on commit. Two statements for the whole batch: the
// messages with the lanes' locks (lockLanes: every lane the batch may
// add to, taken in one order), then the deliveries, the missing lanes
// and the notification (a statement after the locks sees every lane
// dropped before them).
func (s *Store) EnqueueAll(ctx context.Context, fans []app.Fan, now time.Time) error {
	if len(fans) == 0 {
		return nil
	}
	db := s.conn(ctx)
	ids, clients, bids, types, bodies, times := make([]uuid.UUID, len(fans)), make([]string, len(fans)), make([]string, len(fans)),
		make([]string, len(fans)), make([]string, len(fans)), make([]time.Time, len(fans))
	// Each delivery's lane is chosen here (an unordered endpoint's in
	// turn), before the lanes' locks are taken.
	var keys []string
	dlanes := make([][]string, len(fans))
	for i, f := range fans {
		m := f.Message
		ids[i], clients[i], types[i], bodies[i], times[i] = m.ID, m.ClientID, m.Type, string(m.Body), m.CreatedAt
		if m.BusinessID != nil {
			bids[i] = m.BusinessID.String()
		}
		dlanes[i] = make([]string, len(f.Endpoints))
		for j, e := range f.Endpoints {
			dlanes[i][j] = s.laneOf(e, m)
			keys = append(keys, e.ID.String()+"/"+dlanes[i][j])
		}
	}
	var res struct {
		Inserted []uuid.UUID `bun:"inserted,array"`
		Locked   int         `bun:"locked"`
	}
	if err := db.NewRaw(`WITH m AS (
			INSERT INTO messages (id, client_id, business_id, type, body, created_at)
			SELECT t.id, t.client_id, NULLIF(t.business_id, '')::uuid, t.type, convert_to(t.body, 'UTF8'), t.created_at
			FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[]) AS t(id, client_id, business_id, type, body, created_at)
			ON CONFLICT (id) DO NOTHING RETURNING id
		), l AS (`+lockLaneKeys+`)
		SELECT array(SELECT id FROM m) AS inserted, (SELECT count(*) FROM l) AS locked`,
		pgArray(ids), pgArray(clients), pgArray(bids), pgArray(types), pgArray(bodies), pgArray(times), pgArray(keys)).Scan(ctx, &res); err != nil {
		return wrap("insert messages", err)
	}
	fresh := make(map[uuid.UUID]bool, len(res.Inserted))
	for _, id := range res.Inserted {
		fresh[id] = true
	}
	var ids2, endpoints, mids []uuid.UUID
	var lanes, dtypes, dbids []string
	for i, f := range fans {
		if !fresh[f.Message.ID] {
			continue // applied before: its deliveries exist
		}
		for j, e := range f.Endpoints {
			ids2, endpoints, mids = append(ids2, uuid.Must(uuid.NewV7())), append(endpoints, e.ID), append(mids, f.Message.ID)
			lanes, dtypes, dbids = append(lanes, dlanes[i][j]), append(dtypes, f.Message.Type), append(dbids, bids[i])
		}
	}
	if len(ids2) == 0 {
		return nil
	}
	_, err := db.NewRaw(`WITH d AS (
			INSERT INTO deliveries (id, endpoint_id, message_id, lane, event_type, business_id, status, next_attempt_at, created_at, updated_at)
			SELECT t.id, t.endpoint_id, t.message_id, t.lane, t.event_type, NULLIF(t.business_id, '')::uuid, 'pending', ?0, ?0, ?0
			FROM unnest(?1::uuid[], ?2::uuid[], ?3::uuid[], ?4::text[], ?5::text[], ?6::text[]) WITH ORDINALITY
				AS t(id, endpoint_id, message_id, lane, event_type, business_id, n)
			ORDER BY t.n
			ON CONFLICT (endpoint_id, message_id) DO NOTHING
		), ln AS (
			INSERT INTO lanes (endpoint_id, lane, due_at)
			SELECT DISTINCT t.endpoint_id, t.lane, ?0::timestamptz FROM unnest(?2::uuid[], ?4::text[]) AS t(endpoint_id, lane)
			WHERE NOT EXISTS (SELECT 1 FROM lanes l WHERE l.endpoint_id = t.endpoint_id AND l.lane = t.lane)
			ON CONFLICT (endpoint_id, lane) DO NOTHING
		)
		SELECT pg_notify(?7, '')`,
		now, pgArray(ids2), pgArray(endpoints), pgArray(mids), pgArray(lanes), pgArray(dtypes), pgArray(dbids), NotifyChannel).Exec(ctx)
	return wrap("enqueue deliveries", err)
}

// refreshLanes sets each lane endpoints[i]/lanes[i] due when its head
// delivery is (its next attempt), unleased. A lane without a pending
// delivery is dropped when locked[i] (the caller holds its lock), else
// kept, due at recheck.
func refreshLanes(ctx context.Context, db bun.IDB, endpoints []uuid.UUID, lanes []string, locked []bool, now, recheck time.Time) error {
	if _, err := db.NewRaw(`WITH k AS (SELECT DISTINCT endpoint_id, lane, locked FROM unnest(?::uuid[], ?::text[], ?::boolean[]) AS k(endpoint_id, lane, locked)),
		h AS (SELECT k.endpoint_id, k.lane, d.next_attempt_at FROM k CROSS JOIN LATERAL (
			SELECT coalesce(p.next_attempt_at, ?::timestamptz) AS next_attempt_at FROM pending p
			WHERE p.endpoint_id = k.endpoint_id AND p.lane = k.lane ORDER BY p.seq LIMIT 1) d),
		del AS (DELETE FROM lanes l USING k WHERE k.locked AND l.endpoint_id = k.endpoint_id AND l.lane = k.lane
			AND NOT EXISTS (SELECT 1 FROM h WHERE h.endpoint_id = k.endpoint_id AND h.lane = k.lane))
		INSERT INTO lanes (endpoint_id, lane, due_at, lease_until)
		SELECT k.endpoint_id, k.lane, coalesce(h.next_attempt_at, ?::timestamptz), NULL
		FROM k LEFT JOIN h ON h.endpoint_id = k.endpoint_id AND h.lane = k.lane
		WHERE h.lane IS NOT NULL OR NOT k.locked
		ON CONFLICT (endpoint_id, lane) DO UPDATE SET due_at = EXCLUDED.due_at, lease_until = NULL`,
		pgArray(endpoints), pgArray(lanes), pgArray(locked), now, recheck).Exec(ctx); err != nil {
		return wrap("refresh lanes", err)
	}
	return nil
}

type workRow struct {
	EndpointID    uuid.UUID  `bun:"endpoint_id"`
	Version       string     `bun:"version"`
	Lane          string     `bun:"lane"`
	ID            *uuid.UUID `bun:"id"`
	MessageID     uuid.UUID  `bun:"message_id"`
	EventType     string     `bun:"event_type"`
	BusinessID    *uuid.UUID `bun:"business_id"`
	Attempts      int        `bun:"attempts"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
	CreatedAt     time.Time  `bun:"created_at"`
	Body          []byte     `bun:"body"`
}

// Claim leases up to n due lanes of enabled endpoints until leaseUntil
// (at most perEndpoint leased per endpoint, counting other replicas'
// leases) and returns their runs (up to run pending deliveries of each,
// in order: the head, then those after it that are due too), in one
// statement. Endpoints are
// visited each on its own, so a slow endpoint's backlog never hides
// another's due lanes. recheck: a claimed lane had no head yet but one
// is being enqueued; it is due again app.RecheckDelay from now.
func (s *Store) Claim(ctx context.Context, now, leaseUntil time.Time, n, perEndpoint, run int) ([]app.Work, bool, error) {
	run = max(run, 1)
	var rows []workRow
	if err := s.db.NewRaw(`WITH eps AS (
			SELECT e.id, ?2 - (SELECT count(*) FROM lanes b WHERE b.endpoint_id = e.id AND b.lease_until > ?0) AS free
			FROM endpoints e WHERE NOT e.disabled AND EXISTS (
				SELECT 1 FROM lanes l WHERE l.endpoint_id = e.id AND l.due_at <= ?0 AND (l.lease_until IS NULL OR l.lease_until <= ?0))
		), pick AS (
			SELECT x.endpoint_id, x.lane, x.due_at FROM eps CROSS JOIN LATERAL (
				SELECT l.endpoint_id, l.lane, l.due_at FROM lanes l
				WHERE l.endpoint_id = eps.id AND l.due_at <= ?0 AND (l.lease_until IS NULL OR l.lease_until <= ?0)
				ORDER BY l.due_at LIMIT greatest(eps.free, 0)) x
			ORDER BY x.due_at LIMIT ?3
		), locked AS (
			SELECT l.endpoint_id, l.lane FROM lanes l JOIN pick p ON p.endpoint_id = l.endpoint_id AND p.lane = l.lane
			WHERE l.due_at <= ?0 AND (l.lease_until IS NULL OR l.lease_until <= ?0)
			FOR UPDATE OF l SKIP LOCKED
		), claimed AS (
			UPDATE lanes l SET lease_until = ?1 FROM locked k WHERE l.endpoint_id = k.endpoint_id AND l.lane = k.lane
			RETURNING l.endpoint_id, l.lane
		)
		SELECT c.endpoint_id, e.xmin::text AS version, c.lane, d.delivery_id AS id, d.message_id, d.event_type, d.business_id, d.attempts,
			d.next_attempt_at, d.created_at, m.body
		FROM claimed c JOIN endpoints e ON e.id = c.endpoint_id
		LEFT JOIN LATERAL (
			SELECT * FROM pending p WHERE p.endpoint_id = c.endpoint_id AND p.lane = c.lane
			ORDER BY p.seq LIMIT ?4) d ON true
		LEFT JOIN messages m ON m.id = d.message_id
		ORDER BY c.endpoint_id, c.lane, d.seq`, now, leaseUntil, perEndpoint, n, run).Scan(ctx, &rows); err != nil {
		return nil, false, wrap("claim lanes", err)
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	// Lanes claimed without a pending head move on (dropped, or looked at
	// again soon when a delivery is being enqueued to them).
	var emptyE []uuid.UUID
	var emptyL []string
	versions := map[uuid.UUID]string{}
	for _, r := range rows {
		versions[r.EndpointID] = r.Version
		if r.ID == nil {
			emptyE, emptyL = append(emptyE, r.EndpointID), append(emptyL, r.Lane)
		}
	}
	recheck := false
	if len(emptyE) > 0 {
		if err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			var got []lockedLane
			if err := tx.NewRaw(tryLockLanes, pgArray(emptyE), pgArray(emptyL)).Scan(ctx, &got); err != nil {
				return wrap("try to lock lanes", err)
			}
			again, err := moveLanesOn(ctx, tx, emptyE, emptyL, got, now, now.Add(app.RecheckDelay))
			recheck = again
			return err
		}); err != nil {
			return nil, false, err
		}
	}
	endpoints, err := s.endpoints.get(ctx, s, versions)
	if err != nil {
		return nil, false, err
	}
	out := make([]app.Work, 0, len(rows))
	var lane app.Lane
	ended := false // the current lane's run ended
	for _, r := range rows {
		e, ok := endpoints[r.EndpointID]
		if r.ID == nil || !ok {
			continue
		}
		// After its head, a lane's run holds only what is due: it ends at
		// the first delivery that is not.
		if l := (app.Lane{EndpointID: r.EndpointID, Key: r.Lane}); l != lane {
			lane, ended = l, false
		} else if ended || (r.NextAttemptAt != nil && r.NextAttemptAt.After(now)) {
			ended = true
			continue
		}
		out = append(out, app.Work{
			Lane: app.Lane{EndpointID: r.EndpointID, Key: r.Lane}, Body: r.Body, Endpoint: e,
			Delivery: domain.Delivery{ID: *r.ID, EndpointID: r.EndpointID, MessageID: r.MessageID, EventType: r.EventType,
				BusinessID: r.BusinessID, Status: domain.StatusPending, Attempts: r.Attempts, NextAttemptAt: r.NextAttemptAt,
				CreatedAt: r.CreatedAt.UTC()},
		})
	}
	return out, recheck, nil
}

// recordRow is one attempt as RecordAll hands it to PostgreSQL.
type recordRow struct {
	EndpointID  uuid.UUID  `json:"endpoint_id"`
	Lane        string     `json:"lane"`
	DeliveryID  uuid.UUID  `json:"delivery_id"`
	Status      string     `json:"status"`
	ID          uuid.UUID  `json:"id"`
	Number      int        `json:"number"`
	AttemptedAt time.Time  `json:"attempted_at"`
	StatusCode  *int       `json:"status_code"`
	LatencyMS   int64      `json:"latency_ms"`
	Response    string     `json:"response"`
	Error       *string    `json:"error"`
	NextRetryAt *time.Time `json:"next_retry_at"`
}

// firstAttemptSet keeps a delivery's first attempt (t, numbered 1) in its
// own row, written by the update that records the outcome anyway: no
// attempts row, index entries and reference check for the deliveries that
// succeed at once. Later attempts go to attempts.
const firstAttemptSet = `first_attempt_id = CASE WHEN t.number = 1 THEN t.id ELSE d.first_attempt_id END,
	first_attempted_at = CASE WHEN t.number = 1 THEN t.attempted_at ELSE d.first_attempted_at END,
	first_status_code = CASE WHEN t.number = 1 THEN t.status_code ELSE d.first_status_code END,
	first_latency_ms = CASE WHEN t.number = 1 THEN t.latency_ms ELSE d.first_latency_ms END,
	first_response = CASE WHEN t.number = 1 THEN t.response ELSE d.first_response END,
	first_error = CASE WHEN t.number = 1 THEN t.error ELSE d.first_error END,
	first_next_retry_at = CASE WHEN t.number = 1 THEN t.next_retry_at ELSE d.first_next_retry_at END`

// RecordAll stores each record's attempt and its delivery's outcome (a
// delivery of a shared unordered lane that is to be retried moves to a
// lane of its own, due at its retry), then moves their lanes on (moveLanesOn: next head due when it is;
// none: the lane is dropped), never waiting for an enqueue to commit: a
// few statements for the whole batch. A delivery deleted or
// finished meanwhile (its endpoint disabled) gets no attempt, nor one
// whose attempts moved on since the claim (failed and resent while this
// attempt was under way: the new series starts from its own first
// attempt); its lane moves on all the same.
func (s *Store) RecordAll(ctx context.Context, recs []app.Recorded, now time.Time) error {
	if len(recs) == 0 {
		return nil
	}
	rows := make([]recordRow, len(recs))
	ids := make([]uuid.UUID, len(recs))
	// The lanes released: those of records that do not hold theirs.
	var endpoints []uuid.UUID
	var lanes []string
	for i, r := range recs {
		a := r.Attempt
		rows[i] = recordRow{EndpointID: r.Work.Lane.EndpointID, Lane: r.Work.Lane.Key, DeliveryID: r.Work.Delivery.ID, Status: r.Status,
			ID: a.ID, Number: a.Number, AttemptedAt: a.AttemptedAt, StatusCode: a.StatusCode, LatencyMS: a.LatencyMS,
			Response: a.Response, Error: a.Error, NextRetryAt: a.NextRetryAt}
		ids[i] = r.Work.Delivery.ID
		if !r.Holds {
			endpoints, lanes = append(endpoints, r.Work.Lane.EndpointID), append(lanes, r.Work.Lane.Key)
		}
	}
	batch, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// Not waiting for the commit to reach the disk: an attempt lost
		// with a crash is made again (the lease runs out), and deliveries
		// are at least once anyway. No sequential scans (below).
		if _, err := tx.ExecContext(ctx, "SELECT set_config('synchronous_commit', 'off', true), set_config('enable_seqscan', 'off', true)"); err != nil {
			return err
		}
		// The ids listed again: the deliveries are found by their key
		// whatever the statistics say, not by a scan joined to the batch
		// (sequential scans are off in this transaction). Measured behind
		// a backlog of 20,000 with statistics from before it: 12 ms for
		// 192 records by a sequential scan, 1 ms by key. No index covers
		// what the update changes, so it stays on the row's page (a
		// heap-only tuple); the pending and failures tables follow by
		// trigger.
		// One statement records the attempts and then tries the lanes'
		// locks.
		var got []lockedLane
		if err := tx.NewRaw(`WITH t AS MATERIALIZED (
				SELECT t.*, 'pending'::text AS pending FROM jsonb_to_recordset(?::jsonb) AS t(delivery_id uuid, status text, id uuid, number integer,
					attempted_at timestamptz, status_code integer, latency_ms bigint, response text, error text, next_retry_at timestamptz)
			), u AS (
				UPDATE deliveries d SET status = t.status, attempts = t.number, next_attempt_at = t.next_retry_at, updated_at = ?,
					lane = CASE WHEN t.status = 'pending' AND starts_with(d.lane, '`+unorderedPrefix+`') THEN `+retryLane("d")+` ELSE d.lane END,
					`+firstAttemptSet+`
				FROM t WHERE d.id = ANY(?::uuid[]) AND d.id = t.delivery_id AND d.status = t.pending AND d.attempts = t.number - 1
				RETURNING d.id, d.endpoint_id, d.lane, d.next_attempt_at, d.status
			), r AS (
				INSERT INTO lanes (endpoint_id, lane, due_at)
				SELECT u.endpoint_id, u.lane, u.next_attempt_at FROM u
				WHERE u.status = 'pending' AND u.lane = `+retryLane("u")+`
				ON CONFLICT (endpoint_id, lane) DO NOTHING
			), a AS (
				INSERT INTO attempts (id, delivery_id, number, attempted_at, status_code, latency_ms, response, error, next_retry_at)
				SELECT t.id, t.delivery_id, t.number, t.attempted_at, t.status_code, t.latency_ms, t.response, t.error, t.next_retry_at
				FROM t JOIN u ON u.id = t.delivery_id WHERE t.number > 1
			)
			`+tryLockLanes, string(batch), now, pgArray(ids), pgArray(endpoints), pgArray(lanes)).Scan(ctx, &got); err != nil {
			return wrap("record attempts", err)
		}
		if len(lanes) == 0 {
			return nil
		}
		// A lane whose next delivery is being enqueued is due at once: the
		// claim the recorder's write triggers looks at it again.
		_, err := moveLanesOn(ctx, tx, endpoints, lanes, got, now, now)
		return err
	})
}

// FailPending fails every pending delivery of the endpoint (an attempt
// saying reason on each) and drops its lanes.
func (s *Store) FailPending(ctx context.Context, endpointID uuid.UUID, reason string, now time.Time) (int, error) {
	db := s.conn(ctx)
	var n int
	if err := db.NewRaw(`WITH f AS (
			UPDATE deliveries d SET status = 'failed', next_attempt_at = NULL, updated_at = ?
			FROM pending p WHERE p.endpoint_id = ? AND d.id = p.delivery_id AND d.status = 'pending' RETURNING d.id, d.attempts
		), a AS (
			INSERT INTO attempts (id, delivery_id, number, attempted_at, latency_ms, error)
			SELECT gen_random_uuid(), f.id, f.attempts, ?, 0, ? FROM f
		)
		SELECT count(*) FROM f`, now, endpointID, now, reason).Scan(ctx, &n); err != nil {
		return 0, wrap("fail pending deliveries", err)
	}
	if _, err := db.NewRaw("DELETE FROM lanes WHERE endpoint_id = ?", endpointID).Exec(ctx); err != nil {
		return 0, wrap("drop lanes", err)
	}
	return n, nil
}

type deliveryRow struct {
	bun.BaseModel `bun:"table:deliveries,alias:d"`

	ID            uuid.UUID  `bun:"id,pk"`
	EndpointID    uuid.UUID  `bun:"endpoint_id"`
	MessageID     uuid.UUID  `bun:"message_id"`
	EventType     string     `bun:"event_type"`
	BusinessID    *uuid.UUID `bun:"business_id"`
	Status        string     `bun:"status"`
	Attempts      int        `bun:"attempts"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
	// The first attempt, kept in the row (firstAttemptSet); nil before it.
	FirstAttemptID   *uuid.UUID `bun:"first_attempt_id"`
	FirstAttemptedAt *time.Time `bun:"first_attempted_at"`
	FirstStatusCode  *int       `bun:"first_status_code"`
	FirstLatencyMS   *int64     `bun:"first_latency_ms"`
	FirstResponse    *string    `bun:"first_response"`
	FirstError       *string    `bun:"first_error"`
	FirstNextRetryAt *time.Time `bun:"first_next_retry_at"`
}

func (r deliveryRow) delivery() domain.Delivery {
	d := domain.Delivery{ID: r.ID, EndpointID: r.EndpointID, MessageID: r.MessageID, EventType: r.EventType, BusinessID: r.BusinessID,
		Status: r.Status, Attempts: r.Attempts, NextAttemptAt: r.NextAttemptAt, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		Recent: []domain.Attempt{}}
	if d.Status != domain.StatusPending {
		d.NextAttemptAt = nil
	}
	if r.FirstAttemptID != nil && r.FirstAttemptedAt != nil {
		a := domain.Attempt{ID: *r.FirstAttemptID, DeliveryID: r.ID, Number: 1, AttemptedAt: r.FirstAttemptedAt.UTC(),
			StatusCode: r.FirstStatusCode, Error: r.FirstError, NextRetryAt: r.FirstNextRetryAt}
		if r.FirstLatencyMS != nil {
			a.LatencyMS = *r.FirstLatencyMS
		}
		if r.FirstResponse != nil {
			a.Response = *r.FirstResponse
		}
		d.Recent = append(d.Recent, a)
	}
	return d
}

// RecentAttempts is how many attempts a delivery lists (newest first).
const RecentAttempts = 50

func (s *Store) withAttempts(ctx context.Context, ds []domain.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	var rows []struct {
		ID          uuid.UUID  `bun:"id"`
		DeliveryID  uuid.UUID  `bun:"delivery_id"`
		Number      int        `bun:"number"`
		AttemptedAt time.Time  `bun:"attempted_at"`
		StatusCode  *int       `bun:"status_code"`
		LatencyMS   int64      `bun:"latency_ms"`
		Response    string     `bun:"response"`
		Error       *string    `bun:"error"`
		NextRetryAt *time.Time `bun:"next_retry_at"`
	}
	if err := s.conn(ctx).NewRaw(`SELECT x.id, x.delivery_id, x.number, x.attempted_at, x.status_code, x.latency_ms, x.response, x.error, x.next_retry_at
		FROM unnest(?::uuid[]) AS k(id) CROSS JOIN LATERAL (
			SELECT * FROM attempts a WHERE a.delivery_id = k.id ORDER BY a.attempted_at DESC, a.number DESC LIMIT ?) x`,
		pgArray(ids), RecentAttempts).Scan(ctx, &rows); err != nil {
		return wrap("attempts", err)
	}
	at := map[uuid.UUID]int{}
	for i, d := range ds {
		at[d.ID] = i
	}
	for _, r := range rows {
		i := at[r.DeliveryID]
		ds[i].Recent = append(ds[i].Recent, domain.Attempt{ID: r.ID, DeliveryID: r.DeliveryID, Number: r.Number,
			AttemptedAt: r.AttemptedAt.UTC(), StatusCode: r.StatusCode, LatencyMS: r.LatencyMS, Response: r.Response,
			Error: r.Error, NextRetryAt: r.NextRetryAt})
	}
	// The first attempt (from the row) among the later ones: newest first.
	for i := range ds {
		rec := ds[i].Recent
		sort.SliceStable(rec, func(a, b int) bool {
			if !rec[a].AttemptedAt.Equal(rec[b].AttemptedAt) {
				return rec[a].AttemptedAt.After(rec[b].AttemptedAt)
			}
			return rec[a].Number > rec[b].Number
		})
		if len(rec) > RecentAttempts {
			ds[i].Recent = rec[:RecentAttempts]
		}
	}
	return nil
}

// ListDeliveries is a page of the endpoint's deliveries with their
// recent attempts.
func (s *Store) ListDeliveries(ctx context.Context, endpointID uuid.UUID, f app.DeliveryFilter, p page.Params) ([]domain.Delivery, page.Meta, error) {
	q := s.conn(ctx).NewSelect().Model((*deliveryRow)(nil)).Where("d.endpoint_id = ?", endpointID)
	if f.Status != "" {
		q = q.Where("d.status = ?", f.Status)
	}
	rows, meta, err := pagebun.Fetch(ctx, q, p, "d.id", func(r deliveryRow) (any, uuid.UUID) { return r.CreatedAt, r.ID })
	if err != nil {
		return nil, page.Meta{}, wrap("list deliveries", err)
	}
	out := make([]domain.Delivery, len(rows))
	for i, r := range rows {
		out[i] = r.delivery()
	}
	return out, meta, s.withAttempts(ctx, out)
}

// FindDelivery is the endpoint's delivery id with its recent attempts.
func (s *Store) FindDelivery(ctx context.Context, endpointID, id uuid.UUID) (domain.Delivery, bool, error) {
	return s.findDelivery(ctx, "d.endpoint_id = ? AND d.id = ?", endpointID, id)
}

// DeliveryOfMessage is the endpoint's delivery of message messageID.
func (s *Store) DeliveryOfMessage(ctx context.Context, endpointID, messageID uuid.UUID) (domain.Delivery, bool, error) {
	return s.findDelivery(ctx, "d.endpoint_id = ? AND d.message_id = ?", endpointID, messageID)
}

func (s *Store) findDelivery(ctx context.Context, where string, args ...any) (domain.Delivery, bool, error) {
	var rows []deliveryRow
	if err := s.conn(ctx).NewSelect().Model(&rows).Where(where, args...).Scan(ctx); err != nil {
		return domain.Delivery{}, false, wrap("find delivery", err)
	}
	if len(rows) == 0 {
		return domain.Delivery{}, false, nil
	}
	out := []domain.Delivery{rows[0].delivery()}
	if err := s.withAttempts(ctx, out); err != nil {
		return domain.Delivery{}, false, err
	}
	return out[0], true, nil
}

func (s *Store) resend(ctx context.Context, endpointID uuid.UUID, where string, now time.Time, args ...any) (int, error) {
	db := s.conn(ctx)
	var lanes []string
	// A fresh series of attempts: the first attempt of the last one, kept
	// in the row, joins the others in attempts.
	q := `WITH o AS MATERIALIZED (
			SELECT id, first_attempt_id, first_attempted_at, first_status_code, first_latency_ms, first_response, first_error, first_next_retry_at
			FROM deliveries WHERE endpoint_id = ? AND ` + where + ` FOR UPDATE
		), r AS (
			UPDATE deliveries d SET status = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ?,
				first_attempt_id = NULL, first_attempted_at = NULL, first_status_code = NULL, first_latency_ms = NULL,
				first_response = NULL, first_error = NULL, first_next_retry_at = NULL
			FROM o WHERE d.id = o.id RETURNING d.lane
		), a AS (
			INSERT INTO attempts (id, delivery_id, number, attempted_at, status_code, latency_ms, response, error, next_retry_at)
			SELECT first_attempt_id, id, 1, first_attempted_at, first_status_code, coalesce(first_latency_ms, 0), coalesce(first_response, ''),
				first_error, first_next_retry_at
			FROM o WHERE first_attempt_id IS NOT NULL
		)
		SELECT lane FROM r`
	if err := db.NewRaw(q, append(append([]any{endpointID}, args...), now, now)...).Scan(ctx, &lanes); err != nil {
		return 0, wrap("resend deliveries", err)
	}
	if len(lanes) == 0 {
		return 0, nil
	}
	if err := lockLanes(ctx, db, same(endpointID, len(lanes)), lanes); err != nil {
		return 0, err
	}
	locked := make([]bool, len(lanes))
	for i := range locked {
		locked[i] = true
	}
	if err := refreshLanes(ctx, db, same(endpointID, len(lanes)), lanes, locked, now, now); err != nil {
		return 0, err
	}
	_, err := db.ExecContext(ctx, "SELECT pg_notify(?, '')", NotifyChannel)
	return len(lanes), wrap("notify", err)
}

// Resend makes deliveries ids pending again, due now.
func (s *Store) Resend(ctx context.Context, endpointID uuid.UUID, ids []uuid.UUID, now time.Time) (int, error) {
	return s.resend(ctx, endpointID, "id = ANY(?::uuid[])", now, pgArray(ids))
}

// ResendFailedSince makes the deliveries that failed since since pending
// again, due now.
func (s *Store) ResendFailedSince(ctx context.Context, endpointID uuid.UUID, since, now time.Time) (int, error) {
	return s.resend(ctx, endpointID, "status = 'failed' AND id IN (SELECT delivery_id FROM failures WHERE endpoint_id = ? AND failed_at >= ?)",
		now, endpointID, since)
}

// Purge deletes finished deliveries (and their attempts) last changed
// before finishedBefore, the messages left without deliveries, and the
// events parked before parkedBefore, a batch at a time.
func (s *Store) Purge(ctx context.Context, finishedBefore, parkedBefore time.Time) (int, error) {
	total := 0
	for {
		// Found by when they were created (the only time indexed): a
		// delivery finishes after it is created.
		res, err := s.db.NewRaw(`DELETE FROM deliveries WHERE id IN (
			SELECT id FROM deliveries WHERE created_at < ?0 AND status <> 'pending' AND updated_at < ?0 LIMIT 5000)`, finishedBefore).Exec(ctx)
		if err != nil {
			return total, wrap("purge deliveries", err)
		}
		n, _ := res.RowsAffected()
		total += int(n)
		if n < 5000 {
			break
		}
	}
	if _, err := s.db.NewRaw(`DELETE FROM messages m WHERE m.created_at < ?
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id)`, finishedBefore).Exec(ctx); err != nil {
		return total, wrap("purge messages", err)
	}
	if _, err := s.db.NewRaw("DELETE FROM parked_events WHERE parked_at < ?", parkedBefore).Exec(ctx); err != nil {
		return total, wrap("purge parked events", err)
	}
	return total, nil
}

// DueLag is how long the oldest due, unleased lane has waited at now (0
// when none is due).
func (s *Store) DueLag(ctx context.Context, now time.Time) (time.Duration, error) {
	var oldest *time.Time
	if err := s.db.NewRaw(`SELECT min(due_at) FROM lanes WHERE due_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`, now, now).
		Scan(ctx, &oldest); err != nil {
		return 0, wrap("due lag", err)
	}
	if oldest == nil {
		return 0, nil
	}
	return now.Sub(*oldest), nil
}

// RepairLanes recreates the lane of every pending delivery that has none
// (a safety net: Enqueue and the lane locks keep them; a hand-edited
// table might not), due at once; the number repaired.
func (s *Store) RepairLanes(ctx context.Context, now time.Time) (int, error) {
	res, err := s.db.NewRaw(`INSERT INTO lanes (endpoint_id, lane, due_at)
		SELECT DISTINCT p.endpoint_id, p.lane, ?::timestamptz FROM pending p
		WHERE NOT EXISTS (SELECT 1 FROM lanes l WHERE l.endpoint_id = p.endpoint_id AND l.lane = p.lane)
		ON CONFLICT (endpoint_id, lane) DO NOTHING`, now).Exec(ctx)
	if err != nil {
		return 0, wrap("repair lanes", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
